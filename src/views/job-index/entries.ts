import type { NodeData } from '../../zk/index.js';
import { readJobConfiguration, readSubmission } from '../../queue/tree/merritt-ingest-keys.js';
import { parseTimestamp } from '../../queue/tree/timestamps.js';
import { decodeText } from '../../queue/tree/wire.js';
import { splitLocalIds, type SearchEntry } from '../search/match.js';
import { jsonOf, searchKeyOf, textOf } from './nodes.js';

/**
 * What the job index keeps of a job or a batch, from its nodes: what rollups group by and sorting
 * orders by (profile, collection, when the status last changed), and the keys a search matches that
 * ZooKeeper has no index for (ARK, local ids, title).
 */

/** A new job's nodes, in the order {@link readNewJob} takes them: everything the index keeps. */
export const NEW_JOB_NODES = ['configuration', 'status', 'bid', 'identifiers', 'metadata'] as const;

/**
 * A job's nodes read again when it moved: all but its configuration, which is written once, with
 * the job. The status changes with every transition; identifiers and metadata are written by
 * transitions (processing writes the ARK in the commit that moves the job to storing); a lost bid
 * is written back in the commit that fails the job (src/queue/jobs/incomplete.ts).
 */
export const MOVED_JOB_NODES = ['status', 'bid', 'identifiers', 'metadata'] as const;

type Nodes = ReadonlyArray<NodeData | undefined>;

/** What a job's configuration gives the index: read once, as a configuration never changes. */
export interface ConfigKeys {
  profile: string;
  /** The collection, or the profile when the job names none (Merritt's collection is its profile). */
  collection: string;
  /** The submitted local id(s), `;`-separated, joined with those processing writes. */
  localId: unknown;
  /** The submitted title, for a job whose metadata has none. */
  title: string | undefined;
}

/** A job as the index keeps it, from {@link NEW_JOB_NODES} or, once it moved, {@link MOVED_JOB_NODES}. */
export interface JobEntry {
  config: ConfigKeys;
  /** The status's `last_modified` (ms since the epoch; the node's mtime when unparsable). */
  updated: number;
  search: SearchEntry;
}

function configKeysOf(node: NodeData | undefined): ConfigKeys {
  const config = readJobConfiguration(jsonOf(node));
  const profile = textOf(config.profile_name) ?? '';
  return {
    profile,
    collection: textOf(config.collection) || profile,
    localId: config.local_id,
    title: searchKeyOf(config.erc_what) ?? searchKeyOf(config.title),
  };
}

function updatedOf(status: NodeData | undefined): number {
  const text = textOf(jsonOf(status).last_modified);
  return (text !== undefined ? parseTimestamp(text)?.getTime() : undefined) ?? status?.stat.mtime ?? 0;
}

/** A job from its {@link MOVED_JOB_NODES}, with the configuration's keys read before. */
export function readMovedJob(jid: string, config: ConfigKeys, nodes: Nodes): JobEntry {
  const [status, bidNode, identifiers, metadata] = nodes;
  const ids = jsonOf(identifiers);
  const title = searchKeyOf(jsonOf(metadata).erc_what) ?? config.title;
  const ark = searchKeyOf(ids.primary_id);
  const listed: unknown[] = Array.isArray(ids.local_id) ? (ids.local_id as unknown[]) : [];
  const bid = decodeText(bidNode?.data);
  const search: SearchEntry = {
    kind: 'job',
    id: jid,
    ...(bid ? { bid } : {}),
    ...(ark ? { ark } : {}),
    localIds: splitLocalIds([config.localId, ...listed]),
    ...(title ? { title } : {}),
  };
  return { config, updated: updatedOf(status), search };
}

/** A job from its {@link NEW_JOB_NODES}. */
export function readNewJob(jid: string, [configuration, ...moved]: Nodes): JobEntry {
  return readMovedJob(jid, configKeysOf(configuration), moved);
}

/** A batch from its submission, which never changes: read once. */
export function readBatch(bid: string, submission: NodeData | undefined): SearchEntry {
  const read = readSubmission(jsonOf(submission));
  const uuid = searchKeyOf(read.batchID);
  const title = searchKeyOf(read.erc_what);
  return { kind: 'batch', id: bid, ...(uuid ? { uuid } : {}), localIds: [], ...(title ? { title } : {}) };
}
