import { BATCH_FOLDERS, type BatchFolder } from '../../../machines/index.js';
import { isQueueError } from '../tree/errors.js';
import type { NodeRead } from './reader.js';
import type { BatchScan, JobScan, QueueScan } from './snapshot.js';
import { JOB_STATES, batchRef, isJobId, parseRefName } from '../tree/paths.js';
import { RefTable, type RefsByJob } from './ref-table.js';
import { decodeJsonObject } from '../tree/wire.js';

/** A `/jobs/states/<folder>/PP-jidN` ref. */
export interface StateRef {
  readonly path: string;
  readonly folder: string;
  readonly priority: number;
  readonly jid: string;
}

/** A `/batches/BID/states/<folder>/jidN` ref. */
export interface BatchRef {
  readonly path: string;
  readonly bid: string;
  readonly folder: BatchFolder;
  readonly jid: string;
}

/** The refs of a scan by the job they name, and the children of ref folders that are no refs. */
export interface RefIndex {
  stateRefs: RefsByJob<StateRef>;
  batchRefs: RefsByJob<BatchRef>;
  badStateNames: { folder: string; name: string; path: string }[];
  badBatchNames: BatchRef[];
  count: number;
}

/*
 * The index holds refs as numbers (RefTable) and makes these only when asked; even then the path
 * is computed when read (only a problem's message reads it), and the strings are the scan's own.
 */
class FolderRef implements StateRef {
  constructor(
    readonly folder: string,
    readonly name: string,
    readonly priority: number,
    readonly jid: string,
  ) {}
  get path(): string {
    return `${JOB_STATES}/${this.folder}/${this.name}`;
  }
}

class BatchFolderRef implements BatchRef {
  constructor(
    readonly bid: string,
    readonly folder: BatchFolder,
    readonly jid: string,
  ) {}
  get path(): string {
    return batchRef(this.bid, this.folder, this.jid);
  }
}

/** Indexes every ref of a scan (its state folders and its batches' folders) by jid. */
export function indexRefs(scan: Pick<QueueScan, 'stateFolders' | 'batches'>): RefIndex {
  const stateRefs = new RefTable<StateRef>();
  const batchRefs = new RefTable<BatchRef>();
  const index: RefIndex = { stateRefs, batchRefs, badStateNames: [], badBatchNames: [], count: 0 };
  for (const [folder, names] of scan.stateFolders) {
    const start = stateRefs.addFolder(names.length, (i) => folderRef(folder, names[i]!));
    names.forEach((name, i) => {
      const parsed = parseRefName(name);
      if (parsed) stateRefs.add(parsed.jid, start + i);
      else index.badStateNames.push({ folder, name, path: `${JOB_STATES}/${folder}/${name}` });
    });
    index.count += names.length;
  }
  for (const batch of scan.batches.values()) {
    for (const folder of BATCH_FOLDERS) {
      const jids = batch.folders[folder];
      const start = batchRefs.addFolder(jids.length, (i) => new BatchFolderRef(batch.bid, folder, jids[i]!));
      jids.forEach((jid, i) => {
        if (isJobId(jid)) batchRefs.add(jid, start + i);
        else index.badBatchNames.push(new BatchFolderRef(batch.bid, folder, jid));
      });
      index.count += jids.length;
    }
  }
  return index;
}

/** The ref a state folder's child names (only children that are refs are ever asked for). */
function folderRef(folder: string, name: string): StateRef {
  const parsed = parseRefName(name)!;
  return new FolderRef(folder, name, parsed.priority, parsed.jid);
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
