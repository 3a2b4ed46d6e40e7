// Runs a sample job, a failing-then-requeued job and a batch through the lifecycle machines
// with trivial steps, all attached to the Stately inspector through the local relay.
//
//   npm run inspect                      # prints the URL, runs, keeps the relay up for 5 minutes
//   npm run inspect -- --port 9090       # another relay port
//   npm run inspect -- --linger 30       # keep the relay up 30 s after the run
//   npm run inspect -- --once            # run and exit (tests, CI)
//
// The relay replays its last 200 messages to every new client, so the page shows the run
// even when opened after it finished. Ctrl-C stops at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  createActor,
  fromPromise,
  waitFor,
  type AnyActorRef,
  type InspectionEvent,
  type Observer,
} from 'xstate';
import {
  batchMachine,
  jobMachine,
  restoreJob,
  type BatchStepInput,
  type DownloadOutput,
  type EstimateOutput,
  type ExpandOutput,
  type JobStepInput,
  type ProvisionOutput,
  type ReportInput,
  type ReportOutput,
} from '../machines/index.js';
import { DEFAULT_INSPECTOR_PORT, startInspector } from '../src/inspect/index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: String(DEFAULT_INSPECTOR_PORT) },
    linger: { type: 'string', default: '300' },
    once: { type: 'boolean', default: false },
  },
});
const once = values.once;
/** Long enough to watch the states change in the browser; short with --once. */
const stepMs = once ? 20 : 600;

/** A step that takes `stepMs` and then returns `output`, or fails with `failure`. */
function step<TOutput, TInput>(output: TOutput, failure?: string) {
  return fromPromise<TOutput, TInput>(async ({ signal }) => {
    await sleep(stepMs, undefined, { signal });
    if (failure) throw new Error(failure);
    return output;
  });
}

function jobSteps(downloadFailure?: string) {
  return {
    estimate: step<EstimateOutput, JobStepInput>({ spaceNeeded: 1_000_000, priority: 5 }),
    provision: step<ProvisionOutput, JobStepInput>({ hasSpace: true }),
    download: step<DownloadOutput, JobStepInput>({ spaceNeeded: 1_200_000 }, downloadFailure),
    process: step<void, JobStepInput>(undefined),
    record: step<void, JobStepInput>(undefined),
    notify: step<void, JobStepInput>(undefined),
  };
}

async function settled(actor: AnyActorRef, ...states: string[]): Promise<void> {
  await waitFor(actor, (snapshot: { matches(state: string): boolean }) =>
    states.some((state) => snapshot.matches(state)),
  );
}

async function runJob(inspect: Observer<InspectionEvent>, jobId: string): Promise<void> {
  const actor = createActor(jobMachine.provide({ actors: jobSteps() }), {
    input: { jobId, batchId: 'bid0000000001' },
    inspect,
  }).start();
  actor.send({ type: 'job.acquired' });
  await settled(actor, 'completed');
}

/** Fails while downloading, then an operator requeue resumes it at downloading. */
async function runFailingJob(inspect: Observer<InspectionEvent>, jobId: string): Promise<void> {
  const failing = createActor(
    jobMachine.provide({ actors: jobSteps('GET https://example.org/f1 returned 503') }),
    {
      input: { jobId, batchId: 'bid0000000001' },
      inspect,
    },
  ).start();
  failing.send({ type: 'job.acquired' });
  await settled(failing, 'failed');
  failing.stop();
  // A fresh actor restored from the failed job, as the engine would after the operator's requeue.
  const { machine, input } = restoreJob({ ...failing.getSnapshot().context, status: 'failed' });
  const resumed = createActor(machine.provide({ actors: jobSteps() }), { input, inspect }).start();
  resumed.send({ type: 'admin.requeue' });
  await settled(resumed, 'completed');
}

async function runBatch(inspect: Observer<InspectionEvent>): Promise<void> {
  const actor = createActor(
    batchMachine.provide({
      actors: {
        expand: step<ExpandOutput, BatchStepInput>({ jobCount: 2 }),
        report: step<ReportOutput, ReportInput>({ completedJobs: 2, failedJobs: 0 }),
      },
    }),
    { input: { batchId: 'bid0000000001' }, inspect },
  ).start();
  actor.send({ type: 'batch.acquired' });
  await waitFor(actor, (snapshot) => snapshot.context.jobCount > 0);
  await Promise.all([runJob(inspect, 'jid0000000001'), runFailingJob(inspect, 'jid0000000002')]);
  actor.send({ type: 'batch.jobs-done' });
  await settled(actor, 'completed', 'failed');
}

async function main(): Promise<void> {
  const inspector = await startInspector({ port: Number(values.port) });
  const stop = async (code: number): Promise<never> => {
    await inspector.stop();
    // A browser page keeps its connection to the relay open; do not wait for it.
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(130));
  console.log(`Stately inspector: ${inspector.url}  (relay ${inspector.relayUrl})`);
  await runBatch(inspector.inspect);
  console.log('Sample batch and jobs completed.');
  if (!once) {
    console.log(`Keeping the relay up for ${values.linger} s; Ctrl-C to stop.`);
    await sleep(Number(values.linger) * 1000);
  }
  await stop(0);
}

await main();
