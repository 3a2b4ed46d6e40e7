import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACL, jute, plain, specification, upstream, type Jute, type Rec } from './jute-modules.js';

// The in-tree codec (src/zk/wire) replaces the library's for speed. Every record class must encode
// to the bytes the library's own codec writes and decode to the values it reads: the library's
// codec, loaded fresh from its unpatched file, is the reference here.

type ModuleName = 'data' | 'protocol';
/** A generated attribute value; nested records as their class and attribute values. */
type Value = unknown;
interface NestedValue {
  className: string;
  values: Value[];
}

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const bytes = (length: { minLength?: number; maxLength: number }) =>
  fc.uint8Array(length).map((array) => Buffer.from(array));
const text = fc.string({ unit: 'grapheme', maxLength: 12 });

function valueOf(type: string): fc.Arbitrary<Value> {
  switch (type) {
    case 'int':
      return int32;
    case 'long':
      return bytes({ minLength: 8, maxLength: 8 });
    case 'buffer':
      return fc.option(bytes({ maxLength: 40 }), { nil: undefined });
    case 'ustring':
      return fc.option(
        fc.oneof(
          text,
          text.map((s) => `/${s}`),
          fc.constant('/'),
        ),
        { nil: undefined },
      );
    case 'boolean':
      return fc.boolean();
  }
  const element = /^vector<(.+)>$/.exec(type)?.[1];
  if (element) return fc.option(fc.array(valueOf(element), { maxLength: 4 }), { nil: undefined });
  const className = /^data\.(\w+)$/.exec(type)![1]!;
  return valuesOf('data', className).map((values): NestedValue => ({ className, values }));
}

function valuesOf(moduleName: ModuleName, className: string): fc.Arbitrary<Value[]> {
  return fc.tuple(...specification[moduleName][className]!.map(({ type }) => valueOf(type)));
}

/** The constructor arguments of `values` in module `module` (nested records made there too). */
function argsIn(module: Jute, values: Value[]): unknown[] {
  return values.map((value) => argIn(module, value));
}
function argIn(module: Jute, value: Value): unknown {
  if (Array.isArray(value)) return value.map((item) => argIn(module, item));
  if (value && typeof value === 'object' && 'className' in value) {
    const nested = value as NestedValue;
    return new module.data[nested.className]!(...argsIn(module, nested.values));
  }
  return value;
}

const chroot = fc.option(fc.constantFrom('/mrt', '/a/b'), { nil: undefined });

/** Every class the client writes: all but GetChildren2Response, a reply it only ever reads. */
const written = (['data', 'protocol'] as const).flatMap((moduleName) =>
  Object.keys(specification[moduleName])
    .filter((className) => className !== 'GetChildren2Response')
    .map((className) => [moduleName, className] as const),
);
const all = (['data', 'protocol'] as const).flatMap((moduleName) =>
  Object.keys(specification[moduleName]).map((className) => [moduleName, className] as const),
);

