import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { createNotifyStep } from '../../../src/steps/job/notify.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { writeStoredVersion } from '../../../src/steps/workdir/workdir.js';
import { closedPort, startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';
import { parseMime, textOf } from '../../support/mail-mime.js';
import { startSmtpFixture, type SmtpFixture } from '../../support/smtp-fixture.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const log = pino({ level: 'silent' });
const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4notify';

describe('the notify step: the job callback of merritt-protocols.md §4', () => {
  let server: HttpRecorder;
  let smtp: SmtpFixture;
  let root: string;
  let settings: IngestSettings;
  let job: JobRecord;
  const profiles = new Map<string, Profile>();

  const profile = (name: string, responseType: Profile['responseType'], callbackUrl?: string): Profile => {
    const p: Profile = {
      name,
      collection: 'demo',
      priority: 5,
      notifications: [],
      responseType,
      callbackUrl,
    };
    profiles.set(name, p);
    return p;
  };
  const jobWith = (profileName: string): JobRecord => ({
    ...job,
    configuration: { ...job.configuration, profile_name: profileName },
  });
  const ADMINS = ['ops@example.org'];
  const withMail = (): IngestSettings => ({
    ...settings,
    smtp: { host: '127.0.0.1', port: smtp.port, from: 'merritt@example.org' },
    mail: { env: '', admin: ADMINS, purl: 'http://n2t.net/' },
  });
  const notify = (retries = 2) =>
    createNotifyStep({
      settings: withMail(),
      smtpTimeoutMs: 3000,
      profileOf: (name) => profiles.get(name),
      retries,
      retryBaseMs: 10,
      timeoutMs: 2000,
    });

  beforeAll(async () => {
    server = await startHttpRecorder();
    smtp = await startSmtpFixture();
    root = await mkdtemp(join(tmpdir(), 'mrtq-notify-'));
    settings = outputSettings(root);
    job = jobRecord('jid0000000042', {
      status: 'notify',
      identifiers: { primary_id: ARK, local_id: ['loc-<1>'] },
      metadata: { erc_what: 'Fish & "Chips"\nsecond line' },
      inventory: { manifest_url: 'file:///store/v1/manifest.checkm', mode: 'add' },
    });
    const workDir = workDirFor(settings, job);
    await prepareWorkDir(workDir, { 'a.txt': 'alpha', 'b.txt': 'be' });
    await writeStoredVersion(workDir, {
      ark: ARK,
      version: 1,
      manifestUrl: 'file:///store/v1/manifest.checkm',
    });
    profile('json_profile', 'json', `${server.url}/cb/json`);
    profile('auth_profile', 'json', server.url.replace('http://', 'http://merritt:s%3Acret@') + '/cb');
    profile('xml_profile', 'xml', `${server.url}/cb/xml`);
    profile('ttl_profile', 'turtle', `${server.url}/cb/ttl`);
    profile('quiet_profile', 'json');
  });
  beforeEach(() => {
    server.requests.length = 0;
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
    await rm(root, { recursive: true, force: true });
  });

  it("POSTs Merritt's job:-prefixed JobState JSON to {CallbackURL}/mc/{jid}, as application/json", async () => {
    await notify()({ job: jobWith('json_profile'), signal, log });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect([request!.method, request!.url]).toEqual(['POST', '/cb/json/mc/jid0000000042']);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBeUndefined();
    const body = JSON.parse(request!.body) as { 'job:jobState': Record<string, unknown> };
    // What Merritt's docker callback mock reads: data['job:jobState']['job:jobStatus'].
    expect(body['job:jobState']['job:jobStatus']).toBe('COMPLETED');
    expect(body['job:jobState']).toMatchObject({
      'job:jobID': 'jid0000000042',
      'job:primaryID': ARK,
      'job:localID': 'loc-<1>',
      'job:versionID': 1,
      'job:objectTitle': 'Fish & "Chips"\nsecond line',
      'job:persistentURL': `http://n2t.net/${ARK}`,
      'job:queuePriority': '05',
    });
    expect(body['job:jobState']['job:completionDate']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(smtp.messages).toHaveLength(0);
  });

  it('user info in the CallbackURL becomes a Basic authorization header and leaves the URL', async () => {
    await notify()({ job: jobWith('auth_profile'), signal, log });
    const [request] = server.requests;
    expect(request!.url).toBe('/cb/mc/jid0000000042');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('merritt:s:cret').toString('base64')}`);
  });

  it('POSTs it as XML with the same elements, still as application/json', async () => {
    await notify()({ job: jobWith('xml_profile'), signal, log });
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toContain(
      '<job:jobState xmlns:job="http://uc3.cdlib.org/ontology/mrt/ingest/job">',
    );
    expect(request!.body).toContain('<job:localID>loc-&lt;1&gt;</job:localID>');
    expect(request!.body).toContain(
      '<job:objectTitle>Fish &amp; &quot;Chips&quot;\nsecond line</job:objectTitle>',
    );
  });

  it('POSTs it as Turtle', async () => {
    await notify()({ job: jobWith('ttl_profile'), signal, log });
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toMatch(/^@prefix mrt: <http:\/\/merritt\.cdlib\.org\/terms#> \.$/m);
    expect(request!.body).toContain(`mrt:primaryIdentifier "${ARK}" ;`);
    expect(request!.body).toContain('dc:title "Fish & \\"Chips\\"\\nsecond line" .');
  });

  it('retries a 500 and succeeds', async () => {
    server.script({ status: 500, body: 'busy' }, { status: 204 });
    await notify()({ job: jobWith('json_profile'), signal, log });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
  });

  it('after repeated 500s the job is not failed, as in Merritt: the admins get "[Warning] Callback request failed"', async () => {
    server.script(...Array.from({ length: 3 }, () => ({ status: 500, body: 'still broken' })));
    await notify(2)({ job: jobWith('json_profile'), signal, log });
    expect(server.requests).toHaveLength(3);
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail!.rcptTo).toEqual(ADMINS);
    expect(mail!.headers.subject).toMatch(/^\[Warning\] Callback request failed/);
    expect(mail!.text).toContain('Job ID: jid0000000042');
    expect(mail!.text).toContain(
      `callback ${server.url}/cb/json/mc/jid0000000042 failed after 3 attempt(s); last answer: 500 "still broken"`,
    );
  });

  it('does not retry an answer that will not change (400), and warns', async () => {
    server.script({ status: 400, body: 'unknown job' });
    await notify()({ job: jobWith('json_profile'), signal, log });
    expect(server.requests).toHaveLength(1);
    expect(smtp.messages[0]!.text).toMatch(/after 1 attempt\(s\); last answer: 400/);
  });

  it('retries network errors, then warns; without SMTP the warning is kept in the outbox', async () => {
    profile('down_profile', 'json', `http://127.0.0.1:${await closedPort()}/cb`);
    const noSmtp = createNotifyStep({
      settings,
      profileOf: (name) => profiles.get(name),
      retries: 1,
      retryBaseMs: 10,
      timeoutMs: 2000,
    });
    await noSmtp({ job: jobWith('down_profile'), signal, log });
    const dir = join(settings.dataDir, 'outbox', 'warnings');
    const files = await readdir(dir);
    expect(files).toEqual(['jid0000000042-1.eml']);
    const eml = await readFile(join(dir, files[0]!), 'utf8');
    expect(eml).toMatch(/^Subject: \[Warning\] Callback request failed/m);
    expect(textOf(parseMime(eml))).toMatch(/failed after 2 attempt\(s\); last answer: .*ECONNREFUSED/);
  });

  it('does nothing without a callback, and fails on an unknown profile', async () => {
    await notify()({ job: jobWith('quiet_profile'), signal, log });
    expect(server.requests).toHaveLength(0);
    const err: unknown = await notify()({ job: jobWith('gone_profile'), signal, log }).catch(
      (e: unknown) => e,
    );
    expect(isOutputError(err, 'PROFILE_NOT_FOUND')).toBe(true);
  });

  it('stops retrying when the step is aborted', async () => {
    server.fallback(() => ({ status: 503 }));
    const controller = new AbortController();
    const run = createNotifyStep({
      settings,
      profileOf: (n) => profiles.get(n),
      retries: 5,
      retryBaseMs: 5000,
    })({
      job: jobWith('json_profile'),
      signal: controller.signal,
      log,
    });
    setTimeout(() => controller.abort(new Error('session lost')), 200);
    const started = Date.now();
    await expect(run).rejects.toThrow('session lost');
    expect(Date.now() - started).toBeLessThan(2000);
    server.fallback(() => ({ status: 200 }));
  });
});
