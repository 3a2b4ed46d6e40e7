import { describe, expect, it } from 'vitest';
import {
  accessMachine,
  accessTable,
  batchMachine,
  batchTable,
  jobMachine,
  jobTable,
  newAccessState,
  newBatchState,
  newJobState,
  nextAccessState,
  nextBatchState,
  nextJobState,
  type AccessEdge,
  type AccessEvent,
  type BatchEdge,
  type BatchEvent,
  type JobEdge,
  type JobEvent,
  type JobWorkingState,
} from '../../../machines/index.js';
import {
  accessEventSamples,
  batchEventSamples,
  jobEventSamples,
  lastSuccessBefore,
  storedAccess,
  storedBatch,
  storedJob,
} from './fixtures.js';
import { machineEdgeKeys, tableEdgeKeys } from './machine-edges.js';

const jobInput = { jobId: 'jid0000000001', batchId: 'bid0000000001' };

/** The stored job and event that should take `edge`: guards get a context that passes them. */
function jobScenario(edge: JobEdge) {
  const event = jobEventSamples[edge.event as JobEvent['type']][0] as JobEvent;
  const resumeAt = edge.guard?.type === 'hasLastSuccessIn' ? (edge.to as JobWorkingState) : undefined;
  const lastSuccessfulStatus = resumeAt ? lastSuccessBefore[resumeAt] : null;
  return { stored: storedJob(edge.from ?? 'pending', { lastSuccessfulStatus }), event };
}

/**
 * hasFailedJobs edges take the sample with failed jobs, their `else` twin the one without;
 * hasExpansionFailure edges a batch whose expansion failed, with a report that counted none.
 */
function batchScenario(edge: BatchEdge) {
  const samples = batchEventSamples[edge.event as BatchEvent['type']] as BatchEvent[];
  const wantsFailures = edge.guard?.type === 'hasFailedJobs';
  const expansionFailed = edge.guard?.type === 'hasExpansionFailure';
  const event =
    edge.event === 'report.done'
      ? samples.find((s) => s.type === 'report.done' && s.failedJobs > 0 === wantsFailures)
      : samples[0];
  if (!event) throw new Error(`no sample for ${edge.event}`);
  return { stored: storedBatch(edge.from ?? 'pending', { expansionFailed }), event };
}

describe('job table → machine: every edge is taken as written', () => {
  it.each(jobTable.filter((e) => e.from !== null))('$from --$event--> $to', (edge) => {
    const { stored, event } = jobScenario(edge);
    expect(nextJobState(stored, event)).toMatchObject({ ok: true, from: edge.from, to: edge.to });
  });
  it.each(jobTable.filter((e) => e.from === null))('(none) --$event--> $to', (edge) => {
    const event =
      edge.event === 'job.rejected' ? { type: 'job.rejected' as const, message: 'bad' } : undefined;
    expect(newJobState(jobInput, event)).toMatchObject({ ok: true, from: null, to: edge.to });
  });
});

describe('batch table → machine: every edge is taken as written', () => {
  it.each(batchTable.filter((e) => e.from !== null))('$from --$event--> $to', (edge) => {
    const { stored, event } = batchScenario(edge);
    expect(nextBatchState(stored, event)).toMatchObject({ ok: true, from: edge.from, to: edge.to });
  });
  it('(none) --batch.created--> pending', () => {
    expect(batchTable.filter((e) => e.from === null).map((e) => e.to)).toEqual(['pending']);
    expect(newBatchState({ batchId: 'bid0000000001' })).toMatchObject({
      ok: true,
      from: null,
      to: 'pending',
    });
  });
});

describe('access table → machine: every edge is taken as written', () => {
  it.each(accessTable.filter((e) => e.from !== null))('$from --$event--> $to', (edge: AccessEdge) => {
    const event = accessEventSamples[edge.event as AccessEvent['type']][0] as AccessEvent;
    const result = nextAccessState(storedAccess(edge.from ?? 'pending'), event);
    expect(result).toMatchObject({ ok: true, from: edge.from, to: edge.to });
  });
  it('(none) --access.created--> pending', () => {
    expect(accessTable.filter((e) => e.from === null).map((e) => e.to)).toEqual(['pending']);
    expect(newAccessState({ accessId: 'qid1', queue: 'large' })).toMatchObject({ ok: true, to: 'pending' });
  });
});

// The other direction: the machine defines no transition the table does not list, with the
// same guards, in the same order (guarded branches are tried in order).
describe('machine → table: the machines define exactly the table’s transitions', () => {
  it('job', () => {
    expect(machineEdgeKeys(jobMachine).sort()).toEqual(tableEdgeKeys(jobTable).sort());
  });
  it('batch', () => {
    expect(machineEdgeKeys(batchMachine).sort()).toEqual(tableEdgeKeys(batchTable).sort());
  });
  it('access', () => {
    expect(machineEdgeKeys(accessMachine).sort()).toEqual(tableEdgeKeys(accessTable).sort());
  });
  it('guarded branches come in table order, the unguarded one last', () => {
    for (const [machine, table] of [
      [jobMachine, jobTable],
      [batchMachine, batchTable],
    ] as const) {
      const ofGuardedGroups = (keys: string[]) =>
        keys.filter((key) => key.includes('admin.requeue') || key.includes('report.done'));
      expect(ofGuardedGroups(machineEdgeKeys(machine))).toEqual(ofGuardedGroups(tableEdgeKeys(table)));
    }
  });
});
