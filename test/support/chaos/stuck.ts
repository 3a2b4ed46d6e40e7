import { folderChildren } from '../../../src/queue/batches/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { batchPath, jobPath } from '../../../src/queue/tree/paths.js';
import { eventually } from '../eventually.js';
import type { ChaosProfile } from './profile.js';

const TERMINAL = new Set(['completed', 'failed']);

/** What a batch that is not terminal is waiting for: its status, lock, and every unfinished job. */
export async function describeUnfinished(ctx: QueueContext, bid: string): Promise<string> {
  const batch = await loadBatch(ctx, bid);
  const locked = (path: string) => ctx.zk.exists(`${path}/lock`).then((s) => (s ? ' locked' : ''));
  const jobs = await Promise.all(
    (await folderChildren(ctx, bid, 'batch-processing')).map(async (jid) => {
      const job = await loadJob(ctx, jid);
      return `${jid} ${job.status}@${job.statusVersion} retry=${job.retryCount}${await locked(jobPath(jid))}`;
    }),
  );
  const expansion = ` expansion=${JSON.stringify(batch.expansion)} jobs=${batch.jobCount}`;
  return `${bid} ${batch.status}@${batch.statusVersion}${expansion}${await locked(batchPath(bid))}; processing: [${jobs.join(', ')}]`;
}

/**
 * Waits until every batch is completed or failed; on time-out, fails describing what each
 * unfinished batch waits for, with the seed that reproduces the run.
 */
export async function waitTerminal(
  ctx: QueueContext,
  bids: readonly string[],
  profile: ChaosProfile,
  ms: number,
): Promise<void> {
  try {
    await eventually(
      // A read that fails (a ZooKeeper member being killed) is read again on the next round.
      () =>
        Promise.all(
          bids.map((bid) =>
            loadBatch(ctx, bid).then(
              (batch) => batch.status,
              () => 'unreadable',
            ),
          ),
        ),
      (statuses) => statuses.every((s) => TERMINAL.has(s)),
      ms,
      200,
    );
  } catch (err) {
    const unfinished = [];
    for (const bid of bids) {
      if (!TERMINAL.has((await loadBatch(ctx, bid)).status))
        unfinished.push(await describeUnfinished(ctx, bid));
    }
    throw new Error(
      `batches not finished within ${ms} ms (MRTQ_CHAOS_SEED=${profile.seed}):\n  ${unfinished.join('\n  ')}`,
      { cause: err },
    );
  }
}
