import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { batchUuidPath } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { PASSWORD, USER, childTexts, parseXml, startPoster } from './poster-fixture.js';

const chroot = useZkChroot();
const MiB = 1024 * 1024;

/** `curl` as a depositor runs it; resolves with the status and body it printed. */
function curl(args: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) =>
    execFile(
      'curl',
      ['-sS', '-u', `${USER}:${PASSWORD}`, '-w', '\n%{http_code}', ...args],
      { maxBuffer: 16 * MiB },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`curl failed: ${stderr || err.message}`));
        const cut = stdout.lastIndexOf('\n');
        resolve({ status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) });
      },
    ),
  );
}

/** A file of `mib` MiB of random bytes (so no layer can compress or deduplicate it). */
async function bigFile(path: string, mib: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i += 1)
    if (!out.write(randomBytes(MiB))) await new Promise<void>((r) => out.once('drain', () => r()));
  out.end();
  await finished(out);
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('POST /poster/submit from curl -F', () => {
  let ctx: QueueContext;
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-curl-'));

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('streams a large upload to disk: stored byte for byte, the server holding a fraction of it', async () => {
    const size = 192;
    const source = join(dir, 'large.bin');
    await bigFile(source, size);
    const server = await startPoster(ctx, { uploadMaxBytes: 256 * MiB });
    const baseline = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.rss - baseline.rss, now.arrayBuffers - baseline.arrayBuffers);
    }, 5);
    try {
      const answer = await curl([
        '-F',
        'profile=demo',
        '-F',
        'submitter=curl',
        '-F',
        'responseForm=json',
        '-F',
        `file=@${source}`,
        `${server.url}/poster/submit`,
      ]);
      clearInterval(sampler);
      expect(answer.status, answer.body).toBe(200);
      const uuid = (JSON.parse(answer.body) as Record<string, Record<string, string>>)['bat:batchState']![
        'bat:batchID'
      ]!;
      const bid = (await ctx.zk.getData(batchUuidPath(uuid))).data!.toString('utf8');
      const { submission } = await loadBatch(ctx, bid);
      expect(submission).toMatchObject({ type: 'file', file_name: 'large.bin', submitter: 'curl' });
      const stored = fileURLToPath(submission.payload_url);
      expect(statSync(stored).size).toBe(size * MiB);
      expect(await sha256Of(stored)).toBe(await sha256Of(source));
      // Held in memory, the upload grows the process by all of it (342 MB measured, buffered on
      // purpose); streamed, by what the garbage collector lets pile up (about 53 MB here).
      expect(peak).toBeLessThan((size / 2) * MiB);
    } finally {
      clearInterval(sampler);
      await server.close();
    }
  }, 120_000);

  it('refuses an upload whose announced length is above the limit at once (413), and one without a file', async () => {
    const source = join(dir, 'eight.bin');
    await bigFile(source, 8);
    const server = await startPoster(ctx, { uploadMaxBytes: 1024 });
    try {
      const tooLarge = await curl([
        '-F',
        'profile=demo',
        '-F',
        'submitter=curl',
        '-F',
        `file=@${source}`,
        `${server.url}/poster/submit`,
      ]);
      expect(tooLarge.status).toBe(413);
      expect(parseXml(tooLarge.body).name).toBe('exc:tException.REQUEST_INVALID');
      const noFile = await curl([
        '-F',
        'profile=demo',
        '-F',
        'submitter=curl',
        `${server.url}/poster/submit`,
      ]);
      expect(noFile.status).toBe(400);
      expect(childTexts(parseXml(noFile.body))['exc:detail']).toMatch(/^Input file not found/);
    } finally {
      await server.close();
    }
  });
});
