import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../src/zk/group-commit.js';
import { ZkTransactionError, type Op } from '../../../src/zk/index.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { queueContext } from '../../support/queue-context.js';
import { requestsDuring } from '../../support/requests.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** A transition-shaped set of ops for item `i` under `root`: check the lock, set, move a ref. */
function transition(root: string, i: number): Op[] {
  return [
    { op: 'check', path: `${root}/item${i}/lock` },
    { op: 'set', path: `${root}/item${i}`, data: `moved ${i}`, version: 0 },
    { op: 'delete', path: `${root}/from/item${i}` },
    { op: 'create', path: `${root}/to/item${i}` },
  ];
}

async function seed(root: string, items: number, zk: Awaited<ReturnType<typeof chroot.connect>>) {
  await zk.mkdirp(`${root}/from`);
  await zk.mkdirp(`${root}/to`);
  for (let i = 0; i < items; i++) {
    await zk.create(`${root}/item${i}`, 'new');
    await zk.create(`${root}/item${i}/lock`, null, 'ephemeral');
    await zk.create(`${root}/from/item${i}`);
  }
}

describe('group commit', () => {
  it('sends the transitions that are ready in one turn as one multi, and applies them all', async () => {
    const zk = await chroot.connect();
    await seed('/g1', 20, zk);
    const group = new GroupCommit(zk);
    await Promise.all(Array.from({ length: 20 }, (_, i) => group.commit(transition('/g1', i))));
    expect({ groups: group.groups, transitions: group.transitions }).toEqual({ groups: 1, transitions: 20 });
    expect((await zk.getChildren('/g1/to')).length).toBe(20);
    expect(await zk.getChildren('/g1/from')).toEqual([]);
    expect((await zk.getData('/g1/item7')).data?.toString()).toBe('moved 7');
  });

  it('refuses only the member whose check fails; the others are committed on their own', async () => {
    const zk = await chroot.connect();
    await seed('/g2', 5, zk);
    await zk.delete('/g2/item3/lock'); // item 3's lock is gone: its transition must not apply
    const group = new GroupCommit(zk);
    const { value: outcomes, sent } = await requestsDuring(zk, () =>
      Promise.allSettled(Array.from({ length: 5 }, (_, i) => group.commit(transition('/g2', i)))),
    );
    // The refused group, then the four others again as one.
    expect(sent).toEqual(['multi', 'multi']);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const refused = (outcomes[3] as PromiseRejectedResult).reason as ZkTransactionError;
    expect(refused).toBeInstanceOf(ZkTransactionError);
    // The error is the member's own: its index and path are in its ops, not in the group's.
    expect(refused.failedOp).toMatchObject({ op: 'check', path: '/g2/item3/lock' });
    expect(refused.failedIndex).toBe(0);
    expect((await zk.getChildren('/g2/to')).sort()).toEqual(['item0', 'item1', 'item2', 'item4']);
    expect((await zk.getData('/g2/item3')).data?.toString()).toBe('new');
  });

  it('splits what is ready beyond its group size into several multis', async () => {
    const zk = await chroot.connect();
    await seed('/g3', 10, zk);
    const group = new GroupCommit(zk, 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => group.commit(transition('/g3', i))));
    expect({ groups: group.groups, transitions: group.transitions }).toEqual({ groups: 3, transitions: 10 });
    expect((await zk.getChildren('/g3/to')).length).toBe(10);
  });

  it('sends a group too large for one request as single transitions', async () => {
    const zk = await chroot.connect();
    await seed('/g4', 3, zk);
    const big = 'x'.repeat(400_000); // three of these exceed the request limit together
    const group = new GroupCommit(zk);
    await Promise.all(
      [0, 1, 2].map((i) =>
        group.commit([...transition('/g4', i), { op: 'set', path: `/g4/item${i}`, data: big, version: 1 }]),
      ),
    );
    expect((await zk.getData('/g4/item2')).data?.length).toBe(400_000);
    expect(group.groups).toBe(1);
  });

  it('refuses each failing member with its own error, one multi more per refusal', async () => {
    const zk = await chroot.connect();
    await seed('/g5', 6, zk);
    await zk.delete('/g5/item1/lock');
    await zk.setData('/g5/item4', 'moved by someone else'); // item 4's status version is 1 now
    const group = new GroupCommit(zk);
    const { value: outcomes, sent } = await requestsDuring(zk, () =>
      Promise.allSettled(Array.from({ length: 6 }, (_, i) => group.commit(transition('/g5', i)))),
    );
    expect(sent).toEqual(['multi', 'multi', 'multi']);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      kind: 'NO_NODE',
      failedIndex: 0,
      failedOp: { path: '/g5/item1/lock' },
      results: ['NO_NODE', 'ROLLED_BACK', 'ROLLED_BACK', 'ROLLED_BACK'],
    });
    expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({
      kind: 'BAD_VERSION',
      failedIndex: 1,
      failedOp: { path: '/g5/item4' },
      results: ['OK', 'BAD_VERSION', 'ROLLED_BACK', 'ROLLED_BACK'],
    });
    expect((await zk.getChildren('/g5/to')).sort()).toEqual(['item0', 'item2', 'item3', 'item5']);
  });

  it("takes the locks of one turn in one multi; a lock held elsewhere or an item gone is that item's answer alone", async () => {
    const zk = await chroot.connect();
    const other = await chroot.connect();
    for (let i = 0; i < 5; i++) await zk.mkdirp(`/g6/item${i}`);
    await other.create('/g6/item2/lock', null, 'ephemeral');
    const ctx = { ...queueContext(zk), commits: new GroupCommit(zk) };
    const { value: attempts, sent } = await requestsDuring(zk, () =>
      Promise.all([0, 1, 2, 3, 4, 9].map((i) => tryLock(ctx, `/g6/item${i}`))),
    );
    expect(attempts.map((a) => (a.held ? 'held' : a.reason))).toEqual([
      'held',
      'held',
      'locked',
      'held',
      'held',
      'gone',
    ]);
    expect(sent).toEqual(['multi', 'multi', 'multi']);
    for (const i of [0, 1, 3, 4])
      expect((await zk.exists(`/g6/item${i}/lock`))?.ephemeralOwner).toBe(zk.sessionId);
    expect((await zk.exists('/g6/item2/lock'))?.ephemeralOwner).toBe(other.sessionId);
  });
});
