import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReportArgs } from '../../../src/steps/contracts.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { createReportStep, describeJobsFromQueue } from '../../../src/steps/batch/report.js';
import { closedPort } from '../../support/http-recorder.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { startSmtpFixture, type SmtpFixture } from '../../support/smtp-fixture.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { batchRecord, outputSettings } from './output-fixtures.js';

const chroot = useZkChroot();
const log = pino({ level: 'silent' });
const signal = new AbortController().signal;

describe('the report step', () => {
  let smtp: SmtpFixture;
  let queue: QueueContext;
  let root: string;
  let settings: IngestSettings;
  let jids: string[];
  const profiles = new Map<string, Profile>([
    [
      'demo_profile',
      {
        name: 'demo_profile',
        collection: 'demo',
        priority: 5,
        notifications: ['a@example.org', 'b@example.org'],
        responseType: 'json',
      },
    ],
    [
      'silent_profile',
      { name: 'silent_profile', collection: 'demo', priority: 5, notifications: [], responseType: 'json' },
    ],
  ]);
  const args = (overrides: Partial<ReportArgs> = {}): ReportArgs => ({
    batch: batchRecord(),
    update: false,
    jobs: { completed: [jids[0]!], failed: [jids[1]!], deleted: [] },
    previous: undefined,
    signal,
    log,
    ...overrides,
  });

  beforeAll(async () => {
    smtp = await startSmtpFixture();
    queue = queueContext(await chroot.connect());
    await ensureQueueTree(queue.zk);
    const created = await expandedBatch(queue, [
      { ...objectSpec(0), identifiers: { primary_id: 'ark:/99999/fk4done', local_id: ['loc-done'] } },
      { ...objectSpec(1), rejected: 'manifest line 3: digest mismatch for a.tif' },
    ]);
    jids = created.jids;
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-report-'));
    settings = {
      ...outputSettings(root),
      smtp: { host: '127.0.0.1', port: smtp.port, from: 'merritt@example.org' },
    };
    smtp.messages.length = 0;
    smtp.refuseWith(undefined);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  afterAll(() => smtp.close());

  const step = () =>
    createReportStep({
      settings,
      profileOf: (n) => profiles.get(n),
      describeJob: describeJobsFromQueue(queue),
      smtpTimeoutMs: 3000,
    });

  it("e-mails the report to the profile's addresses with each job's ark or failure message", async () => {
    expect(await step()(args())).toEqual({ completedJobs: 1, failedJobs: 1 });
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail!.mailFrom).toBe('merritt@example.org');
    expect(mail!.rcptTo).toEqual(['a@example.org', 'b@example.org']);
    expect(mail!.headers.subject).toBe('Ingest: FAIL -- Submission Processed: bu-123;');
    expect(mail!.headers['x-merritt-batch']).toBe('bid0000000001');
    expect(mail!.text).toContain(
      `Completed jobs (1):\n  ${jids[0]}  ark:/99999/fk4done  local id loc-done\n`,
    );
    expect(mail!.text).toContain(
      `Failed jobs (1):\n  ${jids[1]}  manifest line 3: digest mismatch for a.tif\n`,
    );
  });

  it('an update report says which jobs succeeded since and which still fail', async () => {
    const previous = {
      last_modified: '2026-01-01 10:00:00 +0000',
      successful_jobs: [],
      failed_jobs: [jids[0]!, jids[1]!],
    };
    await step()(args({ update: true, previous }));
    const [mail] = smtp.messages;
    expect(mail!.headers.subject).toBe('Ingest: FAIL -- Submission Processed: bu-123;');
    expect(mail!.text).toContain(
      `Completed since the previous report (1):\n  ${jids[0]}  ark:/99999/fk4done`,
    );
    expect(mail!.text).toContain(`Still failing (1):\n  ${jids[1]}  manifest line 3`);
  });

  it('writes the report to the outbox when there is no SMTP server or nobody to send to', async () => {
    const outbox = join(settings.dataDir, 'outbox');
    await createReportStep({ settings: { ...settings, smtp: undefined }, profileOf: (n) => profiles.get(n) })(
      args(),
    );
    await step()(
      args({
        batch: batchRecord({ submission: { ...batchRecord().submission, profile_name: 'silent_profile' } }),
      }),
    );
    expect(smtp.messages).toHaveLength(0);
    expect((await readdir(outbox)).sort()).toEqual(['bid0000000001-1.eml', 'bid0000000001-2.eml']);
    const eml = await readFile(join(outbox, 'bid0000000001-1.eml'), 'utf8');
    expect(eml).toMatch(/^To: a@example\.org, b@example\.org$/m);
    expect(eml).toMatch(/^Subject: Ingest: FAIL -- Submission Processed: bu-123;\r?$/m);
    expect(eml).toContain(`Failed jobs (1):\n  ${jids[1]}\n`);
  });

  it('fails the report when the SMTP server refuses it or cannot be reached', async () => {
    smtp.refuseWith(550);
    const err: unknown = await step()(args()).catch((e: unknown) => e);
    expect(isOutputError(err, 'REPORT_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(
      new RegExp(`^SMTP 127\\.0\\.0\\.1:${smtp.port} did not take the report: .*550`),
    );
    const down = {
      ...settings,
      smtp: { host: '127.0.0.1', port: await closedPort(), from: 'm@example.org' },
    };
    await expect(
      createReportStep({ settings: down, profileOf: (n) => profiles.get(n) })(args()),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
