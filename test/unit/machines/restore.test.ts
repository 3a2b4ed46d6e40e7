import { createActor, waitFor, type AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  accessStates,
  batchStates,
  jobStates,
  restoreAccess,
  restoreBatch,
  restoreJob,
  type AccessState,
  type AccessStepInput,
  type BatchState,
  type BatchStepInput,
  type DownloadOutput,
  type EstimateOutput,
  type ExpandOutput,
  type JobState,
  type JobStepInput,
  type ProvisionOutput,
  type ReportInput,
  type ReportOutput,
} from '../../../machines/index.js';
import { failingStep, storedAccess, storedBatch, storedJob, succeedingStep } from './fixtures.js';

// The engine restores an item at its stored state and runs it from there. Each test restores
// at one state with real (trivial) steps, sends only what a consumer or an operator would
// send, and waits for the item to end up completed or failed.

function jobSteps(ran: string[], failNotify = false) {
  return {
    estimate: succeedingStep<EstimateOutput, JobStepInput>({ spaceNeeded: 10, priority: 6 }, ran, 'estimate'),
    provision: succeedingStep<ProvisionOutput, JobStepInput>({ hasSpace: true }, ran, 'provision'),
    download: succeedingStep<DownloadOutput, JobStepInput>({ spaceNeeded: 12 }, ran, 'download'),
    process: succeedingStep<void, JobStepInput>(undefined, ran, 'process'),
    store: succeedingStep<void, JobStepInput>(undefined, ran, 'store'),
    record: succeedingStep<void, JobStepInput>(undefined, ran, 'record'),
    notify: failNotify
      ? failingStep<void, JobStepInput>('callback returned 500', ran, 'notify')
      : succeedingStep<void, JobStepInput>(undefined, ran, 'notify'),
  };
}

/** What a consumer or operator sends for a job waiting in `state` (working states need nothing). */
const jobNudges: Partial<Record<JobState, string[]>> = {
  pending: ['job.acquired'],
  held: ['admin.release', 'job.acquired'],
  failed: ['admin.requeue'],
};

/** What a job stored in each state has as last success (a failed one resumes at notify, the longest resume). */
const storedLastSuccess: Partial<Record<JobState, JobState>> = {
  provisioning: 'estimating',
  downloading: 'provisioning',
  processing: 'downloading',
  storing: 'processing',
  recording: 'storing',
  notify: 'recording',
  failed: 'recording',
};

/** The step each working state runs first when a job is restored there. */
const firstStep: Partial<Record<JobState, string>> = {
  estimating: 'estimate',
  provisioning: 'provision',
  downloading: 'download',
  processing: 'process',
  storing: 'store',
  recording: 'record',
  notify: 'notify',
};

async function settle(actor: AnyActorRef, done: (value: string) => boolean): Promise<string> {
  const snapshot = (await waitFor(actor, (s: { value: string }) => done(s.value), { timeout: 2_000 })) as {
    value: string;
  };
  return snapshot.value;
}

async function driveJob(status: JobState, failNotify: boolean) {
  const ran: string[] = [];
  const stored = storedJob(status, { lastSuccessfulStatus: storedLastSuccess[status] ?? null });
  const { machine, input } = restoreJob(stored);
  const actor = createActor(machine.provide({ actors: jobSteps(ran, failNotify) }), { input }).start();
  expect(actor.getSnapshot().value).toBe(status);
  for (const type of jobNudges[status] ?? []) actor.send({ type } as never);
  const end = await settle(actor, (value) => value === 'completed' || value === 'failed');
  return { end, ran, context: actor.getSnapshot().context };
}

const drivable = jobStates.filter((s) => s !== 'completed' && s !== 'deleted');

