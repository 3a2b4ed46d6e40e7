import type { JobSpec } from '../../queue/job-create.js';
import type { JobConfiguration, JobIdentifiers, JobMetadata, Submission } from '../../queue/records.js';
import type { CheckmEntry } from './checkm.js';
import type { Digest, Profile } from './contracts.js';
import { IntakeError } from './errors.js';
import { configuredDigest, configuredSize } from './object-files.js';
import { safeRelativePath } from './safe-path.js';
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

function baseConfiguration(d: BatchDefaults, payloadUrl: string, payloadType: string): JobConfiguration {
  const config: JobConfiguration = {
    profile_name: d.profile.name,
    submitter: d.submission.submitter,
    payload_url: payloadUrl,
    payload_type: payloadType,
    response_type: d.profile.responseType,
    collection: d.profile.collection,
  };
  if (typeof d.submission.submission_mode === 'string') config.submission_mode = d.submission.submission_mode;
  return config;
}

function identifiersOf(primary: unknown, local: unknown): JobIdentifiers | undefined {
  const primaryId = typeof primary === 'string' ? primary : '';
  const localId = typeof local === 'string' && local !== '' ? [local] : [];
  return primaryId || localId.length > 0 ? { primary_id: primaryId, local_id: localId } : undefined;
}

function metadataOf(erc: Record<keyof JobMetadata, unknown>): JobMetadata | undefined {
  const metadata: JobMetadata = {};
  for (const [key, value] of Object.entries(erc) as [keyof JobMetadata, unknown][]) {
    if (typeof value === 'string' && value !== '') metadata[key] = value;
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

function finish(spec: JobSpec, identifiers?: JobIdentifiers, metadata?: JobMetadata): JobSpec {
  if (identifiers) spec.identifiers = identifiers;
  if (metadata) spec.metadata = metadata;
  return spec;
}

/** The one job of a `file`, `container` or `object-manifest` submission (position 0). */
export function singleObjectSpec(d: BatchDefaults, kind: SubmissionKind): JobSpec {
  const s = d.submission;
  const payloadType = kind === 'object-manifest' ? 'object_manifest' : kind;
  const configuration = baseConfiguration(d, s.payload_url, payloadType);
  if (typeof s.local_id === 'string' && s.local_id !== '') configuration.local_id = s.local_id;
  let spec: JobSpec = { position: 0, priority: d.profile.priority, configuration };
  if (kind !== 'object-manifest') {
    try {
      const name = typeof s.file_name === 'string' ? s.file_name : undefined;
      spec = withFileFields(spec, { digest: configuredDigest(s), size: configuredSize(s), name });
    } catch (err) {
      spec = { ...spec, rejected: (err as Error).message };
    }
  }
  const metadata = metadataOf({
    erc_who: s.erc_who,
    erc_what: s.erc_what,
    erc_when: s.erc_when,
    erc_where: s.erc_where,
  });
  return finish(spec, identifiersOf(s.primary_id, s.local_id), metadata);
}

/** The job of one entry of a manifest of manifests (an object manifest) or of containers. */
export function entrySpec(
  d: BatchDefaults,
  kind: SubmissionKind,
  entry: CheckmEntry,
  position: number,
): JobSpec {
  const container = kind === 'manifest-of-containers';
  const configuration = baseConfiguration(d, entry.fileUrl, container ? 'container' : 'object_manifest');
  if (entry.localIdentifier) configuration.local_id = entry.localIdentifier;
  let spec: JobSpec = { position, priority: d.profile.priority, configuration };
  if (container)
    spec = withFileFields(spec, { digest: entry.digest, size: entry.fileSize, name: entry.fileName });
  const metadata = metadataOf({
    erc_who: entry.creator,
    erc_what: entry.title,
    erc_when: entry.date,
    erc_where: undefined,
  });
  return finish(spec, identifiersOf(entry.primaryIdentifier, entry.localIdentifier), metadata);
}
