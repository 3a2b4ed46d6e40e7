import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { map } from 'rxjs';
import { children$, data$ } from '../../../src/streams/index.js';
import { folder$ } from '../../../src/streams/children.js';
import { isZkError, type WatchCallback } from '../../../src/zk/index.js';
import { eventually } from '../../support/eventually.js';
import { batchProcessingEmpty$, queuePaused$ } from '../../../src/streams/queue-events.js';
import { connectZk, type ZkClient } from '../../../src/zk/index.js';
import { Recorder } from '../../support/observe.js';
import { sleep, startPrivateServer } from '../../support/private-server.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { SessionRecorder } from '../zk/session-recorder.js';

const chroot = useZkChroot();
const same = (a: string[], b: string[]): boolean => [...a].sort().join() === [...b].sort().join();

describe('children$ and data$', () => {
  let zk: ZkClient;
  beforeAll(async () => {
    zk = await chroot.connect();
  });

  it('children$ emits the current children, then re-reads after every change (fires coalesce)', async () => {
    await zk.mkdirp('/c');
    await zk.create('/c/a');
    const rec = new Recorder(children$(zk, '/c'));
    await rec.next((v) => same(v, ['a']));
    // Three quick creates fire one watch; the re-read still sees all of them.
    await Promise.all([zk.create('/c/b'), zk.create('/c/c'), zk.create('/c/d')]);
    await rec.next((v) => same(v, ['a', 'b', 'c', 'd']));
    await zk.delete('/c/a');
    await rec.next((v) => same(v, ['b', 'c', 'd']));
    rec.stop();
  });

  it('children$ of a missing node emits [] and follows it once created', async () => {
    const rec = new Recorder(children$(zk, '/later'));
    await rec.next((v) => v.length === 0);
    await zk.mkdirp('/later/x');
    await rec.next((v) => same(v, ['x']));
    rec.stop();
  });

  it('a big folder that changes often is re-read after a settling delay, not once per change', async () => {
    await zk.mkdirp('/big');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => zk.create(`/big/c${i}`)));
    const rec = new Recorder(children$(zk, '/big'));
    await rec.next((v) => v.length === 2000);
    rec.clear();
    for (let i = 0; i < 100; i++) await zk.delete(`/big/c${i}`);
    await rec.next((v) => v.length === 1900);
    // 100 deletions one after another: 2,000 children give a 100 ms settling delay, so a few reads.
    expect(rec.values.length).toBeLessThan(20);
    rec.stop();
  });

  it.each([
    { quietAtOnce: true, says: 'reads a change after a quiet spell at once, and gathers the next ones' },
    { quietAtOnce: false, says: 'waits the floor after every change, after a quiet spell too' },
  ])('a folder with a settling floor, quietAtOnce $quietAtOnce, $says', async ({ quietAtOnce }) => {
    const FLOOR_MS = 3000;
    const path = `/quiet-${quietAtOnce}`;
    await zk.mkdirp(path);
    const list = (watch: WatchCallback) => zk.getChildren(path, watch);
    const options = { floorMs: FLOOR_MS, quietAtOnce };
    const stamped = folder$(zk, path, list, [], (names) => names.length, options).pipe(
      map((names) => ({ names, at: performance.now() })),
    );
    const rec = new Recorder(stamped);
    const first = await rec.next((v) => v.names.length === 0);
    // Quiet for longer than the floor: with quietAtOnce the next change is read at once.
    await sleep(FLOOR_MS + 200 - (performance.now() - first.at));
    const changed = performance.now();
    await zk.create(`${path}/a`);
    const seen = await rec.next((v) => same(v.names, ['a']));
    if (quietAtOnce) expect(seen.at - changed).toBeLessThan(FLOOR_MS - 500);
    else expect(seen.at - changed).toBeGreaterThanOrEqual(FLOOR_MS - 50);
    // A change just after that read waits the floor: a burst's changes are gathered into one read.
    await zk.create(`${path}/b`);
    const gathered = await rec.next((v) => same(v.names, ['a', 'b']));
    expect(gathered.at - seen.at).toBeGreaterThanOrEqual(FLOOR_MS - 50);
    rec.stop();
  });

  it('data$ follows changes, deletion and re-creation', async () => {
    await zk.create('/d', 'one');
    const rec = new Recorder(data$(zk, '/d'));
    await rec.next((v) => v?.data?.toString() === 'one');
    await zk.setData('/d', 'two');
    await rec.next((v) => v?.data?.toString() === 'two');
    await zk.delete('/d');
    await rec.next((v) => v === undefined);
    await zk.create('/d', 'three');
    await rec.next((v) => v?.data?.toString() === 'three');
    rec.stop();
  });

  it('teardown stops re-arming: nothing is emitted after unsubscribe', async () => {
    await zk.mkdirp('/t');
    const rec = new Recorder(children$(zk, '/t'));
    await rec.next((v) => v.length === 0);
    rec.stop();
    rec.clear();
    await zk.create('/t/x');
    await sleep(300);
    expect(rec.values).toEqual([]);
  });

  it('batchProcessingEmpty$ turns true when the last job ref leaves the folder; queuePaused$ follows the lock', async () => {
    await zk.mkdirp('/batches/bid0000000001/states/batch-processing/jid0000000001');
    const empty = new Recorder(batchProcessingEmpty$(zk, 'bid0000000001'));
    await empty.next((v) => v === false);
    await zk.delete('/batches/bid0000000001/states/batch-processing/jid0000000001');
    await empty.next((v) => v === true);
    empty.stop();

    await zk.mkdirp('/locks/queue');
    const paused = new Recorder(queuePaused$(zk, 'ingest'));
    await paused.next((v) => v === false);
    await zk.create('/locks/queue/ingest');
    await paused.next((v) => v === true);
    await zk.delete('/locks/queue/ingest');
    expect(await paused.next((v) => v === false && paused.values.length === 3)).toBe(false);
    paused.stop();
  });
});

