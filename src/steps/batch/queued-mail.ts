import type { Logger } from 'pino';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { BatchRecord } from '../../queue/batches/load.js';
import type { CreatedJob, JobSpec } from '../../queue/jobs/create.js';
import { packageNameOf } from '../services/callback.js';
import type { Profile } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { aggregatePrefix, isSuppressed, isVerbose, merrittSubject } from '../formats/mail.js';
import {
  deliverMail,
  keepInOutbox,
  mailSettingsOf,
  merrittEnvelope,
  type MailDelivery,
} from '../services/mail-send.js';
import { BATCH_NAMESPACE, stateJson, type StateDocument, type StateFields } from '../formats/mail-state.js';
import { batchUuidOf } from '../formats/report.js';

/** What the expand step hands over once it has created a batch's jobs. */
export interface QueuedMailArgs {
  batch: BatchRecord;
  profile: Profile;
  /** Every job of the batch, by manifest position (rejected ones are created failed). */
  specs: JobSpec[];
  /** The jobs this run created (a resumed expansion creates only the missing ones). */
  created: CreatedJob[];
  signal: AbortSignal;
  log: Logger;
}

/** Sends (or keeps) the "Submission Queued" mail; never fails the expansion, except when aborted. */
export type QueuedMail = (args: QueuedMailArgs) => Promise<void>;

export interface QueuedMailDeps {
  settings: Pick<IngestSettings, 'dataDir' | 'smtp' | 'mail'>;
  smtpTimeoutMs?: number;
}

const two = (n: number): string => String(n).padStart(2, '0');

function jobStateFields(spec: JobSpec, jid: string, profile: Profile): StateFields {
  const c = spec.configuration;
  const localId = spec.identifiers?.local_id?.length ? spec.identifiers.local_id.join(';') : c.local_id;
  return [
    ['jobID', jid],
    ['packageName', packageNameOf(c.payload_url)],
    ['jobStatus', spec.rejected ? 'FAILED' : 'PENDING'],
    ['jobStatusMessage', spec.rejected],
    ['primaryID', spec.identifiers?.primary_id || undefined],
    ['localID', localId || undefined],
    ['objectCreator', spec.metadata?.erc_who],
    ['objectTitle', spec.metadata?.erc_what],
    ['objectDate', spec.metadata?.erc_when],
    ['queuePriority', two(spec.priority ?? profile.priority)],
    ['retainTargetURL', false],
  ];
}

/**
 * The batch as Merritt's BatchState right after queueing (`{"bat:batchState":{…,
 * "bat:batchStatus":"QUEUED","bat:jobStates":{"bat:jobState":[…]}}}`): the jobs are those this
 * run created, with their manifest details.
 */
export function queuedBatchState(
  args: Pick<QueuedMailArgs, 'batch' | 'profile' | 'specs' | 'created'>,
): StateDocument {
  const s = args.batch.submission;
  const byPosition = new Map(args.specs.map((spec) => [spec.position, spec]));
  const items = args.created.flatMap((job) => {
    const spec = byPosition.get(job.position);
    return spec ? [jobStateFields(spec, job.jid, args.profile)] : [];
  });
  return {
    root: 'batchState',
    prefix: 'bat',
    namespace: BATCH_NAMESPACE,
    fields: [
      ['batchID', batchUuidOf(args.batch)],
      ['batchLabel', typeof s.title === 'string' ? s.title : undefined],
      ['packageName', packageNameOf(s.payload_url)],
      ['userAgent', s.submitter],
      ['submissionDate', typeof s.submissionDate === 'string' ? s.submissionDate : undefined],
      ['batchStatus', 'QUEUED'],
      ['jobStates', { item: 'jobState', items }],
    ],
  };
}

/**
 * BatchState's `dump("", false, false)`: `Submission ID`, `Job(s):` with the pending, completed
 * and failed counts, `User agent`, `Queue Priority`, `Submission date`, `Status: QUEUED`.
 */
export function queuedBody(args: Pick<QueuedMailArgs, 'batch' | 'profile' | 'specs'>): string {
  const s = args.batch.submission;
  const failed = args.specs.filter((spec) => spec.rejected).length;
  const pending = args.specs.length - failed;
  const last = args.specs.at(-1);
  const line = (label: string, value: unknown): string =>
    typeof value === 'string' && value !== '' ? `${label}: ${value}\n` : '';
  return (
    `\nSubmission ID: ${batchUuidOf(args.batch)}\n` +
    line('Batch label', s.title) +
    `Job(s): \n\n\t:Number of pending job(s): ${pending}\n\t:Number of completed job(s): 0\n` +
    `\t:Number of failed job(s): ${failed}\n\n` +
    line('User agent', s.submitter) +
    line('Queue Priority', two(last?.priority ?? args.profile.priority)) +
    line('Submission date', s.submissionDate) +
    'Status: QUEUED\n'
  );
}

/**
 * The "Submission Queued" mail (merritt-protocols.md §4 (a), Merritt's queue
 * HandlerNotification): `Ingest: OK -- Submission Queued: [Aggregate] bid-…;`, the batch dump,
 * and `{bid}.json` (the BatchState as JSON). To the profile's addresses (with `NotificationType:
 * verbose` only the Bcc admins get it), not at all with `NotificationSuppression` `partial` or
 * `full`. Sent by SMTP when configured and it has a recipient, else kept in
 * `<dataDir>/outbox/queued/<bid>-<n>.eml`. Like Merritt, a mail that cannot be sent does not
 * fail the batch: it is logged and kept in that outbox.
 */
export function createQueuedMail(deps: QueuedMailDeps): QueuedMail {
  return async (args) => {
    const { batch, profile, log, signal } = args;
    if (isSuppressed(profile, ['partial', 'full'])) {
      log.info(
        { profile: profile.name, suppression: profile.notificationSuppression },
        'queued mail not sent: the profile suppresses it (NotificationSuppression)',
      );
      return;
    }
    const mail = mailSettingsOf(deps.settings);
    const uuid = batchUuidOf(batch);
    const subject = merrittSubject(mail.env, 'OK', 'Submission Queued', [
      `${aggregatePrefix(profile)}${uuid}`,
    ]);
    const message: Mail.Options = {
      ...merrittEnvelope(deps.settings),
      to: isVerbose(profile) ? [] : profile.notifications,
      subject,
      text: queuedBody(args),
      attachments: [
        {
          filename: `${uuid}.json`,
          content: stateJson(queuedBatchState(args)),
          contentType: 'application/json',
          contentDisposition: 'attachment',
          headers: { 'Content-Description': `Full report for ${uuid}` },
        },
      ],
      headers: { 'X-Merritt-Submission-Queued': batch.batchId },
    };
    const delivery: MailDelivery = { settings: deps.settings, smtpTimeoutMs: deps.smtpTimeoutMs };
    const place = { outbox: 'outbox/queued', key: batch.batchId, what: 'queued mail' };
    try {
      const delivered = await deliverMail(delivery, message, { ...place, signal });
      if (delivered.via === 'smtp') log.info({ subject }, 'queued mail sent');
      else log.info({ path: delivered.path, subject }, 'queued mail written to the outbox');
    } catch (err) {
      signal.throwIfAborted();
      const path = await keepInOutbox(delivery, message, place);
      log.warn({ err, path }, 'queued mail could not be sent; kept in the outbox, the batch goes on');
    }
  };
}
