import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// Loading the library module installs the in-tree codec (src/zk/wire) into the library.
import '../../../src/zk/library.js';
import { juteByHand } from './jute-by-hand.js';

// The in-tree codec replaces the library's record codec for speed (parsed specifications, pooled
// longs, no second measuring pass, decoding into records without defaults). These tests hold it to
// the jute wire format, written out here by hand: any byte it gets wrong, the server would refuse.

interface JuteRecord {
  byteLength(): number;
  serialize(buffer: Buffer, offset: number): number;
  deserialize(buffer: Buffer, offset: number): number;
  setChrootPath(path: string): void;
  [field: string]: unknown;
}
type RecordClass = new () => JuteRecord;
interface Jute {
  OP_CODES: Record<string, number>;
  protocol: Record<string, RecordClass>;
  data: Record<string, RecordClass>;
  Request: new (header: JuteRecord | null, payload: unknown) => { toBuffer(): Buffer };
  TransactionRequest: new (ops: object[]) => JuteRecord;
  TransactionResponse: new () => JuteRecord & { results: Record<string, unknown>[] };
}

const load = createRequire(import.meta.url);
const jute = load('node-zookeeper-client/lib/jute/index.js') as Jute;
const { ACL } = load('node-zookeeper-client') as { ACL: { OPEN_ACL_UNSAFE: object[] } };

/** jute's primitive encodings, by hand. */
const wire = {
  ...juteByHand,
  stat: (version: number, mzxid: bigint, dataLength: number) =>
    Buffer.concat([
      wire.long(7n), // czxid
      wire.long(mzxid),
      wire.long(1_700_000_000_000n), // ctime
      wire.long(1_700_000_000_500n), // mtime
      wire.int(version),
      wire.int(0), // cversion
      wire.int(0), // aversion
      wire.long(0n), // ephemeralOwner
      wire.int(dataLength),
      wire.int(0), // numChildren
      wire.long(mzxid), // pzxid
    ]),
};

const OP = jute.OP_CODES;

function header(type: number, xid: number): JuteRecord {
  const h = new jute.protocol['RequestHeader']!();
  h['xid'] = xid;
  h['type'] = type;
  return h;
}

describe('the patched library encodes requests as jute does', () => {
  it('a multi of create, delete, setData, check and getData, under a chroot', () => {
    const payload = new jute.TransactionRequest([
      {
        type: OP['CREATE'],
        path: '/jobs/jid1',
        data: Buffer.from('{"ü":1}'),
        acls: ACL.OPEN_ACL_UNSAFE,
        mode: 2,
      },
      { type: OP['DELETE'], path: '/jobs/states/pending/05-jid1', version: -1 },
      { type: OP['SET_DATA'], path: '/jobs/jid1/status', data: Buffer.from('x'), version: 3 },
      { type: OP['CHECK'], path: '/jobs/jid1/lock', version: 0 },
      { type: OP['GET_DATA'], path: '/' },
    ]);
    payload.setChrootPath('/mrt');
    const bytes = new jute.Request(header(OP['MULTI']!, 42), payload).toBuffer();

    const body = Buffer.concat([
      wire.int(42),
      wire.int(OP['MULTI']!),
      wire.multiHeader(OP['CREATE']!, false, -1),
      wire.string('/mrt/jobs/jid1'),
      wire.bytes(Buffer.from('{"ü":1}')),
      wire.int(1), // one ACL: all permissions for world:anyone
      wire.int(31),
      wire.string('world'),
      wire.string('anyone'),
      wire.int(2),
      wire.multiHeader(OP['DELETE']!, false, -1),
      wire.string('/mrt/jobs/states/pending/05-jid1'),
      wire.int(-1),
      wire.multiHeader(OP['SET_DATA']!, false, -1),
      wire.string('/mrt/jobs/jid1/status'),
      wire.bytes(Buffer.from('x')),
      wire.int(3),
      wire.multiHeader(OP['CHECK']!, false, -1),
      wire.string('/mrt/jobs/jid1/lock'),
      wire.int(0),
      wire.multiHeader(OP['GET_DATA']!, false, -1),
      wire.string('/mrt'), // the root under a chroot is the chroot itself
      wire.bool(false),
      wire.multiHeader(-1, true, -1),
    ]);
    expect(bytes).toEqual(Buffer.concat([wire.int(body.length), body]));
  });

  it('a create without data sends length -1', () => {
    const create = new jute.protocol['CreateRequest']!();
    create['path'] = '/a';
    create['acl'] = [];
    create['flags'] = 0;
    const bytes = new jute.Request(header(OP['CREATE']!, 1), create).toBuffer();
    const body = Buffer.concat([
      wire.int(1),
      wire.int(OP['CREATE']!),
      wire.string('/a'),
      wire.int(-1),
      wire.int(0),
      wire.int(0),
    ]);
    expect(bytes).toEqual(Buffer.concat([wire.int(body.length), body]));
  });

  it('refuses a record written past its buffer instead of truncating it', () => {
    const get = new jute.protocol['GetDataRequest']!();
    get['path'] = '/abcdef';
    expect(() => get.serialize(Buffer.alloc(8), 0)).toThrow(/enough space|out of range/);
    const set = new jute.protocol['SetDataRequest']!();
    set['path'] = '/a';
    set['data'] = Buffer.alloc(64);
    expect(() => set.serialize(Buffer.alloc(16), 0)).toThrow(/enough space/);
  });

  it('refuses to send a request whose payload writes fewer bytes than it measured', () => {
    const liar = { byteLength: () => 8, serialize: () => 4, setChrootPath: () => undefined };
    expect(() => new jute.Request(header(OP['GET_DATA']!, 1), liar).toBuffer()).toThrow(/measured/);
  });
});

