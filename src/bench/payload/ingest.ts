import { batchFinishedStates, batchRoles } from '../../../machines/index.js';
import { folderChildren } from '../../queue/batches/jobs.js';
import { loadBatch, type BatchRecord } from '../../queue/batches/load.js';
import { loadJob } from '../../queue/jobs/load.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { persist } from '../retry.js';
import { cpuSeconds } from '../scale.js';
import type { PayloadSubmission } from './manifests.js';
import type { IngestService } from './service.js';
import { stepsBetween, stepTotals, type StepTotals } from './step-metrics.js';

/** How often the batch's status is read while the ingest runs. */
const POLL_MS = 20;

/** What one ingest cost, from submission to the batch's completed status. */
export interface IngestFigures {
  seconds: number;
  /** The service's CPU (user + system) over the same time. */
  cpuSeconds: number;
  steps: StepTotals;
}

/** Submits through `POST /batches` as a depositor's client would; returns the batch id. */
async function submit(service: IngestService, fields: PayloadSubmission): Promise<string> {
  const response = await fetch(`${service.base}/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'demo', submitter: 'bench/payload profile', ...fields }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /batches answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { bid: string }).bid;
}

/** Why a batch failed: its message and those of its first failed jobs. */
async function failureOf(queue: QueueContext, batch: BatchRecord): Promise<string> {
  const failed = (await folderChildren(queue, batch.batchId, 'batch-failed')).slice(0, 5);
  const jobs = await Promise.all(
    failed.map(async (jid) => {
      const job = await loadJob(queue, jid).catch((err: unknown) => ({ status: '?', message: String(err) }));
      return `  ${jid}: ${job.status}: ${job.message ?? ''}`;
    }),
  );
  return [`batch ${batch.batchId} failed: ${batch.message ?? ''}`, ...jobs].join('\n');
}

/** Reads the batch every POLL_MS until it has completed; throws when it failed or the time is up. */
async function completion(
  queue: QueueContext,
  service: IngestService,
  bid: string,
  deadline: number,
): Promise<BatchRecord> {
  for (;;) {
    const batch = await persist('batch status', () => loadBatch(queue, bid));
    if (batch.status === batchRoles.failed) throw new Error(await failureOf(queue, batch));
    // Finished and not failed: completed.
    if (batchFinishedStates.has(batch.status)) return batch;
    const gone = service.gone();
    if (gone) throw new Error(gone);
    if (Date.now() > deadline) throw new Error(`batch ${bid} not completed in time (${batch.status})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * One ingest through a ready service: the clock runs from the submission to the batch's
 * completed status as read from ZooKeeper; the service's CPU and its step histogram are read
 * just before and just after. Throws when the batch failed (with its jobs' messages), the
 * service died, `timeoutMs` passed, or the batch did not make `objects` jobs.
 */
export async function ingestOnce(
  service: IngestService,
  queue: QueueContext,
  fields: PayloadSubmission,
  objects: number,
  timeoutMs: number,
): Promise<IngestFigures> {
  const stepsBefore = await stepTotals(service.base);
  const cpuBefore = cpuSeconds(service.pid);
  const started = performance.now();
  const bid = await submit(service, fields);
  const batch = await completion(queue, service, bid, Date.now() + timeoutMs);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(service.pid) - cpuBefore;
  if (batch.jobCount !== objects) throw new Error(`batch ${bid} made ${batch.jobCount} jobs, not ${objects}`);
  return { seconds, cpuSeconds: cpu, steps: stepsBetween(stepsBefore, await stepTotals(service.base)) };
}
