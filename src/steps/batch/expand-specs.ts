import type { JobSpec } from '../../queue/jobs/create.js';
import type { JobConfiguration, JobIdentifiers, JobMetadata, Submission } from '../../queue/tree/records.js';
import type { CheckmEntry } from '../formats/checkm.js';
import type { Digest, Profile } from '../ingest-contracts.js';
import { IntakeError } from '../intake-errors.js';
import { joinLocalIds, splitLocalIds } from '../formats/local-ids.js';
import { configuredDigest, configuredSize } from '../job/object-files.js';
import { safeRelativePath } from '../workdir/safe-path.js';
import { SUBMISSION_KINDS, submissionKindOf, type SubmissionKind } from './submission-kinds.js';

export type { SubmissionKind } from './submission-kinds.js';

/** The kind of a submission's `type` (case and `_`/`-` ignored), or SUBMISSION_INVALID. */
export function submissionKind(type: unknown): SubmissionKind {
  const kind = submissionKindOf(type);
  if (!kind) {
    const known = SUBMISSION_KINDS.join(', ');
    throw new IntakeError(
      'SUBMISSION_INVALID',
      `unknown submission type "${String(type)}" (known: ${known})`,
    );
  }
  return kind;
}

/** What every job of a batch shares. */
export interface BatchDefaults {
  submission: Submission;
  profile: Profile;
}

/** What a job's payload is, by the kind of the object it makes (`/jobs/JID/configuration`'s payload_type). */
type PayloadType = 'file' | 'container' | 'object_manifest';

/** The payload type of a single-object submission, and of each row of a batch manifest (HandlerDisaggregate). */
const PAYLOAD_TYPES: Readonly<Record<SubmissionKind, PayloadType>> = {
  file: 'file',
  container: 'container',
  'object-manifest': 'object_manifest',
  'batch-manifest': 'object_manifest',
  'container-batch-manifest': 'container',
  'single-file-batch-manifest': 'file',
};

/** Submission keys a job keeps in its configuration, as mrt-ingest's job keeps them (`note`…). */
const CARRIED_KEYS = ['note', 'notification_format', 'retain_target_url', 'datacite_resource_type'] as const;

function baseConfiguration(d: BatchDefaults, payloadUrl: string, payloadType: PayloadType): JobConfiguration {
  const s = d.submission;
  const config: JobConfiguration = {
    profile_name: d.profile.name,
    submitter: s.submitter,
    payload_url: payloadUrl,
    payload_type: payloadType,
    response_type: d.profile.responseType,
    collection: d.profile.collection,
  };
  if (typeof s.submission_mode === 'string') config.submission_mode = s.submission_mode;
  for (const key of CARRIED_KEYS) if (s[key] !== undefined && s[key] !== '') config[key] = s[key];
  return config;
}

/** The identifiers node of a job: the primary id, and the local ids split at `;`, once each. */
function identifiersOf(primary: unknown, local: unknown): JobIdentifiers | undefined {
  const primaryId = typeof primary === 'string' ? primary.trim() : '';
  const localIds = splitLocalIds(local);
  return primaryId || localIds.length > 0 ? { primary_id: primaryId, local_id: localIds } : undefined;
}

function metadataOf(erc: Record<keyof JobMetadata, unknown>): JobMetadata | undefined {
  const metadata: JobMetadata = {};
  for (const [key, value] of Object.entries(erc) as [keyof JobMetadata, unknown][]) {
    if (typeof value === 'string' && value.trim() !== '') metadata[key] = value.trim();
  }
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** Adds the file fields of a file or container job; a value the depositor got wrong rejects the job. */
function withFileFields(spec: JobSpec, file: { digest?: Digest; size?: number; name?: string }): JobSpec {
  const config = spec.configuration;
  if (file.digest) {
    config.digest_type = file.digest.algorithm;
    config.digest_value = file.digest.value;
  }
  if (file.size !== undefined) config.file_size = file.size;
  if (file.name) {
    try {
      config.file_name = safeRelativePath(file.name);
    } catch (err) {
      return { ...spec, rejected: (err as Error).message };
    }
  }
  return spec;
}

/** A job spec with its local id (Merritt's `a;b` form), identifiers and ERC. */
function spec(
  position: number,
  d: BatchDefaults,
  configuration: JobConfiguration,
  ids: { primary: unknown; local: unknown },
  metadata: JobMetadata | undefined,
): JobSpec {
  const localId = joinLocalIds(splitLocalIds(ids.local));
  if (localId !== '') configuration.local_id = localId;
  const made: JobSpec = { position, priority: d.profile.priority, configuration };
  const identifiers = identifiersOf(ids.primary, ids.local);
  if (identifiers) made.identifiers = identifiers;
  if (metadata) made.metadata = metadata;
  return made;
}

/** The one job of a `file`, `container` or `object-manifest` submission (position 0). */
export function singleObjectSpec(d: BatchDefaults, kind: SubmissionKind): JobSpec {
  const s = d.submission;
  const payloadType = PAYLOAD_TYPES[kind];
  const metadata = metadataOf({
    erc_who: s.erc_who,
    erc_what: s.erc_what,
    erc_when: s.erc_when,
    erc_where: s.erc_where,
  });
  const made = spec(
    0,
    d,
    baseConfiguration(d, s.payload_url, payloadType),
    { primary: s.primary_id, local: s.local_id },
    metadata,
  );
  if (payloadType === 'object_manifest') return made;
  try {
    const name = typeof s.file_name === 'string' ? s.file_name : undefined;
    return withFileFields(made, { digest: configuredDigest(s), size: configuredSize(s), name });
  } catch (err) {
    return { ...made, rejected: (err as Error).message };
  }
}

/**
 * The job of one row of a batch manifest, as mrt-ingest's queue `HandlerDisaggregate` makes it:
 * a `batch-manifest` row is an object manifest, a `container-batch-manifest` row a container, a
 * `single-file-batch-manifest` row a file; each with the row's title, creator, date, local id
 * and primary id (the form's values are the batch's, not its rows').
 */
export function entrySpec(
  d: BatchDefaults,
  kind: SubmissionKind,
  entry: CheckmEntry,
  position: number,
): JobSpec {
  const payloadType = PAYLOAD_TYPES[kind];
  const metadata = metadataOf({
    erc_who: entry.creator,
    erc_what: entry.title,
    erc_when: entry.date,
    erc_where: undefined,
  });
  const made = spec(
    position,
    d,
    baseConfiguration(d, entry.fileUrl, payloadType),
    { primary: entry.primaryIdentifier, local: entry.localIdentifier },
    metadata,
  );
  if (payloadType === 'object_manifest') return made;
  return withFileFields(made, { digest: entry.digest, size: entry.fileSize, name: entry.fileName });
}
