import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { TOKEN, apiDeps } from './api-fixture.js';

const chroot = useZkChroot();
const MANIFEST = '%checkm_0.7\n%fields | nfo:fileUrl | mrt:title\nhttps://example.org/a.checkm | A\n';

describe('POST /batches/manifest', () => {
  let ctx: QueueContext;
  let app: ReturnType<typeof createHttpApi>;
  const uploadDir = mkdtempSync(join(tmpdir(), 'mrtq-upload-'));
  const post = (query: string, body: string, token: string | undefined = TOKEN) =>
    app.inject({
      method: 'POST',
      url: `/batches/manifest?${query}`,
      headers: { 'content-type': 'text/plain', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: body,
    });

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    app = createHttpApi(await apiDeps(ctx, { uploadDir }));
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('writes the manifest under the upload directory and submits it as a file:// payload', async () => {
    const res = await post('profile=demo&submitter=api&type=batch-manifest&uuid=up-1', MANIFEST);
    expect(res.statusCode).toBe(201);
    const { bid } = res.json<{ bid: string }>();
    const batch = await loadBatch(ctx, bid);
    expect(batch.submission).toMatchObject({
      type: 'batch-manifest',
      batchID: 'up-1',
      collection: 'demo',
    });
    expect(readFileSync(fileURLToPath(batch.submission.payload_url), 'utf8')).toBe(MANIFEST);
    expect(
      (await post('profile=demo&submitter=api&type=batch-manifest&uuid=up-1', MANIFEST)).statusCode,
    ).toBe(200);
  });

  it('refuses a corrupt manifest naming the line, a bad query, and a missing token', async () => {
    const corrupt = await post(
      'profile=demo&submitter=api&type=object-manifest',
      '%checkm_0.7\n%fields | nfo:fileUrl | nfo:fileSize\nx | big\n',
    );
    expect(corrupt.statusCode).toBe(400);
    expect(corrupt.json<{ error: string; message: string }>()).toMatchObject({ error: 'MANIFEST_INVALID' });
    expect(corrupt.json<{ message: string }>().message).toMatch(/line 3/);
    expect((await post('profile=demo&submitter=api&type=file', MANIFEST)).statusCode).toBe(400);
    expect((await post('profile=nope&submitter=api&type=object-manifest', MANIFEST)).statusCode).toBe(400);
    expect((await post('profile=demo&submitter=api&type=object-manifest', MANIFEST, '')).statusCode).toBe(
      401,
    );
  });
});
