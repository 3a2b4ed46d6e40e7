import { defineConfig } from 'vitest/config';

/**
 * Chaos and load runs of a minute or more each (their fast profiles): `npm run test:long`, and
 * at full size in `npm run test:chaos`. Outside `npm test`, which CI runs within its 15 minutes.
 */
const LONG = [
  'test/integration/chaos/failover.test.ts',
  'test/integration/chaos/freeze.test.ts',
  'test/integration/chaos/operator-races.test.ts',
  'test/integration/chaos/partition.test.ts',
  'test/integration/chaos/scale.test.ts',
  'test/integration/chaos/zk-kill.test.ts',
  'test/integration/http/events-backpressure.test.ts',
];

/**
 * Test files of a worker share its loaded modules (no module graph per file): no test mocks a
 * module, and each file makes its own state (sessions, servers, folders). Measured on this 2-core
 * machine: the unit project 80 s → 23 s, the integration project's module loading 180 s → 20 s of
 * its summed time, with the same 2,2xx tests passing.
 */
const ISOLATE = false;

const INTEGRATION = {
  isolate: ISOLATE,
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // Two cores: ZooKeeper needs one of them. Runs after the unit tests.
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    // The JSON report is what .ci/run counts passed and failed tests from.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: ISOLATE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Scale runs (tens of thousands of jobs) saturate both cores for a minute and starve the
          // tests that time a server restart: they run alone, `npm run test:large`.
          exclude: ['test/integration/**/*.scale.test.ts', ...LONG],
          ...INTEGRATION,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'long',
          include: LONG,
          ...INTEGRATION,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
