import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/zk-server/free-port.js';
import {
  ZkError,
  connectZk,
  isZkError,
  type SessionEvent,
  type WatchCallback,
  type ZkClient,
} from '../../../src/zk/index.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
let zk: ZkClient;

beforeAll(async () => {
  zk = await chroot.connect();
});

/** The ZkError a promise rejects with (fails the test if it resolves or throws something else). */
async function failureOf(promise: Promise<unknown>): Promise<ZkError> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof ZkError)) throw new Error(`expected a ZkError, got ${String(outcome)}`);
  return outcome;
}

/** A watch callback that resolves with its first event. */
function watchOnce(): { callback: WatchCallback; fired: Promise<{ type: string; path: string }> } {
  let callback: WatchCallback = () => {};
  const fired = new Promise<{ type: string; path: string }>((resolve) => {
    callback = (event) => resolve(event);
  });
  return { callback, fired };
}

describe('node operations', () => {
  it('creates, reads, updates and deletes a node, with stats as plain values', async () => {
    expect(await zk.create('/crud', 'hello')).toBe('/crud');
    const read = await zk.getData('/crud');
    expect(read.data?.toString()).toBe('hello');
    expect(read.stat).toMatchObject({ version: 0, dataLength: 5, numChildren: 0, ephemeralOwner: '0' });
    expect(Math.abs(read.stat.ctime - Date.now())).toBeLessThan(60_000);
    expect(read.stat.czxid).toMatch(/^[0-9a-f]+$/);

    const updated = await zk.setData('/crud', Buffer.from('bye'), 0);
    expect(updated.version).toBe(1);
    expect(updated.mzxid).not.toBe(read.stat.mzxid);
    expect((await zk.exists('/crud'))?.version).toBe(1);

    await zk.delete('/crud', 1);
    expect(await zk.exists('/crud')).toBeUndefined();
  });

  it('stores a node created without data as "no data", and null set data as empty', async () => {
    await zk.create('/empty');
    expect((await zk.getData('/empty')).data).toBeUndefined();
    await zk.setData('/empty', null);
    expect((await zk.getData('/empty')).data?.length).toBe(0);
  });

  it('mkdirp creates missing ancestors and accepts existing ones', async () => {
    await zk.mkdirp('/deep/er/still');
    await zk.mkdirp('/deep/er/still');
    await zk.mkdirp('/deep/er');
    expect(await zk.getChildren('/deep/er')).toEqual(['still']);
  });
});

describe('errors', () => {
  it('maps NO_NODE, NODE_EXISTS, BAD_VERSION and NOT_EMPTY to coded errors with the path', async () => {
    const noNode = await failureOf(zk.getData('/missing'));
    expect(noNode).toMatchObject({ code: 'ZK_NO_NODE', path: '/missing', retryable: false });
    expect(noNode.message).toContain('/missing');
    expect(isZkError(noNode, 'NO_NODE')).toBe(true);
    expect(isZkError(noNode, 'ZK_NO_NODE')).toBe(true);
    expect(isZkError(noNode, 'NODE_EXISTS')).toBe(false);

    await zk.create('/errs', 'x');
    expect(await failureOf(zk.create('/errs'))).toMatchObject({ code: 'ZK_NODE_EXISTS', path: '/errs' });
    expect(await failureOf(zk.setData('/errs', 'y', 7))).toMatchObject({
      code: 'ZK_BAD_VERSION',
      path: '/errs',
    });
    expect(await failureOf(zk.delete('/errs', 3))).toMatchObject({ code: 'ZK_BAD_VERSION', path: '/errs' });

    await zk.create('/errs/child');
    expect(await failureOf(zk.delete('/errs'))).toMatchObject({ code: 'ZK_NOT_EMPTY', path: '/errs' });
    expect(await failureOf(zk.create('/nowhere/child'))).toMatchObject({
      code: 'ZK_NO_NODE',
      path: '/nowhere/child',
    });
  });

  it('refuses data over 1 MiB with BAD_ARGUMENTS, without a crash or a dropped connection', async () => {
    const events: SessionEvent[] = [];
    const subscription = zk.session$.subscribe((event) => events.push(event));
    const sessionId = zk.sessionId;

    const overMiB = Buffer.alloc(1024 * 1024 + 1);
    expect(await failureOf(zk.create('/big', overMiB))).toMatchObject({
      code: 'ZK_BAD_ARGUMENTS',
      path: '/big',
    });
    await zk.create('/big', 'small');
    expect(await failureOf(zk.setData('/big', overMiB))).toMatchObject({ code: 'ZK_BAD_ARGUMENTS' });
    // Exactly 1 MiB passes the library's own check, but the server would drop the connection.
    expect(await failureOf(zk.setData('/big', Buffer.alloc(1024 * 1024)))).toMatchObject({
      code: 'ZK_BAD_ARGUMENTS',
    });

    const almostMiB = Buffer.alloc(1024 * 1024 - 1024, 7);
    await zk.setData('/big', almostMiB);
    expect((await zk.getData('/big')).data?.equals(almostMiB)).toBe(true);
    subscription.unsubscribe();
    expect(events.map((event) => event.state)).toEqual(['connected']);
    expect(zk.sessionId).toBe(sessionId);
  });

  it('rejects invalid paths with BAD_ARGUMENTS instead of throwing', async () => {
    for (const path of ['relative', '/trailing/', '/double//slash', '/dot/./x', '']) {
      const pending = zk.create(path);
      expect(await failureOf(pending)).toMatchObject({ code: 'ZK_BAD_ARGUMENTS' });
    }
    expect(await failureOf(zk.getChildren('/a/../b'))).toMatchObject({ code: 'ZK_BAD_ARGUMENTS' });
  });
});