/** What `read` returns, or the message it throws. */
function outcome(read: () => number): { read: number } | { error: string } {
  try {
    return { read: read() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function encode(record: Rec): Buffer {
  const buffer = Buffer.alloc(record.byteLength());
  expect(record.serialize(buffer, 0)).toBe(buffer.length);
  return buffer;
}

describe('the in-tree codec writes what the library writes', () => {
  it.each(written)('%s.%s, with and without a chroot', (moduleName, className) => {
    fc.assert(
      fc.property(valuesOf(moduleName, className), chroot, (values, root) => {
        const ours = new jute[moduleName][className]!(...argsIn(jute, values));
        const theirs = new upstream[moduleName][className]!(...argsIn(upstream, values));
        ours.setChrootPath(root);
        theirs.setChrootPath(root);
        expect(ours.byteLength()).toBe(theirs.byteLength());
        expect(encode(ours)).toEqual(encode(theirs));
      }),
      { numRuns: 40 },
    );
  });

  it('a multi and its request, op by op', () => {
    const ops = (module: Jute) => {
      // An ACL as the library's ACL makes its record, in `module`.
      const acl = { toRecord: () => new module.data['ACL']!(31, new module.data['Id']!('world', 'anyone')) };
      return [
        { type: 1, path: '/jobs/j1', data: Buffer.from('ü'), acls: [acl], mode: 2 },
        { type: 1, path: '/jobs/j2', data: undefined, acls: [], mode: 0 },
        { type: 2, path: '/jobs/states/pending/05-j1', version: 0 },
        { type: 5, path: '/jobs/j1/status', data: Buffer.alloc(300, 7), version: 4 },
        { type: 13, path: '/', version: -1 },
      ];
    };
    const request = (module: Jute) => {
      const header = new module.protocol['RequestHeader']!(9, module.OP_CODES['MULTI']);
      const payload = new module.TransactionRequest(ops(module));
      payload.setChrootPath('/mrt');
      return new module.Request(header, payload).toBuffer();
    };
    expect(request(jute)).toEqual(request(upstream));
  });
});

describe('the in-tree codec reads what the library reads', () => {
  it.each(all)('%s.%s, at an offset, with and without a chroot', (moduleName, className) => {
    fc.assert(
      fc.property(
        valuesOf(moduleName, className),
        chroot,
        bytes({ maxLength: 5 }),
        (values, root, prefix) => {
          // Written by the library's own codec (GetChildren2Response through a record of its shape).
          const written = new upstream[moduleName][className]!(...argsIn(upstream, values));
          const packet = Buffer.concat([prefix, encode(written), Buffer.from([0xee])]);
          const ours = new jute[moduleName][className]!();
          const theirs = new upstream[moduleName][className]!();
          ours.setChrootPath(root);
          theirs.setChrootPath(root);
          // Failures too: an absent path under a chroot throws in both.
          expect(outcome(() => ours.deserialize(packet, prefix.length))).toEqual(
            outcome(() => theirs.deserialize(packet, prefix.length)),
          );
          for (const { name } of specification[moduleName][className]!) {
            expect(plain(ours[name])).toEqual(plain(theirs[name]));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a multi reply, result by result', () => {
    const header = (type: number, err: number) => new upstream.protocol['MultiHeader']!(type, false, err);
    const records = [
      header(1, 0),
      new upstream.protocol['CreateResponse']!('/mrt/jobs/j1'),
      header(5, 0),
      new upstream.protocol['SetDataResponse']!(new upstream.data['Stat']!(Buffer.alloc(8, 1))),
      header(2, 0),
      header(13, 0),
      header(-1, -101),
      new upstream.protocol['ErrorResponse']!(-101),
      new upstream.protocol['MultiHeader']!(-1, true, -1),
    ];
    const packet = Buffer.concat(records.map(encode));
    const ours = new jute.TransactionResponse();
    const theirs = new upstream.TransactionResponse();
    ours.setChrootPath('/mrt');
    theirs.setChrootPath('/mrt');
    expect(ours.deserialize(packet, 0)).toBe(theirs.deserialize(packet, 0));
    expect(plain(ours.results)).toEqual(plain(theirs.results));
  });
});

describe('the in-tree record classes', () => {
  it.each(written)(
    '%s.%s made without arguments has the defaults the library gives',
    (moduleName, className) => {
      const ours = new jute[moduleName][className]!();
      const theirs = new upstream[moduleName][className]!();
      const isReply =
        className.endsWith('Response') || className === 'ReplyHeader' || className === 'WatcherEvent';
      // A reply record is only made to be decoded into: it gets no defaults (deserialize sets them all).
      if (isReply) expect(Object.keys(ours)).toEqual(['specification', 'chrootPath']);
      else expect(plain(ours)).toEqual(plain(theirs));
    },
  );

  it('copy buffers and longs given to them, and keep records given as they are', () => {
    const long = Buffer.alloc(8, 3);
    const data = Buffer.from('data');
    const request = new jute.protocol['ConnectRequest']!(0, long, 30_000, long, data);
    expect(request['lastZxidSeen']).toEqual(long);
    expect(request['lastZxidSeen']).not.toBe(long);
    expect(request['passwd']).toEqual(data);
    expect(request['passwd']).not.toBe(data);
    const id = new jute.data['Id']!('world', 'anyone');
    expect(new jute.data['ACL']!(31, id)['id']).toBe(id);
  });

  it('are the classes the library checks records against', () => {
    const record = ACL.OPEN_ACL_UNSAFE[0]!.toRecord();
    expect(record).toBeInstanceOf(jute.data['ACL']);
    expect(ACL.fromRecord(record)).toMatchObject({ permission: 31, id: { scheme: 'world', id: 'anyone' } });
    expect(Object.getPrototypeOf(new jute.data['Stat']!())).toBe(jute.data['Stat']!.prototype);
  });
});
