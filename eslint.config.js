// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'coverage/', '.data/', 'reports/'] },
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
    // Machines are pure: no I/O, no logging, no clocks (DESIGN.md §5).
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'net', 'http', 'https', 'child_process'],
              message: 'machines/ must not do I/O',
            },
            {
              group: ['node-zookeeper-client', 'pino', 'rxjs', '**/src/**'],
              message: 'machines/ must stay pure',
            },
          ],
        },
      ],
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
