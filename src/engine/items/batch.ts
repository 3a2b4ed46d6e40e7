import { batchRoles, restoreBatch, type BatchEvent } from '../../../machines/index.js';
import type { AcquiredBatch, BatchWork } from '../../queue/batches/acquire.js';
import { folderChildren } from '../../queue/batches/jobs.js';
import { batchTraceparent, loadBatch, type BatchRecord } from '../../queue/batches/load.js';
import {
  commitBatchTransition,
  nextBatchRecord,
  type BatchCommitOptions,
} from '../../queue/batches/transition.js';
import { batchChild } from '../../queue/tree/paths.js';
import type { StatusReport } from '../../queue/tree/records.js';
import { encodeStatusReport } from '../../queue/batches/status-report.js';
import { decodeJsonObject } from '../../queue/tree/wire.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { contextOfTraceparent } from '../../telemetry/trace-context.js';
import type { BatchJobLists } from '../../steps/contracts.js';
import type { EngineDeps } from '../deps.js';
import { runMachineStep } from '../step-runner.js';
import type { ItemCommit, ItemDescriptor, ItemStep } from './item-runner.js';

const BATCH_ACTORS = ['expand', 'report'] as const;

type BatchStep = ItemStep<AcquiredBatch, BatchRecord, BatchEvent>;

/**
 * A batch's work, by what the batch needs (see batchWorkFor):
 * - `expand`: a pending batch is held when its collection is on hold; otherwise acquired
 *   (processing, lock kept) and expanded into jobs. A processing batch whose expansion never
 *   finished (a crash) is expanded again; expansion skips objects that already have a job.
 * - `report`, `update-report`: a batch whose jobs are all done (or one left in reporting by a
 *   reporter that died) is moved to reporting, reported, and ended completed or failed with its
 *   status-report, exactly once: only the holder of the batch lock with the status version it
 *   read can commit.
 */
export function batchItem(work: BatchWork): ItemDescriptor<AcquiredBatch, BatchRecord, BatchEvent> {
  return {
    noun: 'batch',
    record: (acquired) => acquired.batch,
    id: (batch) => batch.batchId,
    load: (queue, batch) => loadBatch(queue, batch.batchId),
    with: (held, batch) => ({ ...held, batch }),
    take: (deps, held) => {
      const event = takeEvent(deps, work, held.batch);
      if (!event) return undefined;
      const ends = event.type === 'batch.held';
      return { event, ends, commit: commitOf(deps, held, event, ends ? {} : { release: false }) };
    },
    step: (deps, held, signal) =>
      work === 'expand' ? expandStep(deps, held, signal) : reportStep(deps, held, signal),
  };
}

/** What takes a waiting batch into `work`: acquired (or held) when pending; jobs-done when processing. */
function takeEvent(deps: EngineDeps, work: BatchWork, batch: BatchRecord): BatchEvent | undefined {
  if (work === 'expand' && batch.status === batchRoles.initial) {
    const collection = batch.submission.collection;
    const held = collection !== undefined && deps.heldCollections().has(collection);
    return { type: held ? 'batch.held' : 'batch.acquired' };
  }
  if (work !== 'expand' && batch.status === batchRoles.processing) return { type: 'batch.jobs-done' };
  return undefined;
}

function expandStep(deps: EngineDeps, held: AcquiredBatch, signal: AbortSignal): BatchStep {
  const { batch } = held;
  return {
    ...machineStep(deps, held, 'expand', signal, (stepSignal) =>
      deps.batchSteps.expand({
        batch,
        signal: stepSignal,
        log: deps.log.child({ batchId: batch.batchId }),
        queue: deps.queue,
      }),
    ),
    commit: (event) => commitOf(deps, held, event, {}),
  };
}

async function reportStep(deps: EngineDeps, held: AcquiredBatch, signal: AbortSignal): Promise<BatchStep> {
  const { batch } = held;
  const update = batch.status === batchRoles.updateReporting;
  const [jobs, previous] = await Promise.all([
    jobLists(deps, batch.batchId),
    previousReport(deps, batch.batchId),
  ]);
  const log = deps.log.child({ batchId: batch.batchId });
  return {
    ...machineStep(deps, held, 'report', signal, (stepSignal) =>
      deps.batchSteps.report({ batch, update, jobs, previous, signal: stepSignal, log }),
    ),
    commit: (event) => {
      const report =
        event.type === 'report.done'
          ? { failed_jobs: jobs.failed, successful_jobs: jobs.completed }
          : undefined;
      if (report) warnIfOmitted(log, report);
      return commitOf(deps, held, event, { report, hasReport: previous !== undefined });
    },
  };
}

/** The span and the machine run of a batch step; expansion and report continue the submission's trace. */
function machineStep(
  deps: EngineDeps,
  held: AcquiredBatch,
  actor: (typeof BATCH_ACTORS)[number],
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<unknown>,
): Pick<BatchStep, 'span' | 'run' | 'attributesOf'> {
  const { batch } = held;
  return {
    span: {
      name: actor === 'expand' ? SpanName.expand : SpanName.report,
      attributes: {
        [Attr.batchId]: batch.batchId,
        [Attr.batchUuid]: typeof batch.submission.batchID === 'string' ? batch.submission.batchID : '',
        [Attr.state]: batch.status,
        [Attr.profile]: batch.submission.profile_name,
      },
      parent: contextOfTraceparent(batchTraceparent(batch)),
    },
    run: () => {
      const { machine, input } = restoreBatch(batch);
      return runMachineStep<BatchEvent>({
        machine,
        input,
        actorNames: BATCH_ACTORS,
        actor,
        run,
        signal,
        inspect: deps.inspect,
      });
    },
    attributesOf: (event) => (event.type === 'expand.done' ? { [Attr.jobCount]: event.jobCount } : {}),
  };
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

function commitOf(
  deps: EngineDeps,
  held: AcquiredBatch,
  event: BatchEvent,
  options: BatchCommitOptions,
): ItemCommit<AcquiredBatch, BatchRecord> {
  return {
    held,
    attempt: () => ({
      write: () => commitBatchTransition(deps.queue, held, event, options),
      expected: () => nextBatchRecord(held.batch, event),
    }),
  };
}
