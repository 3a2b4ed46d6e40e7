import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchSettings } from '../../../src/config/ingest-settings.js';
import { FetchError } from '../../../src/steps/intake-errors.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import {
  bytes,
  closedPort,
  cutOnce,
  failing,
  hanging,
  startHttpFixture,
  type HttpFixture,
} from '../../support/http-fixtures.js';

const settings = (dir: string, over: Partial<FetchSettings> = {}): FetchSettings => ({
  roots: [join(dir, 'root')],
  timeoutMs: 2000,
  retries: 2,
  retryBaseMs: 5,
  maxManifestBytes: 64 * 1024,
  maxFileBytes: 8 * 1024 * 1024,
  concurrency: 4,
  ...over,
});

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');
const signal = () => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('fetching over HTTP', () => {
  let http: HttpFixture;
  let dir: string;
  let fetcher: Fetcher;
  const dest = () => join(dir, `out-${randomBytes(4).toString('hex')}`);

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = await mkdtemp(join(tmpdir(), 'intake-fetch-'));
    fetcher = createFetcher(settings(dir));
  });
  afterAll(async () => {
    await fetcher.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('streams a file to disk byte for byte and verifies the depositor digest', async () => {
    const body = randomBytes(3 * 1024 * 1024 + 17);
    http.route('/big.bin', bytes(body));
    const path = dest();
    const got = await fetcher.toFile(http.url('/big.bin'), path, {
      signal: signal(),
      expected: { size: body.length, digest: { algorithm: 'md5', value: md5(body) } },
    });
    // The same pass gives the sha256 storage needs and the first bytes for the MIME type.
    expect(got).toEqual({
      size: body.length,
      digest: { algorithm: 'md5', value: md5(body) },
      sha256: createHash('sha256').update(body).digest('hex'),
      head: body.subarray(0, 8192),
    });
    expect((await readFile(path)).equals(body)).toBe(true);
  });

  it('computes sha256 when no digest is expected', async () => {
    http.route('/plain.txt', bytes('hello'));
    const got = await fetcher.toFile(http.url('/plain.txt'), dest(), { signal: signal() });
    expect(got.digest).toEqual({ algorithm: 'sha256', value: sha256('hello') });
  });

  it('a 404 fails at once, naming the URL and the status', async () => {
    const url = http.url('/missing.txt');
    const err = await failure(fetcher.toFile(url, dest(), { signal: signal() }));
    expect(err.code).toBe('FETCH_NOT_FOUND');
    expect(err.message).toContain(url);
    expect(err.message).toContain('HTTP 404');
    expect(http.hits('/missing.txt')).toBe(1);
  });

  it('a 500 is retried and the file arrives on the third attempt', async () => {
    http.route('/flaky.txt', failing(2, 500, bytes('finally')));
    const path = dest();
    const got = await fetcher.toFile(http.url('/flaky.txt'), path, { signal: signal() });
    expect(got.size).toBe(7);
    expect(await readFile(path, 'utf8')).toBe('finally');
    expect(http.hits('/flaky.txt')).toBe(3);
  });

  it('a 500 that persists fails after 1 + retries attempts and says so', async () => {
    http.route('/down.txt', failing(100, 503, bytes('never')));
    const path = dest();
    const err = await failure(fetcher.toFile(http.url('/down.txt'), path, { signal: signal() }));
    expect(err.code).toBe('FETCH_STATUS');
    expect(err.message).toMatch(/HTTP 503 Service Unavailable \(gave up after 3 attempts\)/);
    expect(http.hits('/down.txt')).toBe(3);
    expect(existsSync(path)).toBe(false);
  });

  it('a 403 is never retried', async () => {
    http.route('/forbidden', failing(100, 403, bytes('x')));
    const err = await failure(fetcher.text(http.url('/forbidden'), { signal: signal() }));
    expect(err.code).toBe('FETCH_STATUS');
    expect(http.hits('/forbidden')).toBe(1);
  });

  it('a refused connection is a network error naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/x`;
    const err = await failure(fetcher.text(url, { signal: signal() }));
    expect(err.code).toBe('FETCH_NETWORK');
    expect(err.message).toContain(url);
    expect(err.message).toContain('connection refused');
    expect(err.attempts).toBe(3);
  });

  it('a server that never answers times out after timeoutMs', async () => {
    http.route('/hang', hanging());
    const quick = createFetcher(settings(dir, { timeoutMs: 300, retries: 0 }));
    const started = Date.now();
    const err = await failure(quick.text(http.url('/hang'), { signal: signal() }));
    await quick.close();
    expect(err.code).toBe('FETCH_TIMEOUT');
    expect(err.message).toContain('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a digest mismatch deletes the file and names both digests', async () => {
    http.route('/changed.txt', bytes('actual content'));
    const path = dest();
    const wrong = 'a'.repeat(64);
    const err = await failure(
      fetcher.toFile(http.url('/changed.txt'), path, {
        signal: signal(),
        expected: { digest: { algorithm: 'sha256', value: wrong } },
      }),
    );
    expect(err.code).toBe('DIGEST_MISMATCH');
    expect(err.message).toContain(`expected sha256:${wrong}`);
    expect(err.message).toContain(`got sha256:${sha256('actual content')}`);
    expect(existsSync(path)).toBe(false);
  });

  it('a size other than the expected one fails, announced or streamed', async () => {
    http.route('/sized.txt', bytes('12345'));
    const announced = await failure(
      fetcher.toFile(http.url('/sized.txt'), dest(), { signal: signal(), expected: { size: 4 } }),
    );
    expect(announced.code).toBe('SIZE_MISMATCH');
    expect(announced.message).toContain('expected 4 bytes');
    http.route('/chunked.txt', (_req, res) => {
      res.write('123');
      res.end('456');
    });
    const streamed = await failure(
      fetcher.toFile(http.url('/chunked.txt'), dest(), { signal: signal(), expected: { size: 100 } }),
    );
    expect(streamed.code).toBe('SIZE_MISMATCH');
    expect(streamed.message).toContain('expected 100 bytes, got 6');
  });

  it('refuses a file above maxFileBytes from Content-Length and while streaming', async () => {
    const small = createFetcher(settings(dir, { maxFileBytes: 1000, maxManifestBytes: 10 }));
    http.route('/large', bytes(Buffer.alloc(5000)));
    http.route('/large-chunked', (_req, res) => {
      res.write(Buffer.alloc(800));
      res.end(Buffer.alloc(800));
    });
    const early = await failure(small.toFile(http.url('/large'), dest(), { signal: signal() }));
    expect(early.code).toBe('FETCH_TOO_LARGE');
    expect(early.message).toContain('5000 bytes, the limit is 1000');
    const late = await failure(small.toFile(http.url('/large-chunked'), dest(), { signal: signal() }));
    expect(late.code).toBe('FETCH_TOO_LARGE');
    const manifest = await failure(small.text(http.url('/large-chunked'), { signal: signal() }));
    expect(manifest.code).toBe('FETCH_TOO_LARGE');
    await small.close();
  });

  it('resumes a download cut midway with a Range request', async () => {
    const body = randomBytes(256 * 1024);
    http.route('/cut.bin', cutOnce(body, 100_000, bytes(body, { etag: '"v1"' })));
    const path = dest();
    const got = await fetcher.toFile(http.url('/cut.bin'), path, { signal: signal() });
    expect(got.digest.value).toBe(sha256(body));
    expect((await readFile(path)).equals(body)).toBe(true);
    const second = http.requests.filter((r) => r.path === '/cut.bin')[1];
    expect(second?.headers.range).toBe('bytes=100000-');
    expect(second?.headers['if-range']).toBe('"v1"');
  });

  it('keeps what it has through a 503 and resumes on the next attempt', async () => {
    const body = randomBytes(150 * 1024);
    http.route('/cut-503.bin', cutOnce(body, 60_000, failing(1, 503, bytes(body, { etag: '"v1"' }))));
    const path = dest();
    await fetcher.toFile(http.url('/cut-503.bin'), path, { signal: signal() });
    expect((await readFile(path)).equals(body)).toBe(true);
    const ranges = http.requests.filter((r) => r.path === '/cut-503.bin').map((r) => r.headers.range);
    expect(ranges).toEqual([undefined, 'bytes=60000-', 'bytes=60000-']);
  });

  it('does not resume when a changed file would go unnoticed (no validator, no digest)', async () => {
    const body = randomBytes(150 * 1024);
    http.route('/cut-blind.bin', cutOnce(body, 60_000, bytes(body), {}));
    const path = dest();
    await fetcher.toFile(http.url('/cut-blind.bin'), path, { signal: signal() });
    expect((await readFile(path)).equals(body)).toBe(true);
    const ranges = http.requests.filter((r) => r.path === '/cut-blind.bin').map((r) => r.headers.range);
    expect(ranges).toEqual([undefined, undefined]);
  });

  it('starts over when the server ignores the Range request', async () => {
    const body = randomBytes(200 * 1024);
    http.route('/cut-norange.bin', cutOnce(body, 50_000, bytes(body, { ranges: false })));
    const path = dest();
    const got = await fetcher.toFile(http.url('/cut-norange.bin'), path, { signal: signal() });
    expect(got.size).toBe(body.length);
    expect((await readFile(path)).equals(body)).toBe(true);
  });

  it('an abort ends a download at once with the abort reason', async () => {
    http.route('/hang-abort', hanging());
    const controller = new AbortController();
    const reason = new Error('session lost');
    setTimeout(() => controller.abort(reason), 50);
    const started = Date.now();
    await expect(fetcher.toFile(http.url('/hang-abort'), dest(), { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('HEAD gives the announced size', async () => {
    http.route('/sized-head', bytes('123456789'));
    expect(await fetcher.head(http.url('/sized-head'), signal())).toBe(9);
    expect(http.hits('/sized-head', 'HEAD')).toBe(1);
  });

  it('refuses schemes other than http, https and file', async () => {
    const err = await failure(fetcher.text('ftp://example.org/x', { signal: signal() }));
    expect(err.code).toBe('FETCH_REFUSED');
    expect(err.message).toContain('"ftp:" is not allowed');
  });
});

describe('fetching file:// URLs', () => {
  let dir: string;
  let fetcher: Fetcher;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'intake-file-'));
    await mkdir(join(dir, 'root', 'sub'), { recursive: true });
    await writeFile(join(dir, 'root', 'sub', 'inside.txt'), 'inside');
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await symlink(join(dir, 'secret.txt'), join(dir, 'root', 'link.txt'));
    fetcher = createFetcher(settings(dir));
  });
  afterAll(async () => {
    await fetcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  const url = (...parts: string[]) => pathToFileURL(join(dir, ...parts)).href;

  it('reads a file inside a root', async () => {
    expect(await fetcher.text(url('root', 'sub', 'inside.txt'), { signal: signal() })).toBe('inside');
    const out = join(dir, 'copy.txt');
    const got = await fetcher.toFile(url('root', 'sub', 'inside.txt'), out, { signal: signal() });
    expect(got).toEqual({
      size: 6,
      digest: { algorithm: 'sha256', value: sha256('inside') },
      sha256: sha256('inside'),
      head: Buffer.from('inside'),
    });
    expect(await fetcher.head(url('root', 'sub', 'inside.txt'), signal())).toBe(6);
  });

  it('refuses a file outside the roots, naming the path and the roots', async () => {
    const err = await failure(fetcher.text(url('secret.txt'), { signal: signal() }));
    expect(err.code).toBe('FETCH_REFUSED');
    expect(err.message).toContain(join(dir, 'secret.txt'));
    expect(err.message).toContain(join(dir, 'root'));
  });

  it('refuses a ".." path that climbs out of the root', async () => {
    const climbing = `file://${join(dir, 'root')}/sub/../../secret.txt`;
    const err = await failure(fetcher.text(climbing, { signal: signal() }));
    expect(err.code).toBe('FETCH_REFUSED');
  });

  it('refuses a symlink inside the root that points outside', async () => {
    const err = await failure(fetcher.text(url('root', 'link.txt'), { signal: signal() }));
    expect(err.code).toBe('FETCH_REFUSED');
    expect(err.message).toContain(`resolves to ${join(dir, 'secret.txt')}`);
  });

  it('a missing file inside a root is not found', async () => {
    const err = await failure(fetcher.text(url('root', 'nope.txt'), { signal: signal() }));
    expect(err.code).toBe('FETCH_NOT_FOUND');
  });
});
