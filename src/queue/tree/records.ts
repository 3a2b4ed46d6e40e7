/** The data of a batch and a job as the queue reads and writes it (DESIGN.md §2). */

/** `/batches/BID/submission`: what the depositor submitted. Unknown keys are kept as they are. */
export interface Submission {
  profile_name: string;
  submitter: string;
  payload_url: string;
  /**
   * `file`, `container`, `object-manifest`, `batch-manifest`… (SUBMISSION_KINDS); absent when the
   * submitter gave none: the batch's expansion guesses it from the payload, as mrt-ingest does.
   */
  type?: string;
  submission_mode?: string;
  submissionDate?: string;
  erc_what?: string;
  erc_who?: string;
  erc_when?: string;
  erc_where?: string;
  /** The uuid ingest mints; `/batch-uuids/<uuid>` points back at the batch. */
  batchID?: string;
  /** Collection mnemonic (from the profile): what a collection hold applies to. */
  collection?: string;
  /** W3C trace context of the submission: the batch's work continues its trace. */
  traceparent?: string;
  /** The raw `erc` field of Merritt's submission form. */
  erc?: string;
  /** Local ids as given: Merritt's `;`-separated list kept as one string. */
  local_id?: string;
  /** The object's ark (an update names the object it updates). */
  primary_id?: string;
  /** The payload's file name (Merritt's `filename`, else the uploaded file's own). */
  file_name?: string;
  /** The payload's size in bytes, as the submitter gave it (written as a number; read as either). */
  file_size?: number | string;
  /** The payload's digest as the submitter gave it (`sha-256`, `MD5`…, hex). */
  digest_type?: string;
  digest_value?: string;
  note?: string;
  /** An address the batch's report goes to instead of the profile's. */
  notification?: string;
  /** The form of the notification (Merritt's `notificationFormat`: xml, json, anvl…). */
  notification_format?: string;
  /** The form the submission was answered in (Merritt's `responseForm`). */
  response_form?: string;
  /** Merritt's `retainTargetURL`: keep the EZID target URL of an updated object. */
  retain_target_url?: boolean;
  /** Dublin Core of Merritt's `DC.<element>` fields, by lower-case element (`{title: …}`). */
  dc?: Record<string, string>;
  /** Merritt's `DataCite.resourceType`. */
  datacite_resource_type?: string;
  [key: string]: unknown;
}

/** `/jobs/JID/configuration`. Unknown keys are kept as they are. */
export interface JobConfiguration {
  profile_name: string;
  submitter: string;
  payload_url: string;
  payload_type: string;
  response_type?: string;
  local_id?: string;
  working_dir?: string;
  submission_mode?: string;
  /** Collection mnemonic (from the profile): what a collection hold applies to. */
  collection?: string;
  /** Position of the object in the batch's manifest: the job's deterministic key within its batch. */
  manifest_position?: number;
  /** W3C trace context of the expansion that created the job: its steps continue that trace. */
  traceparent?: string;
  [key: string]: unknown;
}

export interface JobIdentifiers {
  primary_id: string;
  local_id: string[];
}

export interface JobMetadata {
  erc_what?: string;
  erc_who?: string;
  erc_when?: string;
  erc_where?: string;
}

/**
 * `/jobs/JID/inventory`: the hand-off to inventory, written by processing with the move to
 * storing (merritt-protocols.md §2): the storage manifest URL (`…/manifest/{node}/{ark
 * percent-encoded}`) inventory loads; `mode` is unused by Merritt and written `""`.
 */
export interface JobInventory {
  manifest_url: string;
  mode: string;
}

/**
 * `/jobs/JID/store`: the hand-off to storage, written by processing with the move to storing
 * (merritt-protocols.md §1): the ingest manifest's URL, `mode` = `add|update/{node}/{ark
 * percent-encoded}` (exactly three `/`-separated parts), and `delete`, the paths an update
 * removes, one per line (always present; `""` for an add, as mrt-store reads it with getString).
 */
export interface JobStore {
  manifest_url: string;
  mode: string;
  delete: string;
}

/** `/batches/BID/status-report`, written by reporting. */
export interface StatusReport {
  last_modified: string;
  failed_jobs: string[];
  successful_jobs: string[];
}