describe('a job restored at any state is driven to completed or failed from there', () => {
  it.each(drivable)('restored at %s, it ends completed', async (status) => {
    const { end, ran, context } = await driveJob(status, false);
    expect(end).toBe('completed');
    expect(ran.at(-1)).toBe('notify');
    if (firstStep[status]) expect(ran[0]).toBe(firstStep[status]);
    expect(context.lastSuccessfulStatus).toBe('notify');
  });

  it.each(drivable)('restored at %s, with a failing notify, it ends failed', async (status) => {
    const { end, context } = await driveJob(status, true);
    expect(end).toBe('failed');
    expect(context).toMatchObject({ lastSuccessfulStatus: 'recording', message: 'callback returned 500' });
  });

  it('restored at completed, it is already done and accepts nothing', () => {
    const { machine, input } = restoreJob(storedJob('completed', { lastSuccessfulStatus: 'notify' }));
    const actor = createActor(machine, { input }).start();
    expect(actor.getSnapshot()).toMatchObject({ status: 'done', value: 'completed' });
    expect(actor.getSnapshot().can({ type: 'admin.requeue' })).toBe(false);
  });

  it('restored at deleted, it is final: nothing can move it to completed or failed', () => {
    const { machine, input } = restoreJob(storedJob('deleted'));
    const actor = createActor(machine, { input }).start();
    expect(actor.getSnapshot()).toMatchObject({ status: 'done', value: 'deleted' });
    expect(actor.getSnapshot().can({ type: 'admin.requeue' })).toBe(false);
  });

  it('covers every job state', () => {
    expect([...drivable, 'completed', 'deleted'].sort()).toEqual([...jobStates].sort());
  });
});

function batchSteps(failedJobs: number) {
  return {
    expand: succeedingStep<ExpandOutput, BatchStepInput>({ jobCount: 3 }),
    report: succeedingStep<ReportOutput, ReportInput>({ completedJobs: 3 - failedJobs, failedJobs }),
  };
}

const batchNudges: Partial<Record<BatchState, string[]>> = {
  pending: ['batch.acquired'],
  held: ['admin.release', 'batch.acquired'],
  failed: ['admin.update-report'],
};

async function driveBatch(status: BatchState, failedJobs: number): Promise<string> {
  const { machine, input } = restoreBatch(storedBatch(status));
  const actor = createActor(machine.provide({ actors: batchSteps(failedJobs) }), { input }).start();
  for (const type of batchNudges[status] ?? []) actor.send({ type } as never);
  if (actor.getSnapshot().value === 'processing') {
    // The engine sends jobs-done when batch-processing is empty, after the expansion.
    await waitFor(actor, (s) => s.context.jobCount > 0, { timeout: 2_000 });
    actor.send({ type: 'batch.jobs-done' });
  }
  return settle(actor, (value) => value === 'completed' || value === 'failed');
}

const drivableBatch = batchStates.filter((s) => s !== 'completed' && s !== 'deleted');

describe('a batch restored at any state is driven to completed or failed from there', () => {
  it.each(drivableBatch)('restored at %s, with no failed jobs it ends completed', async (status) => {
    expect(await driveBatch(status, 0)).toBe('completed');
  });
  it.each(drivableBatch)('restored at %s, with failed jobs it ends failed', async (status) => {
    expect(await driveBatch(status, 1)).toBe('failed');
  });
  it.each(['completed', 'deleted'] as const)('restored at %s, it is final', (status) => {
    const { machine, input } = restoreBatch(storedBatch(status));
    expect(createActor(machine, { input }).start().getSnapshot().status).toBe('done');
  });
});

const accessNudges: Partial<Record<AccessState, string[]>> = {
  pending: ['access.acquired'],
  failed: ['admin.requeue', 'access.acquired'],
};

async function driveAccess(status: AccessState, fail: boolean): Promise<string> {
  const { machine, input } = restoreAccess(storedAccess(status));
  const assemble = fail
    ? failingStep<void, AccessStepInput>('object too large')
    : succeedingStep<void, AccessStepInput>(undefined);
  const actor = createActor(machine.provide({ actors: { assemble } }), { input }).start();
  for (const type of accessNudges[status] ?? []) actor.send({ type } as never);
  return settle(actor, (value) => value === 'completed' || value === 'failed');
}

describe('an access request restored at any state is driven to completed or failed from there', () => {
  const drivableAccess = accessStates.filter((s) => s !== 'completed' && s !== 'deleted');
  it.each(drivableAccess)('restored at %s, it ends completed', async (status) => {
    expect(await driveAccess(status, false)).toBe('completed');
  });
  it.each(drivableAccess)('restored at %s, with a failing assembly it ends failed', async (status) => {
    expect(await driveAccess(status, true)).toBe('failed');
  });
  it('restored at deleted, it is final', () => {
    const { machine, input } = restoreAccess(storedAccess('deleted'));
    expect(createActor(machine, { input }).start().getSnapshot().status).toBe('done');
  });
  it('restored at completed, it runs nothing and only an operator delete moves it', () => {
    const { machine, input } = restoreAccess(storedAccess('completed'));
    const actor = createActor(machine, { input }).start();
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().children).toEqual({});
    actor.send({ type: 'admin.delete' });
    expect(actor.getSnapshot().value).toBe('deleted');
  });
});
