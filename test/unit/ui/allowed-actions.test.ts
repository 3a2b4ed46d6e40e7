import { describe, expect, it } from 'vitest';
import {
  batchStates,
  createBatchContext,
  createJobContext,
  jobStates,
  type BatchState,
  type JobState,
} from '../../../machines/index.js';
import { allowedBatchActions, allowedJobActions } from '../../../src/http/dashboard/allowed-actions.js';

const job = (status: JobState, lastSuccessfulStatus: JobState | null = null) => ({
  ...createJobContext({ jobId: 'jid1', batchId: 'bid1', lastSuccessfulStatus }),
  status,
});
const batch = (status: BatchState) => ({ ...createBatchContext({ batchId: 'bid1' }), status });

describe('the actions an operator is offered: those the lifecycle machines accept now', () => {
  it('offers each job state exactly the admin events the job machine accepts there', () => {
    const offered = Object.fromEntries(jobStates.map((state) => [state, allowedJobActions(job(state))]));
    expect(offered).toEqual({
      pending: ['hold', 'fail'],
      held: ['release', 'delete'],
      estimating: ['fail'],
      provisioning: ['fail'],
      downloading: ['fail'],
      processing: ['fail'],
      storing: ['fail'],
      recording: ['fail'],
      notify: ['fail'],
      completed: [],
      failed: ['requeue', 'delete'],
      deleted: [],
    });
  });

  it('offers a failed job its requeue when its last success says where to resume, but not while its batch reports', () => {
    for (const last of [null, 'estimating', 'downloading', 'processing', 'storing'] as const)
      expect(allowedJobActions(job('failed', last), 'failed')).toEqual(['requeue', 'delete']);
    // mrt-admin's table has no restart state after Notify: the job stays failed.
    expect(allowedJobActions(job('failed', 'notify'), 'failed')).toEqual(['delete']);
    expect(allowedJobActions(job('failed'), 'reporting')).toEqual(['delete']);
    expect(allowedJobActions(job('failed'), 'update-reporting')).toEqual(['delete']);
    expect(allowedJobActions(job('failed'), 'processing')).toEqual(['requeue', 'delete']);
  });

  it('offers each batch state exactly the admin events the batch machine accepts there', () => {
    const offered = Object.fromEntries(
      batchStates.map((state) => [state, allowedBatchActions(batch(state))]),
    );
    expect(offered).toEqual({
      pending: ['hold'],
      held: ['release', 'delete'],
      processing: [],
      reporting: [],
      completed: [],
      failed: ['update-report', 'delete'],
      'update-reporting': [],
      // The store finishes removing a deleted batch when asked again.
      deleted: ['delete'],
    });
  });
});
