import { restoreBatch, type BatchEvent } from '../../machines/index.js';
import type { AcquiredBatch } from '../queue/batches/acquire.js';
import { folderChildren } from '../queue/batches/jobs.js';
import { batchTraceparent, loadBatch, type BatchRecord } from '../queue/batches/load.js';
import {
  commitBatchTransition,
  nextBatchRecord,
  type BatchCommitOptions,
} from '../queue/batches/transition.js';
import { batchChild } from '../queue/tree/paths.js';
import type { StatusReport } from '../queue/tree/records.js';
import { encodeStatusReport } from '../queue/batches/status-report.js';
import { decodeJsonObject } from '../queue/tree/wire.js';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { markFailed, withSpan } from '../telemetry/span.js';
import { contextOfTraceparent } from '../telemetry/trace-context.js';
import type { EngineDeps } from './deps.js';
import { commitItem, stepItem, type ItemKind } from './item-runner.js';
import { runMachineStep } from './step-runner.js';
import type { BatchJobLists } from '../steps/contracts.js';

const BATCH_ACTORS = ['expand', 'report'] as const;

const BATCH: ItemKind<AcquiredBatch, BatchRecord> = {
  noun: 'batch',
  record: (acquired) => acquired.batch,
  id: (batch) => batch.batchId,
  load: (queue, batch) => loadBatch(queue, batch.batchId),
};

/**
 * A pending batch: held when its collection is on hold; otherwise acquired (processing, lock
 * kept) and expanded into jobs. A processing batch whose expansion never finished (a crash) is
 * expanded again; expansion skips objects that already have a job.
 */
export async function expandBatch(
  deps: EngineDeps,
  acquired: AcquiredBatch,
  signal: AbortSignal,
): Promise<void> {
  let { batch } = acquired;
  if (batch.status === 'pending') {
    const collection = batch.submission.collection;
    if (collection !== undefined && deps.heldCollections().has(collection)) {
      await commit(deps, acquired, { type: 'batch.held' }, {});
      return;
    }
    const next = await commit(deps, acquired, { type: 'batch.acquired' }, { release: false });
    if (!next) return;
    batch = next;
  }
  const current = { batch, lock: acquired.lock };
  const event = await runStep(deps, current, 'expand', signal, (stepSignal) =>
    deps.batchSteps.expand({
      batch,
      signal: stepSignal,
      log: deps.log.child({ batchId: batch.batchId }),
      queue: deps.queue,
    }),
  );
  if (event) await commit(deps, current, event, {});
}

/**
 * A batch whose jobs are all done (or one left in reporting by a reporter that died): moved to
 * reporting, reported, and ended completed or failed with its status-report, exactly once: only
 * the holder of the batch lock with the status version it read can commit.
 */
export async function reportBatch(
  deps: EngineDeps,
  acquired: AcquiredBatch,
  signal: AbortSignal,
): Promise<void> {
  let { batch } = acquired;
  if (batch.status === 'processing') {
    const next = await commit(deps, acquired, { type: 'batch.jobs-done' }, { release: false });
    if (!next) return;
    batch = next;
  }
  const current = { batch, lock: acquired.lock };
  const update = batch.status === 'update-reporting';
  const [jobs, previous] = await Promise.all([
    jobLists(deps, batch.batchId),
    previousReport(deps, batch.batchId),
  ]);
  const log = deps.log.child({ batchId: batch.batchId });
  const event = await runStep(deps, current, 'report', signal, (stepSignal) =>
    deps.batchSteps.report({ batch, update, jobs, previous, signal: stepSignal, log }),
  );
  if (!event) return;
  const report =
    event.type === 'report.done' ? { failed_jobs: jobs.failed, successful_jobs: jobs.completed } : undefined;
  if (report) warnIfOmitted(log, report);
  await commit(deps, current, event, { report, hasReport: previous !== undefined });
}

/** A status-report node cannot hold every id of a very large batch: say what it leaves out. */
function warnIfOmitted(log: EngineDeps['log'], report: Omit<StatusReport, 'last_modified'>): void {
  const { omitted } = encodeStatusReport({ last_modified: '', ...report });
  if (omitted.failed + omitted.successful === 0) return;
  log.warn(
    { failedOmitted: omitted.failed, successfulOmitted: omitted.successful },
    'status-report too large for one ZooKeeper node: it names the jobs it leaves out by count; the batch folders list them all',
  );
}

async function jobLists(deps: EngineDeps, bid: string): Promise<BatchJobLists> {
  const [completed, failed, deleted] = await Promise.all([
    folderChildren(deps.queue, bid, 'batch-completed'),
    folderChildren(deps.queue, bid, 'batch-failed'),
    folderChildren(deps.queue, bid, 'batch-deleted'),
  ]);
  return { completed: completed.sort(), failed: failed.sort(), deleted: deleted.sort() };
}

async function previousReport(deps: EngineDeps, bid: string): Promise<StatusReport | undefined> {
  const path = batchChild(bid, 'status-report');
  const stat = await deps.queue.zk.exists(path);
  if (!stat) return undefined;
  const { data } = await deps.queue.zk.getData(path);
  try {
    return decodeJsonObject(path, data) as unknown as StatusReport;
  } catch {
    return { last_modified: '', failed_jobs: [], successful_jobs: [] };
  }
}

async function runStep(
  deps: EngineDeps,
  acquired: AcquiredBatch,
  actor: (typeof BATCH_ACTORS)[number],
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<unknown>,
): Promise<BatchEvent | undefined> {
  const { batch } = acquired;
  const attributes = {
    [Attr.batchId]: batch.batchId,
    [Attr.batchUuid]: typeof batch.submission.batchID === 'string' ? batch.submission.batchID : '',
    [Attr.state]: batch.status,
    [Attr.profile]: batch.submission.profile_name,
  };
  const name = actor === 'expand' ? SpanName.expand : SpanName.report;
  // Expansion and report continue the trace of the batch's submission (stored with it).
  const parent = contextOfTraceparent(batchTraceparent(batch));
  const stepped = await stepItem(deps, BATCH, acquired, () =>
    withSpan(
      name,
      attributes,
      async (span) => {
        const { machine, input } = restoreBatch(batch);
        const event = await runMachineStep<BatchEvent>({
          machine,
          input,
          actorNames: BATCH_ACTORS,
          actor,
          run,
          signal,
          inspect: deps.inspect,
        });
        span.setAttribute(Attr.event, event.type);
        if (event.type === 'expand.done') span.setAttribute(Attr.jobCount, event.jobCount);
        if ('message' in event && event.type.endsWith('.failed')) markFailed(span, event.message);
        return event;
      },
      { parent },
    ),
  );
  return stepped.ran ? stepped.value : undefined;
}

function commit(
  deps: EngineDeps,
  acquired: AcquiredBatch,
  event: BatchEvent,
  options: BatchCommitOptions,
): Promise<BatchRecord | undefined> {
  return commitItem(deps, BATCH, acquired, event, () => ({
    write: () => commitBatchTransition(deps.queue, acquired, event, options),
    expected: () => nextBatchRecord(acquired.batch, event),
  }));
}
