/**
 * The payloads of a multi: the request (a MultiHeader before each op, one marked done after the
 * last) and its reply (a MultiHeader before each result). They replace the library's
 * `jute.TransactionRequest` and `jute.TransactionResponse`, adding getData ops and results for
 * multiRead (ZooKeeper 3.6+, op 22, same layout; see `multi-read.ts`), and writing each record
 * once into a buffer sized once.
 */
import assert from 'node:assert';
import type { JuteModule, JuteRecord, Payload } from './library-shape.js';

/** One op of a library transaction (`Transaction.js` queues them), or a getData of a multiRead. */
export interface TransactionOp {
  type: number;
  path: string;
  data?: Buffer;
  acls?: ReadonlyArray<{ toRecord(): unknown }>;
  mode?: number;
  version?: number;
}

/** One result of a multi reply, as the library's callers read it. */
export interface TransactionResult {
  type: number;
  path?: string;
  stat?: unknown;
  data?: unknown;
  err?: number;
}

export interface TransactionClasses {
  TransactionRequest: new (ops: readonly TransactionOp[]) => Payload & { ops: readonly TransactionOp[] };
  TransactionResponse: new () => {
    results: TransactionResult[];
    unimplemented: boolean;
    setChrootPath(path: string | undefined): void;
    deserialize(buffer: Buffer, offset: number): number;
  };
}

/** `jute.protocol` records, made through the module as the library makes them. */
function opRecord(jute: JuteModule, op: TransactionOp): JuteRecord {
  const { OP_CODES, protocol } = jute;
  switch (op.type) {
    case OP_CODES['CREATE']: {
      const record = new protocol['CreateRequest']!();
      record['path'] = op.path;
      record['data'] = op.data;
      record['acl'] = op.acls!.map((acl) => acl.toRecord());
      record['flags'] = op.mode;
      return record;
    }
    case OP_CODES['DELETE']: {
      const record = new protocol['DeleteRequest']!();
      record['path'] = op.path;
      record['version'] = op.version;
      return record;
    }
    case OP_CODES['SET_DATA']: {
      const record = new protocol['SetDataRequest']!();
      record['path'] = op.path;
      // A copy, as the library makes (the caller may reuse its buffer); every byte is overwritten.
      if (Buffer.isBuffer(op.data)) record['data'] = Buffer.from(op.data);
      record['version'] = op.version;
      return record;
    }
    case OP_CODES['CHECK']: {
      const record = new protocol['CheckVersionRequest']!();
      record['path'] = op.path;
      record['version'] = op.version;
      return record;
    }
    case OP_CODES['GET_DATA']: {
      // multiRead: a getData without a watch.
      const record = new protocol['GetDataRequest']!();
      record['path'] = op.path;
      record['watch'] = false;
      return record;
    }
    default:
      throw new Error(`Unknown op type: ${op.type}`);
  }
}

/**
 * The two classes, bound to the library's module. `blankOf(name)` makes records of `protocol.name`
 * to decode into (see `RecordType.blank`).
 */
export function createTransactionClasses(
  jute: JuteModule,
  blankOf: (name: string) => () => JuteRecord,
): TransactionClasses {
  const { OP_CODES } = jute;
  const blankMultiHeader = blankOf('MultiHeader');
  const blankCreate = blankOf('CreateResponse');
  const blankSetData = blankOf('SetDataResponse');
  const blankGetData = blankOf('GetDataResponse');
  const blankError = blankOf('ErrorResponse');

  class TransactionRequest implements Payload {
    readonly records: JuteRecord[] = [];

    constructor(readonly ops: readonly TransactionOp[]) {
      const MultiHeader = jute.protocol['MultiHeader']!;
      for (let i = 0; i < ops.length; i += 1) {
        const op = ops[i]!;
        this.records.push(new MultiHeader(op.type, false, -1), opRecord(jute, op));
      }
      // Signals the end of the ops.
      this.records.push(new MultiHeader(-1, true, -1));
    }

    setChrootPath(path: string | undefined): void {
      for (const record of this.records) record.setChrootPath(path);
    }

    byteLength(): number {
      const { records } = this;
      let size = 0;
      for (let i = 0; i < records.length; i += 1) size += records[i]!.byteLength();
      return size;
    }

    /** Writes into a buffer the caller sized with byteLength(); every write is bounds-checked. */
    serialize(buffer: Buffer, offset: number): number {
      assert(Buffer.isBuffer(buffer), 'buffer must an instance of Node.js Buffer class.');
      assert(offset >= 0 && offset < buffer.length, `offset: ${offset} is out of buffer range.`);
      const { records } = this;
      let position = offset;
      for (let i = 0; i < records.length; i += 1) position += records[i]!.serialize(buffer, position);
      return position - offset;
    }
  }

  class TransactionResponse {
    results: TransactionResult[] = [];
    chrootPath: string | undefined = undefined;
    /**
     * The server sent the reply header alone: it does not know the op. ZooKeeper before 3.6 answers
     * multiRead so; reading on would run past the packet (and throw in the socket handler).
     */
    unimplemented = false;

    setChrootPath(path: string | undefined): void {
      this.chrootPath = path;
    }

    deserialize(buffer: Buffer, offset: number): number {
      assert(Buffer.isBuffer(buffer), 'buffer must an instance of Node.js Buffer class.');
      if (offset === buffer.length) {
        this.unimplemented = true;
        return 0;
      }
      assert(offset >= 0 && offset < buffer.length, `offset: ${offset} is out of buffer range.`);
      let bytesRead = 0;
      for (;;) {
        const header = blankMultiHeader();
        bytesRead += header.deserialize(buffer, offset + bytesRead);
        if (header['done']) return bytesRead;
        const type = header['type'] as number;
        const response = replyRecord(type);
        if (response) {
          response.setChrootPath(this.chrootPath);
          bytesRead += response.deserialize(buffer, offset + bytesRead);
        }
        this.results.push(result(type, response));
      }
    }
  }

  function replyRecord(type: number): JuteRecord | undefined {
    switch (type) {
      case OP_CODES['CREATE']:
        return blankCreate();
      case OP_CODES['SET_DATA']:
        return blankSetData();
      case OP_CODES['GET_DATA']:
        return blankGetData();
      case OP_CODES['ERROR']:
        return blankError();
      case OP_CODES['DELETE']:
      case OP_CODES['CHECK']:
        return undefined;
      default:
        throw new Error(`Unknown type: ${type} in transaction response.`);
    }
  }

  function result(type: number, response: JuteRecord | undefined): TransactionResult {
    switch (type) {
      case OP_CODES['CREATE']:
        return { type, path: response!['path'] as string };
      case OP_CODES['SET_DATA']:
        return { type, stat: response!['stat'] };
      case OP_CODES['GET_DATA']:
        return { type, data: response!['data'], stat: response!['stat'] };
      case OP_CODES['ERROR']:
        return { type, err: response!['err'] as number };
      default:
        return { type };
    }
  }

  return { TransactionRequest, TransactionResponse };
}
