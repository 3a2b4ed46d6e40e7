import type { Op } from './types.js';

/** Failure kinds, named after ZooKeeper's own codes. */
export type ZkErrorName =
  | 'NO_NODE'
  | 'NODE_EXISTS'
  | 'BAD_VERSION'
  | 'NOT_EMPTY'
  | 'NO_CHILDREN_FOR_EPHEMERALS'
  | 'CONNECTION_LOSS'
  | 'SESSION_EXPIRED'
  | 'SESSION_MOVED'
  | 'TIMEOUT'
  | 'NO_AUTH'
  | 'AUTH_FAILED'
  | 'INVALID_ACL'
  | 'BAD_ARGUMENTS'
  | 'CLOSED'
  | 'SYSTEM_ERROR'
  | 'UNKNOWN';

/** Stable error code, e.g. `ZK_NO_NODE`. */
export type ZkErrorCode = `ZK_${ZkErrorName}`;

/** ZooKeeper's numeric codes, mapped once. Codes not listed become UNKNOWN. */
const SERVER_CODES: ReadonlyMap<number, ZkErrorName> = new Map<number, ZkErrorName>([
  [-1, 'SYSTEM_ERROR'],
  [-2, 'SYSTEM_ERROR'], // RUNTIME_INCONSISTENCY
  [-3, 'SYSTEM_ERROR'], // DATA_INCONSISTENCY
  [-4, 'CONNECTION_LOSS'],
  [-5, 'SYSTEM_ERROR'], // MARSHALLING_ERROR
  [-6, 'SYSTEM_ERROR'], // UNIMPLEMENTED
  [-7, 'TIMEOUT'], // OPERATION_TIMEOUT
  [-8, 'BAD_ARGUMENTS'],
  [-100, 'SYSTEM_ERROR'], // API_ERROR
  [-101, 'NO_NODE'],
  [-102, 'NO_AUTH'],
  [-103, 'BAD_VERSION'],
  [-108, 'NO_CHILDREN_FOR_EPHEMERALS'],
  [-110, 'NODE_EXISTS'],
  [-111, 'NOT_EMPTY'],
  [-112, 'SESSION_EXPIRED'],
  [-113, 'BAD_ARGUMENTS'], // INVALID_CALLBACK
  [-114, 'INVALID_ACL'],
  [-115, 'AUTH_FAILED'],
  [-118, 'SESSION_MOVED'],
  [-122, 'TIMEOUT'], // REQUEST_TIMEOUT
]);

/** Server code for "rolled back because an earlier op of the multi failed". */
export const RUNTIME_INCONSISTENCY = -2;

/** Kinds where trying again (on this or the next session) may succeed. */
const RETRYABLE = new Set<ZkErrorName>(['CONNECTION_LOSS', 'TIMEOUT', 'SESSION_EXPIRED', 'SESSION_MOVED']);

export interface ZkErrorOptions {
  path?: string;
  cause?: unknown;
  /** Overrides the default message `<operation> <path>: <NAME>`. */
  message?: string;
  operation?: string;
}

/** Every failure of the ZooKeeper port. `code` is stable (`ZK_NO_NODE`); `path` names the node. */
export class ZkError extends Error {
  readonly code: ZkErrorCode;
  readonly path: string | undefined;
  readonly retryable: boolean;

  constructor(name: ZkErrorName, options: ZkErrorOptions = {}) {
    super(options.message ?? defaultMessage(name, options), { cause: options.cause });
    this.name = 'ZkError';
    this.code = `ZK_${name}`;
    this.path = options.path;
    this.retryable = RETRYABLE.has(name);
  }

  /** The code without its `ZK_` prefix, e.g. `NO_NODE`. */
  get kind(): ZkErrorName {
    return this.code.slice(3) as ZkErrorName;
  }
}

/** How each op of a failed multi ended: `OK` (would have applied), the failure, or `ROLLED_BACK`. */
export type OpOutcome = 'OK' | 'ROLLED_BACK' | ZkErrorName;

/** A multi the server refused: nothing of it was applied. */
export class ZkTransactionError extends ZkError {
  constructor(
    /** Index (0-based) of the op that failed. */
    readonly failedIndex: number,
    readonly failedOp: Op,
    failure: ZkErrorName,
    /** One outcome per op, in order. */
    readonly results: readonly OpOutcome[],
  ) {
    super(failure, {
      path: failedOp.path,
      message: `multi failed at op ${failedIndex} (${describeOp(failedOp)}): ${failure}`,
    });
    this.name = 'ZkTransactionError';
  }
}

/** True when `err` is a ZkError, optionally of the given kind (`'NO_NODE'` or `'ZK_NO_NODE'`). */
export function isZkError(err: unknown, kind?: ZkErrorName | ZkErrorCode): err is ZkError {
  if (!(err instanceof ZkError)) return false;
  return kind === undefined || err.code === kind || err.kind === kind;
}

/** Maps a server or library code to a kind. */
export function kindOfServerCode(code: number): ZkErrorName {
  return SERVER_CODES.get(code) ?? 'UNKNOWN';
}

/** Converts whatever the library threw or called back with into a ZkError. */
export function toZkError(err: unknown, operation: string, path?: string): ZkError {
  if (err instanceof ZkError) return err;
  const base = { operation, path, cause: err };
  if (isLibraryException(err)) return new ZkError(kindOfServerCode(err.code), base);
  // The library validates arguments with `assert` (bad paths, data over 1 MiB): a caller error.
  if (err instanceof Error && err.name === 'AssertionError') {
    return new ZkError('BAD_ARGUMENTS', {
      ...base,
      message: `${describeRequest(operation, path)}: ${err.message}`,
    });
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new ZkError('UNKNOWN', { ...base, message: `${describeRequest(operation, path)}: ${detail}` });
}

/** `getData /a/b`, or just `multi` when there is no single path. */
export function describeRequest(operation: string, path: string | undefined): string {
  return path === undefined ? operation : `${operation} ${path}`;
}

/** A request that got no answer in time: it may or may not have been applied. */
export function timeoutError(operation: string, path: string | undefined, ms: number): ZkError {
  return new ZkError('TIMEOUT', {
    operation,
    path,
    message: `${describeRequest(operation, path)}: TIMEOUT after ${ms} ms; the outcome is unknown (a write may still have been applied)`,
  });
}

/** Short human form of an op, e.g. `check /a/lock version 0`. */
export function describeOp(op: Op): string {
  const version =
    'version' in op && op.version !== undefined && op.version !== -1 ? ` version ${op.version}` : '';
  const mode = op.op === 'create' && op.mode ? ` ${op.mode}` : '';
  return `${op.op} ${op.path}${version}${mode}`;
}

function defaultMessage(name: ZkErrorName, options: ZkErrorOptions): string {
  if (options.operation === undefined) return options.path === undefined ? name : `${options.path}: ${name}`;
  return `${describeRequest(options.operation, options.path)}: ${name}`;
}

function isLibraryException(err: unknown): err is { code: number } {
  return (
    err instanceof Error &&
    typeof (err as { code?: unknown }).code === 'number' &&
    typeof (err as { getCode?: unknown }).getCode === 'function'
  );
}
