import type { JobLifecycle } from '../../../machines/index.js';
import { isZkError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { isQueueError } from '../tree/errors.js';
import { readJobConfiguration } from '../tree/merritt-ingest-keys.js';
import { jobChild } from '../tree/paths.js';
import { decodeJsonObject, encodeJson } from '../tree/wire.js';

/**
 * Jobs whose payload is on another ingest service's disk. Merritt's ingest writes its jobs itself
 * (`HandlerSubmit` → mrt-zk `Job.createJob`): the configuration names `filename` (in ingest's own
 * queue directory) and has no `payload_url`, and the files are downloaded and processed there.
 * This engine cannot run such a job in a state whose step needs the payload or the working
 * directory (the `needsPayload` column of the job table, machines/states.ts): taken, it failed
 * in estimating with `payload_type "undefined"`. It is left to the service that wrote it,
 * unlocked, with this reason as its status message; the other states (notify; storing and
 * recording, which read the hand-off nodes) run it here.
 */

/** Every reason starts so: the job is Merritt's ingest's (or another host's) to run in this state. */
export const LEFT_FOR_INGEST = "left for Merritt's ingest:";

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Whether `state`'s step needs the payload or the working directory on this host (the table says). */
export function needsPayload(lifecycle: Pick<JobLifecycle, 'table'>, state: string): boolean {
  return lifecycle.table.some((row) => row.state === state && row.needsPayload === true);
}

/** Why this engine cannot run a job with `configuration` in a state that needs its payload, or undefined. */
export function payloadElsewhere(configuration: Record<string, unknown>): string | undefined {
  const payload = text(configuration.payload_url);
  if (payload === undefined) {
    const file = text(configuration.filename);
    const job = text(configuration.jobID);
    const where = file
      ? `the file "${file}" on that service's own disk${job ? ` (job ${job})` : ''}`
      : 'no payload';
    return `its configuration names ${where} and no payload_url`;
  }
  if (payload.startsWith('/'))
    return `its payload_url "${payload}" is a path on the disk of the host that wrote it, not a URL this engine can fetch`;
  return undefined;
}

/**
 * The reason a job in `state` is left to the ingest service that wrote it, or undefined when this
 * engine can run it there: the state's step needs the payload, and the payload is elsewhere.
 */
export function leftForIngestReason(
  lifecycle: Pick<JobLifecycle, 'table' | 'wireName'>,
  state: string,
  configuration: Record<string, unknown>,
): string | undefined {
  if (!needsPayload(lifecycle, state)) return undefined;
  const why = payloadElsewhere(configuration);
  return why === undefined
    ? undefined
    : `${LEFT_FOR_INGEST} ${why}, so only the ingest service that wrote it can run it in ${lifecycle.wireName(state)}`;
}

/**
 * Reads a job's configuration and status (nothing else, no lock) and says whether it is left in
 * `state`. A job no longer in `state` (a stale listing) is not: acquiring it finds out. A node
 * missing or unreadable is not a reason either: loading the job reports it.
 */
export async function jobLeftReason(
  ctx: QueueContext,
  jid: string,
  state: string,
): Promise<string | undefined> {
  if (!needsPayload(ctx.lifecycle, state)) return undefined;
  const paths = [jobChild(jid, 'configuration'), jobChild(jid, 'status')] as const;
  try {
    // One request for both (a multiRead): this runs before every acquire of a pending job.
    const [configurationNode, statusNode] = await ctx.zk.getDataMany(paths);
    if (!configurationNode || !statusNode) return undefined;
    const configuration = decodeJsonObject(paths[0], configurationNode.data);
    const status = decodeJsonObject(paths[1], statusNode.data);
    const now = typeof status.status === 'string' ? ctx.lifecycle.parse(status.status) : undefined;
    if (now !== state) return undefined;
    return leftForIngestReason(ctx.lifecycle, state, readJobConfiguration(configuration));
  } catch (err) {
    if (isQueueError(err) || isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/**
 * Writes `reason` as the status message of a job still in `state`, every other key kept as
 * written (a versioned write: a job Merritt's ingest moves meanwhile is left as it is; Merritt's
 * `setStatus` replaces the message when it moves the job). Written once: not when it says so already.
 */
export async function noteJobLeft(
  ctx: QueueContext,
  jid: string,
  state: string,
  reason: string,
): Promise<void> {
  const path = jobChild(jid, 'status');
  try {
    const { data, stat } = await ctx.zk.getData(path);
    const status = decodeJsonObject(path, data);
    const now = typeof status.status === 'string' ? ctx.lifecycle.parse(status.status) : undefined;
    if (status.message === reason || now !== state) return;
    await ctx.zk.setData(path, encodeJson({ ...status, message: reason }), stat.version);
  } catch (err) {
    if (!isZkError(err, 'BAD_VERSION') && !isZkError(err, 'NO_NODE') && !isQueueError(err)) throw err;
  }
}
