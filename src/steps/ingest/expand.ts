import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BatchSteps, ExpandArgs } from '../contracts.js';
import { createJobs, type JobSpec } from '../../queue/job-create.js';
import { parseCheckm } from './checkm.js';
import type { IngestSettings } from './contracts.js';
import { isIntakeError, IntakeError } from './errors.js';
import {
  entrySpec,
  singleObjectSpec,
  submissionKind,
  type BatchDefaults,
  type SubmissionKind,
} from './expand-specs.js';
import type { Fetcher } from './fetch.js';
import { configuredDigest, configuredSize } from './object-files.js';
import type { ProfileStore } from './profiles.js';
import type { QueuedMail } from './queued-mail.js';

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

/** One job per entry of a batch manifest; a corrupt manifest throws its ManifestError. */
async function manifestSpecs(deps: ExpandDeps, x: Expansion, kind: SubmissionKind): Promise<JobSpec[]> {
  const url = x.defaults.submission.payload_url;
  const text = await deps.fetcher.text(url, { signal: x.signal });
  const manifest = parseCheckm(text, `batch manifest ${url}`);
  return manifest.entries.map((entry, position) => entrySpec(x.defaults, kind, entry, position));
}

async function specsOf(deps: ExpandDeps, x: Expansion, kind: SubmissionKind): Promise<JobSpec[]> {
  if (kind === 'manifest-of-manifests' || kind === 'manifest-of-containers') {
    return manifestSpecs(deps, x, kind);
  }
  const spec = singleObjectSpec(x.defaults, kind);
  return [kind === 'file' ? await verifySingleFile(deps, x, spec) : spec];
}

/**
 * The batch step that turns a submission into its jobs, by `type`: `file`, `container`,
 * `object-manifest` (one job each), `manifest-of-manifests` and `manifest-of-containers` (one job
 * per manifest entry, at its position). Jobs take the profile's priority, collection and response
 * type. Re-running after a crash creates no job twice (createJobs skips known positions).
 * Unknown type or profile, an unusable payload URL or a corrupt batch manifest throw: the batch
 * goes to reporting with that message, the depositor's report says it, and the batch ends failed.
 */
export function createExpandStep(deps: ExpandDeps): BatchSteps['expand'] {
  return async ({ batch, signal, log, queue }: ExpandArgs) => {
    const submission = batch.submission;
    const kind = submissionKind(submission.type);
    if (typeof submission.payload_url !== 'string' || !URL.canParse(submission.payload_url)) {
      throw new IntakeError(
        'SUBMISSION_INVALID',
        `payload_url ${JSON.stringify(submission.payload_url)} is not a URL`,
      );
    }
    const profile = await deps.profiles.resolve(submission.profile_name);
    const expansion: Expansion = { batchId: batch.batchId, defaults: { submission, profile }, signal, log };
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
