/** Stable codes for what the output side of ingest (processing → notify, reports, access) refuses. */
export type OutputErrorCode =
  /** The minter did not answer `success: ark:/…`. */
  | 'MINT_FAILED'
  /** Storage refused or failed a version; nothing was recorded. */
  | 'STORAGE_FAILED'
  /** Inventory refused or failed a record or a lookup. */
  | 'INVENTORY_FAILED'
  /** The depositor's ark and the ark already recorded for the local id disagree. */
  | 'IDENTIFIER_CONFLICT'
  /** An ark or local id that cannot name an object (not `ark:/NAAN/name`, path tricks…). */
  | 'IDENTIFIER_INVALID'
  /** Another session holds `/locks/storage/<ark>` or `/locks/inventory/<ark>`. */
  | 'OBJECT_LOCKED'
  /** `download.json` (or the processing record) is missing or unreadable. */
  | 'WORKDIR_INVALID'
  /** A file no longer has the size or digest the download step recorded. */
  | 'DIGEST_MISMATCH'
  /** The job's profile could not be found. */
  | 'PROFILE_NOT_FOUND'
  /** The profile's callback kept failing. */
  | 'CALLBACK_FAILED'
  /** The batch report could not be sent or written. */
  | 'REPORT_FAILED'
  /** A `/jobs/JID/store` or `/jobs/JID/inventory` hand-off node is missing or not in Merritt's format. */
  | 'HANDOFF_INVALID'
  /** An access request names an object or version the store does not hold. */
  | 'OBJECT_NOT_FOUND';

/**
 * An error of the output side, with a message a depositor or operator can act on. `retryable`
 * says that requeueing the job unchanged may succeed (a lock held, a service down); the engine
 * still fails the job: requeueing is an operator's decision (seed 003).
 */
export class OutputError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: OutputErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OutputError';
    this.retryable = options.retryable ?? false;
  }
}

/** Whether `err` is an OutputError (with that code, when given). */
export function isOutputError(err: unknown, code?: OutputErrorCode): err is OutputError {
  return err instanceof OutputError && (code === undefined || err.code === code);
}
