import { BATCH_FOLDERS } from '../../../machines/index.js';
import { JAVA_CHILD_LIST_BYTES } from '../../config/child-list-limit.js';
import type { QueueContext } from './context.js';
import {
  ACCESS_PREFIX,
  BATCH_PREFIX,
  BATCH_UUIDS,
  BATCHES,
  JOB_PREFIX,
  JOBS,
  JOB_STATES,
  accessQueuePath,
  batchFolderPath,
  isBatchId,
  jobStateFolder,
  refName,
} from './paths.js';
import { isZkError } from '../../zk/index.js';

export { JAVA_CHILD_LIST_BYTES };

/** From this fraction of the limit on, a folder is reported as near it. */
export const CHILD_LIST_WARN_FRACTION = 0.8;

/**
 * The reply header (xid 4, zxid 8, err 4) and the vector's count (4): what the Java client
 * compares with jute.maxbuffer is the packet after its 4-byte length prefix.
 */
const REPLY_OVERHEAD_BYTES = 20;
/** ZooKeeper's sequential suffix: ten digits. */
const SEQUENCE = '0'.repeat(10);
const JOB_ID_LENGTH = (JOB_PREFIX + SEQUENCE).length;
const UUID_LENGTH = '00000000-0000-0000-0000-000000000000'.length;

/**
 * How long a `getChildren` reply of `children` names of `nameLength` bytes is, as the Java client
 * measures it against jute.maxbuffer (jute: each name length-prefixed); it refuses a reply of that
 * many bytes or more.
 */
export function childListBytes(children: number, nameLength: number): number {
  return REPLY_OVERHEAD_BYTES + children * (4 + nameLength);
}

/** How full a folder's child list is, for a reader limited to `limitBytes`. */
export interface ChildListSize {
  path: string;
  children: number;
  /** The reply's length, from the count and the names' format (exact for names this queue writes). */
  bytes: number;
  /** bytes / limit. */
  fraction: number;
  level: 'ok' | 'near' | 'over';
}

/** A folder to size: the length of its children's names, and any fixed child of another name. */
type Folder = { path: string; nameLength: number; fixedChild?: string };

function sizeOf(folder: Folder, children: number, limitBytes: number): ChildListSize {
  const { path, nameLength, fixedChild } = folder;
  const fixed = fixedChild !== undefined && children > 0 ? 1 : 0;
  const bytes =
    childListBytes(children - fixed, nameLength) + fixed * (4 + Buffer.byteLength(fixedChild ?? ''));
  const fraction = bytes / limitBytes;
  const level = bytes >= limitBytes ? 'over' : fraction >= CHILD_LIST_WARN_FRACTION ? 'near' : 'ok';
  return { path, children, bytes, fraction, level };
}

/**
 * The child lists Merritt's Java readers take whole (`/jobs`, `/batches`, `/batch-uuids`, each job
 * state folder, each access queue, each batch's job folders), sized from one `exists` each: the
 * count is in the node's stat, so no list is read to size it. Batches are listed once (their own
 * list is one of the sizes).
 */
export async function childListSizes(
  ctx: QueueContext,
  limitBytes: number = JAVA_CHILD_LIST_BYTES,
): Promise<ChildListSize[]> {
  const refLength = refName(5, JOB_PREFIX + SEQUENCE).length;
  const fixed: Folder[] = [
    // /jobs holds the job ids and the `states` folder (the queue tree's own).
    { path: JOBS, nameLength: JOB_ID_LENGTH, fixedChild: JOB_STATES.slice(JOBS.length + 1) },
    { path: BATCHES, nameLength: (BATCH_PREFIX + SEQUENCE).length },
    { path: BATCH_UUIDS, nameLength: UUID_LENGTH },
    ...ctx.lifecycle.states.map((state) => ({
      path: jobStateFolder(ctx.lifecycle.folderOf(state)),
      nameLength: refLength,
    })),
    ...['small', 'large'].map((queue) => ({
      path: accessQueuePath(queue),
      nameLength: (ACCESS_PREFIX + SEQUENCE).length,
    })),
  ];
  let bids: string[] = [];
  try {
    bids = (await ctx.zk.getChildren(BATCHES)).filter(isBatchId).sort();
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
  }
  const folders: Folder[] = [
    ...fixed,
    ...bids.flatMap((bid) =>
      BATCH_FOLDERS.map((folder) => ({ path: batchFolderPath(bid, folder), nameLength: JOB_ID_LENGTH })),
    ),
  ];
  const sizes: ChildListSize[] = [];
  // A few at a time: a queue may hold thousands of batches.
  for (let start = 0; start < folders.length; start += 64) {
    const part = folders.slice(start, start + 64);
    const counts = await Promise.all(part.map((folder) => ctx.zk.childCount(folder.path)));
    part.forEach((folder, i) => {
      const count = counts[i];
      if (count !== undefined) sizes.push(sizeOf(folder, count, limitBytes));
    });
  }
  return sizes;
}

/** One line for an operator: which folder, how full, and what to do. */
export function describeChildList(size: ChildListSize, limitBytes: number): string {
  const percent = Math.round(size.fraction * 100);
  const what =
    size.level === 'over'
      ? `longer than the ${limitBytes} bytes Merritt's Java readers accept: their getChildren of it fails`
      : `${percent}% of the ${limitBytes} bytes Merritt's Java readers accept`;
  return (
    `${size.path} holds ${size.children} children (a ${size.bytes}-byte child list), ${what}; ` +
    'raise jute.maxbuffer on those JVMs and set MRTQ_PEER_CHILD_LIST_BYTES to match (docs/deploy.md)'
  );
}
