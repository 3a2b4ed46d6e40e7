import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import {
  commitCounts,
  readLedger,
  startEngineProcess,
  type EngineProcess,
} from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { allSettledOrThrow } from '../../support/settled.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('engine processes sharing one ZooKeeper', () => {
  let ctx: QueueContext;
  let dir: string;
  const running: EngineProcess[] = [];

  async function engine(
    ledger: string,
    args: string[] = [],
    env: Record<string, string> = {},
  ): Promise<EngineProcess> {
    const started = await startEngineProcess(
      chroot.connectString(),
      ['--ledger', ledger, '--sweep', '0', ...args],
      env,
    );
    running.push(started);
    return started;
  }

  /** Polls the batch until it is completed, within timeoutMs. */
  function batchCompleted(bid: string, timeoutMs: number) {
    return eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      timeoutMs,
      100,
    );
  }

  async function stopAll(): Promise<void> {
    for (const p of running.splice(0)) {
      p.signal('SIGCONT');
      p.signal('SIGTERM');
      await p.exited;
    }
  }

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'mrtq-engines-'));
  });
  // A test that fails part way must not leave its processes running into the next test, where
  // they would take its work.
  afterEach(stopAll);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('three processes complete 500 jobs, each step of each job committed once, the batch reported once', async () => {
    const ledger = join(dir, 'three.jsonl');
    await allSettledOrThrow([engine(ledger), engine(ledger), engine(ledger)]);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:500',
      type: 'manifest',
    });
    const batch = await batchCompleted(bid, 120_000);
    expect(batch.jobCount).toBe(500);
    // Every SIGTERM ends with exit 0 after a graceful drain; the ledger is complete once they have
    // stopped (a commit is on ZooKeeper a moment before its ledger line is written).
    const codes = await Promise.all(
      running.splice(0).map(async (p) => {
        p.signal('SIGTERM');
        return p.exited;
      }),
    );
    expect(codes).toEqual([0, 0, 0]);
    const entries = readLedger(ledger);
    const counts = commitCounts(entries);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const jobCommits = entries.filter((e) => e.kind === 'commit' && e.item.startsWith('jid'));
    expect(jobCommits).toHaveLength(500 * 8);
    expect(entries.filter((e) => e.item === bid && e.event === 'report.done')).toHaveLength(1);
    // The work was shared out among the processes.
    expect(new Set(jobCommits.map((e) => e.pid)).size).toBe(3);
  }, 180_000);

  it('kill -9 of the process running a step: another process runs that step again and finishes the job', async () => {
    const ledger = join(dir, 'kill.jsonl');
    // Steps long enough for the kill to land inside one on a slow machine; a short session, so that the
    // rescuer gets the job soon after.
    const victim = await engine(ledger, ['--step-delay', '5000', '--limit', '1'], {
      ZK_SESSION_TIMEOUT_MS: '2000',
    });
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
    });
    // Wait until the victim is inside a job step (after the job left pending).
    const started = await eventually(
      () =>
        readLedger(ledger).find(
          (e) => e.kind === 'start' && e.item.startsWith('jid') && e.state === 'downloading',
        ),
      (e) => e !== undefined,
      30_000,
    );
    victim.signal('SIGKILL');
    await victim.exited;
    const rescuer = await engine(ledger, ['--step-delay', '50']);
    const batch = await batchCompleted(bid, 30_000);
    expect(batch.status).toBe('completed');
    const entries = readLedger(ledger).filter((e) => e.item === started!.item && e.state === 'downloading');
    // Started twice (the documented recovery: the step runs again), committed once, by the rescuer.
    expect(entries.filter((e) => e.kind === 'start').map((e) => e.pid)).toEqual([victim.pid, rescuer.pid]);
    expect(entries.filter((e) => e.kind === 'commit').map((e) => e.pid)).toEqual([rescuer.pid]);
  }, 90_000);

  it('a session that expires mid-step cannot commit; the job is finished by another process', async () => {
    const ledger = join(dir, 'freeze.jsonl');
    // Frozen in the job's first step: the steps before a later one would cost 5 s each.
    const FROZEN_IN = 'estimating';
    // Steps long enough for the freeze to land inside one on a slow machine; a session that expires while
    // the process is frozen.
    const frozen = await engine(ledger, ['--step-delay', '5000', '--limit', '1'], {
      ZK_SESSION_TIMEOUT_MS: '2000',
    });
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
    });
    const started = await eventually(
      () =>
        readLedger(ledger).find(
          (e) => e.kind === 'start' && e.item.startsWith('jid') && e.state === FROZEN_IN,
        ),
      (e) => e !== undefined,
      30_000,
    );
    frozen.signal('SIGSTOP');
    const other = await engine(ledger, ['--step-delay', '50']);
    const job = await eventually(
      () => loadJob(ctx, started!.item),
      (j) => j.status === 'completed',
      30_000,
      100,
    );
    expect(job.status).toBe('completed');
    frozen.signal('SIGCONT');
    // Give the thawed process time to drop its stale step (aborted on session loss, or commit refused).
    await eventually(
      () =>
        readLedger(ledger).filter(
          (e) => e.pid === frozen.pid && e.item === started!.item && e.state === FROZEN_IN,
        ),
      (entries) => entries.some((e) => e.kind === 'discard'),
      15_000,
      100,
    );
    const forStep = readLedger(ledger).filter((e) => e.item === started!.item && e.state === FROZEN_IN);
    expect(forStep.filter((e) => e.kind === 'commit').map((e) => e.pid)).toEqual([other.pid]);
    expect(forStep.filter((e) => e.pid === frozen.pid).map((e) => e.kind)).toEqual(['start', 'discard']);
    // The batch is reported after its last job; on a slow machine that may come after the discard.
    await batchCompleted(bid, 30_000);
    await stopAll(); // the ledger is complete once they have stopped
    expect([...commitCounts(readLedger(ledger)).values()].every((n) => n === 1)).toBe(true);
  }, 90_000);

  it('a process can serve a subset of states: an inventory-like process consumes only recording and notify', async () => {
    const ledger = join(dir, 'subset.jsonl');
    const ingest = await engine(ledger, [
      '--states',
      'pending,estimating,provisioning,downloading,processing,storing',
    ]);
    const inventory = await engine(ledger, ['--states', 'recording,notify', '--batches', 'none']);
    const reporter = await engine(ledger, ['--states', '', '--batches', 'expand,report,update-report']);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:20',
      type: 'manifest',
    });
    await batchCompleted(bid, 60_000);
    await stopAll(); // the ledger is complete once they have stopped
    const commits = readLedger(ledger).filter((e) => e.kind === 'commit');
    const byState = (states: string[]) =>
      new Set(commits.filter((e) => states.includes(e.state) && e.item.startsWith('jid')).map((e) => e.pid));
    expect(byState(['recording', 'notify'])).toEqual(new Set([inventory.pid]));
    expect(byState(['pending', 'estimating', 'provisioning', 'downloading', 'processing'])).toEqual(
      new Set([ingest.pid]),
    );
    expect(new Set(commits.filter((e) => e.item === bid).map((e) => e.pid))).toEqual(new Set([reporter.pid]));
  }, 90_000);

  it('a SIGTERM delivered twice (npm start forwards it) is one: the steps in flight finish and it exits 0', async () => {
    const ledger = join(dir, 'twice.jsonl');
    const slow = await engine(ledger, ['--step-delay', '1500', '--grace', '30000']);
    await createBatch(ctx, { profile_name: 'p', submitter: 's', payload_url: 'sim:2', type: 'manifest' });
    await eventually(
      () => readLedger(ledger).filter((e) => e.kind === 'start' && e.item.startsWith('jid')),
      (starts) => starts.length === 2,
      30_000,
    );
    slow.signal('SIGTERM');
    await sleep(100); // sooner, the kernel merges it with the first while that one is pending
    slow.signal('SIGTERM');
    expect(await slow.exited).toBe(0);
    running.splice(running.indexOf(slow), 1);
    expect(slow.output()).toContain('"msg":"stopped"');
    expect(readLedger(ledger).filter((e) => e.kind === 'discard')).toEqual([]);
  }, 90_000);

  it('SIGTERM stops acquiring, waits for in-flight steps up to the grace period, releases their locks and exits 0', async () => {
    const ledger = join(dir, 'grace.jsonl');
    const slow = await engine(ledger, ['--step-delay', '20000', '--grace', '500']);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
    });
    await eventually(
      () => readLedger(ledger).filter((e) => e.kind === 'start' && e.item.startsWith('jid')),
      (starts) => starts.length === 2,
      30_000,
    );
    const stopping = Date.now();
    slow.signal('SIGTERM');
    expect(await slow.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(5_000);
    running.splice(running.indexOf(slow), 1);
    const jobs = (await ctx.zk.getChildren('/jobs')).filter((n) => n !== 'states');
    const locks = await Promise.all(jobs.map((jid) => ctx.zk.exists(`/jobs/${jid}/lock`)));
    expect(locks.filter(Boolean)).toEqual([]);
    expect(readLedger(ledger).filter((e) => e.kind === 'discard' && e.reason === 'aborted')).toHaveLength(2);
    // Another process finishes what was interrupted.
    await engine(ledger, ['--step-delay', '10']);
    await batchCompleted(bid, 30_000);
  }, 90_000);
});
