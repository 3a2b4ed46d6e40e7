import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { retryJobNow } from '../../../src/admin/retry-now.js';
import { createHttpApi } from '../../../src/http/index.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { retryPolicySchema } from '../../../src/engine/retry/policy.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { currentRetry } from '../../../src/queue/jobs/retry-record.js';
import { RETRY_POLICY, writePolicy } from '../../../src/queue/policies/store.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { batchJobRecords, batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { ledgerCommitted } from '../../support/ledger-committed.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { runCli } from '../../support/run-cli.js';

// Issue 34, item 1: a transient failure is tried again by the engine itself, with backoff; the
// wait lives in ZooKeeper, so another engine and a restart honour it; a permanent failure, or the
// last attempt allowed, fails the job at once; the batch reports once, after its last job.

const chroot = useZkChroot();
const engines: Engine[] = [];

async function startEngine(ledger: LedgerEntry[] = []): Promise<Engine> {
  const engine = new Engine(
    {
      queue: queueContext(await chroot.connect()),
      ...createSimulatedSteps(),
      ledger: { record: (entry) => ledger.push(entry) },
      log: pino({ level: 'silent' }),
      engineId: `test-${engines.length}`,
    },
    { sweepIntervalMs: 0 },
  );
  engines.push(engine);
  await engine.start();
  return engine;
}

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.stop(1000)));
});

const statusOf = async (ctx: QueueContext, jid: string) => (await loadJob(ctx, jid)).status;

