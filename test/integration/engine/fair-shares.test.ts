import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { sharesPolicySchema } from '../../../src/engine/shares/policy.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { SHARES_POLICY, writePolicy } from '../../../src/queue/policies/store.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { createHttpApi } from '../../../src/http/index.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

// Issue 34, item 2: jobs are taken fairly across collections. Without it, a small batch of one
// collection submitted behind a big one's backlog waits for the whole backlog (its jobs sort after).

const chroot = useZkChroot();
const engines: Engine[] = [];

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.stop(1000)));
});

async function startEngine(ledger: LedgerEntry[]): Promise<Engine> {
  const engine = new Engine(
    {
      queue: queueContext(await chroot.connect()),
      // Steps slow enough that the big batch's jobs wait in pending: a backlog.
      ...createSimulatedSteps({ stepDelayMs: 20 }),
      ledger: { record: (entry) => ledger.push(entry) },
      log: pino({ level: 'silent' }),
    },
    { sweepIntervalMs: 0, limits: { pending: 2, estimating: 2 } },
  );
  engines.push(engine);
  await engine.start();
  return engine;
}

const submit = (ctx: QueueContext, collection: string, jobs: number) =>
  createBatch(ctx, {
    profile_name: `p-${collection}`,
    submitter: 's',
    payload_url: `sim:${jobs}`,
    type: 'manifest',
    collection,
  });

/** The jids of a batch of `count` jobs, once its expansion is done. */
async function jidsOf(ctx: QueueContext, bid: string, count: number): Promise<Set<string>> {
  const jobs = await eventually(
    () => listBatchJobs(ctx, bid),
    (list) => list.length === count,
    30_000,
    20,
  );
  return new Set(jobs.map(({ jid }) => jid));
}

/** The order in which jobs were taken in (their pending commit), by jid. */
const intakeOrder = (ledger: LedgerEntry[]) =>
  ledger.filter((e) => e.kind === 'commit' && e.state === 'pending').map((e) => e.item);

describe('fair shares across collections', () => {
  it("takes a small collection's jobs in turn with a big one's backlog, by weight", async () => {
    const ctx = queueContext(await chroot.connect());
    await writePolicy(ctx, SHARES_POLICY, sharesPolicySchema, { weights: { big: 1, small: 1 } });
    const ledger: LedgerEntry[] = [];
    await startEngine(ledger);
    const big = await submit(ctx, 'big', 200);
    const bigJobs = await jidsOf(ctx, big.bid, 200);
    // The big batch is under way, with a backlog, when the small one arrives.
    await eventually(
      () => intakeOrder(ledger).length,
      (n) => n >= 10,
      30_000,
      20,
    );
    const small = await submit(ctx, 'small', 8);
    const smallJobs = await jidsOf(ctx, small.bid, 8);
    expect((await batchSettled(ctx, small.bid)).status).toBe('completed');
    const order = intakeOrder(ledger);
    const firstSmall = order.findIndex((jid) => smallJobs.has(jid));
    const lastSmall = order.findLastIndex((jid) => smallJobs.has(jid));
    expect(order.filter((jid) => smallJobs.has(jid))).toHaveLength(8);
    // Equal weights: the small batch's 8 jobs alternate with the big one's, all in within 8 of
    // the big one's (and a few already chosen when they arrived), not after its 190 left.
    const bigBetween = order.slice(firstSmall, lastSmall + 1).filter((jid) => bigJobs.has(jid)).length;
    expect(bigBetween).toBeLessThanOrEqual(10);
    const bigBefore = order.slice(0, lastSmall).filter((jid) => bigJobs.has(jid)).length;
    expect(bigBefore).toBeLessThan(100);
    expect((await batchSettled(ctx, big.bid)).status).toBe('completed');
  }, 120_000);

  it('never has more of a capped collection at work than its cap', async () => {
    const ctx = queueContext(await chroot.connect());
    await writePolicy(ctx, SHARES_POLICY, sharesPolicySchema, { caps: { capped: 3 } });
    const ledger: LedgerEntry[] = [];
    await startEngine(ledger);
    const capped = await submit(ctx, 'capped', 40);
    const free = await submit(ctx, 'free', 40);
    const cappedJobs = await jidsOf(ctx, capped.bid, 40);
    // At work: taken in (its pending commit) and not yet completed (its notify commit).
    let atWork = 0;
    let most = 0;
    const seen = new Set<number>();
    const check = () => {
      for (const [i, e] of ledger.entries()) {
        if (seen.has(i) || e.kind !== 'commit' || !cappedJobs.has(e.item)) continue;
        seen.add(i);
        if (e.state === 'pending') atWork++;
        if (e.state === 'notify') atWork--;
        most = Math.max(most, atWork);
      }
    };
    const settled = Promise.all([batchSettled(ctx, capped.bid), batchSettled(ctx, free.bid)]);
    await settled;
    check();
    expect((await loadBatch(ctx, capped.bid)).status).toBe('completed');
    expect(atWork).toBe(0);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
  }, 120_000);

  it('the API reads and changes the policies, refusing what their schema refuses', async () => {
    const ctx = queueContext(await chroot.connect());
    const ledger: LedgerEntry[] = [];
    const engine = await startEngine(ledger);
    const api = createHttpApi(await apiDeps(ctx, { engine }));
    const headers = { authorization: `Bearer ${TOKEN}` };
    try {
      const bad = await api.inject({
        method: 'PUT',
        url: '/policies/retry',
        headers,
        payload: { policy: { default: { first_delay: 'soon' } } },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toContain(
        'default.first_delay: "soon" is not a duration',
      );
      const set = await api.inject({
        method: 'PUT',
        url: '/policies/retry',
        headers,
        payload: { policy: { steps: { notify: { attempts: 8 } } } },
      });
      expect(set.statusCode).toBe(200);
      expect((await api.inject({ method: 'GET', url: '/policies/retry' })).json()).toMatchObject({
        value: { steps: { notify: { attempts: 8 } } },
        defaults: { attempts: 5, firstDelayMs: 30_000 },
      });
      const weight = await api.inject({
        method: 'POST',
        url: '/policies/shares/ucb',
        headers,
        payload: { weight: 3, cap: 10 },
      });
      expect(weight.statusCode).toBe(200);
      const unauthorised = await api.inject({
        method: 'POST',
        url: '/policies/shares/ucb',
        payload: { weight: 1 },
      });
      expect(unauthorised.statusCode).toBe(401);
      await submit(ctx, 'ucb', 3);
      await eventually(
        () => intakeOrder(ledger).length,
        (n) => n >= 3,
        30_000,
        20,
      );
      const shares = (await api.inject({ method: 'GET', url: '/policies/shares' })).json<{
        value: { weights: Record<string, number>; caps: Record<string, number> };
        use: { key: string; weight: number; cap?: number }[];
      }>();
      expect(shares.value).toMatchObject({ weights: { ucb: 3 }, caps: { ucb: 10 } });
      expect(shares.use.find((use) => use.key === 'ucb')).toMatchObject({ weight: 3, cap: 10 });
      expect((await api.inject({ method: 'GET', url: '/retries' })).json()).toEqual({ waiting: [] });
    } finally {
      await api.close();
    }
  }, 60_000);
});
