import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { loadBatch, type BatchRecord } from '../../../src/queue/batches/load.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { Submission } from '../../../src/queue/tree/records.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { createExpandStep } from '../../../src/steps/batch/expand.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { loadProfiles, type ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import { createQueuedMail } from '../../../src/steps/batch/queued-mail.js';
import { createReportStep, describeJobsFromQueue } from '../../../src/steps/batch/report.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { attachmentName, decodeWords, parseMime, textOf, type MimePart } from '../../support/mail-mime.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { startSmtpFixture, type CapturedMail, type SmtpFixture } from '../../support/smtp-fixture.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const log = pino({ level: 'silent' });
const signal = new AbortController().signal;
const ADMINS = ['ops1@example.org', 'ops2@example.org'];

/** A received mail as MIME: subject decoded, text part, attachments by file name. */
function opened(mail: CapturedMail) {
  const mime = parseMime(mail.raw);
  const files = new Map<string, MimePart>();
  for (const part of mime.parts) {
    const name = attachmentName(part);
    if (name) files.set(name, part);
  }
  return { mime, subject: decodeWords(mime.headers.subject ?? ''), text: textOf(mime), files };
}

describe('merritt-protocols.md §4 e-mails: "Submission Queued" and "Submission Processed"', () => {
  let smtp: SmtpFixture;
  let http: HttpFixture;
  let ctx: QueueContext;
  let dir: string;
  let settings: IngestSettings;
  let fetcher: Fetcher;
  let profiles: ProfileStore;

  beforeAll(async () => {
    smtp = await startSmtpFixture();
    http = await startHttpFixture();
    http.route('/files/a.txt', bytes('hello'));
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = await mkdtemp(join(tmpdir(), 'mrtq-mails-'));
    settings = testIngestSettings(dir, {
      smtp: { host: '127.0.0.1', port: smtp.port, from: 'merritt@example.org' },
      mail: { env: 'stg', admin: ADMINS, replyTo: 'uc3@example.org', purl: 'http://n2t.net/' },
    });
    await mkdir(settings.profilesDir, { recursive: true });
    const profile = (name: string, extra = '') =>
      writeFile(
        join(settings.profilesDir, `${name}.yaml`),
        `collection: c_${name}\npriority: 7\nnotifications: [dep@example.org]\n${extra}`,
      );
    await profile('plain', 'aggregate: MRT-collection\n');
    await profile('quiet', 'notificationSuppression: full\n');
    await profile('verbose', 'notificationType: verbose\n');
    profiles = await loadProfiles(settings.profilesDir);
    fetcher = createFetcher(settings.fetch);
  });
  beforeEach(() => {
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await fetcher?.close();
    await http?.close();
    await smtp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const expand = () =>
    createExpandStep({
      fetcher,
      profiles,
      settings,
      queuedMail: createQueuedMail({ settings, smtpTimeoutMs: 3000 }),
    });
  const report = () =>
    createReportStep({
      settings,
      profileOf: (n) => (profiles.names().includes(n) ? profiles.getProfile(n) : undefined),
      describeJob: describeJobsFromQueue(ctx),
      smtpTimeoutMs: 3000,
    });

  /** A batch created and acquired (processing, lock held), as the batch consumer has it before expanding. */
  async function processingBatch(over: Partial<Submission>): Promise<BatchRecord> {
    const { bid } = await createBatch(ctx, {
      profile_name: 'plain',
      submitter: 'ann/Ann Depositor',
      payload_url: http.url('/files/a.txt'),
      type: 'file',
      local_id: 'L-1',
      erc_what: 'A queued object',
      submissionDate: '2026-03-01T10:00:00+00:00',
      ...over,
    });
    const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
    if (!acquired) throw new Error(`could not acquire ${bid}`);
    return commitBatchTransition(ctx, acquired, { type: 'batch.acquired' }, { release: false });
  }
  const expandArgs = (batch: BatchRecord) => ({ batch, signal, log, queue: ctx });
  const queuedAbout = (bid: string) =>
    smtp.messages.filter((m) => m.headers['x-merritt-submission-queued'] === bid);
  const reportsAbout = (bid: string) => smtp.messages.filter((m) => m.headers['x-merritt-batch'] === bid);

  it('a batch split into jobs sends "Submission Queued" once, with the BatchState as {bid}.json; a re-run does not send it again', async () => {
    const batch = await processingBatch({ batchID: 'bid-queued-0001' });
    await expand()(expandArgs(batch));
    const [jid] = (await listBatchJobs(ctx, batch.batchId)).map((r) => r.jid);
    const mails = queuedAbout(batch.batchId);
    expect(mails).toHaveLength(1);
    const mail = opened(mails[0]!);
    expect(mail.subject).toBe('Ingest [stg]: OK -- Submission Queued: [MRT-collection] bid-queued-0001;');
    expect(mails[0]!.mailFrom).toBe('merritt@example.org');
    expect(decodeWords(mail.mime.headers.from ?? '')).toMatch(
      /^"?UC3 Merritt Support"? <merritt@example\.org>$/,
    );
    expect(mail.mime.headers['reply-to']).toBe('uc3@example.org');
    expect(mails[0]!.rcptTo.sort()).toEqual(['dep@example.org', ...ADMINS].sort());
    expect(mail.mime.headers.bcc).toBeUndefined();
    expect(mail.text).toBe(
      '\nSubmission ID: bid-queued-0001\nJob(s): \n\n\t:Number of pending job(s): 1\n' +
        '\t:Number of completed job(s): 0\n\t:Number of failed job(s): 0\n\n' +
        'User agent: ann/Ann Depositor\nQueue Priority: 07\nSubmission date: 2026-03-01T10:00:00+00:00\n' +
        'Status: QUEUED\n',
    );
    const attachment = mail.files.get('bid-queued-0001.json');
    expect(attachment?.headers['content-type']).toMatch(/^application\/json/);
    const state = JSON.parse(attachment!.body) as Record<string, Record<string, unknown>>;
    expect(state['bat:batchState']).toMatchObject({
      'bat:batchID': 'bid-queued-0001',
      'bat:batchStatus': 'QUEUED',
      'bat:userAgent': 'ann/Ann Depositor',
      'bat:jobStates': {
        'bat:jobState': { 'bat:jobID': jid, 'bat:jobStatus': 'PENDING', 'bat:localID': 'L-1' },
      },
    });

    // The engine died before committing expand.done: the batch is expanded again, its job exists.
    await expand()(expandArgs(await loadBatch(ctx, batch.batchId)));
    expect(queuedAbout(batch.batchId)).toHaveLength(1);
  });

  it('NotificationSuppression: full sends no queued mail; verbose sends it to the admins only', async () => {
    const quiet = await processingBatch({ profile_name: 'quiet', batchID: 'bid-queued-0002' });
    const verbose = await processingBatch({ profile_name: 'verbose', batchID: 'bid-queued-0003' });
    await expand()(expandArgs(quiet));
    await expand()(expandArgs(verbose));
    expect(queuedAbout(verbose.batchId)).toHaveLength(1);
    expect(queuedAbout(verbose.batchId)[0]!.rcptTo.sort()).toEqual([...ADMINS].sort());
    expect(queuedAbout(quiet.batchId)).toHaveLength(0);
  });

  async function finishedBatch(profile: string, uuid: string, submission: Partial<Submission> = {}) {
    const created = await expandedBatch(
      ctx,
      [
        {
          ...objectSpec(0, { profile_name: profile }),
          identifiers: { primary_id: 'ark:/99999/fk4done', local_id: ['loc-a', 'loc-b'] },
          metadata: { erc_what: 'Done object' },
        },
        {
          ...objectSpec(1, { profile_name: profile }),
          rejected: 'manifest line 3: digest mismatch for a.tif',
        },
      ],
      {
        profile_name: profile,
        batchID: uuid,
        submitter: 'ann',
        submissionDate: '2026-03-02T00:00:00+00:00',
        ...submission,
      },
    );
    return { batch: await loadBatch(ctx, created.bid), done: created.jids[0]!, failed: created.jids[1]! };
  }

  it('"Submission Processed": Merritt subject, counts body, failed.json and completed.json as application/json; header=present', async () => {
    const { batch, done, failed } = await finishedBatch('plain', 'bid-report-0001');
    const jobs = { completed: [done], failed: [failed], deleted: [] };
    await report()({ batch, update: false, jobs, previous: undefined, signal, log });
    const mails = reportsAbout(batch.batchId);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.rcptTo.sort()).toEqual(['dep@example.org', ...ADMINS].sort());
    const mail = opened(mails[0]!);
    expect(mail.subject).toBe(
      'Ingest [stg]: FAIL -- Submission Processed: [MRT-collection] bid-report-0001;',
    );
    expect(mail.text).toMatch(
      new RegExp(
        '^\\nSubmission ID: bid-report-0001\\nJob\\(s\\): \\n\\n\\t:Number of pending job\\(s\\): 0\\n' +
          '\\t:Number of completed job\\(s\\): 1\\n\\t:Number of failed job\\(s\\): 1\\n\\n' +
          'User agent: ann\\nSubmission date: 2026-03-02T00:00:00\\+00:00\\n' +
          'Completion date: \\w{3} \\w{3} \\d{2} \\d{2}:\\d{2}:\\d{2} UTC \\d{4}\\n' +
          'Status: Failed\\nStatus Message: manifest line 3: digest mismatch for a.tif\\n',
      ),
    );
    expect([...mail.files.keys()]).toEqual(['failed.json', 'completed.json']);
    for (const part of mail.files.values())
      expect(part.headers['content-type']).toMatch(/^application\/json; header=present/);
    const failedJobs = JSON.parse(mail.files.get('failed.json')!.body) as { failedJobs: unknown[] };
    expect(failedJobs).toEqual({
      failedJobs: [
        expect.objectContaining({
          profile_name: 'plain',
          payload_url: 'https://example.org/object-1.checkm',
          status: 'Failed',
          message: 'manifest line 3: digest mismatch for a.tif',
          localID: '',
        }),
      ],
    });
    const completedJobs = JSON.parse(mail.files.get('completed.json')!.body) as { completedJobs: unknown[] };
    expect(completedJobs).toEqual({
      completedJobs: [
        expect.objectContaining({
          payload_url: 'https://example.org/object-0.checkm',
          localID: 'loc-a;loc-b',
        }),
      ],
    });
  });

  it("the submission's notification address replaces the profile's; an update report has the same shape", async () => {
    const { batch, done } = await finishedBatch('plain', 'bid-report-0002', {
      notification: 'other@example.org',
    });
    const jobs = { completed: [done], failed: [], deleted: [] };
    const previous = { last_modified: '2026-03-02 00:00:00 +0000', successful_jobs: [], failed_jobs: [done] };
    await report()({ batch, update: true, jobs, previous, signal, log });
    const [mail] = reportsAbout(batch.batchId);
    expect(mail!.rcptTo.sort()).toEqual(['other@example.org', ...ADMINS].sort());
    const { subject, text, files } = opened(mail!);
    expect(subject).toBe('Ingest [stg]: OK -- Submission Processed: [MRT-collection] bid-report-0002;');
    expect(text).toContain('Status: COMPLETED\nStatus Message: Success\n');
    expect([...files.keys()]).toEqual(['completed.json']);
  });

  it("NotificationSuppression: full sends no report while another batch's report arrives; verbose names the local id", async () => {
    const quiet = await finishedBatch('quiet', 'bid-report-0003');
    const verbose = await finishedBatch('verbose', 'bid-report-0004');
    const args = (b: Awaited<ReturnType<typeof finishedBatch>>, failed: string[]) => ({
      batch: b.batch,
      update: false,
      jobs: { completed: [b.done], failed, deleted: [] },
      previous: undefined,
      signal,
      log,
    });
    await report()(args(quiet, [quiet.failed]));
    await report()(args(verbose, []));
    expect(reportsAbout(verbose.batch.batchId)).toHaveLength(1);
    expect(reportsAbout(quiet.batch.batchId)).toHaveLength(0);
    expect(smtp.messages).toHaveLength(1);
    const { subject, text, files } = opened(reportsAbout(verbose.batch.batchId)[0]!);
    expect(subject).toBe('Submission Processed [Merritt stg]: loc-a;loc-b');
    expect(text).toMatch(
      /^The dataset "Done object" was successfully uploaded at \d{4}-\d\d-\d\dT[\d:]{8}\+00:00\.\n/,
    );
    expect(text).toContain('The identifier associated with this dataset is loc-a;loc-b. Please retain\n');
    expect(text).toContain('use the following URL: \nhttp://n2t.net/ark:/99999/fk4done\n');
    expect([...files.keys()]).toEqual(['completed.json']);
  });
});
