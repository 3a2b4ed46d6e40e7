import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { batchChild, jobChild, jobStateFolder, parseRefName } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { decodeJsonObject } from '../../../src/queue/tree/wire.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import type { LedgerLine } from '../../support/chaos/ledger-check.js';
import { apiUrlOf, Operator, type JobAction } from '../../support/chaos/operator.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { waitTerminal } from '../../support/chaos/stuck.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const profile = chaosProfile();
const TOKEN = 'chaos-operator-token';
const WORKING = ['estimating', 'provisioning', 'downloading', 'processing', 'recording', 'notify'];
/** States a step failure fails a job in: estimating and provisioning never fail (job.machine.ts). */
const FAILING = ['downloading', 'processing', 'recording', 'notify'];
/** Where an action finds jobs it applies to. */
const FOLDERS: Readonly<Record<JobAction, readonly string[]>> = {
  hold: ['pending'],
  release: ['held'],
  requeue: ['failed'],
  delete: ['held', 'failed'],
};
const ACTIONS: readonly JobAction[] = ['hold', 'hold', 'hold', 'release', 'requeue', 'requeue', 'delete'];

/** A simulated batch: which positions fail for good (failAt) and which only until requeued (failOnce). */
interface Plan {
  jobs: number;
  failAt: Record<string, string>;
  failOnce: Record<string, string>;
}

interface Submitted {
  bid: string;
  plan: Plan;
}

function planBatch(): Plan {
  const jobs = profile.size(20, 60);
  const failAt: Record<string, string> = {};
  const failOnce: Record<string, string> = {};
  const positions = new Set<number>();
  while (positions.size < profile.size(5, 10)) positions.add(profile.between(0, jobs - 1));
  for (const position of positions) {
    const chosen = profile.random() < 0.4 ? failAt : failOnce;
    chosen[String(position)] = profile.pick(FAILING);
  }
  return { jobs, failAt, failOnce };
}

function jobsDone(ledger: readonly LedgerLine[], bid: string): number {
  return ledger.filter((e) => e.kind === 'commit' && e.item === bid && e.event === 'batch.jobs-done').length;
}

