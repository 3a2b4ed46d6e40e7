import { createActor, fromPromise, waitFor } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  ActorNotProvidedError,
  hasRunningStep,
  jobMachine,
  jobMachineAt,
  jobStates,
  newJobState,
  nextJobState,
  resumeStateAfter,
  jobRequeueTable,
  restoreJob,
  type EstimateOutput,
  type JobStepInput,
  type ProvisionOutput,
} from '../../../machines/index.js';
import { allJobEvents, failingStep, pendingStep, storedJob, succeedingStep } from './fixtures.js';
import { jobTable, merrittJobLifecycle, type JobState } from '../../../machines/index.js';

describe('job machine', () => {
  it('names, for each state a job can fail from, the event that fails it: read from the machine, one per state', () => {
    const failing = Object.fromEntries(
      jobStates.flatMap((state) => {
        const event = merrittJobLifecycle.failureEvent(state);
        return event === undefined ? [] : [[state, event]];
      }),
    );
    expect(failing).toEqual({
      pending: 'job.rejected',
      estimating: 'estimate.failed',
      provisioning: 'provision.failed',
      downloading: 'download.failed',
      processing: 'process.failed',
      storing: 'store.failed',
      recording: 'record.failed',
      notify: 'notify.failed',
    });
    // Each is an edge of the table to failed, and carries its message into the job.
    for (const [state, event] of Object.entries(failing)) {
      expect(jobTable).toContainEqual(expect.objectContaining({ from: state, event, to: 'failed' }));
      const result = nextJobState(storedJob(state as JobState), {
        type: event,
        message: 'x is missing',
      } as never);
      expect(result).toMatchObject({ to: 'failed', context: { message: 'x is missing' } });
    }
  });

  it('has exactly the documented states', () => {
    expect(Object.keys(jobMachine.root.states)).toEqual([...jobStates]);
  });

  it('a new job starts pending with the seeds’ creation values', () => {
    expect(newJobState({ jobId: 'jid1', batchId: 'bid1' })).toEqual({
      ok: true,
      from: null,
      to: 'pending',
      context: {
        jobId: 'jid1',
        batchId: 'bid1',
        priority: 5,
        spaceNeeded: 0,
        retryCount: 0,
        lastSuccessfulStatus: null,
        message: null,
      },
    });
  });

  it('a job that can never run is created failed, with its reason', () => {
    const result = newJobState(
      { jobId: 'jid1', batchId: 'bid1' },
      { type: 'job.rejected', message: 'digest mismatch' },
    );
    expect(result).toMatchObject({
      to: 'failed',
      context: { message: 'digest mismatch', lastSuccessfulStatus: null },
    });
  });

  it('an event the state does not allow is INVALID_TRANSITION naming state and event', () => {
    expect(nextJobState(storedJob('completed'), { type: 'job.acquired' })).toEqual({
      ok: false,
      code: 'INVALID_TRANSITION',
      state: 'completed',
      event: 'job.acquired',
      message: 'event "job.acquired" is not allowed for a job in state completed',
    });
  });

  it('a stale worker’s result cannot move a job another worker already moved on', () => {
    expect(nextJobState(storedJob('processing'), { type: 'download.done' }).ok).toBe(false);
  });
});

describe('last_successful_status and retry_count (seed 003)', () => {
  it('a finished step becomes the last success; estimating sets space and priority', () => {
    const result = nextJobState(storedJob('estimating'), {
      type: 'estimate.done',
      spaceNeeded: 1e9,
      priority: 10,
    });
    expect(result).toMatchObject({
      to: 'provisioning',
      context: { lastSuccessfulStatus: 'estimating', spaceNeeded: 1e9, priority: 10, retryCount: 0 },
    });
  });

  it('a failure keeps the last success and records the message', () => {
    const stored = storedJob('downloading', { lastSuccessfulStatus: 'provisioning' });
    const result = nextJobState(stored, { type: 'download.failed', message: 'GET returned 503' });
    expect(result).toMatchObject({
      to: 'failed',
      context: { lastSuccessfulStatus: 'provisioning', message: 'GET returned 503', retryCount: 0 },
    });
  });

  const resumable = [
    null,
    'pending',
    'estimating',
    'provisioning',
    'downloading',
    'processing',
    'storing',
    'recording',
  ];
  it.each(resumable)(
    'a requeue of a job whose last success is %s resumes after it, retry_count + 1, last kept',
    (last) => {
      const stored = storedJob('failed', {
        lastSuccessfulStatus: last,
        retryCount: 2,
        message: 'earlier failure',
      });
      const result = nextJobState(stored, { type: 'admin.requeue' });
      expect(result).toMatchObject({
        ok: true,
        to: resumeStateAfter(last),
        context: { lastSuccessfulStatus: last, retryCount: 3, message: null },
      });
    },
  );

  it.each(jobStates.filter((state) => !resumable.includes(state)))(
    'a failed job whose last success is %s is not requeued, as mrt-admin leaves it (INVALID_TRANSITION)',
    (last) => {
      const result = nextJobState(storedJob('failed', { lastSuccessfulStatus: last }), {
        type: 'admin.requeue',
      });
      expect(result).toMatchObject({ ok: false, code: 'INVALID_TRANSITION', state: 'failed' });
    },
  );

  it('resumes at the step that failed, as mrt-admin’s requeue table (with Storing) says', () => {
    expect(resumeStateAfter('provisioning')).toBe('downloading');
    expect(resumeStateAfter('downloading')).toBe('processing');
    expect(resumeStateAfter('processing')).toBe('storing');
    expect(resumeStateAfter('storing')).toBe('recording');
    expect(resumeStateAfter('recording')).toBe('notify');
    expect(resumeStateAfter('notify')).toBeUndefined();
    expect(resumeStateAfter('Failed')).toBeUndefined();
    expect(resumeStateAfter('pending')).toBe('estimating');
    expect(resumeStateAfter(null)).toBe('estimating');
    expect(resumeStateAfter('estimating')).toBe('provisioning');
  });

  it('derives mrt-admin’s requeue table from the forward edges, row for row (merritt-protocols.md §6)', () => {
    expect(jobRequeueTable).toEqual([
      ['estimating', ['', 'pending']],
      ['provisioning', ['estimating']],
      ['downloading', ['provisioning']],
      ['processing', ['downloading']],
      ['storing', ['processing']],
      ['recording', ['storing']],
      ['notify', ['recording']],
    ]);
  });

  it('an operator fails a job that is not held, failed or final (mrt-admin Fail), keeping its last success', () => {
    const fail = { type: 'admin.fail', message: 'failed by an operator: storage node gone' } as const;
    const failable = jobStates.filter((state) => nextJobState(storedJob(state), fail).ok);
    expect(failable).toEqual(
      jobStates.filter((s) => !['held', 'completed', 'failed', 'deleted'].includes(s)),
    );
    const stored = storedJob('storing', { lastSuccessfulStatus: 'processing', retryCount: 1 });
    expect(nextJobState(stored, fail)).toMatchObject({
      ok: true,
      to: 'failed',
      context: { lastSuccessfulStatus: 'processing', retryCount: 1, message: fail.message },
    });
    // A requeue then resumes at the step it was failed in.
    expect(resumeStateAfter('processing')).toBe('storing');
  });

  it('the context stays JSON after every transition', () => {
    for (const status of jobStates) {
      for (const event of allJobEvents) {
        const result = nextJobState(storedJob(status), event);
        if (result.ok) expect(JSON.parse(JSON.stringify(result.context))).toEqual(result.context);
      }
    }
  });
});