describe('the patched library decodes responses as jute does', () => {
  it('a getData answer: data, and a stat whose longs are 8 big-endian bytes', () => {
    const bytes = Buffer.concat([wire.bytes(Buffer.from('{"a":1}')), wire.stat(4, 0x1_0000_0002n, 7)]);
    const response = new jute.protocol['GetDataResponse']!();
    expect(response.deserialize(bytes, 0)).toBe(bytes.length);
    expect((response['data'] as Buffer).toString()).toBe('{"a":1}');
    const stat = response['stat'] as Record<string, unknown>;
    expect(stat['version']).toBe(4);
    expect(stat['dataLength']).toBe(7);
    expect((stat['mzxid'] as Buffer).readBigInt64BE(0)).toBe(0x1_0000_0002n);
    expect((stat['mtime'] as Buffer).readBigInt64BE(0)).toBe(1_700_000_000_500n);
    // A long is a copy, not a view of the packet: the packet's buffer may be reused.
    bytes.fill(0);
    expect((stat['mzxid'] as Buffer).readBigInt64BE(0)).toBe(0x1_0000_0002n);
  });

  it('a multi answer: created path without the chroot, stats, data, an error', () => {
    const bytes = Buffer.concat([
      wire.multiHeader(OP['CREATE']!, false, 0),
      wire.string('/mrt/jobs/jid9'),
      wire.multiHeader(OP['SET_DATA']!, false, 0),
      wire.stat(9, 11n, 1),
      wire.multiHeader(OP['GET_DATA']!, false, 0),
      wire.int(-1), // a node without data
      wire.stat(0, 12n, 0),
      wire.multiHeader(OP['DELETE']!, false, 0),
      wire.multiHeader(OP['ERROR']!, false, -101),
      wire.int(-101),
      wire.multiHeader(-1, true, -1),
    ]);
    const response = new jute.TransactionResponse();
    response.setChrootPath('/mrt');
    expect(response.deserialize(bytes, 0)).toBe(bytes.length);
    const [created, set, got, deleted, failed] = response.results;
    expect(created).toEqual({ type: OP['CREATE'], path: '/jobs/jid9' });
    expect((set!['stat'] as Record<string, unknown>)['version']).toBe(9);
    expect(got!['data']).toBeUndefined();
    expect(((got!['stat'] as Record<string, unknown>)['mzxid'] as Buffer).readBigInt64BE(0)).toBe(12n);
    expect(deleted).toEqual({ type: OP['DELETE'] });
    expect(failed).toEqual({ type: OP['ERROR'], err: -101 });
  });

  it('a record decoded (made without defaults) has the fields of one built by hand', () => {
    const bytes = Buffer.concat([wire.bytes(Buffer.from('x')), wire.stat(1, 2n, 1)]);
    const response = new jute.protocol['GetDataResponse']!();
    response.deserialize(bytes, 0);
    const decoded = response['stat'] as Record<string, unknown>;
    const built = new jute.data['Stat']!();
    expect(Object.keys(decoded)).toEqual(Object.keys(built));
    expect(Object.getPrototypeOf(decoded)).toBe(Object.getPrototypeOf(built));
  });
});
