import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { TOKEN, apiDeps } from './api-fixture.js';

const chroot = useZkChroot();
const SUBMISSION = {
  profile: 'demo',
  submitter: 'ann',
  payloadUrl: 'https://example.org/x.checkm',
  type: 'file',
};
const manifest = (title: string) =>
  `%checkm_0.7\n%fields | nfo:fileUrl | mrt:title\nhttps://example.org/${title}.checkm | ${title}\n`;

interface Answer {
  status: number;
  body: { bid?: string; uuid?: string; created?: boolean; error?: string; message?: string };
}

/**
 * A request sent as written: fetch would resolve `%2E%2E` in a path as `..` before sending it,
 * and the point is what the server does when a client does not.
 */
function send(base: string, method: string, path: string, body?: string, type = 'text/plain') {
  const url = new URL(base);
  return new Promise<Answer>((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': type }),
    };
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('submissions are immutable: a uuid names one batch and one payload', () => {
  let ctx: QueueContext;
  let api: RunningHttpApi;
  const uploadDir = mkdtempSync(join(tmpdir(), 'mrtq-upload-immutable-'));
  const upload = (uuid: string, body: string, submitter = 'ann') =>
    send(
      api.url,
      'POST',
      `/batches/manifest?profile=demo&submitter=${submitter}&type=object-manifest&uuid=${uuid}`,
      body,
    );
  const submit = (body: Record<string, unknown>) =>
    send(api.url, 'POST', '/batches', JSON.stringify(body), 'application/json');
  const payloadOf = async (bid: string) => fileURLToPath((await loadBatch(ctx, bid)).submission.payload_url);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    api = await startHttpApi(await apiDeps(ctx, { uploadDir }), { port: 0 });
  });
  afterAll(async () => {
    await api?.close();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('a second upload of different content under the same uuid is refused (409) and leaves the first payload as it was', async () => {
    const first = await upload('dup-1', manifest('first'));
    expect(first.status).toBe(201);
    const bid = first.body.bid as string;
    const stored = await payloadOf(bid);
    const before = readFileSync(stored);
    const listed = readdirSync(uploadDir).sort();

    const second = await upload('dup-1', manifest('second'));
    expect(readFileSync(stored).equals(before), 'the first payload, byte for byte').toBe(true);
    expect(await payloadOf(bid)).toBe(stored);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('CONFLICT');
    expect(second.body.message).toContain(bid);
    // Neither the second payload nor a temporary file is left behind.
    expect(readdirSync(uploadDir).sort()).toEqual(listed);
  });

  it('the same upload again answers the first batch unchanged (200, created false)', async () => {
    const first = await upload('dup-2', manifest('same'));
    expect(first.status).toBe(201);
    const bid = first.body.bid as string;
    const stored = await payloadOf(bid);
    const before = await loadBatch(ctx, bid);
    const listed = readdirSync(uploadDir).sort();

    const again = await upload('dup-2', manifest('same'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ bid, uuid: 'dup-2', created: false });
    expect(readFileSync(stored, 'utf8')).toBe(manifest('same'));
    expect((await loadBatch(ctx, bid)).submission).toEqual(before.submission);
    expect(readdirSync(uploadDir).sort()).toEqual(listed);
    // The same manifest from someone else is another submission: refused, not merged.
    expect((await upload('dup-2', manifest('same'), 'bob')).status).toBe(409);
  });

  it('concurrent uploads under one uuid: one batch, its payload intact, no leftover files', async () => {
    const bodies = ['a', 'b', 'a', 'c', 'a', 'b'].map((t) => manifest(`race-${t}`));
    const answers = await Promise.all(bodies.map((body) => upload('dup-race', body)));
    const winners = answers.filter((a) => a.status === 201);
    expect(winners).toHaveLength(1);
    const bid = winners[0]?.body.bid as string;
    const stored = readFileSync(await payloadOf(bid), 'utf8');
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 201) continue;
      expect(answer.status).toBe(bodies[i] === stored ? 200 : 409);
      if (answer.status === 200) expect(answer.body.bid).toBe(bid);
    }
    const files = readdirSync(uploadDir).filter(
      (name) => name.startsWith('dup-race') || name.startsWith('.'),
    );
    expect(files).toEqual([(await payloadOf(bid)).split('/').pop()]);
  });

  it('POST /batches with a known uuid and another payload is refused (409) naming the batch', async () => {
    const first = await submit({ ...SUBMISSION, uuid: 'dup-3' });
    expect(first.status).toBe(201);
    const bid = first.body.bid as string;
    const again = await submit({ ...SUBMISSION, uuid: 'dup-3' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ bid, uuid: 'dup-3', created: false });
    const other = await submit({ ...SUBMISSION, payloadUrl: 'https://example.org/y.checkm', uuid: 'dup-3' });
    expect(other.status).toBe(409);
    expect(other.body.message).toContain(bid);
    expect((await loadBatch(ctx, bid)).submission.payload_url).toBe(SUBMISSION.payloadUrl);
  });

  it.each(['.', '..', '%2E', '%2E%2E', 'a%2Fb', '..%2F..%2Fescaped', 'a%00b', 'a%0Ab', 'x'.repeat(201)])(
    'an upload with uuid %s is refused with 400, and nothing is written',
    async (uuid) => {
      const listed = readdirSync(uploadDir).sort();
      const answer = await upload(uuid, manifest('bad-id'));
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(/uuid/);
      expect(readdirSync(uploadDir).sort()).toEqual(listed);
    },
  );

  it.each(['.', '..'])('a submission with uuid or collection %s is refused with 400', async (id) => {
    for (const extra of [{ uuid: id }, { collection: id }]) {
      const answer = await submit({ ...SUBMISSION, ...extra });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(Object.keys(extra)[0] as string);
    }
  });

  it.each(['%2E', '%2E%2E'])('ids %s in a path answer 400 or 404, never 500', async (id) => {
    for (const [method, path] of [
      ['GET', `/batches/${id}`],
      ['GET', `/batches/${id}/timeline`],
      ['POST', `/collections/${id}/hold`],
      ['POST', `/collections/${id}/release`],
    ] as const) {
      const answer = await send(
        api.url,
        method,
        path,
        method === 'POST' ? '{}' : undefined,
        'application/json',
      );
      expect([400, 404], `${method} ${path}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
  });
});