describe('job steps', () => {
  const input = { jobId: 'jid1', batchId: 'bid1' };

  it('a failing estimate does not fail the job: space_needed becomes 0 (seed 003)', async () => {
    const machine = jobMachineAt('estimating').provide({
      actors: {
        estimate: failingStep<EstimateOutput, JobStepInput>('HEAD timed out'),
        provision: pendingStep<ProvisionOutput, JobStepInput>(),
      },
    });
    const actor = createActor(machine, { input: { ...input, spaceNeeded: 99 } }).start();
    const snapshot = await waitFor(actor, (s) => !s.matches('estimating'));
    expect(snapshot.value).toBe('provisioning');
    expect(snapshot.context).toMatchObject({ spaceNeeded: 0, lastSuccessfulStatus: 'estimating' });
    actor.stop();
  });

  it('short space keeps the job in provisioning, says why, and ends the step', async () => {
    const machine = jobMachineAt('provisioning').provide({
      actors: {
        provision: succeedingStep<ProvisionOutput, JobStepInput>({
          hasSpace: false,
          message: 'needs 2 GB, 1 GB free',
        }),
      },
    });
    const actor = createActor(machine, { input }).start();
    expect(hasRunningStep(actor.getSnapshot())).toBe(true);
    const snapshot = await waitFor(actor, (s) => !hasRunningStep(s));
    expect(snapshot.value).toBe('provisioning');
    expect(snapshot.context.message).toBe('needs 2 GB, 1 GB free');
  });

  it('a provision step that cannot tell keeps the job in provisioning too', async () => {
    const machine = jobMachineAt('provisioning').provide({
      actors: { provision: failingStep<ProvisionOutput, JobStepInput>('statfs failed') },
    });
    const actor = createActor(machine, { input }).start();
    const snapshot = await waitFor(actor, (s) => !hasRunningStep(s));
    expect(snapshot.value).toBe('provisioning');
    expect(snapshot.context.message).toMatch(/statfs failed/);
  });

  it('a step that was never provided stops the actor with an error naming it, and fails no job', async () => {
    const { machine, input: restored } = restoreJob(
      storedJob('downloading', { lastSuccessfulStatus: 'provisioning' }),
    );
    const actor = createActor(machine, { input: restored });
    const error = new Promise<unknown>((resolve) => actor.subscribe({ error: resolve }));
    actor.start();
    const thrown = await error;
    expect(thrown).toBeInstanceOf(ActorNotProvidedError);
    expect((thrown as ActorNotProvidedError).actor).toBe('download');
    expect(actor.getSnapshot().value).toBe('downloading');
  });

  it('each step receives the job’s context', async () => {
    const seen: JobStepInput[] = [];
    const estimate = fromPromise<EstimateOutput, JobStepInput>(({ input: stepInput }) => {
      seen.push(stepInput);
      return Promise.resolve({ spaceNeeded: 1 });
    });
    const machine = jobMachineAt('estimating').provide({
      actors: { estimate, provision: pendingStep<ProvisionOutput, JobStepInput>() },
    });
    const actor = createActor(machine, { input: { ...input, priority: 3, retryCount: 1 } }).start();
    await waitFor(actor, (s) => s.matches('provisioning'));
    actor.stop();
    expect(seen).toEqual([
      {
        jobId: 'jid1',
        batchId: 'bid1',
        priority: 3,
        spaceNeeded: 0,
        retryCount: 1,
        lastSuccessfulStatus: null,
        message: null,
      },
    ]);
  });
});
