import { describe, expect, it } from 'vitest';
import {
  accessMachine,
  accessStates,
  accessTable,
  batchMachine,
  batchStates,
  batchTable,
  createAccessContext,
  createBatchContext,
  createJobContext,
  jobMachine,
  jobStates,
  jobTable,
  type TableEdge,
} from '../../../machines/index.js';
import { accessEventSamples, batchEventSamples, jobEventSamples } from './fixtures.js';
import { machineEventTypes } from './machine-edges.js';

function allowed(table: readonly TableEdge<string, string>[], state: string, event: string): boolean {
  return table.some((edge) => edge.from === state && edge.event === event);
}

function cases(
  states: readonly string[],
  events: readonly string[],
  table: readonly TableEdge<string, string>[],
) {
  return states.flatMap((state) =>
    events.map((event) => ({ state, event, expected: allowed(table, state, event) })),
  );
}

// Every state × every event, generated: `snapshot.can(event)` must be true exactly for the
// pairs the table lists. Events with several samples (guarded branches) are accepted when
// any sample is.
describe('job: state × event is accepted iff the table has the edge', () => {
  const context = createJobContext({ jobId: 'jid0000000001', batchId: 'bid0000000001' });
  it('the samples cover exactly the machine’s events', () => {
    expect(Object.keys(jobEventSamples).sort()).toEqual(machineEventTypes(jobMachine));
  });
  it.each(cases(jobStates, Object.keys(jobEventSamples), jobTable))(
    '$state + $event → accepted: $expected',
    ({ state, event, expected }) => {
      const snapshot = jobMachine.resolveState({ value: state, context });
      const samples = jobEventSamples[event as keyof typeof jobEventSamples];
      expect(samples.some((sample) => snapshot.can(sample))).toBe(expected);
    },
  );
});

describe('batch: state × event is accepted iff the table has the edge', () => {
  const context = createBatchContext({ batchId: 'bid0000000001' });
  it('the samples cover exactly the machine’s events', () => {
    expect(Object.keys(batchEventSamples).sort()).toEqual(machineEventTypes(batchMachine));
  });
  it.each(cases(batchStates, Object.keys(batchEventSamples), batchTable))(
    '$state + $event → accepted: $expected',
    ({ state, event, expected }) => {
      const snapshot = batchMachine.resolveState({ value: state, context });
      const samples = batchEventSamples[event as keyof typeof batchEventSamples];
      expect(samples.some((sample) => snapshot.can(sample))).toBe(expected);
    },
  );
});

describe('access: state × event is accepted iff the table has the edge', () => {
  const context = createAccessContext({ accessId: 'qid0000000001', queue: 'small' });
  it('the samples cover exactly the machine’s events', () => {
    expect(Object.keys(accessEventSamples).sort()).toEqual(machineEventTypes(accessMachine));
  });
  it.each(cases(accessStates, Object.keys(accessEventSamples), accessTable))(
    '$state + $event → accepted: $expected',
    ({ state, event, expected }) => {
      const snapshot = accessMachine.resolveState({ value: state, context });
      const samples = accessEventSamples[event as keyof typeof accessEventSamples];
      expect(samples.some((sample) => snapshot.can(sample))).toBe(expected);
    },
  );
});
