import { DEFAULT_JOB_PRIORITY, type StoredJob } from '../../../machines/index.js';
import type { NodeData } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { clampPriority, jobChild, jobPath, type JobKey } from '../tree/paths.js';
import { readJobConfiguration } from '../tree/merritt-ingest-keys.js';
import type {
  JobConfiguration,
  JobIdentifiers,
  JobInventory,
  JobMetadata,
  JobStore,
} from '../tree/records.js';
import { decodeAttempts, type JobAttempts } from './attempts.js';
import { decodeRetry, type JobRetry } from './retry-record.js';
import { decodeInteger, decodeJobStatus, decodeJsonObject, decodeText } from '../tree/wire.js';

/** Nodes nothing can run a job without: a job lacking one is incomplete (see loadJob). */
export const REQUIRED_JOB_NODES = ['status', 'bid', 'configuration'] as const;

/** Nodes mrt-zk creates with every job but readers may find absent: read as their defaults. */
export type OptionalJobNode = 'priority' | 'space_needed';

/** A job as read from ZooKeeper: the machine's stored state plus the rest of its nodes. */
export interface JobRecord extends StoredJob {
  lastModified: string;
  /** Version of `/jobs/JID/status`: every transition sets it with this expected version. */
  statusVersion: number;
  configuration: JobConfiguration;
  identifiers: JobIdentifiers | undefined;
  metadata: JobMetadata | undefined;
  /** The hand-off nodes processing writes for storage and inventory (merritt-protocols.md §1, §2). */
  store: JobStore | undefined;
  inventory: JobInventory | undefined;
  /**
   * The priority node as another tool wrote it, when out of range (`100`, `-1`): `priority` is
   * clamped to 0–99, and the next transition writes the clamped value back.
   */
  priorityWritten?: number;
  /**
   * The `bid` node is missing or empty (read with `{ bidOptional: true }`, for display): `batchId`
   * is then `''`. Never set on a job the engine or an operator action works on.
   */
  bidMissing?: true;
  /** Versions of hand-off nodes that exist but are empty (another tool created them so): set, not created. */
  emptyNodeVersions?: Partial<Record<'store' | 'inventory', number>>;
  /**
   * Optional nodes the job lacks (another tool wrote it without them): read as their defaults,
   * and created by the next transition, which would otherwise fail setting them.
   */
  absentNodes?: readonly OptionalJobNode[];
  /**
   * The step attempts recorded in the job's current or an earlier state (`attempts`, see
   * job-attempts.ts); `attemptsNode` true when the node exists (readable or not): the next
   * write sets it rather than creating it, and a commit that ends the step deletes it.
   */
  attempts?: JobAttempts;
  attemptsNode?: boolean;
  /**
   * The job's step failures and next attempt (`retry`, see retry-record.ts), as the node holds
   * them (honoured only while current: `currentRetry`); `retryNode` true when the node exists.
   */
  retry?: JobRetry;
  retryNode?: boolean;
}

function absentNodes(nodes: Record<OptionalJobNode, Read>): Pick<JobRecord, 'absentNodes'> {
  const absent = (Object.keys(nodes) as OptionalJobNode[]).filter((key) => nodes[key] === undefined);
  return absent.length > 0 ? { absentNodes: absent } : {};
}

function emptyVersions(nodes: Partial<Record<'store' | 'inventory', Read>>): JobRecord['emptyNodeVersions'] {
  const versions: NonNullable<JobRecord['emptyNodeVersions']> = {};
  for (const [key, node] of Object.entries(nodes) as ['store' | 'inventory', Read][])
    if (node && (!node.data || node.data.length === 0)) versions[key] = node.stat.version;
  return Object.keys(versions).length > 0 ? versions : undefined;
}

type Read = NodeData | undefined;

function required(jid: string, key: JobKey, value: Read): NodeData {
  if (!value)
    throw new QueueError('ITEM_INVALID', `${jobChild(jid, key)} is missing`, jobPath(jid), {
      incomplete: true,
    });
  return value;
}

