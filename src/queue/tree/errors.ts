/** Stable codes for what the queue refuses or cannot read. */
export type QueueErrorCode =
  /** The machine does not allow this event in the item's current state. */
  | 'INVALID_TRANSITION'
  /** The item's lock is no longer held by this session: nothing was committed. */
  | 'LOCK_LOST'
  /** Someone else holds the item's lock (an operator action without --force). */
  | 'LOCK_HELD'
  /** The item changed under us (status version moved on): nothing was committed. */
  | 'CONFLICT'
  | 'NOT_FOUND'
  /** The item's nodes are unreadable: malformed JSON, unknown state, missing node. */
  | 'ITEM_INVALID'
  /** A request the store refuses before touching ZooKeeper (bad id, bad priority…). */
  | 'BAD_REQUEST';

/** An error from the queue layer, naming the item it concerns. */
export class QueueError extends Error {
  /**
   * ITEM_INVALID because a node the item needs is not there (yet): another tool may still be
   * writing it node by node (Merritt's Java library writes an access request's token, then its
   * status), so it is worth reading again when the item's nodes change.
   */
  readonly incomplete: boolean;

  constructor(
    readonly code: QueueErrorCode,
    message: string,
    readonly item?: string,
    options?: { cause?: unknown; incomplete?: boolean },
  ) {
    super(message, options);
    this.name = 'QueueError';
    this.incomplete = options?.incomplete ?? false;
  }
}

export function isQueueError(err: unknown, code?: QueueErrorCode): err is QueueError {
  return err instanceof QueueError && (code === undefined || err.code === code);
}
