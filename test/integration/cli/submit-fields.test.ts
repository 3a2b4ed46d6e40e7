import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

const BATCH_MANIFEST =
  '#%checkm_0.7\n' +
  '#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n' +
  '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName\n' +
  'http://example.org/one.checkm | | | | | one.checkm\n' +
  '#%eof\n';

describe("mrtq submit takes the fields of Merritt's submission form", () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-submit-fields-'));
  const env = { MRTQ_FILE_ROOTS: join(dir, 'roots') };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const submit = async (args: string[]) => {
    const result = await runCli(
      ['submit', ...args, '--profile', 'demo', '--json', '--zk', chroot.connectString()],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const { bid } = JSON.parse(result.stdout) as { bid: string };
    return (await loadBatch(queueContext(await chroot.connect()), bid)).submission;
  };

  it('a local file without --type gets the type Merritt would guess, its own name, and every flag as a key', async () => {
    const local = join(dir, 'objects.checkm');
    writeFileSync(local, BATCH_MANIFEST);
    const submission = await submit([
      local,
      '--submitter',
      'cli',
      '--title',
      'A title',
      '--creator',
      'Ann',
      '--date',
      '2024-05-01',
      '--local-id',
      'loc-1;loc-2',
      '--primary-id',
      'ark:/13030/m5cli',
      '--digest-type',
      'MD5',
      '--digest-value',
      '0cc175b9c0f1b6a831c399e269772661',
      '--note',
      'a note',
      '--notification',
      'me@example.org',
      '--notification-format',
      'json',
      '--size',
      String(BATCH_MANIFEST.length),
    ]);
    expect(submission).toMatchObject({
      type: 'batch-manifest',
      submitter: 'cli',
      submission_mode: 'add',
      erc_what: 'A title',
      erc_who: 'Ann',
      erc_when: '2024-05-01',
      local_id: 'loc-1;loc-2',
      primary_id: 'ark:/13030/m5cli',
      digest_type: 'MD5',
      digest_value: '0cc175b9c0f1b6a831c399e269772661',
      note: 'a note',
      notification: 'me@example.org',
      notification_format: 'json',
      file_name: 'objects.checkm',
      file_size: BATCH_MANIFEST.length,
    });
    expect(readFileSync(fileURLToPath(submission.payload_url), 'utf8')).toBe(BATCH_MANIFEST);
  });

  it('a URL without --type is left untyped for the expansion; --digest and --file-name', async () => {
    const submission = await submit([
      'https://example.org/payload',
      '--digest',
      `sha256:${'a'.repeat(64)}`,
      '--file-name',
      'payload.zip',
    ]);
    expect(submission).not.toHaveProperty('type');
    expect(submission).toMatchObject({
      payload_url: 'https://example.org/payload',
      digest_type: 'sha256',
      digest_value: 'a'.repeat(64),
      file_name: 'payload.zip',
    });
  });

  it('refuses a bad digest or size as a usage error (exit 2), before anything is queued', async () => {
    const zk = ['--profile', 'demo', '--zk', chroot.connectString()];
    const badValue = await runCli(['submit', 'sim:1', '--digest', 'sha256:abc', ...zk], env);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toContain('is not a sha256 value');
    const both = await runCli(
      ['submit', 'sim:1', '--digest', `md5:${'a'.repeat(32)}`, '--digest-type', 'md5', ...zk],
      env,
    );
    expect(both.code).toBe(2);
    const size = await runCli(['submit', 'sim:1', '--size', 'big', ...zk], env);
    expect(size.code).toBe(2);
    expect(size.stderr).toContain('--size "big"');
  });
});
