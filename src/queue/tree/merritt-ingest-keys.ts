import type { JobConfiguration, Submission } from './records.js';

/**
 * Merritt's ingest writes a batch's `submission` and a job's `configuration` with its own key
 * names (mrt-ingest `batchProcess/HandlerSubmit` and `queue/HandlerSubmit`: `profile`,
 * `responseForm`, `localID`, `update`, `title`/`creator`/`date`), not the mrt-zk names this
 * engine writes and reads (`profile_name`, `response_type`, …). Read as they are, such a job
 * fails in Notify ("profile undefined not found") and its batch is reported without its profile.
 * Readers therefore see both: a key this engine reads is filled from Merritt's name when the node
 * lacks it. Nothing is removed or renamed, and nothing is written back (the nodes stay Merritt's).
 */

type Json = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** Merritt's `update` flag (a JSON boolean, or "true"/"false" in older Properties-based writers). */
function submissionMode(update: unknown): string | undefined {
  if (update === true || update === 'true') return 'update';
  if (update === false || update === 'false') return 'add';
  return undefined;
}

/** Copies `from`'s value to `to` when `to` is absent and `from` holds one. */
function fill(json: Json, to: string, value: string | undefined): void {
  if (json[to] === undefined && value !== undefined) json[to] = value;
}

/**
 * Keys every reader of the engine needs, from Merritt's names: the profile (whose name is also
 * the collection Merritt's admin tool holds, `/locks/collections/<profile>`) and the submission
 * mode. Shared by batches and jobs.
 */
function withCommonKeys(raw: Json): Json {
  const json = { ...raw };
  const profile = text(raw.profile);
  fill(json, 'profile_name', profile);
  fill(json, 'collection', profile);
  fill(json, 'submission_mode', submissionMode(raw.update));
  return json;
}

/** A job's configuration with the keys this engine reads, filled from Merritt's ingest names. */
export function readJobConfiguration(raw: Json): JobConfiguration {
  const json = withCommonKeys(raw);
  fill(json, 'response_type', text(raw.responseForm));
  fill(json, 'local_id', text(raw.localID));
  return json as JobConfiguration;
}

/** A batch's submission with the keys this engine reads, filled from Merritt's ingest names. */
export function readSubmission(raw: Json): Submission {
  const json = withCommonKeys(raw);
  fill(json, 'erc_what', text(raw.title));
  fill(json, 'erc_who', text(raw.creator));
  fill(json, 'erc_when', text(raw.date));
  return json as Submission;
}
