import type { QueueContext } from '../../src/queue/tree/context.js';

/** `last_modified` as Merritt's Java library writes it. */
export const JAVA_TIME = 'Sat Nov 21 09:34:25 UTC 2026';

export interface ForeignJob {
  /** The ref's name prefix as the other tool wrote it (`05`, `100`, `-1`, `5`). */
  prefix: string;
  /** The priority node as written; absent: the node is not written. */
  priority?: string;
  /** The status as written (`Pending`, or one this lifecycle does not know). */
  status?: string;
  /** The configuration node as written (default: a good object manifest). */
  configuration?: string;
  /** Leave out the space_needed node, as some tools do. */
  withoutSpaceNeeded?: boolean;
}

/**
 * Writes a processing batch and its jobs node by node, the way another tool (Merritt's Java
 * library, a script) writes them: refs and priorities as given, statuses as given.
 */
export async function writeForeignBatch(
  ctx: QueueContext,
  jobs: ForeignJob[],
): Promise<{ bid: string; jids: string[] }> {
  const { zk } = ctx;
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  // Under the batch lock, as mrt-zk expands a batch: no reporter sees it half written.
  await zk.create(`/batches/${bid}/lock`, null, 'ephemeral');
  await zk.create(`/batches/${bid}/submission`, JSON.stringify({ profile_name: 'demo', submitter: 'mrt' }));
  await zk.create(
    `/batches/${bid}/status`,
    JSON.stringify({ status: 'Processing', last_modified: JAVA_TIME }),
  );
  await zk.mkdirp(`/batches/${bid}/states/batch-processing`);
  const jids: string[] = [];
  for (const [i, job] of jobs.entries()) {
    const jid = (await zk.create('/jobs/jid', null, 'persistent_sequential')).slice('/jobs/'.length);
    const configuration =
      job.configuration ??
      JSON.stringify({
        profile_name: 'demo',
        submitter: 'mrt',
        payload_url: `https://example.org/${bid}-${i}.checkm`,
        payload_type: 'object_manifest',
      });
    await zk.create(`/jobs/${jid}/bid`, bid);
    if (job.priority !== undefined) await zk.create(`/jobs/${jid}/priority`, job.priority);
    if (!job.withoutSpaceNeeded) await zk.create(`/jobs/${jid}/space_needed`, '0');
    await zk.create(`/jobs/${jid}/configuration`, configuration);
    const status = job.status ?? 'Pending';
    await zk.create(
      `/jobs/${jid}/status`,
      JSON.stringify({ status, last_successful_status: null, last_modified: JAVA_TIME, retry_count: 0 }),
    );
    await zk.mkdirp(`/jobs/states/${status.toLowerCase()}`);
    await zk.create(`/jobs/states/${status.toLowerCase()}/${job.prefix}-${jid}`);
    await zk.create(`/batches/${bid}/states/batch-processing/${jid}`);
    jids.push(jid);
  }
  await zk.delete(`/batches/${bid}/lock`);
  return { bid, jids };
}
