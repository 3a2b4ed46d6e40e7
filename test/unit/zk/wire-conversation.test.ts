import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  getChildrenRaw,
  multiReadData,
  type RawChildren,
  type RawReadResult,
} from '../../../src/zk/library.js';
import { chunks, converse, STATES, wire } from './stand-in-socket.js';

// The library's own read and write path (ConnectionManager), with the fix patches applied and the
// in-tree wire code installed, talking to a stand-in socket: the bytes it writes, and what it
// makes of the bytes a server sends.

const GET_DATA = 4;
const ERROR = -1;

function multiRead(conversation: ReturnType<typeof converse>, paths: string[]) {
  return new Promise<{ err: unknown; results: RawReadResult[] | null | undefined }>((resolve) =>
    multiReadData(conversation.client, paths, (err, results) => resolve({ err, results })),
  );
}

/** The value a library callback is called with, or its error. */
function settle<T>(start: (done: (err: unknown, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    start((err, value) =>
      err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve(value),
    ),
  );
}

function getData(conversation: ReturnType<typeof converse>, path: string): Promise<string | undefined> {
  return settle<Buffer | undefined>((done) => conversation.client.getData(path, done)).then((data) =>
    data?.toString(),
  );
}

function getChildren(conversation: ReturnType<typeof converse>, path: string): Promise<string[]> {
  return settle<string[]>((done) => conversation.client.getChildren(path, done));
}

afterEach(() => vi.restoreAllMocks());

describe('multiRead through the library', () => {
  it('goes out as op 22, getData ops in a multi, and its reply is read result by result', async () => {
    const conversation = converse();
    const read = multiRead(conversation, ['/jobs/j1/status', '/jobs/j1/lock']);
    const [request] = conversation.written;
    expect(request).toEqual(
      wire.packet(
        wire.int(0), // xid
        wire.int(22), // multiRead
        wire.multiHeader(GET_DATA, false, -1),
        wire.string('/jobs/j1/status'),
        wire.bool(false),
        wire.multiHeader(GET_DATA, false, -1),
        wire.string('/jobs/j1/lock'),
        wire.bool(false),
        wire.multiHeader(-1, true, -1),
      ),
    );
    conversation.receive(
      wire.reply(
        0,
        0,
        wire.multiHeader(GET_DATA, false, 0),
        wire.bytes(Buffer.from('{"status":"pending"}')),
        wire.stat(3),
        wire.multiHeader(ERROR, false, -101),
        wire.int(-101),
        wire.multiHeader(-1, true, -1),
      ),
    );
    const { err, results } = await read;
    expect(err).toBeUndefined();
    expect(results).toHaveLength(2);
    expect(results![0]!.data?.toString()).toBe('{"status":"pending"}');
    expect(results![0]!.stat?.version).toBe(3);
    expect(results![1]).toEqual({ type: ERROR, err: -101 });
  });

  it('a server without multiRead (before 3.6) answers a bare header: null, and the connection goes on', async () => {
    const conversation = converse();
    const read = multiRead(conversation, ['/a']);
    const next = getData(conversation, '/b');
    conversation.receive(wire.reply(0, 0), wire.reply(1, 0, wire.bytes(Buffer.from('b')), wire.stat(0)));
    expect(await read).toEqual({ err: undefined, results: null });
    expect(await next).toBe('b');
    expect(conversation.events).not.toContain('destroy');
  });

  it('a server answering UNIMPLEMENTED reads as null too; another error is an error', async () => {
    const conversation = converse();
    const unimplemented = multiRead(conversation, ['/a']);
    const refused = multiRead(conversation, ['/a']);
    conversation.receive(wire.reply(0, -6), wire.reply(1, -102));
    expect(await unimplemented).toEqual({ err: undefined, results: null });
    expect((await refused).err).toMatchObject({ code: -102 });
  });
});

describe('child lists through the library', () => {
  const names = ['05-jid1', 'é-accent', 'ünïcödé-名前', ''];
  const childList = (xid: number) =>
    wire.reply(xid, 0, wire.int(names.length), ...names.map(wire.string), wire.stat(9));

  it("getChildren reads every name, getChildrenRaw leaves them in the reply with the folder's stat", async () => {
    const conversation = converse();
    const listed = getChildren(conversation, '/f');
    const raw = settle<RawChildren | undefined>((done) =>
      getChildrenRaw(conversation.client, '/f', undefined, done),
    );
    conversation.receive(childList(0), childList(1));
    expect(await listed).toEqual(names);
    const { buffer, start, count, stat } = (await raw)!;
    expect(count).toBe(names.length);
    expect(stat.version).toBe(9);
    expect(buffer.readInt32BE(start)).toBe(Buffer.byteLength(names[0]!));
    expect(buffer.toString('utf8', start + 4, start + 4 + Buffer.byteLength(names[0]!))).toBe(names[0]);
  });
});

describe('replies in socket chunks (patch 004)', () => {
  it('a reply over many chunks is joined once, and the replies sharing a chunk are each answered', async () => {
    const conversation = converse();
    const many = Array.from({ length: 2000 }, (_, i) => `05-jid${String(i).padStart(10, '0')}`);
    const listed = getChildren(conversation, '/big');
    const small = [getData(conversation, '/a'), getData(conversation, '/b')];
    const big = wire.reply(0, 0, wire.int(many.length), ...many.map(wire.string), wire.stat(1));
    const tail = Buffer.concat([
      wire.reply(1, 0, wire.bytes(Buffer.from('a')), wire.stat(0)),
      wire.reply(2, 0, wire.bytes(Buffer.from('b')), wire.stat(0)),
    ]);
    const concat = vi.spyOn(Buffer, 'concat');
    conversation.receive(...chunks(big, 40), tail);
    // Upstream joins the chunks so far on every chunk that comes: 39 copies of a growing reply.
    expect(concat).toHaveBeenCalledTimes(1);
    expect(await listed).toEqual(many);
    expect(await Promise.all(small)).toEqual(['a', 'b']);
  });
});

describe('a reconnect (patch 003)', () => {
  it("drops the reply the old socket left half read: the new socket's connect answer is read as sent", () => {
    const conversation = converse();
    const { manager } = conversation;
    void getData(conversation, '/a').catch(() => undefined);
    conversation.receive(wire.reply(0, 0, wire.bytes(Buffer.from('abc')), wire.stat(0)).subarray(0, 20));
    manager.state = STATES.CONNECTING;
    manager.onSocketConnected();
    const session = wire.long(0x1234n);
    // ConnectResponse: protocol version, negotiated timeout, session id, password.
    conversation.receive(
      wire.packet(wire.int(0), wire.int(20_000), session, wire.bytes(Buffer.alloc(16, 1))),
    );
    expect(manager.state).toBe(STATES.CONNECTED);
    expect(manager.sessionId).toEqual(session);
  });
});

describe('writes (in-tree write batching)', () => {
  it('requests queued in one turn are written while the socket is corked, and uncorked on the next tick', async () => {
    const conversation = converse();
    for (const path of ['/a', '/b', '/c']) void getData(conversation, path).catch(() => undefined);
    const corkedAtEveryWrite = conversation.events.every(
      (event, i, events) =>
        event !== 'write' ||
        events.slice(0, i).filter((e) => e === 'cork').length >
          events.slice(0, i).filter((e) => e === 'uncork').length,
    );
    expect(corkedAtEveryWrite).toBe(true);
    expect(conversation.events.filter((event) => event === 'write')).toHaveLength(3);
    expect(conversation.events).not.toContain('uncork');
    await new Promise((resolve) => process.nextTick(resolve));
    const events = conversation.events;
    expect(events.filter((e) => e === 'uncork')).toHaveLength(events.filter((e) => e === 'cork').length);
  });
});
