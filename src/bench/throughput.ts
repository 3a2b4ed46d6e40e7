import { batchRoles, merrittJobLifecycle } from '../../machines/index.js';
import { percentile } from './stats.js';
import {
  cpuMsSoFar,
  startBenchEngine,
  submitSimulated,
  waitForBatch,
  type TimedEntry,
} from './engine-run.js';
import { listBatchJobs } from '../queue/batches/jobs.js';
import type { EngineOptions } from '../engine/engine.js';
import type { QueueContext } from '../queue/tree/context.js';
import { persist } from './retry.js';

/** The state a job that went all the way ends in. */
const COMPLETED = merrittJobLifecycle.enteredBy('notify.done');

export interface ThroughputResult {
  jobs: number;
  jobsPerS: number;
  transitionsPerS: number;
  transitionsPerJob: number;
  zkRequestsPerJob: number;
  /**
   * This process's CPU time (the engine, its ledger, the submitter waiting) per job, from the first
   * job commit until the batch is seen finished (the window's end and up to one status poll more).
   */
  cpuMsPerJob: number;
  seconds: number;
}

const isJob = (e: TimedEntry) => e.item.startsWith('jid');

/**
 * N jobs in one batch driven through every state to completed by a real engine (in this
 * process, its own session) with steps that do no work. The window runs from the first job
 * transition to the last job's completion, so the batch's expansion is not in it; ZooKeeper
 * requests are the engine session's within that window.
 */
export async function engineThroughput(
  connectString: string,
  submitter: QueueContext,
  jobs: number,
  options: EngineOptions = {},
): Promise<ThroughputResult> {
  const bench = await startBenchEngine(connectString, options);
  try {
    const bid = await submitSimulated(submitter, jobs);
    await waitForBatch(submitter, bid, 600_000);
    const cpuMs = cpuMsSoFar() - (bench.cpuMsAtFirstJobCommit() ?? Number.NaN);
    const commits = bench.entries.filter((e) => e.kind === 'commit' && isJob(e));
    const first = commits[0]!;
    const last = commits.filter((e) => e.to === COMPLETED).at(-1)!;
    const seconds = (last.at - first.at) / 1000;
    const requests = last.requests - first.requests;
    return {
      jobs,
      jobsPerS: jobs / seconds,
      transitionsPerS: commits.length / seconds,
      transitionsPerJob: commits.length / jobs,
      zkRequestsPerJob: requests / jobs,
      cpuMsPerJob: cpuMs / jobs,
      seconds,
    };
  } finally {
    await bench.stop();
  }
}

/**
 * Time from a batch's last job completing to the batch's reporting commit (processing →
 * reporting), over many small batches submitted one after another to a running engine.
 */
export async function completionLatency(
  connectString: string,
  submitter: QueueContext,
  batches: number,
  jobsPerBatch = 2,
): Promise<{ p50Ms: number; p99Ms: number; samples: number }> {
  const bench = await startBenchEngine(connectString);
  try {
    const bids: string[] = [];
    for (let i = 0; i < batches; i++) {
      const bid = await submitSimulated(submitter, jobsPerBatch);
      bids.push(bid);
      await waitForBatch(submitter, bid, 60_000);
    }
    const completedAt = new Map<string, number>();
    for (const e of bench.entries)
      if (e.kind === 'commit' && e.to === COMPLETED && isJob(e)) completedAt.set(e.item, e.at);
    const latencies: number[] = [];
    for (const bid of bids) {
      const reporting = bench.entries.find(
        (e) => e.kind === 'commit' && e.item === bid && e.to === batchRoles.reporting,
      );
      const jids = (await persist('batch jobs', () => listBatchJobs(submitter, bid))).map((j) => j.jid);
      const lastJob = Math.max(...jids.map((jid) => completedAt.get(jid) ?? Number.NaN));
      if (reporting && Number.isFinite(lastJob)) latencies.push(reporting.at - lastJob);
    }
    return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), samples: latencies.length };
  } finally {
    await bench.stop();
  }
}

/** Jobs created per second by the engine's expansion of a batch of `objects` (simulated manifest). */
export async function expansionRate(
  connectString: string,
  submitter: QueueContext,
  objects: number,
): Promise<number> {
  const bench = await startBenchEngine(connectString, { jobStates: [], batchWork: ['expand'] });
  try {
    const bid = await submitSimulated(submitter, objects);
    const until = Date.now() + 600_000;
    for (;;) {
      const done = bench.entries.find(
        (e) => e.kind === 'commit' && e.item === bid && e.event === 'expand.done',
      );
      if (done) {
        const start = bench.entries.find((e) => e.kind === 'start' && e.item === bid)!;
        return objects / ((done.at - start.at) / 1000);
      }
      if (Date.now() > until) throw new Error(`expansion of ${bid} did not finish`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await bench.stop();
  }
}
