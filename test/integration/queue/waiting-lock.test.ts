import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { releaseEventually, releaseLock } from '../../../src/queue/locks/lock.js';
import { takeWaitingLock } from '../../../src/queue/locks/waiting.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const never = new AbortController().signal;

/** `ctx` with a logger whose lines (parsed) the test reads. */
function logged(ctx: QueueContext): { ctx: QueueContext; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { ctx: { ...ctx, log }, lines };
}
const messages = (lines: Array<Record<string, unknown>>, msg: string) => lines.filter((l) => l.msg === msg);

/** The same client, except that watches are dropped: a waiter can only wake by its own timer. */
function withoutWatches(zk: ZkClient): ZkClient {
  return new Proxy(zk, {
    get(target, prop) {
      if (prop === 'exists') return (path: string) => target.exists(path);
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('the waiting lock (merritt-protocols.md §1(c), §2(b), §3: Merritt waits for its object locks)', () => {
  let a: QueueContext;
  let b: QueueContext;
  let seq = 0;
  const lockPath = () => `/locks/storage/ark_99999_fk4wait${++seq}`;
  beforeAll(async () => {
    a = queueContext(await chroot.connect());
    b = queueContext(await chroot.connect());
    await ensureQueueTree(a.zk);
  });

  /** A lock `a` holds at a fresh path. */
  async function heldByA() {
    const outcome = await takeWaitingLock(a, lockPath(), never, { maxPauseMs: 1000, limitMs: 0 });
    if (!outcome.held) throw new Error('expected a free lock');
    return outcome.lock;
  }

  it('takes a free lock at once, ephemeral and owned by its session, logging nothing', async () => {
    const { ctx, lines } = logged(b);
    const outcome = await takeWaitingLock(ctx, lockPath(), never, { maxPauseMs: 1000 });
    expect(outcome.held).toBe(true);
    if (!outcome.held) return;
    expect((await a.zk.exists(outcome.lock.path))?.ephemeralOwner).toBe(b.zk.sessionId);
    expect(lines).toEqual([]);
    await releaseLock(b, outcome.lock);
  });

  it('waits while another session holds it, logs that once naming the holder, and goes on promptly when it is deleted (the watch, not a timer)', async () => {
    const held = await heldByA();
    const { ctx, lines } = logged(b);
    // A minute between attempts: only the delete watch can wake the waiter within the test's time.
    const waiting = takeWaitingLock(ctx, held.path, never, { firstPauseMs: 60_000, maxPauseMs: 60_000 });
    const [line] = await eventually(
      () => messages(lines, 'lock held elsewhere; waiting'),
      (found) => found.length === 1,
    );
    expect(line).toMatchObject({ lock: held.path, holder: a.zk.sessionId });
    const released = Date.now();
    await releaseLock(a, held);
    const outcome = await waiting;
    expect(Date.now() - released).toBeLessThan(10_000);
    expect(outcome.held).toBe(true);
    if (!outcome.held) return;
    expect((await a.zk.exists(held.path))?.ephemeralOwner).toBe(b.zk.sessionId);
    expect(messages(lines, 'lock held elsewhere; waiting')).toHaveLength(1);
    expect(messages(lines, 'lock taken after waiting')).toMatchObject([{ lock: held.path, attempts: 2 }]);
    await releaseLock(b, outcome.lock);
  });

  it('tries again with backoff when no watch wakes it, still logging the wait once', async () => {
    const held = await heldByA();
    const { ctx, lines } = logged({ ...b, zk: withoutWatches(b.zk) });
    const waiting = takeWaitingLock(ctx, held.path, never, { firstPauseMs: 20, maxPauseMs: 200 });
    await eventually(
      () => messages(lines, 'lock held elsewhere; waiting'),
      (found) => found.length === 1,
    );
    await releaseLock(a, held);
    const outcome = await waiting;
    expect(outcome.held).toBe(true);
    if (outcome.held) await releaseLock(b, outcome.lock);
    expect(messages(lines, 'lock held elsewhere; waiting')).toHaveLength(1);
    const [taken] = messages(lines, 'lock taken after waiting');
    expect(taken?.attempts).toBeGreaterThanOrEqual(2);
  });

  it('stops waiting when its signal aborts, with the reason, leaving the holder alone', async () => {
    const held = await heldByA();
    const { ctx, lines } = logged(b);
    const controller = new AbortController();
    const waiting = takeWaitingLock(ctx, held.path, controller.signal, { maxPauseMs: 60_000 });
    await eventually(
      () => messages(lines, 'lock held elsewhere; waiting'),
      (found) => found.length === 1,
    );
    controller.abort(new Error('job aborted'));
    await expect(waiting).rejects.toThrow('job aborted');
    expect((await b.zk.exists(held.path))?.ephemeralOwner).toBe(a.zk.sessionId);
    await releaseLock(a, held);
  });

  it('gives up after its limit, returning the holder and how long it waited', async () => {
    const held = await heldByA();
    const outcome = await takeWaitingLock(b, held.path, never, {
      firstPauseMs: 50,
      maxPauseMs: 100,
      limitMs: 400,
    });
    expect(outcome).toMatchObject({ held: false, holder: a.zk.sessionId });
    expect(outcome.waitedMs).toBeGreaterThanOrEqual(400);
    expect(outcome.waitedMs).toBeLessThan(10_000);
    expect((await b.zk.exists(held.path))?.ephemeralOwner).toBe(a.zk.sessionId);
    await releaseLock(a, held);
  });

  it("names a persistent lock's holder as session 0 (Merritt's storage service writes its lock persistent)", async () => {
    const path = lockPath();
    await a.zk.create(path);
    const outcome = await takeWaitingLock(b, path, never, { maxPauseMs: 100, limitMs: 0 });
    expect(outcome).toMatchObject({ held: false, holder: '0' });
    await a.zk.delete(path);
  });

  it("a holder's crash (its session closes) frees the lock for the waiter", async () => {
    const crashing = queueContext(await chroot.connect());
    const path = lockPath();
    const held = await takeWaitingLock(crashing, path, never, { maxPauseMs: 100, limitMs: 0 });
    expect(held.held).toBe(true);
    const { ctx, lines } = logged(b);
    const waiting = takeWaitingLock(ctx, path, never, { firstPauseMs: 60_000, maxPauseMs: 60_000 });
    await eventually(
      () => messages(lines, 'lock held elsewhere; waiting'),
      (found) => found.length === 1,
    );
    await crashing.zk.close();
    const outcome = await waiting;
    expect(outcome.held).toBe(true);
    if (outcome.held) await releaseEventually(b, outcome.lock);
  });
});