describe('retry policies', () => {
  it('retries transient failures with backoff, fails permanent ones and exhausted ones, reports once', async () => {
    const ctx = queueContext(await chroot.connect());
    const policy = { default: { attempts: 4, first_delay: '300ms', max_delay: '1s', jitter: 0 } };
    await writePolicy(ctx, RETRY_POLICY, retryPolicySchema, policy);
    const ledger: LedgerEntry[] = [];
    await startEngine(ledger);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:5',
      type: 'manifest',
      simulate: {
        transientAt: { '0': 'downloading', '1': 'storing', '2': 'notify' },
        transientTimes: { '0': 2, '1': 1 },
        failAt: { '3': 'processing' },
      },
    });
    const batch = await batchSettled(ctx, bid, 60_000);
    expect(batch.status).toBe('failed');
    await ledgerCommitted(ledger, bid, { event: 'report.done' });
    const [twice, once, always, permanent, clean] = await batchJobRecords(ctx, bid);

    // Transient twice, then through: no retry record left, retry_count untouched (Merritt's meaning).
    expect(twice).toMatchObject({ status: 'completed', retryCount: 0 });
    expect(twice!.retryNode).toBeUndefined();
    expect(once).toMatchObject({ status: 'completed', retryCount: 0 });
    expect(clean).toMatchObject({ status: 'completed' });
    const retries = ledger.filter((e) => e.kind === 'commit' && e.event === 'step.retry');
    expect(retries.filter((e) => e.item === twice!.jobId).map((e) => e.state)).toEqual([
      'downloading',
      'downloading',
    ]);
    expect(retries.filter((e) => e.item === once!.jobId).map((e) => e.state)).toEqual(['storing']);

    // Transient every time: four attempts (the policy's), then failed with the count and the class kept.
    expect(always!.status).toBe('failed');
    expect(always!.message).toContain('gave up after 4 attempts');
    expect(currentRetry(always!.retry, always!)).toMatchObject({
      state: 'notify',
      class: 'transient',
      code: 'SIMULATED_TRANSIENT',
      failures: 4,
      limit: 4,
    });
    expect(currentRetry(always!.retry, always!)?.next_attempt).toBeUndefined();
    expect(retries.filter((e) => e.item === always!.jobId)).toHaveLength(3);

    // Permanent: failed at the first attempt, its class stored with it.
    expect(permanent).toMatchObject({ status: 'failed', message: 'simulated failure while processing' });
    expect(currentRetry(permanent!.retry, permanent!)).toMatchObject({ class: 'permanent', failures: 0 });

    // The batch reported once, after its last job settled.
    const batchCommits = ledger.filter((e) => e.kind === 'commit' && e.item === bid).map((e) => e.event);
    expect(batchCommits).toEqual(['batch.acquired', 'expand.done', 'batch.jobs-done', 'report.done']);
  }, 90_000);

  it('the wait lives in ZooKeeper: another engine honours it, and a retry now runs it at once', async () => {
    const ctx = queueContext(await chroot.connect());
    await writePolicy(ctx, RETRY_POLICY, retryPolicySchema, {
      default: { first_delay: '1h', max_delay: '2h', jitter: 0 },
    });
    const first = await startEngine();
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
      simulate: { transientAt: { '0': 'downloading' }, transientTimes: { '0': 1 } },
    });
    const [waiting] = await eventually(
      () => batchJobRecords(ctx, bid),
      (jobs) => jobs.length === 1 && currentRetry(jobs[0]!.retry, jobs[0]!)?.next_attempt !== undefined,
      30_000,
    );
    const jid = waiting!.jobId;
    const record = currentRetry(waiting!.retry, waiting!)!;
    expect(waiting!.status).toBe('downloading');
    expect(waiting!.message).toContain('attempt 1 of 5');
    expect(waiting!.message).toContain(`next attempt at ${record.next_attempt}`);
    expect(Date.parse(record.next_attempt!) - Date.now()).toBeGreaterThan(50 * 60_000);

    // A new engine (the first one stopped, as a restart would) passes it by: a batch submitted
    // after it completes through the new engine while the waiting job stays as it was.
    await first.stop(1000);
    engines.splice(engines.indexOf(first), 1);
    const ledger: LedgerEntry[] = [];
    await startEngine(ledger);
    const other = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
    });
    expect((await batchSettled(ctx, other.bid)).status).toBe('completed');
    expect(ledger.some((e) => e.item === jid)).toBe(false);
    const still = await loadJob(ctx, jid);
    expect(still).toMatchObject({ status: 'downloading', statusVersion: waiting!.statusVersion });

    // The CLI lists it with when and why, and prints the policy in force.
    const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);
    const listed = await mrtq('retries');
    expect(listed.stdout).toContain(
      `${jid} downloading next attempt ${record.next_attempt} (1 of 5, transient SIMULATED_TRANSIENT)`,
    );
    expect(JSON.parse((await mrtq('policy', 'retry')).stdout)).toMatchObject({
      default: { first_delay: 3_600_000 },
    });
    const refused = await mrtq('policy', 'retry', '--set', '{"default":{"jitter":2}}');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('default.jitter');

    // The API shows the wait (when and why) and offers the retry now; the operator's retry now,
    // from another session, makes the engine that passed it by run it at once.
    const api = createHttpApi(await apiDeps(ctx));
    try {
      const shown = (await api.inject({ method: 'GET', url: `/jobs/${jid}` })).json<{
        retry: { waiting: boolean; next_attempt: string; class: string; code: string };
        allowedActions: string[];
      }>();
      expect(shown.retry).toMatchObject({
        waiting: true,
        next_attempt: record.next_attempt,
        class: 'transient',
        code: 'SIMULATED_TRANSIENT',
      });
      expect(shown.allowedActions).toEqual(['fail', 'retry']);
      const headers = { authorization: `Bearer ${TOKEN}` };
      const retried = await api.inject({ method: 'POST', url: `/jobs/${jid}/retry`, headers });
      expect(retried.statusCode).toBe(200);
    } finally {
      await api.close();
    }
    expect((await batchSettled(ctx, bid)).status).toBe('completed');
    expect(await statusOf(ctx, jid)).toBe('completed');
    await expect(retryJobNow(ctx, jid)).rejects.toThrow('is not waiting to retry');
  }, 90_000);
});
