import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BatchSteps, ExpandArgs } from '../contracts.js';
import { createJobs, type JobSpec } from '../../queue/jobs/create.js';
import { parseCheckm } from '../formats/checkm.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { isIntakeError, IntakeError, ManifestError } from '../intake-errors.js';
import {
  entrySpec,
  singleObjectSpec,
  submissionKind,
  type BatchDefaults,
  type SubmissionKind,
} from './expand-specs.js';
import type { Fetcher } from '../services/fetch/fetch.js';
import { configuredDigest, configuredSize, fileNameFromUrl } from '../job/object-files.js';
import type { ProfileStore } from '../formats/profiles/profiles.js';
import type { QueuedMail } from './queued-mail.js';
import { guessSubmissionKind, kindOfManifestProfile } from './submission-guess.js';
import { BATCH_KINDS, isUntyped } from './submission-kinds.js';
import { redactUrl } from '../formats/url-credentials.js';

/** What the expand step is built from (composition root). */
export interface ExpandDeps {
  fetcher: Fetcher;
  profiles: ProfileStore;
  settings: IngestSettings;
  /** The "Submission Queued" mail, once the jobs exist (see queued-mail.ts); none when absent. */
  queuedMail?: QueuedMail;
}

interface Expansion {
  batchId: string;
  defaults: BatchDefaults;
  signal: AbortSignal;
  log: Logger;
}

/**
 * Seed 001 "(None) → Pending": a single file whose depositor gave a digest is fetched now into
 * `<workRoot>/<bid>/expand/` and checked; any failure the depositor caused (mismatch, 404…)
 * becomes the job's rejection, so it is created failed with that message. The copy is removed:
 * the download step fetches and checks the file again in the job's own directory.
 */
async function verifySingleFile(deps: ExpandDeps, x: Expansion, spec: JobSpec): Promise<JobSpec> {
  const submission = x.defaults.submission;
  if (spec.rejected) return spec;
  const digest = configuredDigest(submission);
  if (!digest) return spec;
  const dir = join(deps.settings.workRoot, x.batchId, 'expand');
  await mkdir(dir, { recursive: true });
  try {
    const expected = { digest, size: configuredSize(submission) };
    await deps.fetcher.toFile(submission.payload_url, join(dir, 'payload'), { signal: x.signal, expected });
    return spec;
  } catch (err) {
    if (x.signal.aborted || !isIntakeError(err)) throw err;
    x.log.info({ batchId: x.batchId, err }, 'single file rejected at expansion');
    return { ...spec, rejected: err.message };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the rows of a batch manifest are: as in mrt-ingest (`getObjectType`), the manifest's
 * profile decides (object manifests, containers or files), whichever of the three batch types
 * the form gave; a manifest naming no profile is read as the submission's type says.
 */
function rowKind(source: string, profile: string | undefined, declared: SubmissionKind): SubmissionKind {
  if (profile === undefined || profile === '') return declared;
  const named = kindOfManifestProfile(profile);
  if (named && BATCH_KINDS.includes(named)) return named;
  throw new ManifestError(
    `${source}: its profile ${profile} is not a batch manifest's (mrt-batch-manifest, ` +
      'mrt-container-batch-manifest or mrt-single-file-batch-manifest)',
  );
}

/** One job per entry of a batch manifest; a corrupt manifest throws its ManifestError. */
async function manifestSpecs(deps: ExpandDeps, x: Expansion, kind: SubmissionKind): Promise<JobSpec[]> {
  const url = x.defaults.submission.payload_url;
  const source = `batch manifest ${redactUrl(url)}`;
  const text = await deps.fetcher.text(url, { signal: x.signal });
  const manifest = parseCheckm(text, source);
  const rows = rowKind(source, manifest.profile, kind);
  return manifest.entries.map((entry, position) => entrySpec(x.defaults, rows, entry, position));
}

async function specsOf(deps: ExpandDeps, x: Expansion, kind: SubmissionKind): Promise<JobSpec[]> {
  if (BATCH_KINDS.includes(kind)) return manifestSpecs(deps, x, kind);
  const spec = singleObjectSpec(x.defaults, kind);
  return [kind === 'file' ? await verifySingleFile(deps, x, spec) : spec];
}

/**
 * The type of a submission that gives none, guessed as mrt-ingest guesses an upload's: by the
 * payload's name, else by the profile of the manifest it is. A payload above the manifest limit
 * cannot be a manifest this engine reads, so it is a file.
 */
async function guessedKind(deps: ExpandDeps, x: Expansion): Promise<SubmissionKind> {
  const s = x.defaults.submission;
  const name =
    typeof s.file_name === 'string' && s.file_name !== '' ? s.file_name : fileNameFromUrl(s.payload_url);
  let head = '';
  try {
    head = await deps.fetcher.text(s.payload_url, { signal: x.signal });
  } catch (err) {
    if (!isIntakeError(err) || err.code !== 'FETCH_TOO_LARGE') throw err;
  }
  const kind = guessSubmissionKind(name, head);
  x.log.info({ batchId: x.batchId, kind, name }, 'submission type guessed');
  return kind;
}

/**
 * The batch step that turns a submission into its jobs, by `type` (Merritt's six): `file`,
 * `container`, `object-manifest` (one job each), `batch-manifest`, `container-batch-manifest`
 * and `single-file-batch-manifest` (one job per manifest row, at its position); a submission
 * without a type is guessed as mrt-ingest guesses it. Jobs take the profile's priority, collection and response
 * type. Re-running after a crash creates no job twice (createJobs skips known positions).
 * Unknown type or profile, an unusable payload URL or a corrupt batch manifest throw: the batch
 * goes to reporting with that message, the depositor's report says it, and the batch ends failed.
 */
export function createExpandStep(deps: ExpandDeps): BatchSteps['expand'] {
  return async ({ batch, signal, log, queue }: ExpandArgs) => {
    const submission = batch.submission;
    const declared = isUntyped(submission.type) ? undefined : submissionKind(submission.type);
    if (typeof submission.payload_url !== 'string' || !URL.canParse(submission.payload_url)) {
      throw new IntakeError(
        'SUBMISSION_INVALID',
        `payload_url ${JSON.stringify(submission.payload_url)} is not a URL`,
      );
    }
    const profile = await deps.profiles.resolve(submission.profile_name);
    const expansion: Expansion = { batchId: batch.batchId, defaults: { submission, profile }, signal, log };
    const kind = declared ?? (await guessedKind(deps, expansion));
    const specs = await specsOf(deps, expansion, kind);
    signal.throwIfAborted();
    const result = await createJobs(queue, batch.batchId, specs);
    const rejected = specs.filter((spec) => spec.rejected).length;
    log.info(
      { batchId: batch.batchId, kind, jobs: specs.length, created: result.created.length, rejected },
      'batch expanded',
    );
    // Only a run that created jobs mails: a re-run after a crash past this point finds every job
    // made and stays silent (at most once; docs/ingest.md, "Notifications").
    if (deps.queuedMail && result.created.length > 0)
      await deps.queuedMail({ batch, profile, specs, created: result.created, signal, log });
    return { jobCount: specs.length };
  };
}
