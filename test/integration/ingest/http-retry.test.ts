import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchSettings } from '../../../src/config/ingest-settings.js';
import { FetchError } from '../../../src/steps/intake-errors.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { withRetry } from '../../../src/steps/services/http-retry.js';
import { createNotifyStep } from '../../../src/steps/job/notify.js';
import { httpCall } from '../../../src/steps/services/http-client.js';
import {
  bytes,
  failing,
  startHttpFixture,
  type Handler,
  type HttpFixture,
} from '../../support/http-fixtures.js';
import { startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const RETRIES = 3;
const settings = (over: Partial<FetchSettings> = {}): FetchSettings => ({
  roots: [],
  timeoutMs: 2000,
  retries: RETRIES,
  retryBaseMs: 5,
  maxManifestBytes: 64 * 1024,
  maxFileBytes: 1024 * 1024,
  concurrency: 1,
  ...over,
});
const live = () => new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

/** Drops the connection of the first `times` requests without an answer, then hands over. */
function cut(times: number, then: Handler): Handler {
  let seen = 0;
  return (req, res) => {
    seen += 1;
    if (seen <= times) return void res.socket?.destroy();
    return then(req, res);
  };
}

describe('HTTP retry on p-retry: what retries, after how many attempts, and abort', () => {
  let http: HttpFixture;
  let fetcher: Fetcher;

  beforeAll(async () => {
    http = await startHttpFixture();
    fetcher = createFetcher(settings());
  });
  afterAll(async () => {
    await fetcher?.close();
    await http?.close();
  });

  it('a server that fails twice (500, then a dropped connection) is answered on the third attempt', async () => {
    http.route('/twice', failing(1, 500, cut(1, bytes('third time'))));
    expect(await fetcher.text(http.url('/twice'), { signal: live() })).toBe('third time');
    expect(http.hits('/twice')).toBe(3);
  });

  it('a server that always answers 500 ends in FETCH_STATUS after 1 + MRTQ_FETCH_RETRIES attempts', async () => {
    http.route('/always-500', failing(Infinity, 500, bytes('never')));
    const err = await rejection(fetcher.text(http.url('/always-500'), { signal: live() }));
    expect(err).toBeInstanceOf(FetchError);
    const failure = err as FetchError;
    expect(failure.code).toBe('FETCH_STATUS');
    expect(failure.message).toBe(
      `${http.url('/always-500')}: HTTP 500 Internal Server Error (gave up after ${RETRIES + 1} attempts)`,
    );
    expect([failure.attempts, failure.status, failure.retryable]).toEqual([RETRIES + 1, 500, false]);
    expect(http.hits('/always-500')).toBe(RETRIES + 1);
  });

  it('a 404 is not retried (FETCH_NOT_FOUND, one attempt), nor is a 429 from a depositor URL', async () => {
    const err = (await rejection(fetcher.text(http.url('/no-such-file'), { signal: live() }))) as FetchError;
    expect([err.code, err.attempts, err.message]).toEqual([
      'FETCH_NOT_FOUND',
      1,
      `${http.url('/no-such-file')}: HTTP 404 Not Found`,
    ]);
    expect(http.hits('/no-such-file')).toBe(1);
    http.route('/busy', failing(Infinity, 429, bytes('x')));
    const busy = (await rejection(fetcher.text(http.url('/busy'), { signal: live() }))) as FetchError;
    expect([busy.code, busy.attempts]).toEqual(['FETCH_STATUS', 1]);
    expect(http.hits('/busy')).toBe(1);
  });

  it('an abort while a request is in flight ends the fetch with the signal’s reason, not a network error', async () => {
    const controller = new AbortController();
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    http.route('/held', () => arrived()); // never answers
    const fetching = rejection(fetcher.text(http.url('/held'), { signal: controller.signal }));
    await inFlight;
    const reason = new Error('session lost');
    controller.abort(reason);
    expect(await fetching).toBe(reason);
    expect(http.hits('/held')).toBe(1);
  });

  it('an abort during the backoff ends the wait at once with the signal’s reason', async () => {
    http.route('/down', failing(Infinity, 503, bytes('down')));
    const controller = new AbortController();
    const reason = new Error('session lost');
    const attempts: number[] = [];
    const started = performance.now();
    const policy = { retries: 3, delayMs: 120_000, signal: controller.signal, retryable: () => true };
    const retried = withRetry(policy, async (n) => {
      attempts.push(n);
      const answer = await httpCall({
        url: http.url('/down'),
        method: 'GET',
        timeoutMs: 2000,
        signal: live(),
      });
      // After this attempt's failure p-retry starts its wait (microtasks); the abort comes after them.
      setImmediate(() => controller.abort(reason));
      throw new Error(`HTTP ${answer.status}`);
    });
    expect(await rejection(retried)).toBe(reason);
    // The first wait was 120 s: the abort, not the wait, ended it.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(attempts).toEqual([1]);
    expect(http.hits('/down')).toBe(1);
  });
});

describe('HTTP retry of the job callback (merritt-protocols.md §4): 408 and 429 retry there', () => {
  let server: HttpRecorder;
  let root: string;

  beforeAll(async () => {
    server = await startHttpRecorder();
    root = await mkdtemp(join(tmpdir(), 'mrtq-retry-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a callback answered 429, then 408, is taken on the third attempt', async () => {
    const settings = outputSettings(root);
    const job = jobRecord('jid0000000077', { status: 'notify' });
    await prepareWorkDir(workDirFor(settings, job), { 'a.txt': 'alpha' });
    const profile = {
      name: 'cb',
      collection: 'demo',
      priority: 5,
      notifications: [],
      responseType: 'json' as const,
      callbackUrl: `${server.url}/cb`,
    };
    server.script({ status: 429 }, { status: 408 });
    server.fallback(() => ({ status: 200 }));
    const notify = createNotifyStep({ settings, profileOf: () => profile, retries: 2, retryBaseMs: 5 });
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    await notify({
      job: { ...job, configuration: { ...job.configuration, profile_name: 'cb' } },
      signal: live(),
      log,
    });
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/cb/mc/jid0000000077'));
    expect(lines.some((line) => line.includes('callback notified'))).toBe(true);
  });
});
