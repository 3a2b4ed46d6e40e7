import { aclFor, toData, toLibMode, toZkStat } from './convert.js';
import {
  RUNTIME_INCONSISTENCY,
  ZkTransactionError,
  kindOfServerCode,
  type OpOutcome,
  type ZkErrorName,
} from './errors.js';
import type { LibStat, LibTransaction } from './library.js';
import { assertRequestFits } from './limits.js';
import { validatePath } from './paths.js';
import type { Op, OpResult } from './types.js';

/** One entry of the library's multi reply: `err` set on failure, `path`/`stat` on success. */
export interface RawOpResult {
  type: number;
  err?: number;
  path?: string;
  stat?: LibStat;
}

/** Throws BAD_ARGUMENTS for a bad path, or a transaction too large for one request. */
export function validateOps(ops: readonly Op[], chroot: string | undefined): void {
  for (const op of ops) validatePath(op.path, `multi ${op.op}`);
  // Sized without encoding: addOps encodes each op's data once, when it adds it.
  const sized = ops.map((op) => ({ path: op.path, data: 'data' in op ? op.data : undefined }));
  assertRequestFits('multi', sized, chroot);
}

/** Adds `ops` to a library transaction. Versions are passed as given: -1/undefined means any. */
export function addOps(transaction: LibTransaction, ops: readonly Op[], acl: 'open' | 'creator'): void {
  for (const op of ops) {
    switch (op.op) {
      case 'create': {
        // The library tells its optional arguments apart by type, so "no data" means leaving it out.
        const data = toData(op.data);
        if (data) transaction.create(op.path, data, aclFor(acl), toLibMode(op.mode));
        else transaction.create(op.path, aclFor(acl), toLibMode(op.mode));
        break;
      }
      case 'set':
        transaction.setData(op.path, toData(op.data) ?? Buffer.alloc(0), op.version ?? -1);
        break;
      case 'delete':
        transaction.remove(op.path, op.version ?? -1);
        break;
      case 'check':
        transaction.check(op.path, op.version ?? -1);
        break;
    }
  }
}

/** The results of a committed multi, or the ZkTransactionError naming the op that failed it. */
export function interpretResults(ops: readonly Op[], raw: readonly RawOpResult[]): OpResult[] {
  const failedIndex = findFailure(raw);
  if (failedIndex === -1) return ops.map((op, i) => toOpResult(op, raw[i]));
  const failedOp = ops[failedIndex] as Op;
  const outcomes = raw.map((entry) => outcomeOf(entry));
  const failure = outcomes[failedIndex] as ZkErrorName;
  throw new ZkTransactionError(failedIndex, failedOp, failure, outcomes);
}

/**
 * The op that made the server refuse the multi. Ops before it report OK, ops after it
 * RUNTIME_INCONSISTENCY ("rolled back"); fall back to any error should that ever differ.
 */
function findFailure(raw: readonly RawOpResult[]): number {
  const isError = (entry: RawOpResult): boolean => entry.err !== undefined && entry.err !== 0;
  const cause = raw.findIndex((entry) => isError(entry) && entry.err !== RUNTIME_INCONSISTENCY);
  return cause !== -1 ? cause : raw.findIndex(isError);
}

function outcomeOf(entry: RawOpResult): OpOutcome {
  if (entry.err === undefined || entry.err === 0) return 'OK';
  if (entry.err === RUNTIME_INCONSISTENCY) return 'ROLLED_BACK';
  return kindOfServerCode(entry.err);
}

function toOpResult(op: Op, entry: RawOpResult | undefined): OpResult {
  const result: OpResult = { op: op.op, path: op.path };
  if (op.op === 'create' && entry?.path !== undefined) result.createdPath = entry.path;
  if (op.op === 'set' && entry?.stat) result.stat = toZkStat(entry.stat);
  return result;
}
