import { defineConfig } from 'vitest/config';

/**
 * Scale runs (`npm run test:large`): the `.scale.test.ts` files under test/integration, alone on the machine,
 * with the integration tests' harness (one throwaway ZooKeeper, a chroot per file).
 */
export default defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: 'reports/vitest-scale.json' }]],
    include: ['test/integration/**/*.scale.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    maxWorkers: 1,
  },
});
