import { isQueueError } from './errors.js';
import type { NodeRead } from './doctor-reader.js';
import type { BatchScan, JobScan, QueueScan } from './doctor-scan.js';
import { BATCH_FOLDERS, JOB_STATES, batchRef, isJobId, parseRefName, type BatchFolder } from './paths.js';
import { decodeJsonObject } from './wire.js';

/** A `/jobs/states/<folder>/PP-jidN` ref. */
export interface StateRef {
  path: string;
  folder: string;
  priority: number;
  jid: string;
}

/** A `/batches/BID/states/<folder>/jidN` ref. */
export interface BatchRef {
  path: string;
  bid: string;
  folder: BatchFolder;
  jid: string;
}

/** The refs of a scan by the job they name, and the children of ref folders that are no refs. */
export interface RefIndex {
  stateRefs: Map<string, StateRef[]>;
  batchRefs: Map<string, BatchRef[]>;
  badStateNames: { folder: string; name: string; path: string }[];
  badBatchNames: BatchRef[];
  count: number;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Indexes every ref of a scan by jid. */
export function indexRefs(scan: QueueScan): RefIndex {
  const index: RefIndex = {
    stateRefs: new Map(),
    batchRefs: new Map(),
    badStateNames: [],
    badBatchNames: [],
    count: 0,
  };
  for (const [folder, names] of scan.stateFolders) {
    for (const name of names) {
      const path = `${JOB_STATES}/${folder}/${name}`;
      const parsed = parseRefName(name);
      index.count += 1;
      if (parsed) push(index.stateRefs, parsed.jid, { path, folder, ...parsed });
      else index.badStateNames.push({ folder, name, path });
    }
  }
  for (const batch of scan.batches.values()) {
    for (const folder of BATCH_FOLDERS) {
      for (const jid of batch.folders[folder]) {
        const ref = { path: batchRef(batch.bid, folder, jid), bid: batch.bid, folder, jid };
        index.count += 1;
        if (isJobId(jid)) push(index.batchRefs, jid, ref);
        else index.badBatchNames.push(ref);
      }
    }
  }
  return index;
}

/** A job with neither a status node nor any ref: what a crash between id node and data leaves. */
export function isOrphanJob(job: JobScan, index: RefIndex): boolean {
  return !job.status && !index.stateRefs.has(job.jid) && !index.batchRefs.has(job.jid);
}

/** A batch with neither a status node nor any job ref. */
export function isOrphanBatch(batch: BatchScan): boolean {
  return !batch.status && BATCH_FOLDERS.every((folder) => batch.folders[folder].length === 0);
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; message: string };

/** A JSON object node, or why it is not one (malformed, empty, not an object). */
export function decodeObject(path: string, node: NodeRead): Decoded<Record<string, unknown>> {
  try {
    return { ok: true, value: decodeJsonObject(path, node.data) };
  } catch (err) {
    if (isQueueError(err)) return { ok: false, message: err.message };
    throw err;
  }
}

/** The text of a node, trimmed ('' for none). */
export function textOf(node: NodeRead | undefined): string {
  return node?.data?.toString('utf8').trim() ?? '';
}
