import { expect } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { checkLedger } from './ledger-check.js';
import type { LedgerLine } from './ledger-check.js';
import { checkQueue, report, violations, type CheckOptions, type ExpectedBatch } from './invariants.js';
import type { ChaosProfile } from './profile.js';

/**
 * Ends a scenario: checks every invariant on the queue and the ledger, prints the summary line,
 * and fails naming each violation. Returns the summary line.
 */
export async function finishScenario(options: {
  scenario: string;
  profile: ChaosProfile;
  ctx: QueueContext;
  batches: readonly ExpectedBatch[];
  ledger: readonly LedgerLine[];
  counts: Record<string, number>;
  startedAt: number;
  /** See {@link CheckOptions}: doctor must report exactly these items (broken on purpose). */
  expectedDoctorItems?: CheckOptions['expectedDoctorItems'];
}): Promise<string> {
  const queue = await checkQueue(options.ctx, options.batches, options.ledger, {
    expectedDoctorItems: options.expectedDoctorItems,
  });
  const summary = {
    scenario: options.scenario,
    profile: options.profile,
    queue,
    ledger: checkLedger(options.ledger),
    counts: options.counts,
    seconds: (Date.now() - options.startedAt) / 1000,
  };
  const line = report(summary);
  expect(violations(summary), `${line}\n(reproduce with MRTQ_CHAOS_SEED=${options.profile.seed})`).toEqual(
    [],
  );
  return line;
}
