import { pino } from 'pino';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { accessItem } from '../../../src/engine/items/access.js';
import { runItem } from '../../../src/engine/items/item-runner.js';
import type { EngineDeps } from '../../../src/engine/deps.js';
import { jobItem } from '../../../src/engine/items/job.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { StepAbortedError } from '../../../src/engine/step-runner.js';
import { createAccess, loadAccess, type AcquiredAccess } from '../../../src/queue/access/requests.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob, type AcquiredJob } from '../../../src/queue/jobs/acquire.js';
import { releaseLock, tryLock, type HeldLock } from '../../../src/queue/locks/lock.js';
import { ACCESS } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import type { AccessSteps } from '../../../src/steps/contracts.js';
import { ZkError, type ZkClient } from '../../../src/zk/index.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** An access request run as the engine's access consumer runs it. */
const runAccessRequest = (
  deps: EngineDeps,
  steps: AccessSteps,
  acquired: AcquiredAccess,
  signal: AbortSignal,
) => runItem(deps, accessItem(steps), acquired, signal);

/** A pending job taken as the engine's pending consumer takes it: resolves with the state committed. */
const takePendingJob = async (
  deps: EngineDeps,
  acquired: AcquiredJob,
  signal = AbortSignal.timeout(10_000),
): Promise<string | undefined> => (await runItem(deps, jobItem, acquired, signal))?.status;
const simulated = createSimulatedSteps();

let ctx: QueueContext;
beforeAll(async () => {
  ctx = queueContext(await chroot.connect());
  await ensureQueueTree(ctx.zk);
});

/** A new request in the small queue, locked by `queue`'s session as the engine's consumer would. */
async function takeNew(queue: QueueContext = ctx): Promise<AcquiredAccess> {
  const qid = await createAccess(ctx, 'small', { token: 't' });
  const attempt = await tryLock(queue, `${ACCESS}/small/${qid}`);
  if (!attempt.held) throw new Error(`${qid} not locked`);
  return { request: await loadAccess(queue, 'small', qid), lock: attempt.lock };
}

/** What runAccessRequest needs, with a ledger kept in memory. */
function depsFor(queue: QueueContext = ctx): { deps: EngineDeps; ledger: LedgerEntry[] } {
  const ledger: LedgerEntry[] = [];
  const deps: EngineDeps = {
    ...simulated,
    queue,
    ledger: { record: (entry) => ledger.push(entry) },
    log: pino({ level: 'silent' }),
    heldCollections: () => new Set(),
  };
  return { deps, ledger };
}

const lockExists = async ({ lock }: { lock: HeldLock }): Promise<boolean> =>
  (await ctx.zk.exists(lock.path)) !== undefined;

/**
 * The queue over a client whose multis fail with CONNECTION_LOSS as `lose` says, after being
 * applied or not: a commit whose answer never came.
 */
