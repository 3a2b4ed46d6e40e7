import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createLocalIdLock } from '../../../src/queue/locks/local-id.js';
import { localIdLockPath } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const OWNER = 'ark:/13030/j2owner';
const signal = new AbortController().signal;

/** `ctx` with a logger that counts the lock's "waiting" lines (logged once per wait). */
function counting(ctx: QueueContext): { ctx: QueueContext; waits: () => number } {
  let waits = 0;
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void (line.includes('held elsewhere; waiting') && (waits += 1)) },
  );
  return { ctx: { ...ctx, log }, waits: () => waits };
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('the /locks/localid lock (merritt-protocols.md §3, "The /locks/localid lock")', () => {
  let a: QueueContext;
  let b: QueueContext;
  let seq = 0;
  const localId = () => `lid-${++seq}`;
  beforeAll(async () => {
    a = queueContext(await chroot.connect());
    b = queueContext(await chroot.connect());
    await ensureQueueTree(a.zk);
  });
  const pending: Promise<unknown>[] = [];
  afterEach(async () => {
    await Promise.allSettled(pending.splice(0));
  });

  it('is ephemeral and makes another session wait until it is released', async () => {
    const id = localId();
    const path = localIdLockPath(id, OWNER);
    const first = gate();
    const order: string[] = [];
    const holderA = createLocalIdLock(a).hold([id], OWNER, signal, async () => {
      order.push('a start');
      await first.opened;
      order.push('a end');
    });
    pending.push(holderA);
    const stat = await eventually(
      () => b.zk.exists(path),
      (s) => s !== undefined,
    );
    expect(stat!.ephemeralOwner).toBe(a.zk.sessionId);
    const watched = counting(b);
    const holderB = createLocalIdLock(watched.ctx, { firstWaitMs: 20 }).hold(
      [id],
      OWNER,
      signal,
      async () => {
        order.push('b');
        return (await b.zk.exists(path))?.ephemeralOwner;
      },
    );
    pending.push(holderB);
    await eventually(watched.waits, (n) => n >= 1); // B is waiting
    expect(order).toEqual(['a start']);
    first.open();
    await holderA;
    expect(await holderB).toBe(b.zk.sessionId);
    expect(order).toEqual(['a start', 'a end', 'b']);
    expect(watched.waits()).toBe(1);
    expect(await a.zk.exists(path)).toBeUndefined();
  });

  it('a waiter whose signal aborts gives up, leaving the holder alone', async () => {
    const id = localId();
    const path = localIdLockPath(id, OWNER);
    const release = gate();
    const holder = createLocalIdLock(a).hold([id], OWNER, signal, () => release.opened);
    pending.push(holder);
    await eventually(
      () => b.zk.exists(path),
      (s) => s !== undefined,
    );
    const controller = new AbortController();
    let ran = false;
    const watched = counting(b);
    const waiter = createLocalIdLock(watched.ctx).hold([id], OWNER, controller.signal, () =>
      Promise.resolve(void (ran = true)),
    );
    await eventually(watched.waits, (n) => n >= 1);
    controller.abort(new Error('job aborted'));
    await expect(waiter).rejects.toThrow('job aborted');
    expect(ran).toBe(false);
    expect((await b.zk.exists(path))?.ephemeralOwner).toBe(a.zk.sessionId);
    release.open();
  });

  it("a holder's crash (its session closes) frees the lock for the waiter", async () => {
    const id = localId();
    const path = localIdLockPath(id, OWNER);
    const crashing = queueContext(await chroot.connect());
    const never = new Promise<void>(() => {});
    // The crashing holder's own outcome does not matter: a request of it still in flight when its
    // session closes fails with CLOSED.
    void createLocalIdLock(crashing)
      .hold([id], OWNER, signal, () => never)
      .catch(() => undefined);
    await eventually(
      () => b.zk.exists(path),
      (s) => s?.ephemeralOwner === crashing.zk.sessionId,
    );
    const waiter = createLocalIdLock(b, { firstWaitMs: 20 }).hold([id], OWNER, signal, () =>
      Promise.resolve('held'),
    );
    await crashing.zk.close();
    expect(await waiter).toBe('held');
    expect(await b.zk.exists(path)).toBeUndefined();
  });

  it('takes every local id of a job, and releases them when the work fails', async () => {
    const ids = [localId(), localId()];
    const seen = await createLocalIdLock(a)
      .hold(ids, OWNER, signal, async () => {
        const stats = await Promise.all(ids.map((id) => b.zk.exists(localIdLockPath(id, OWNER))));
        throw new Error(`held ${stats.filter((s) => s?.ephemeralOwner === a.zk.sessionId).length}`);
      })
      .catch((e: unknown) => (e as Error).message);
    expect(seen).toBe('held 2');
    for (const id of ids) expect(await b.zk.exists(localIdLockPath(id, OWNER))).toBeUndefined();
  });
});