/** Generous: a JVM restart on a busy 2-core box must fit in it (the server allows up to 24 s). */
const RESTART_SESSION_TIMEOUT_MS = 20_000;

describe('streams across a server restart and a lost session', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let zk: ZkClient;
  let steady: ZkClient;
  let other: ZkClient;

  beforeAll(async () => {
    server = await startPrivateServer();
    // Short, so that a freeze loses it quickly; the restart test uses `steady`, which survives one.
    zk = await connectZk({ connectString: server.server.connectString, sessionTimeoutMs: 2000 });
    steady = await connectZk({
      connectString: server.server.connectString,
      sessionTimeoutMs: RESTART_SESSION_TIMEOUT_MS,
    });
    other = await connectZk({
      connectString: server.server.connectString,
      sessionTimeoutMs: RESTART_SESSION_TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    await zk?.close();
    await steady?.close();
    await other?.close();
    await server?.dispose();
  });

  it('keeps flowing after a server restart within the session timeout', async () => {
    await steady.mkdirp('/r');
    const rec = new Recorder(children$(steady, '/r'));
    await rec.next((v) => v.length === 0);
    const session = steady.sessionId;
    await server.server.stop();
    await server.server.start();
    // The other client reconnects on its own backoff; a busy machine may take longer than one
    // request waits, and a create whose answer was lost may have been applied.
    await eventually(
      () =>
        other.create('/r/after-restart').then(
          () => true,
          (err: unknown) => {
            if (isZkError(err, 'NODE_EXISTS')) return true;
            throw err;
          },
        ),
      (created) => created,
      30_000,
      200,
    );
    await rec.next((v) => same(v, ['after-restart']));
    expect(steady.sessionId).toBe(session);
    rec.stop();
  });

  it('re-reads and re-arms on a brand-new session after the old one is lost', async () => {
    await zk.mkdirp('/s');
    const rec = new Recorder(children$(zk, '/s'));
    await rec.next((v) => v.length === 0);
    const session = zk.sessionId;
    const recorder = new SessionRecorder(zk);
    server.server.freeze();
    // Past the 2 s session timeout the watchdog declares the session lost.
    await recorder.waitFor('expired');
    server.server.thaw();
    // Written while this client's old session (and its watch) was gone.
    await other.create('/s/while-lost');
    await rec.next((v) => same(v, ['while-lost']), 15_000);
    expect(zk.sessionId).not.toBe(session);
    await other.create('/s/on-new-session');
    await rec.next((v) => same(v, ['while-lost', 'on-new-session']));
    rec.stop();
  });
});