function optionalJson<T>(jid: string, key: JobKey, value: Read): T | undefined {
  if (!value || !value.data || value.data.length === 0) return undefined;
  return decodeJsonObject(jobChild(jid, key), value.data) as T;
}

/** How a job is read: `bidOptional` reads a job without its `bid` node (see JobRecord.bidMissing). */
export interface LoadJobOptions {
  bidOptional?: boolean;
}

/**
 * Reads a job. NOT_FOUND when `/jobs/JID` does not exist; ITEM_INVALID naming the node when a
 * required node is missing or unreadable (malformed JSON, unknown status). Optional nodes may
 * be absent; priority defaults to 5 and space_needed to 0, as mrt-zk reads them. With
 * `{ bidOptional: true }` (a surface showing the job) a missing or empty `bid` reads as batch `''`
 * with `bidMissing`: the job is still shown, as one whose batch is not known.
 */
export async function loadJob(
  ctx: QueueContext,
  jid: string,
  options: LoadJobOptions = {},
): Promise<JobRecord> {
  const keys: JobKey[] = [
    'status',
    'bid',
    'configuration',
    'priority',
    'space_needed',
    'identifiers',
    'metadata',
    'store',
    'inventory',
    'attempts',
    'retry',
  ];
  // One request (multiRead) for all of them: a job is read at every first acquire.
  const [
    status,
    bid,
    configuration,
    priority,
    spaceNeeded,
    identifiers,
    metadata,
    store,
    inventory,
    attempts,
    retry,
  ] = await ctx.zk.getDataMany(keys.map((key) => jobChild(jid, key)));
  if (!status && !bid && !configuration && !(await ctx.zk.exists(jobPath(jid)))) {
    throw new QueueError('NOT_FOUND', `job ${jid} does not exist`, jobPath(jid));
  }
  const statusNode = required(jid, 'status', status);
  const stored = decodeJobStatus(jobChild(jid, 'status'), statusNode.data, ctx.lifecycle);
  const batchId = options.bidOptional && !bid ? '' : decodeText(required(jid, 'bid', bid).data);
  const written = decodeInteger(jobChild(jid, 'priority'), priority?.data, DEFAULT_JOB_PRIORITY);
  if (!batchId && !options.bidOptional)
    throw new QueueError('ITEM_INVALID', `${jobChild(jid, 'bid')} is empty`, jobPath(jid));
  return {
    jobId: jid,
    batchId,
    ...(batchId ? {} : { bidMissing: true as const }),
    status: stored.status,
    lastSuccessfulStatus: stored.lastSuccessfulStatus,
    retryCount: stored.retryCount,
    message: stored.message,
    lastModified: stored.lastModified,
    statusVersion: statusNode.stat.version,
    priority: clampPriority(written),
    ...(written !== clampPriority(written) ? { priorityWritten: written } : {}),
    spaceNeeded: decodeInteger(jobChild(jid, 'space_needed'), spaceNeeded?.data, 0),
    // Merritt's ingest writes its own key names (`profile`…): read under this engine's too.
    configuration: readJobConfiguration(
      decodeJsonObject(jobChild(jid, 'configuration'), required(jid, 'configuration', configuration).data),
    ),
    identifiers: optionalJson<JobIdentifiers>(jid, 'identifiers', identifiers),
    metadata: optionalJson<JobMetadata>(jid, 'metadata', metadata),
    store: optionalJson<JobStore>(jid, 'store', store),
    inventory: optionalJson<JobInventory>(jid, 'inventory', inventory),
    emptyNodeVersions: emptyVersions({ store, inventory }),
    ...absentNodes({ priority, space_needed: spaceNeeded }),
    ...(attempts ? { attemptsNode: true, attempts: decodeAttempts(attempts.data) } : {}),
    ...(retry ? { retryNode: true, retry: decodeRetry(retry.data) } : {}),
  };
}