describe('chaos 5, operator races: hold, release, requeue and delete while workers act on the same jobs', () => {
  let ctx: QueueContext;
  let dir: string;
  let cluster: EngineCluster | undefined;
  let operator: Operator;
  let apis: string[];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'chaos-operator-'));
  });
  afterAll(() => {
    cluster?.killAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const jidsIn = async (state: string): Promise<string[]> =>
    (await ctx.zk.getChildren(jobStateFolder(state)))
      .map((name) => parseRefName(name)?.jid)
      .filter((jid): jid is string => jid !== undefined);

  /** A job the action applies to if there is one; a quarter of the time, one a worker is on. */
  async function targetOf(action: JobAction): Promise<string | undefined> {
    const folder = profile.random() < 0.25 ? profile.pick(WORKING) : profile.pick(FOLDERS[action]);
    const jids = await jidsIn(folder);
    return jids.length > 0 ? profile.pick(jids) : undefined;
  }

  /** Holds a few jobs of a new batch the moment they appear, racing the pending consumers. */
  async function holdAsExpanded(): Promise<void> {
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const pending = await jidsIn('pending');
      if (pending.length > 0) {
        const targets = new Set(Array.from({ length: profile.between(1, 4) }, () => profile.pick(pending)));
        await Promise.all([...targets].map((jid) => operator.act('hold', jid, 'http', profile.pick(apis))));
        return;
      }
      await sleep(5);
    }
  }

  /** Seeded actions on seeded jobs, through the CLI now and then, else the API, until `ends()`. */
  async function operate(ends: () => number): Promise<void> {
    while (Date.now() < ends()) {
      const action = profile.pick(ACTIONS);
      const channel = profile.random() < profile.size(0.12, 0.2) ? 'cli' : 'http';
      const jid = await targetOf(action);
      if (jid) await operator.act(action, jid, channel, profile.pick(apis));
      await sleep(profile.between(30, 300));
    }
  }

  /** Batches arrive one after another while two operators act; the race ends a while after the last. */
  async function race(): Promise<Submitted[]> {
    const batches: Submitted[] = [];
    let ends = Number.POSITIVE_INFINITY;
    const submitting = async () => {
      for (let i = 0; i < profile.size(4, 10); i++) {
        const plan = planBatch();
        const simulate = { failAt: plan.failAt, failOnce: plan.failOnce };
        const submission = { profile_name: 'chaos', submitter: 'chaos', type: 'manifest', simulate };
        const { bid } = await createBatch(ctx, { ...submission, payload_url: `sim:${plan.jobs}` });
        batches.push({ bid, plan });
        await holdAsExpanded();
        await sleep(profile.between(3000, 5000));
      }
      ends = Date.now() + profile.size(4000, 20_000);
    };
    await Promise.all([submitting(), operate(() => ends), operate(() => ends)]);
    return batches;
  }

  /** The report of a batch and when it was committed (ZooKeeper's clock). */
  async function reportOf(bid: string) {
    const path = batchChild(bid, 'status-report');
    const { data, stat } = await ctx.zk.getData(path);
    const report = decodeJsonObject(path, data) as { failed_jobs?: string[] };
    return { failed: report.failed_jobs ?? [], at: stat.mtime };
  }

  /** Whether every job the report lists as failed but which is deleted was deleted after the report. */
  async function deletedSinceReport(bid: string): Promise<boolean> {
    const report = await reportOf(bid);
    const since: boolean[] = [];
    for (const jid of report.failed) {
      const { data, stat } = await ctx.zk.getData(jobChild(jid, 'status'));
      const status = (JSON.parse(data!.toString()) as { status?: string }).status?.toLowerCase();
      if (status === 'deleted') since.push(stat.mtime > report.at);
    }
    return since.length > 0 && since.every(Boolean);
  }

  /**
   * The operator tidies up: releases every held job, requeues the jobs that failed only once, and
   * asks for an updated report where a failed job was deleted after its batch reported. A job
   * deleted BEFORE its batch's report was committed but listed in it as failed is an engine defect
   * this must not paper over: no update is asked for, and the invariants report it.
   */
  async function tidyUp(batches: readonly Submitted[]): Promise<void> {
    const api = apis[0]!;
    const bids = batches.map((b) => b.bid);
    const settle = () => waitTerminal(ctx, bids, profile, profile.size(60_000, 300_000));
    for (const jid of await jidsIn('held')) await operator.insist('release', jid, api);
    await settle();
    for (const jid of await jidsIn('failed')) {
      const job = await loadJob(ctx, jid);
      if (job.configuration.simulate_fail_once_at !== undefined) await operator.insist('requeue', jid, api);
    }
    await settle();
    for (const bid of bids) {
      const failed = (await loadBatch(ctx, bid)).status === 'failed';
      if (failed && (await deletedSinceReport(bid))) await operator.insist('update-report', bid, api);
    }
    await settle();
  }

  /**
   * Reports expected per batch: one per reporting episode. An episode begins when the engine
   * moves the batch to reporting (`batch.jobs-done`, in the ledger) or an operator's update-report
   * is accepted. Whether an accepted requeue reopened its batch (failed → processing) or found it
   * still processing depends on timing the outcomes do not show, so the episodes are counted from
   * the ledger, and bounded: each one beyond the first needs an accepted requeue in the batch.
   */
  async function reportEpisodes(batches: readonly Submitted[], ledger: readonly LedgerLine[]) {
    const episodes = new Map<string, number>();
    const unjustified: string[] = [];
    const accepted = (action: string, id: (o: string) => boolean) =>
      operator.outcomes.filter((o) => o.action === action && o.result === 'accepted' && id(o.id)).length;
    for (const { bid } of batches) {
      const jids = new Set((await listBatchJobs(ctx, bid)).map((r) => r.jid));
      const done = jobsDone(ledger, bid);
      const requeues = accepted('requeue', (id) => jids.has(id));
      if (done < 1 || done > 1 + requeues)
        unjustified.push(`${bid}: ${done} reporting episodes, ${requeues} requeues accepted`);
      episodes.set(bid, done + accepted('update-report', (id) => id === bid));
    }
    return { episodes, unjustified };
  }

  it(
    'every action is accepted or refused with a clear message, and each job ends as the accepted actions say',
    async () => {
      const startedAt = Date.now();
      const engines = profile.size(2, 3);
      cluster = new EngineCluster(
        () => chroot.connectString(),
        join(dir, 'ledger.jsonl'),
        // Steps take a while and few run at once, so jobs wait in every state for operators to hit.
        ['--step-delay', String(profile.size(300, 400)), '--limit', '2'],
        { MRTQ_API_TOKEN: TOKEN },
      );
      await cluster.start(engines);
      apis = cluster.running.map(apiUrlOf);
      operator = new Operator(() => chroot.connectString(), TOKEN);

      const batches = await race();
      await tidyUp(batches);
      expect(await cluster.stopAll()).toEqual(Array(engines).fill(0));

      // Each job's terminal state follows from its inputs and the accepted actions.
      const deleted = new Set(
        operator.outcomes.filter((o) => o.action === 'delete' && o.result === 'accepted').map((o) => o.id),
      );
      const ledger = cluster.ledger();
      const { episodes, unjustified } = await reportEpisodes(batches, ledger);
      const outcomes = (result: string) => operator.outcomes.filter((o) => o.result === result).length;
      await finishScenario({
        scenario: 'operator-races',
        profile,
        ctx,
        batches: batches.map(({ bid, plan }) => ({
          bid,
          jobs: plan.jobs,
          terminal: (position, jid) =>
            deleted.has(jid) ? 'deleted' : plan.failAt[String(position)] ? 'failed' : 'completed',
          reports: episodes.get(bid),
        })),
        ledger,
        counts: {
          engines,
          actions: operator.outcomes.length,
          cli: operator.outcomes.filter((o) => o.channel === 'cli').length,
          holds: operator.count('hold'),
          releases: operator.count('release'),
          requeues: operator.count('requeue'),
          deletes: operator.count('delete'),
          update_reports: operator.count('update-report'),
          refused: outcomes('refused'),
          busy: outcomes('busy'),
          report_episodes: [...episodes.values()].reduce((a, b) => a + b, 0),
        },
        startedAt,
      });
      expect(operator.problems(), 'every refusal is clear, every acceptance lands').toEqual([]);
      expect(unjustified, 'a batch reports again only after a requeue').toEqual([]);
      expect(operator.count('hold') + operator.count('requeue') + operator.count('delete')).toBeGreaterThan(
        0,
      );
    },
    profile.size(180_000, 1_200_000),
  );
});