function losingAnswers(lose: (call: number) => 'applied' | 'not-applied' | undefined): QueueContext {
  let calls = 0;
  const multi: ZkClient['multi'] = async (ops) => {
    const lost = lose(calls++);
    if (lost === 'not-applied') throw new ZkError('CONNECTION_LOSS', { operation: 'multi' });
    const results = await ctx.zk.multi(ops);
    if (lost === 'applied') throw new ZkError('CONNECTION_LOSS', { operation: 'multi' });
    return results;
  };
  const zk = new Proxy(ctx.zk, {
    get: (target, key) => {
      if (key === 'multi') return multi;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ...ctx, zk };
}

describe('an access request run through the item runner', () => {
  it('is in the ledger: taken, its step started and committed, each at the status version it read', async () => {
    const acquired = await takeNew();
    const { deps, ledger } = depsFor();
    await runAccessRequest(deps, simulated.accessSteps, acquired, AbortSignal.timeout(10_000));
    const { accessId: item, statusVersion: version } = acquired.request;
    expect(ledger).toEqual([
      { kind: 'commit', item, state: 'pending', version, event: 'access.acquired', to: 'processing' },
      { kind: 'start', item, state: 'processing', version: version + 1 },
      {
        kind: 'commit',
        item,
        state: 'processing',
        version: version + 1,
        event: 'assemble.done',
        to: 'completed',
      },
    ]);
    expect((await loadAccess(ctx, 'small', item)).status).toBe('completed');
    expect(await lockExists(acquired)).toBe(false);
  });

  it.each([
    ['CONFLICT', 'its status changed under the step'],
    ['LOCK_LOST', 'its lock was deleted under the step'],
  ])('a stale result (%s: %s) is discarded and the lock is not left behind', async (reason) => {
    const acquired = await takeNew();
    const { deps, ledger } = depsFor();
    const status = `${ACCESS}/small/${acquired.request.accessId}/status`;
    const steps: AccessSteps = {
      assemble: async () => {
        if (reason === 'CONFLICT') {
          const { data } = await ctx.zk.getData(status);
          await ctx.zk.setData(status, data ?? null); // same status, one version further
        } else await ctx.zk.delete(acquired.lock.path);
        return { url: 'never committed' };
      },
    };
    await runAccessRequest(deps, steps, acquired, AbortSignal.timeout(10_000));
    expect(ledger.at(-1)).toMatchObject({ kind: 'discard', event: 'assemble.done', reason });
    const now = await loadAccess(ctx, 'small', acquired.request.accessId);
    expect(now.status).toBe('processing');
    expect(now.token).not.toHaveProperty('url');
    expect(await lockExists(acquired)).toBe(false);
  });

  it('asks the stall guard before its step: refused, nothing is assembled or committed, the lock is released', async () => {
    const acquired = await takeNew();
    const { deps, ledger } = depsFor();
    const guard = vi.fn(() => Promise.reject(new StepAbortedError(new Error('lock lost while stalled'))));
    deps.beforeStep = guard;
    const assemble = vi.fn<AccessSteps['assemble']>((args) => simulated.accessSteps.assemble(args));
    await runAccessRequest(deps, { assemble }, acquired, AbortSignal.timeout(10_000));
    expect(guard).toHaveBeenCalledWith(acquired.lock);
    expect(assemble).not.toHaveBeenCalled();
    expect(ledger.map((e) => [e.kind, e.reason])).toEqual([
      ['commit', undefined], // taken: pending to processing, before the step
      ['discard', 'stalled'],
    ]);
    expect((await loadAccess(ctx, 'small', acquired.request.accessId)).status).toBe('processing');
    expect(await lockExists(acquired)).toBe(false);
  });

  it('an aborted assembly is discarded and its lock released', async () => {
    const acquired = await takeNew();
    const { deps, ledger } = depsFor();
    await runAccessRequest(
      deps,
      simulated.accessSteps,
      acquired,
      AbortSignal.abort(new Error('shutting down')),
    );
    expect(ledger.at(-1)).toMatchObject({ kind: 'discard', reason: 'aborted' });
    expect(await lockExists(acquired)).toBe(false);
  });

  it('settles a commit whose answer was lost: the taking, found applied, goes on to its step; found not applied, made again', async () => {
    // The first multi (taking it) is applied but its answer lost; the second (the result) is
    // not applied and its answer lost, then made again.
    const queue = losingAnswers((call) => (call === 0 ? 'applied' : call === 1 ? 'not-applied' : undefined));
    const acquired = await takeNew(queue);
    const { deps, ledger } = depsFor(queue);
    await runAccessRequest(deps, simulated.accessSteps, acquired, AbortSignal.timeout(20_000));
    expect(ledger.map((e) => [e.kind, e.event ?? e.state])).toEqual([
      ['commit', 'access.acquired'],
      ['start', 'processing'],
      ['commit', 'assemble.done'],
    ]);
    const done = await loadAccess(ctx, 'small', acquired.request.accessId);
    expect(done).toMatchObject({ status: 'completed', statusVersion: acquired.request.statusVersion + 2 });
    expect(await lockExists(acquired)).toBe(false);
  });
});

describe('a job commit that keeps the lock for a hand-over, through the item runner', () => {
  /** A new pending job, acquired through `queue` as the pending consumer would. */
  async function pendingJob(queue: QueueContext): Promise<AcquiredJob> {
    const { jids } = await expandedBatch(ctx, [objectSpec(1)]);
    const acquired = await acquireJob(queue, 'pending', { skip: (jid) => jid !== jids[0] });
    if (!acquired) throw new Error(`${jids[0]} not acquired`);
    return acquired;
  }

  function handOverTo(deps: EngineDeps) {
    const slot = { accept: vi.fn(), cancel: vi.fn(), offered: [] as string[] };
    deps.handOver = (state) => {
      slot.offered.push(state);
      return slot;
    };
    return slot;
  }

  it('hands the job over with its lock, and the signal it ran under, when the commit is answered', async () => {
    const acquired = await pendingJob(ctx);
    const { deps, ledger } = depsFor();
    const slot = handOverTo(deps);
    const signal = AbortSignal.timeout(10_000);
    expect(await takePendingJob(deps, acquired, signal)).toBe('estimating');
    expect(slot.offered).toEqual(['estimating']);
    expect(slot.accept).toHaveBeenCalledWith(expect.objectContaining({ lock: acquired.lock }), signal);
    expect(slot.cancel).not.toHaveBeenCalled();
    expect(ledger).toMatchObject([{ kind: 'commit', item: acquired.job.jobId, to: 'estimating' }]);
    expect(await lockExists(acquired)).toBe(true);
    await releaseLock(ctx, acquired.lock);
  });

  it('lets the lock go when the answer was lost and the commit found applied: the hand-over was given back', async () => {
    const queue = losingAnswers((call) => (call === 0 ? 'applied' : undefined));
    const acquired = await pendingJob(queue);
    const { deps, ledger } = depsFor(queue);
    const slot = handOverTo(deps);
    expect(await takePendingJob(deps, acquired)).toBe('estimating');
    expect(slot.cancel).toHaveBeenCalledOnce();
    expect(slot.accept).not.toHaveBeenCalled();
    expect(ledger).toMatchObject([{ kind: 'commit', item: acquired.job.jobId, to: 'estimating' }]);
    expect(await lockExists(acquired)).toBe(false);
  });
});
