import { batchReportingStates, batchRoles, batchStateTable, type BatchState } from '../../machines/index.js';
import type { QueueContext } from '../queue/tree/context.js';
import { isQueueError } from '../queue/tree/errors.js';
import { createLimit } from '../queue/scan/reader.js';
import { BATCHES, batchChild, isBatchId } from '../queue/tree/paths.js';
import { decodeBatchStatus } from '../queue/tree/wire.js';
import { isZkError } from '../zk/index.js';
import type { OpenBatch } from './observation.js';

/** Batch states nothing leaves (completed, deleted): such a batch is not read again. */
const FINAL: ReadonlySet<string> = new Set(
  batchStateTable.flatMap((row) => ('final' in row ? [row.state] : [])),
);
/** A batch waiting or at work, not yet ended (failed is an end an operator acts on). */
const OPEN: ReadonlySet<string> = new Set(
  batchStateTable.filter((row) => row.category === 'wait' || row.category === 'work').map((row) => row.state),
);

const READ_CHUNK = 200;
const READS_IN_FLIGHT = 4;

/** What one read of the batches gives the rules. */
export interface BatchReading {
  /** Unfinished batches, oldest first. */
  open: OpenBatch[];
  /** Batches waiting for batch work: submitted and not yet expanded, or to be reported. */
  waiting: number;
  /** The newest status write of a batch read (ms), undefined when none was. */
  newestChange: number | undefined;
}

/**
 * Reads every batch's status node (one 200-path multiRead per 200 batches): its status, its
 * creation (the batch's submission) and its last write (the batch's last transition). A batch in
 * a final state never changes again, so it is read once and then only listed.
 */
export class BatchReads {
  private readonly finished = new Set<string>();

  constructor(private readonly queue: QueueContext) {}

  async read(): Promise<BatchReading> {
    const bids = await this.list();
    const present = new Set(bids);
    for (const bid of this.finished) if (!present.has(bid)) this.finished.delete(bid);
    const unread = bids.filter((bid) => !this.finished.has(bid));
    const limit = createLimit(READS_IN_FLIGHT);
    const chunks: string[][] = [];
    for (let i = 0; i < unread.length; i += READ_CHUNK) chunks.push(unread.slice(i, i + READ_CHUNK));
    const reading: BatchReading = { open: [], waiting: 0, newestChange: undefined };
    await Promise.all(
      chunks.map((chunk) =>
        limit(async () => {
          const nodes = await this.queue.zk.getDataMany(chunk.map((bid) => batchChild(bid, 'status')));
          chunk.forEach((bid, i) => {
            const node = nodes[i];
            if (node) this.take(reading, bid, node.data, node.stat.ctime, node.stat.mtime);
          });
        }),
      ),
    );
    reading.open.sort((a, b) => a.createdAt - b.createdAt || (a.bid < b.bid ? -1 : 1));
    return reading;
  }

  private take(
    reading: BatchReading,
    bid: string,
    data: Buffer | undefined,
    ctime: number,
    mtime: number,
  ): void {
    let status: BatchState;
    try {
      status = decodeBatchStatus(batchChild(bid, 'status'), data).status;
    } catch (err) {
      if (isQueueError(err)) return; // unreadable: the doctor reports it
      throw err;
    }
    reading.newestChange = Math.max(reading.newestChange ?? 0, mtime);
    if (FINAL.has(status)) this.finished.add(bid);
    if (OPEN.has(status)) reading.open.push({ bid, status, createdAt: ctime });
    if (status === batchRoles.initial || batchReportingStates.has(status)) reading.waiting += 1;
  }

  private async list(): Promise<string[]> {
    try {
      return (await this.queue.zk.getChildren(BATCHES)).filter(isBatchId);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return [];
      throw err;
    }
  }
}
