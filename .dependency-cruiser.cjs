/**
 * Import cycles are refused (`npm run lint`), type-only imports included: a cycle of types is
 * still two modules that cannot be read, moved or tested one without the other. A port's
 * adapters are imported by the composition root alone. The layer
 * order itself is eslint-plugin-boundaries' (LAYERS in eslint.config.js).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other, directly or through others: break the cycle.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'port-adapters-from-the-composition-root',
      severity: 'error',
      comment:
        'A port never picks its own adapter: only src/steps/adapters.ts (the composition root) imports the adapters that implement storage, inventory and minter; everything else imports the port (port.ts).',
      from: { path: '^src/', pathNot: '^src/steps/adapters[.]ts$' },
      to: { path: '^src/steps/services/(storage|inventory|minter)/(http|local|ezid)[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
