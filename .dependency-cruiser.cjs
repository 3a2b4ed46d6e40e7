/**
 * Import cycles are refused (`npm run lint`), type-only imports included: a cycle of types is
 * still two modules that cannot be read, moved or tested one without the other. The layer
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
