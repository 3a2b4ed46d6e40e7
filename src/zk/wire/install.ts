/**
 * Puts the in-tree wire code into the loaded library: the record codec (types parsed once, pooled
 * longs, one measuring pass, reply records decoded without throw-away defaults), the multi records
 * with multiRead, child lists decoded when read, requests built without zero-filling, and one
 * socket write per turn. The library looks all of these up through its module objects at every
 * use, so replacing them there changes its behaviour without patching its files, and a future
 * upgrade of the library is a readable diff (`patches/` holds only fixes of what is broken).
 *
 * The wire format is jute's, byte for byte (`test/unit/zk/library-wire.test.ts` writes it out by hand).
 */
import { childListResponseClass } from './child-list-response.js';
import type { JuteModule, JuteRecord, RecordClass, Specification, ZkLibrary } from './library-shape.js';
import { makeRecordClasses } from './record-classes.js';
import { recordDeserialize } from './record-decode.js';
import { recordByteLength, recordSerialize } from './record-encode.js';
import { ATTRIBUTES, compileRecordTypes, type RecordType } from './record-types.js';
import { requestToBuffer } from './request-buffer.js';
import { createTransactionClasses } from './transaction-records.js';
import { installWriteBatching } from './write-batching.js';

/** What was installed, kept on the library's jute module (shared by every copy of this module). */
interface Installed {
  recordMethods: Readonly<Record<'byteLength' | 'serialize' | 'deserialize', unknown>>;
  classes: ReadonlyMap<string, unknown>;
  TransactionRequest: unknown;
  TransactionResponse: unknown;
  toBuffer: unknown;
  flush: unknown;
}

const INSTALLED = Symbol.for('merritt-ingest-queue.zk.wire');

type ModuleName = 'data' | 'protocol';

function installed(jute: JuteModule): Installed | undefined {
  return (jute as unknown as { [INSTALLED]?: Installed })[INSTALLED];
}

/** The library's Record, the prototype of every record class's prototype. */
function recordBase(jute: JuteModule): { prototype: Record<string, unknown> } & (abstract new () => unknown) {
  const stat = jute.data['Stat'];
  if (!stat) throw new Error('node-zookeeper-client: jute.data.Stat is missing (not 1.1.3?)');
  const base = Object.getPrototypeOf(stat.prototype) as { constructor: unknown };
  return base.constructor as { prototype: Record<string, unknown> } & (abstract new () => unknown);
}

/**
 * The record codec and classes: Record's prototype methods, and a constructor for every class
 * (child lists decoded when read). Returns what it installed.
 */
function installRecords(
  jute: JuteModule,
  specification: Specification,
): Pick<Installed, 'recordMethods' | 'classes'> & { types: ReadonlyMap<string, RecordType> } {
  const RecordBase = recordBase(jute);
  const types = compileRecordTypes(specification, (moduleName, className) => {
    const libraryClass = jute[moduleName as ModuleName]?.[className];
    if (!libraryClass) throw new Error(`node-zookeeper-client: jute.${moduleName}.${className} is missing`);
    return libraryClass.prototype as object;
  });
  for (const type of types.values()) {
    Object.defineProperty(type.prototype, ATTRIBUTES, { value: type.attributes });
  }
  const recordMethods = {
    byteLength: recordByteLength,
    serialize: recordSerialize,
    deserialize: recordDeserialize,
  };
  Object.assign(RecordBase.prototype, recordMethods);

  const classes = new Map<string, unknown>();
  for (const [type, Class] of makeRecordClasses(types.values(), RecordBase)) classes.set(type.name, Class);
  classes.set('protocol.GetChildren2Response', childListResponseClass(types.get('data.Stat')!.blank));
  for (const [name, Class] of classes) {
    const [moduleName, className] = name.split('.') as [ModuleName, string];
    jute[moduleName][className] = Class as RecordClass;
  }
  return { recordMethods, classes, types };
}

/**
 * Installs the wire code into `library` (once per process: a second call finds it installed).
 * Throws when the library is not shaped as 1.1.3 is.
 */
export function installWire({ jute, specification, ConnectionManager }: ZkLibrary): void {
  if (installed(jute)) return;
  const { recordMethods, classes, types } = installRecords(jute, specification);
  const blankOf = (name: string): (() => JuteRecord) => types.get(`protocol.${name}`)!.blank;
  const { TransactionRequest, TransactionResponse } = createTransactionClasses(jute, blankOf);
  jute.TransactionRequest = TransactionRequest;
  jute.TransactionResponse = TransactionResponse;
  jute.Request.prototype.toBuffer = requestToBuffer;
  const flush = installWriteBatching(ConnectionManager);
  const record: Installed = {
    recordMethods,
    classes,
    TransactionRequest,
    TransactionResponse,
    toBuffer: requestToBuffer,
    flush,
  };
  Object.defineProperty(jute, INSTALLED, { value: record });
}

/** What of the wire code is not (or no longer) in place in `library`: empty when all is. */
export function wireProblems({ jute, ConnectionManager }: ZkLibrary): string[] {
  const record = installed(jute);
  if (!record) return ['the in-tree wire code is not installed'];
  const problems: string[] = [];
  const RecordBase = recordBase(jute);
  for (const [method, value] of Object.entries(record.recordMethods)) {
    if (RecordBase.prototype[method] !== value) problems.push(`Record.prototype.${method}`);
  }
  for (const [name, Class] of record.classes) {
    const [moduleName, className] = name.split('.') as [ModuleName, string];
    if (jute[moduleName][className] !== Class) problems.push(`jute.${name}`);
  }
  if (jute.TransactionRequest !== record.TransactionRequest) problems.push('jute.TransactionRequest');
  if (jute.TransactionResponse !== record.TransactionResponse) problems.push('jute.TransactionResponse');
  if (jute.Request.prototype.toBuffer !== record.toBuffer) problems.push('jute.Request.prototype.toBuffer');
  if (ConnectionManager.prototype.onPacketQueueReadable !== record.flush) {
    problems.push('ConnectionManager.prototype.onPacketQueueReadable');
  }
  return problems;
}
