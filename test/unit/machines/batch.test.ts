import { createActor, fromPromise, waitFor } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  batchMachine,
  batchMachineAt,
  batchStates,
  hasRunningStep,
  newBatchState,
  nextBatchState,
  type ExpandOutput,
  type BatchStepInput,
  type ReportInput,
  type ReportOutput,
} from '../../../machines/index.js';
import { failingStep, storedBatch, succeedingStep } from './fixtures.js';

describe('batch machine', () => {
  it('has exactly the documented states', () => {
    expect(Object.keys(batchMachine.root.states)).toEqual([...batchStates]);
  });

  it('a new batch starts pending', () => {
    expect(newBatchState({ batchId: 'bid1' })).toMatchObject({ to: 'pending', context: { batchId: 'bid1' } });
  });

  it('reporting ends failed when some jobs failed, completed when none did', () => {
    const reporting = storedBatch('reporting');
    expect(nextBatchState(reporting, { type: 'report.done', completedJobs: 2, failedJobs: 1 })).toMatchObject(
      {
        to: 'failed',
        context: { completedJobs: 2, failedJobs: 1 },
      },
    );
    expect(nextBatchState(reporting, { type: 'report.done', completedJobs: 3, failedJobs: 0 })).toMatchObject(
      {
        to: 'completed',
        context: { completedJobs: 3, failedJobs: 0 },
      },
    );
  });

  it('a batch leaves processing for reporting when its jobs are done, or when it cannot be expanded', () => {
    const processing = storedBatch('processing');
    expect(nextBatchState(processing, { type: 'expand.done', jobCount: 4 })).toMatchObject({
      to: 'processing',
      context: { jobCount: 4 },
    });
    expect(nextBatchState(processing, { type: 'batch.jobs-done' })).toMatchObject({
      to: 'reporting',
      context: { expansionFailed: false },
    });
    expect(nextBatchState(processing, { type: 'expand.failed', message: 'not a manifest' })).toMatchObject({
      to: 'reporting',
      context: { message: 'not a manifest', expansionFailed: true },
    });
  });

  it.each(['reporting', 'update-reporting'] as const)(
    'a batch whose expansion failed ends failed once %s, keeping why',
    (state) => {
      const unexpanded = storedBatch(state, { expansionFailed: true, message: 'line 3: not a URL' });
      const done = { type: 'report.done', completedJobs: 0, failedJobs: 0 } as const;
      expect(nextBatchState(unexpanded, done)).toMatchObject({
        to: 'failed',
        context: { message: 'line 3: not a URL', expansionFailed: true },
      });
      const notSent = nextBatchState(unexpanded, { type: 'report.failed', message: 'SMTP refused' });
      expect(notSent).toMatchObject({
        to: 'failed',
        context: { message: 'line 3: not a URL; the report could not be sent: SMTP refused' },
      });
      // Sent again after it failed: the reason stays, the older report failure does not pile up.
      const again = storedBatch(state, {
        expansionFailed: true,
        message: notSent.ok ? notSent.context.message : '',
      });
      expect(nextBatchState(again, { type: 'report.failed', message: 'timeout' })).toMatchObject({
        context: { message: 'line 3: not a URL; the report could not be sent: timeout' },
      });
    },
  );

  it('a requeued job takes its failed batch back to processing', () => {
    const failed = storedBatch('failed', { failedJobs: 1, message: 'report: 1 failed' });
    expect(nextBatchState(failed, { type: 'batch.job-requeued' })).toMatchObject({
      to: 'processing',
      context: { message: null },
    });
  });

  it('a batch in reporting cannot take a requeued job (the admin layer must refuse or wait)', () => {
    expect(nextBatchState(storedBatch('reporting'), { type: 'batch.job-requeued' })).toMatchObject({
      ok: false,
      code: 'INVALID_TRANSITION',
    });
  });
});

describe('batch steps', () => {
  const input = { batchId: 'bid1' };

  it('expansion runs on entering processing and records the job count; the batch stays', async () => {
    const machine = batchMachineAt('processing').provide({
      actors: { expand: succeedingStep<ExpandOutput, BatchStepInput>({ jobCount: 7 }) },
    });
    const actor = createActor(machine, { input }).start();
    const snapshot = await waitFor(actor, (s) => !hasRunningStep(s));
    expect(snapshot.value).toBe('processing');
    expect(snapshot.context.jobCount).toBe(7);
  });

  it('an expansion that fails is reported with its message, and then the batch is failed', async () => {
    const reported: ReportInput[] = [];
    const report = fromPromise<ReportOutput, ReportInput>(({ input: reportInput }) => {
      reported.push(reportInput);
      return Promise.resolve({ completedJobs: 0, failedJobs: 0 });
    });
    const machine = batchMachineAt('processing').provide({
      actors: { expand: failingStep<ExpandOutput, BatchStepInput>('manifest line 3 is not a URL'), report },
    });
    const actor = createActor(machine, { input }).start();
    const snapshot = await waitFor(actor, (s) => s.matches('failed'));
    expect(snapshot.context.message).toBe('manifest line 3 is not a URL');
    expect(reported).toEqual([
      expect.objectContaining({ expansionFailed: true, message: 'manifest line 3 is not a URL' }),
    ]);
  });

  it.each([
    ['reporting', false],
    ['update-reporting', true],
  ] as const)('%s runs the report step, told whether it is an update (%s)', async (state, update) => {
    const inputs: ReportInput[] = [];
    const report = fromPromise<ReportOutput, ReportInput>(({ input: reportInput }) => {
      inputs.push(reportInput);
      return Promise.resolve({ completedJobs: 1, failedJobs: 0 });
    });
    const actor = createActor(batchMachineAt(state).provide({ actors: { report } }), { input }).start();
    await waitFor(actor, (s) => s.matches('completed'));
    expect(inputs).toEqual([expect.objectContaining({ batchId: 'bid1', update })]);
  });

  it('a report that cannot be sent fails the batch', async () => {
    const machine = batchMachineAt('reporting').provide({
      actors: { report: failingStep<ReportOutput, ReportInput>('SMTP refused') },
    });
    const actor = createActor(machine, { input }).start();
    const snapshot = await waitFor(actor, (s) => s.matches('failed'));
    expect(snapshot.context.message).toBe('SMTP refused');
  });
});
