import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/queue/job-load.js';
import type { IngestSettings, Profile } from '../../../src/steps/ingest/contracts.js';
import { createNotifyStep } from '../../../src/steps/ingest/notify.js';
import { isOutputError } from '../../../src/steps/ingest/output-errors.js';
import { writeStoredVersion } from '../../../src/steps/ingest/output-workdir.js';
import { closedPort, startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const log = pino({ level: 'silent' });
const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4notify';

describe('the notify step', () => {
  let server: HttpRecorder;
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
  const notify = (retries = 2) =>
    createNotifyStep({
      settings,
      profileOf: (name) => profiles.get(name),
      retries,
      retryBaseMs: 10,
      timeoutMs: 2000,
    });

  beforeAll(async () => {
    server = await startHttpRecorder();
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
    profile('xml_profile', 'xml', `${server.url}/cb/xml`);
    profile('ttl_profile', 'turtle', `${server.url}/cb/ttl`);
    profile('quiet_profile', 'json');
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('POSTs the job result as JSON', async () => {
    await notify()({ job: jobWith('json_profile'), signal, log });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect([request!.method, request!.url]).toEqual(['POST', '/cb/json']);
    expect(request!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(request!.body)).toEqual({
      jobId: 'jid0000000042',
      batchId: 'bid0000000001',
      profile: 'json_profile',
      submitter: 'jdoe',
      status: 'completed',
      primaryIdentifier: ARK,
      localIdentifiers: ['loc-<1>'],
      version: 1,
      manifestUrl: 'file:///store/v1/manifest.checkm',
      fileCount: 2,
      totalBytes: 7,
      title: 'Fish & "Chips"\nsecond line',
    });
  });

  it('POSTs it as escaped XML', async () => {
    await notify()({ job: jobWith('xml_profile'), signal, log });
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(request!.body).toContain('<localIdentifier>loc-&lt;1&gt;</localIdentifier>');
    expect(request!.body).toContain('<title>Fish &amp; &quot;Chips&quot;\nsecond line</title>');
    expect(request!.body).toContain('<fileCount>2</fileCount>');
  });

  it('POSTs it as Turtle', async () => {
    await notify()({ job: jobWith('ttl_profile'), signal, log });
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('text/turtle; charset=utf-8');
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

  it('fails naming the URL and the last answer after repeated 500s', async () => {
    server.script(...Array.from({ length: 3 }, () => ({ status: 500, body: 'still broken' })));
    const err: unknown = await notify(2)({ job: jobWith('json_profile'), signal, log }).catch(
      (e: unknown) => e,
    );
    expect(isOutputError(err, 'CALLBACK_FAILED')).toBe(true);
    expect((err as Error).message).toBe(
      `callback ${server.url}/cb/json failed after 3 attempt(s); last answer: 500 "still broken"`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry an answer that will not change (400)', async () => {
    server.script({ status: 400, body: 'unknown job' });
    await expect(notify()({ job: jobWith('json_profile'), signal, log })).rejects.toThrow(
      /after 1 attempt\(s\); last answer: 400/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries network errors, then fails', async () => {
    profile('down_profile', 'json', `http://127.0.0.1:${await closedPort()}/cb`);
    await expect(notify(1)({ job: jobWith('down_profile'), signal, log })).rejects.toThrow(
      /failed after 2 attempt\(s\); last answer: .*ECONNREFUSED/,
    );
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
