import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobSpec } from '../../queue/jobs/create.js';
import { LEGACY_INGEST_QUEUE, type LegacyRecord, type UnreadableRecord } from './record.js';
import { clampPriority } from '../../queue/tree/paths.js';
import type { JobConfiguration, Submission } from '../../queue/tree/records.js';
import { formatTimestamp } from '../../queue/tree/timestamps.js';

/**
 * What the legacy records become (pure): one batch per ingest batch uuid (`batchID`), one job per
 * record that still has work, keyed in its batch by the record's sequence number. The property
 * names are those mrt-ingest's `HandlerSubmit` wrote and its `Consumer` read.
 */

/** One record that becomes a job. */
export interface LegacyJobPlan {
  node: string;
  status: LegacyRecord['status'];
  spec: JobSpec;
}

/** One ingest batch that becomes a batch: `/batch-uuids/<uuid>` records that it was migrated. */
export interface LegacyBatchPlan {
  uuid: string;
  submission: Submission;
  jobs: LegacyJobPlan[];
}

/** A readable record that is left as it is, and why. */
export interface LegacySkip {
  node: string;
  reason: string;
}

export interface LegacyPlan {
  batches: LegacyBatchPlan[];
  skipped: LegacySkip[];
  unreadable: UnreadableRecord[];
}

export interface LegacyPlanOptions {
  /** The old ingest's queue directory (`{ingest home}/queue`): where a record's `filename` lies. */
  queueDir?: string;
}

/** Legacy object types and the payload types of this engine's jobs. */
const PAYLOAD_TYPES: Readonly<Record<string, string>> = {
  'object-manifest': 'object_manifest',
  object_manifest: 'object_manifest',
  file: 'file',
  container: 'container',
};

const isUrl = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(text);

/** Where the job's payload is: a URL as given, else the file in the old ingest's job directory. */
function payloadUrl(p: Record<string, string>, options: LegacyPlanOptions): string | undefined {
  const filename = p.filename ?? '';
  if (isUrl(filename)) return filename;
  if (!options.queueDir || filename === '') return undefined;
  return pathToFileURL(join(options.queueDir, p.batchID!, p.jobID!, filename)).href;
}

/** The job a Pending or Consumed record becomes; Failed and Held ones are created failed, saying so. */
function jobSpec(record: LegacyRecord, url: string): JobSpec {
  const p = record.properties;
  const type = (p.type ?? '').toLowerCase();
  const configuration: JobConfiguration = {
    profile_name: p.profile!,
    submitter: p.submitter ?? '',
    payload_url: url,
    payload_type: PAYLOAD_TYPES[type] ?? type,
    submission_mode: p.update === 'true' ? 'update' : 'add',
    legacy_node: `${LEGACY_INGEST_QUEUE}/${record.node}`,
    legacy_job_id: p.jobID,
    legacy_status: record.status,
  };
  if (p.responseForm) configuration.response_type = p.responseForm;
  if (p.localID) configuration.local_id = p.localID;
  if (p.digestType && p.digestValue)
    Object.assign(configuration, { digest_type: p.digestType, digest_value: p.digestValue });
  if (p.filename && !isUrl(p.filename)) configuration.file_name = p.filename;
  const spec: JobSpec = {
    position: record.sequence,
    configuration,
    priority: clampPriority(record.priority),
  };
  if (p.objectID || p.localID)
    spec.identifiers = { primary_id: p.objectID ?? '', local_id: p.localID ? [p.localID] : [] };
  if (p.creator || p.title || p.date)
    spec.metadata = { erc_who: p.creator, erc_what: p.title, erc_when: p.date };
  const since = `in ${LEGACY_INGEST_QUEUE}/${record.node} since ${formatTimestamp(record.changedAt)}`;
  if (record.status === 'Failed')
    spec.rejected = `failed in the legacy ingest queue (${since}); requeue to run it again`;
  else if (record.status === 'Held')
    spec.rejected = `held in the legacy ingest queue (${since}); requeue to run it`;
  else if (!PAYLOAD_TYPES[type])
    spec.rejected = `legacy object type "${p.type ?? ''}" cannot be run as one job`;
  return spec;
}

/** The batch's submission, from what every record of an ingest batch shares (its first record). */
function submissionOf(uuid: string, first: LegacyRecord, all: readonly LegacyRecord[]): Submission {
  const p = first.properties;
  const earliest = Math.min(...all.map((r) => r.changedAt.getTime()));
  return {
    profile_name: p.profile!,
    submitter: p.submitter ?? '',
    payload_url: `legacy:${LEGACY_INGEST_QUEUE}/${uuid}`,
    type: 'legacy-queue',
    batchID: uuid,
    migrated_from: LEGACY_INGEST_QUEUE,
    submissionDate: formatTimestamp(new Date(Number.isFinite(earliest) ? earliest : 0)),
  };
}

/** Records grouped by ingest batch uuid, each group in sequence order. */
function byBatch(records: readonly LegacyRecord[]): Map<string, LegacyRecord[]> {
  const groups = new Map<string, LegacyRecord[]>();
  for (const record of [...records].sort((a, b) => a.sequence - b.sequence)) {
    const uuid = record.properties.batchID!;
    groups.set(uuid, [...(groups.get(uuid) ?? []), record]);
  }
  return groups;
}

/**
 * The plan: Pending and Consumed records (work the old ingest had not finished) become pending
 * jobs, Failed and Held ones failed jobs an operator can requeue; Completed and Deleted records
 * are done and skipped. A batch whose records name files in the old queue directory is skipped
 * whole (until `queueDir` is given), so each batch is migrated complete, in one run.
 */
export function planLegacyMigration(
  records: readonly LegacyRecord[],
  unreadable: readonly UnreadableRecord[],
  options: LegacyPlanOptions = {},
): LegacyPlan {
  const plan: LegacyPlan = { batches: [], skipped: [], unreadable: [...unreadable] };
  for (const [uuid, group] of byBatch(records)) {
    const live = group.filter((r) => r.status !== 'Completed' && r.status !== 'Deleted');
    for (const done of group.filter((r) => !live.includes(r)))
      plan.skipped.push({
        node: done.node,
        reason: `${done.status.toLowerCase()} in the legacy queue: nothing to run`,
      });
    if (live.length === 0) continue;
    const urls = live.map((r) => payloadUrl(r.properties, options));
    if (urls.some((url) => url === undefined)) {
      for (const r of live)
        plan.skipped.push({
          node: r.node,
          reason: `batch ${uuid}: "${r.properties.filename ?? ''}" lies in the old ingest's queue directory; run again with --queue-dir <dir>`,
        });
      continue;
    }
    const jobs = live.map((record, i) => ({
      node: record.node,
      status: record.status,
      spec: jobSpec(record, urls[i]!),
    }));
    plan.batches.push({ uuid, submission: submissionOf(uuid, group[0]!, group), jobs });
  }
  return plan;
}
