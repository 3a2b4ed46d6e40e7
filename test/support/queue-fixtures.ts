import type { BatchEvent, JobEvent } from '../../machines/index.js';
import { acquireBatch } from '../../src/queue/batches/acquire.js';
import { createBatch } from '../../src/queue/batches/create.js';
import { loadBatch } from '../../src/queue/batches/load.js';
import { commitBatchTransition, type BatchCommitOptions } from '../../src/queue/batches/transition.js';
import type { QueueContext } from '../../src/queue/tree/context.js';
import { acquireJob } from '../../src/queue/jobs/acquire.js';
import { createJobs, type JobSpec } from '../../src/queue/jobs/create.js';
import { commitJobTransition } from '../../src/queue/jobs/transition.js';
import { loadJob } from '../../src/queue/jobs/load.js';
import { tryLock } from '../../src/queue/locks/lock.js';
import type { JobConfiguration, Submission } from '../../src/queue/tree/records.js';

/** The job of manifest position `position`, an object manifest on example.org. */
export function objectSpec(
  position: number,
  configuration: Partial<JobConfiguration> = {},
  priority?: number,
): JobSpec {
  return {
    position,
    priority,
    configuration: {
      profile_name: 'demo',
      submitter: 'depositor',
      payload_url: `https://example.org/object-${position}.checkm`,
      payload_type: 'object_manifest',
      ...configuration,
    },
  };
}

/** Moves a job through `events`, each from wherever it is, through the store (acquire, commit). */
export async function driveJob(ctx: QueueContext, jid: string, events: JobEvent[]): Promise<void> {
  for (const event of events) {
    const { status } = await loadJob(ctx, jid);
    const acquired = await acquireJob(ctx, status, { skip: (j) => j !== jid });
    if (!acquired) throw new Error(`could not acquire ${jid} in ${status}`);
    await commitJobTransition(ctx, acquired, event);
  }
}

/** Commits one batch event under the batch's lock (taken here, released by the commit). */
export async function driveBatch(
  ctx: QueueContext,
  bid: string,
  event: BatchEvent,
  options?: BatchCommitOptions,
): Promise<void> {
  const attempt = await tryLock(ctx, `/batches/${bid}`);
  if (!attempt.held) throw new Error(`could not lock ${bid}`);
  await commitBatchTransition(ctx, { batch: await loadBatch(ctx, bid), lock: attempt.lock }, event, options);
}

/** A batch acquired and expanded into `specs` (processing, expansion done), as the engine leaves it. */
export async function expandedBatch(
  ctx: QueueContext,
  specs: JobSpec[],
  submission: Partial<Submission> = {},
): Promise<{ bid: string; jids: string[] }> {
  const { bid } = await createBatch(ctx, {
    profile_name: 'demo',
    submitter: 'depositor',
    payload_url: 'https://example.org/batch.checkm',
    type: 'batch-manifest',
    ...submission,
  });
  const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
  if (!acquired) throw new Error(`could not acquire ${bid}`);
  const processing = await commitBatchTransition(
    ctx,
    acquired,
    { type: 'batch.acquired' },
    { release: false },
  );
  const { created } = await createJobs(ctx, bid, specs);
  await commitBatchTransition(
    ctx,
    { batch: processing, lock: acquired.lock },
    { type: 'expand.done', jobCount: created.length },
  );
  return { bid, jids: created.map((c) => c.jid) };
}
