// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';

/**
 * The layers of DESIGN.md §5, innermost first. A module may import its own layer and any layer
 * before it, never one after it, so a back-edge fails `npm run lint`. Each cross-cutting module
 * sits at the innermost layer its own imports allow. A new top-level module must be added here
 * (`boundaries/no-unknown-files`).
 * @type {{ [module: string]: string[] }[]}
 */
const LAYERS = [
  // Pure machine definitions: no I/O, no logging, no clocks; xstate only (last policy below).
  { machines: ['machines/**'] },
  // Leaves that import nothing of ours.
  {
    telemetry: ['src/telemetry/**'],
    logger: ['src/logger.ts'],
    'endpoint-file': ['src/endpoint-file.ts'],
    'package-root': ['src/package-root.ts'],
    'serve-flags': ['src/serve-flags.ts'],
    // SIGINT/SIGTERM for the service and the benchmark: one interrupt delivered twice is one.
    signals: ['src/signals.ts'],
    // Append-only JSON-lines files (audit log, histories): node's fs and sonic-boom only.
    journal: ['src/journal/**'],
  },
  // The one reader of process.env and config files, and the settings' types: it imports leaves only.
  { config: ['src/config/**'] },
  // Who acts and with what role: credentials, and the role each action needs.
  { auth: ['src/auth/**'] },
  { zk: ['src/zk/**'] },
  { queue: ['src/queue/**'] },
  // The audit log of operator actions: written by the API, the CLI and the admin operations.
  { audit: ['src/audit/**'] },
  { streams: ['src/streams/**'] },
  { steps: ['src/steps/**'] },
  { engine: ['src/engine/**'] },
  // Each job's and batch's history, written from the engine's ledger; read by the API and CLI.
  { history: ['src/history/**'] },
  // What operators read and do, above the engine: the engine and the steps never import them.
  { doctor: ['src/doctor/**'] },
  { views: ['src/views/**'] },
  { admin: ['src/admin/**'] },
  // Rules over the queue's state (a queue that stopped, an old batch…), for /metrics and the dashboard.
  { alerts: ['src/alerts/**'] },
  { http: ['src/http/**'] },
  // Composition roots: they wire concrete instances.
  {
    service: ['src/service.ts', 'src/service-startup.ts'],
    bench: ['src/bench/**'],
    demo: ['src/demo/**'],
    inspect: ['src/inspect/**'],
    'zk-server': ['src/zk-server/**'],
  },
  // The command line dispatches to the roots (`mrtq serve` starts the service).
  { cli: ['src/cli/**'] },
  // Process entry points, and the telemetry bootstrap they load first.
  { bin: ['bin/**'], scripts: ['scripts/**'], otel: ['otel/**'] },
];
const layerFiles = LAYERS.flatMap((layer) =>
  Object.entries(layer).map(([category, pattern]) => ({ category, pattern })),
);
const layerPolicies = [
  // Packages and Node built-ins: anyone, except as narrowed for machines/ below.
  { allow: { to: { module: { origin: ['external', 'core'] } } } },
  ...LAYERS.flatMap((layer, rank) =>
    Object.keys(layer).map((category) => ({
      from: { file: { categories: category } },
      allow: {
        to: { file: { categories: LAYERS.slice(0, rank + 1).flatMap((inner) => Object.keys(inner)) } },
      },
    })),
  ),
  {
    from: { file: { categories: 'machines' } },
    disallow: { to: { module: { origin: ['external', 'core'], source: '!xstate' } } },
    message:
      'machines/ is pure and imports only machines/ and xstate, not {{dependency.source}} (DESIGN.md §5)',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'coverage/', '.data/', 'reports/', 'dist/', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // Only src/zk talks to the ZooKeeper client library.
    files: ['**/*.ts'],
    ignores: ['src/zk/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'node-zookeeper-client', message: 'Only src/zk may import node-zookeeper-client' }],
        },
      ],
    },
  },
  {
    // Dependencies point inward (DESIGN.md §5): see LAYERS above.
    files: ['src/**', 'machines/**', 'scripts/**', 'bin/**', 'otel/**'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/files': layerFiles,
      'boundaries/files-single-match': true,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      // Resolves the `.js` specifiers of our ESM sources to their `.ts` files.
      'import/resolver': { typescript: { project: `${import.meta.dirname}/tsconfig.json` } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkAllOrigins: true,
          checkUnknownLocals: true,
          policies: layerPolicies,
          message:
            '{{from.file.categories}} must not import {{#if to.file.categories}}{{to.file.categories}}{{else}}a module outside LAYERS{{/if}} ({{dependency.source}}): dependencies point inward (DESIGN.md §5, LAYERS in eslint.config.js)',
        },
      ],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    // The command line, scripts and tests talk to a terminal.
    files: ['src/cli/**', 'scripts/**', 'test/**', 'bin/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
);
