import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { TOKEN, apiDeps } from './api-fixture.js';

const chroot = useZkChroot();

describe("POST /batches takes the fields of Merritt's submission form", () => {
  let ctx: QueueContext;
  let app: ReturnType<typeof createHttpApi>;
  const submit = (body: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: '/batches',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: body,
    });
  const base = { profile: 'demo', submitter: 'api', payloadUrl: 'https://example.org/objects/a.txt' };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    app = createHttpApi(await apiDeps(ctx));
    await app.ready();
  });
  afterAll(() => app?.close());

  it('writes them under the engine names, and no type when none was given (the expansion guesses it)', async () => {
    const fields = {
      local_id: 'a; b',
      primary_id: 'ark:/13030/m5x',
      erc_who: 'Ann',
      erc_what: 'A title',
      erc_when: '2024',
      digest_type: 'SHA-384',
      digest_value: 'ab'.repeat(48),
      note: 'a note',
      notification: 'me@example.org',
      notification_format: 'json',
      file_name: 'a.txt',
    };
    const res = await submit({ ...base, ...fields, file_size: '12' });
    expect(res.statusCode, res.body).toBe(201);
    const { submission } = await loadBatch(ctx, res.json<{ bid: string }>().bid);
    expect(submission).not.toHaveProperty('type');
    // Every field under the same name; the size as a number.
    expect(submission).toMatchObject({ ...fields, file_size: 12 });
  });

  it("accepts every digest Merritt names, in any case, with or without '-'; parseDigest checks the value", async () => {
    const names = ['md5', 'SHA1', 'sha-256', 'Sha384', 'SHA-512', 'crc32', 'CRC-32', 'adler32', 'Adler-32'];
    const lengths: Record<string, number> = { md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128 };
    for (const name of names) {
      const key = name.toLowerCase().replace(/-/g, '');
      const value = 'a'.repeat(lengths[key] ?? 8);
      const res = await submit({ ...base, digest_type: name, digest_value: value });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
    }
    expect((await submit({ ...base, digest_type: 'md2', digest_value: 'a'.repeat(32) })).statusCode).toBe(
      400,
    );
    expect((await submit({ ...base, digest_type: 'sha256', digest_value: 'a'.repeat(63) })).statusCode).toBe(
      400,
    );
    expect((await submit({ ...base, digest_type: 'sha256', digest_value: 'xyz' })).statusCode).toBe(400);
    expect((await submit({ ...base, file_size: '12 bytes' })).statusCode).toBe(400);
  });
});
