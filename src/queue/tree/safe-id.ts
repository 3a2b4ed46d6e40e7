import { QueueError } from './errors.js';

/**
 * What a name chosen by a client (batch uuid, collection, profile) may look like, since it
 * becomes a ZooKeeper node name (`/batch-uuids/<uuid>`) or a file name (an upload): letters,
 * digits, `.`, `_` and `-`, and not `.` or `..`, which name a node's or directory's parent or
 * itself. The API's schemas use the same pattern.
 */
export const SAFE_ID_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9._-]+$';

/** The longest such name: an upload's file name, the uuid and a 40-character suffix, fits in 255 bytes. */
export const SAFE_ID_MAX = 200;

const SAFE_ID = new RegExp(SAFE_ID_PATTERN);

/**
 * Throws BAD_REQUEST, naming `what` and the rule, unless `value` is a {@link SAFE_ID_PATTERN}
 * name of at most {@link SAFE_ID_MAX} characters. Call it before the value reaches a path.
 */
export function checkSafeId(what: string, value: string): void {
  if (value.length <= SAFE_ID_MAX && SAFE_ID.test(value)) return;
  throw new QueueError(
    'BAD_REQUEST',
    `${what} ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)} is not allowed: ` +
      `use 1-${SAFE_ID_MAX} letters, digits, ".", "_" or "-", and not "." or ".."`,
  );
}