describe('sequential and ephemeral nodes', () => {
  it('gives sequential nodes 10-digit suffixes in creation order', async () => {
    await zk.create('/seq');
    const serial: string[] = [];
    for (let i = 0; i < 5; i += 1)
      serial.push(await zk.create('/seq/item-', `n${i}`, 'persistent_sequential'));
    const pipelined = await Promise.all(
      Array.from({ length: 20 }, () => zk.create('/seq/item-', null, 'persistent_sequential')),
    );
    const all = [...serial, ...pipelined];
    for (const path of all) expect(path).toMatch(/^\/seq\/item-\d{10}$/);
    const numbers = all.map((path) => Number(path.slice(-10)));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect((await zk.getChildren('/seq')).sort()).toEqual(all.map((path) => path.slice(5)).sort());
  });

  it('removes an ephemeral node when its session closes, as another client sees', async () => {
    const owner = await chroot.connect();
    const created = await owner.create('/lock-', null, 'ephemeral_sequential');
    expect(created).toMatch(/^\/lock-\d{10}$/);
    const stat = await zk.exists(created);
    expect(stat?.ephemeralOwner).toBe(owner.sessionId);
    expect(stat?.ephemeralOwner).not.toBe(zk.sessionId);
    expect(await failureOf(owner.create(`${created}/child`))).toMatchObject({
      code: 'ZK_NO_CHILDREN_FOR_EPHEMERALS',
    });

    const watch = watchOnce();
    await zk.exists(created, watch.callback);
    await owner.close();
    expect(await watch.fired).toEqual({ type: 'deleted', path: created });
    expect(await zk.exists(created)).toBeUndefined();
  });
});

describe('watches', () => {
  it('report the event type and the chroot-relative path', async () => {
    await zk.create('/w', 'a');
    const changed = watchOnce();
    await zk.getData('/w', changed.callback);
    await zk.setData('/w', 'b');
    expect(await changed.fired).toEqual({ type: 'changed', path: '/w' });

    const children = watchOnce();
    await zk.getChildren('/w', children.callback);
    await zk.create('/w/kid');
    expect(await children.fired).toEqual({ type: 'children', path: '/w' });

    const created = watchOnce();
    expect(await zk.exists('/w/later', created.callback)).toBeUndefined();
    await zk.create('/w/later');
    expect(await created.fired).toEqual({ type: 'created', path: '/w/later' });
  });

  it('call a callback registered twice on one path once, and survive a throwing callback', async () => {
    await zk.create('/w2');
    let calls = 0;
    const counting: WatchCallback = () => {
      calls += 1;
      throw new Error('a careless watcher');
    };
    await zk.getData('/w2', counting);
    await zk.getData('/w2', counting);
    const after = watchOnce();
    await zk.getData('/w2', after.callback);
    await zk.setData('/w2', 'x');
    await after.fired;
    expect(calls).toBe(1);
    expect((await zk.getData('/w2')).data?.toString()).toBe('x');
  });
});

describe('session lifecycle', () => {
  it('replays the current state, then reports closed, completes, and fails later requests', async () => {
    const client = await chroot.connect();
    const seen: SessionEvent[] = [];
    let completed = false;
    client.session$.subscribe({ next: (event) => seen.push(event), complete: () => (completed = true) });
    expect(seen).toEqual([
      { state: 'connected', sessionId: client.sessionId, at: expect.any(Number) as number },
    ]);
    expect(client.isConnected).toBe(true);
    await client.close();
    expect(seen.map((event) => event.state)).toEqual(['connected', 'closed']);
    expect(completed).toBe(true);
    expect(client.isConnected).toBe(false);
    expect(await failureOf(client.exists('/'))).toMatchObject({ code: 'ZK_CLOSED' });
    await client.close();
  });

  it('connectZk rejects with a clear error when no server answers in time', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await failureOf(connectZk({ connectString: `127.0.0.1:${port}`, connectTimeoutMs: 600 }));
    expect(error.code).toBe('ZK_CONNECTION_LOSS');
    expect(error.message).toMatch(
      new RegExp(`could not connect to ZooKeeper at 127.0.0.1:${port} within 600 ms`),
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('connectZk refuses inconsistent options', async () => {
    const connectString = chroot.connectString();
    expect(await failureOf(connectZk({ connectString, acl: 'creator' }))).toMatchObject({
      code: 'ZK_BAD_ARGUMENTS',
    });
    expect(await failureOf(connectZk({ connectString, sessionTimeoutMs: -1 }))).toMatchObject({
      code: 'ZK_BAD_ARGUMENTS',
    });
  });

  it('answers many pipelined requests on its one session', async () => {
    await zk.create('/many');
    const created = await Promise.all(Array.from({ length: 500 }, (_, i) => zk.create(`/many/n${i}`)));
    expect(created).toEqual(Array.from({ length: 500 }, (_, i) => `/many/n${i}`));
    expect((await zk.getChildren('/many')).length).toBe(500);
  });
});
