import { JOB_NAMESPACE, type StateDocument } from '../formats/mail-state.js';
import { merrittIsoDate } from '../formats/mail.js';

/** What a profile's callback receives about a job (seed 003 "Notify → Completed"). */
export interface JobResult {
  jobId: string;
  batchId: string;
  /** The batch's uuid when the job's configuration carries it. */
  batchUuid?: string;
  profile: string;
  submitter: string;
  status: 'completed';
  primaryIdentifier?: string;
  localIdentifiers: string[];
  version?: number;
  manifestUrl?: string;
  fileCount?: number;
  totalBytes?: number;
  title?: string;
  creator?: string;
  date?: string;
  /** The submitted package's file name (Merritt's `packageName`). */
  packageName?: string;
  /** The submission date, when the job's configuration carries it. */
  submissionDate?: string;
  completionDate: Date;
  /** Queue priority, 0–99. */
  priority?: number;
  /** `MRTQ_MAIL_PURL` + ark (Merritt's `persistentURL`). */
  persistentUrl?: string;
  /** The profile's `Type` (Merritt's `objectType`). */
  objectType?: string;
}

/**
 * The job as ingest's `JobState` (`ingest:IS/JobState.java`), field by displayable getter, with
 * the values this engine knows: `job:jobID`, `job:jobStatus` (`COMPLETED`: notify runs for a job
 * that made it through recording), `job:primaryID`, `job:localID` (local ids joined by `;`, as
 * mrt-zk's `Job.localId()`), `job:versionID`, the ERC as `objectCreator/Title/Date`,
 * `job:queuePriority` (two digits), `job:persistentURL`… `grab*` getters (the batch id among
 * them) are not displayable in Merritt, so they are absent here too.
 */
export function jobStateDocument(result: JobResult): StateDocument {
  return {
    root: 'jobState',
    prefix: 'job',
    namespace: JOB_NAMESPACE,
    fields: [
      ['jobID', result.jobId],
      ['packageName', result.packageName],
      ['submissionDate', result.submissionDate],
      ['completionDate', merrittIsoDate(result.completionDate)],
      ['jobStatus', 'COMPLETED'],
      ['primaryID', result.primaryIdentifier],
      ['localID', result.localIdentifiers.length > 0 ? result.localIdentifiers.join(';') : undefined],
      ['versionID', result.version],
      ['objectCreator', result.creator],
      ['objectTitle', result.title],
      ['objectDate', result.date],
      ['objectType', result.objectType],
      ['queuePriority', result.priority === undefined ? undefined : String(result.priority).padStart(2, '0')],
      ['retainTargetURL', false],
      ['persistentURL', result.persistentUrl],
    ],
  };
}

/** The payload's file name: the last segment of its URL's path, decoded. */
export function packageNameOf(payloadUrl: string): string | undefined {
  if (!URL.canParse(payloadUrl)) return undefined;
  const last = new URL(payloadUrl).pathname.split('/').filter(Boolean).pop();
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The callback URL of a job (`{CallbackURL}/mc/{jid}`, as HandlerCallback builds it) without
 * its user info, and the Basic authorization header the user info (`user:pw@`) becomes.
 */
export function callbackTarget(base: string, jobId: string): { url: string; authorization?: string } {
  const url = new URL(`${base.replace(/\/+$/, '')}/mc/${encodeURIComponent(jobId)}`);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  if (!user && !password) return { url: url.toString() };
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { url: url.toString(), authorization };
}
