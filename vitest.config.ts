import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The JSON report is what .ci/run counts passed and failed tests from.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Scale runs (tens of thousands of jobs) saturate both cores for a minute and starve the
          // tests that time a server restart: they run alone, `npm run test:large`.
          exclude: ['test/integration/**/*.scale.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: ZooKeeper needs one of them. Runs after the unit tests.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
