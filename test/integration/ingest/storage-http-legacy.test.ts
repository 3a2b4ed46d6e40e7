import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { type StoreFile } from '../../../src/steps/services/storage/port.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { prepareWorkDir, sha } from './output-fixtures.js';

// merritt-protocols.md §1, "Legacy protocol: synchronous HTTP": the server below is mrt-store's
// `JerseyStorage` as that section describes it, written from the text (never from the engine's
// client): `POST add|update/{nodeid}/{objectid}` with an application/x-www-form-urlencoded body
// (`t`, `manifest` or `url`, `delete` on update), the `JID` and `hostname` headers; 200 with
// JSON naming `ver:versionState.ver:identifier` and `ver:objectID`; 400 for a bad request.

const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4legacy1';
const ENCODED_ARK = 'ark%3A%2F99999%2Ffk4legacy1';
const NODE = 9501;

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

/** A stand-in for mrt-store's legacy endpoints: records each request, answers as scripted. */
function legacyStore(): { server: Server; received: Received[]; answer: { status: number; body: string } } {
  const received: Received[] = [];
  const answer = { status: 200, body: '' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://store').pathname;
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      received.push({ method: req.method ?? '', path, headers: req.headers, form });
      const [, action, node, objectId] = path.split('/').slice(1);
      const ok =
        req.method === 'POST' &&
        req.headers['content-type'] === 'application/x-www-form-urlencoded' &&
        (action === 'add' || action === 'update') &&
        /^\d+$/.test(node ?? '') &&
        (form.has('manifest') || form.has('url'));
      if (!ok) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('REQUEST_INVALID');
        return;
      }
      const body =
        answer.body ||
        JSON.stringify({
          'ver:versionState': { 'ver:identifier': 3, 'ver:numFiles': 1 },
          'ver:objectID': decodeURIComponent(objectId ?? ''),
        });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
    });
  });
  return { server, received, answer };
}

describe('the HTTP storage client speaks mrt-store’s legacy protocol (merritt-protocols.md §1, "Legacy protocol")', () => {
  let root: string;
  let workDir: string;
  let files: StoreFile[];
  let store: ReturnType<typeof legacyStore>;
  let url: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-store-legacy-'));
    workDir = join(root, 'work', 'bid1', 'jid1');
    files = (await prepareWorkDir(workDir, { 'a b.txt': 'x' })).files;
    store = legacyStore();
    await new Promise<void>((resolve) => store.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(store.server.address() as AddressInfo).port}/store`;
  });
  afterAll(async () => {
    await new Promise((resolve) => store.server.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  const storage = () =>
    createStorage(
      { dataDir: join(root, 'data'), workRoot: join(root, 'work'), storage: { kind: 'http', url } },
      { filesBaseUrl: 'http://ingest.example/work/' },
    );

  it('adds: POST add/{node}/{ark encoded}, JID and hostname headers, t=json and the mrt-add-manifest inline', async () => {
    const result = await storage().store({
      ark: ARK,
      workDir,
      files,
      signal,
      node: NODE,
      jobId: 'jid0000000001',
    });
    expect(result).toEqual({ version: 3, manifestUrl: `${url}/manifest/${NODE}/${ENCODED_ARK}` });
    const request = store.received.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/store/add/${NODE}/${ENCODED_ARK}`);
    expect(request.headers.jid).toBe('jid0000000001');
    expect(request.headers.hostname).toBeTruthy();
    expect(request.form.get('t')).toBe('json');
    expect(request.form.has('url')).toBe(false);
    expect(request.form.has('delete')).toBe(false);
    const manifest = request.form.get('manifest')!;
    // §1 (d): Merritt's mrt-add-manifest checkm, ending with #%eof.
    expect(manifest.split('\n').slice(0, 2)).toEqual([
      '#%checkm_0.7',
      '#%profile | http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest',
    ]);
    expect(manifest).toContain(
      '#%columns | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | nie:mimeType',
    );
    expect(manifest).toContain(
      `http://ingest.example/work/bid1/jid1/producer/a%20b.txt | sha256 | ${sha('x')} | 1 |  | producer/a b.txt`,
    );
    expect(manifest.trimEnd().endsWith('#%eof')).toBe(true);
  });

  it('updates: POST update/{node}/{ark} with the delete list, one path per line', async () => {
    await storage().update!({
      ark: ARK,
      workDir,
      files,
      signal,
      node: NODE,
      jobId: 'jid0000000002',
      deletes: ['producer/old.txt', 'producer/gone.txt'],
    });
    const request = store.received.at(-1)!;
    expect(request.path).toBe(`/store/update/${NODE}/${ENCODED_ARK}`);
    expect(request.form.get('delete')).toBe('producer/old.txt\nproducer/gone.txt\n');
    expect(request.form.has('manifest')).toBe(true);
  });

  it('sends the manifest by url= from 1 MB on, and the file behind that URL is the manifest', async () => {
    const many: StoreFile[] = Array.from({ length: 6000 }, (_, i) => ({
      ...files[0]!,
      path: `producer/${'d'.repeat(100)}/file-${i}.txt`,
    }));
    await storage().store({ ark: ARK, workDir, files: many, signal, node: NODE, jobId: 'jid0000000003' });
    const request = store.received.at(-1)!;
    expect(request.form.has('manifest')).toBe(false);
    expect(request.form.get('url')).toBe(
      'http://ingest.example/work/bid1/jid1/system/mrt-storage-manifest.checkm',
    );
    const written = await readFile(join(workDir, 'system', 'mrt-storage-manifest.checkm'), 'utf8');
    expect(Buffer.byteLength(written)).toBeGreaterThanOrEqual(1024 * 1024);
    expect(written.startsWith('#%checkm_0.7\n')).toBe(true);
  });

  it('400 is a refused request (not retried); any other failure is retryable; 200 without a version fails', async () => {
    const refused: unknown = await createStorage(
      {
        dataDir: join(root, 'data'),
        workRoot: join(root, 'work'),
        storage: { kind: 'http', url: `${url}/not-a-store-path/x` },
      },
      {},
    )
      .store({ ark: ARK, workDir, files, signal })
      .catch((e: unknown) => e);
    expect(isOutputError(refused, 'STORAGE_FAILED') && !refused.retryable).toBe(true);
    expect((refused as Error).message).toContain('answered 400 "REQUEST_INVALID"');

    store.answer.status = 503;
    store.answer.body = 'node offline';
    const unavailable: unknown = await storage()
      .store({ ark: ARK, workDir, files, signal })
      .catch((e: unknown) => e);
    expect(isOutputError(unavailable, 'STORAGE_FAILED') && unavailable.retryable).toBe(true);
    expect((unavailable as Error).message).toContain('EXTERNAL_SERVICE_UNAVAILABLE');

    store.answer.status = 200;
    store.answer.body = '<entity>foo</entity>';
    await expect(storage().store({ ark: ARK, workDir, files, signal })).rejects.toThrow(
      /expected JSON with ver:versionState\.ver:identifier/,
    );
    store.answer.body = '';
  });
});
