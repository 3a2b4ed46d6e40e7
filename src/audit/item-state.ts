import type { AccessQueue } from '../../machines/access.types.js';
import { ACCESS_QUEUE_NAMES } from '../queue/access/names.js';
import { loadAccess } from '../queue/access/requests.js';
import { loadBatch } from '../queue/batches/load.js';
import { loadJob } from '../queue/jobs/load.js';
import { isCollectionHeld, isQueuePaused } from '../queue/locks/queue-pause.js';
import { isQueueError } from '../queue/tree/errors.js';
import { QUEUE_NAMES, type QueueName } from '../queue/tree/paths.js';
import type { QueueContext } from '../queue/tree/context.js';

/** An item's state for the audit log, and the batch a job belongs to. */
export interface ItemState {
  state: string;
  batch?: string;
}

/** What an item that is not there reads as (before a submission, after a delete). */
export const ABSENT = 'absent';

/**
 * The state of the item an audit line names (`jid…`, `bid…`, `queue:<name>`,
 * `collection:<mnemonic>`, `access:<queue>/<qid>`): a job's or batch's status, a queue's
 * `paused`/`running`, a collection's `on hold`/`open`. Undefined for an item without a state (a
 * window, a policy) or one that cannot be read (the audit line then says nothing of it).
 */
export async function itemState(queue: QueueContext, item: string): Promise<ItemState | undefined> {
  try {
    if (item.startsWith('jid')) {
      const job = await loadJob(queue, item, { bidOptional: true });
      return { state: job.status, ...(job.batchId ? { batch: job.batchId } : {}) };
    }
    if (item.startsWith('bid')) return { state: (await loadBatch(queue, item)).status };
    const [kind, name] = splitItem(item);
    if (kind === 'queue' && (QUEUE_NAMES as readonly string[]).includes(name))
      return { state: (await isQueuePaused(queue, name as QueueName)) ? 'paused' : 'running' };
    if (kind === 'collection') return { state: (await isCollectionHeld(queue, name)) ? 'on hold' : 'open' };
    if (kind === 'access') {
      const [accessQueue, qid] = name.split('/');
      if (qid && (ACCESS_QUEUE_NAMES as readonly string[]).includes(accessQueue!))
        return { state: (await loadAccess(queue, accessQueue as AccessQueue, qid)).status };
    }
    return undefined;
  } catch (err) {
    if (isQueueError(err, 'NOT_FOUND')) return { state: ABSENT };
    return undefined;
  }
}

function splitItem(item: string): [string, string] {
  const colon = item.indexOf(':');
  return colon < 0 ? ['', item] : [item.slice(0, colon), item.slice(colon + 1)];
}
