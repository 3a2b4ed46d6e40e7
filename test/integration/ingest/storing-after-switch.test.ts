import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { startService, type Service } from '../../../src/service.js';
import { createStorage } from '../../../src/steps/adapters.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { handedToStorage } from '../../support/merritt-service.js';

// merritt-protocols.md §1: a Merritt-mode engine hands a job to Storing with a store node whose
// manifest_url (and every file URL in the manifest) is `{MRTQ_PUBLIC_URL}/ingestqueue/…`, served
// by its own HTTP API. Switched to standalone before Merritt's storage service took the job, the
// embedded store now consumes Storing: it reads those URLs of its own straight from the work
// root, with no HTTP round trip (nothing even listens at the public URL below).

const chroot = useZkChroot();
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe('a job left in Storing by a Merritt-mode run is stored after a switch to standalone', () => {
  let dir: string;
  let http: HttpFixture;
  let zk: ZkClient;
  let publicUrl: string;
  let service: Service | undefined;

  const env = (extra: Record<string, string>) =>
    loadConfig({
      ...process.env,
      ZK_CONNECT: chroot.connectString(),
      MRTQ_DATA_DIR: dir,
      MRTQ_PROFILES_DIR: join(dir, 'profiles'),
      MRTQ_PUBLIC_URL: publicUrl,
      ...extra,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-switch-'));
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'profiles', 'demo.yaml'), 'collection: demo\npriority: 5\nresponseType: json\n');
    http = await startHttpFixture();
    // A port nothing listens on once the Merritt-mode run is stopped.
    publicUrl = `http://127.0.0.1:${await freePort()}`;
    zk = await chroot.connect();
  });
  afterAll(async () => {
    await service?.stop(2000);
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the store node names our public URL; the standalone engine stores it from disk and serves /ingestqueue', async () => {
    const ctx = queueContext(zk);
    const data = randomBytes(10_000);
    http.route('/deposit/data.bin', bytes(data));
    const merritt = await startService(
      env({ MRTQ_DEPLOYMENT: 'merritt', MRTQ_STORAGE_SERVICE: 'http://store.example.org:35121/store' }),
      { httpPort: false, sweepIntervalMs: 1000 },
      pino({ level: 'silent' }),
    );
    service = merritt;
    const { bid } = await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 'depositor',
      payload_url: http.url('/deposit/data.bin'),
      type: 'file',
      digest_type: 'sha256',
      digest_value: sha256(data),
      file_name: 'data.bin',
    });
    const handedOff = await handedToStorage(ctx, bid);
    const jid = handedOff.jobId;
    expect(handedOff.status, handedOff.message ?? '').toBe('storing');
    expect(handedOff.store?.manifest_url).toBe(
      `${publicUrl}/ingestqueue/${bid}/${jid}/system/mrt-manifest.txt`,
    );
    await merritt.stop(2000);

    // Standalone, its API on another port than the public URL (which answers nowhere).
    const port = await freePort();
    service = await startService(
      env({ MRTQ_DEPLOYMENT: 'standalone' }),
      { httpPort: port, sweepIntervalMs: 1000 },
      pino({ level: 'silent' }),
    );
    const done = await eventually(
      () => loadJob(ctx, jid),
      (job) => job.status === 'completed' || job.status === 'failed',
      60_000,
      100,
    );
    expect({ status: done.status, message: done.message }).toEqual({ status: 'completed', message: null });
    const storage = createStorage({ dataDir: dir, workRoot: join(dir, 'work'), storage: { kind: 'local' } });
    const latest = await storage.latest!(handedOff.identifiers!.primary_id);
    expect(latest?.version).toBe(1);

    // /ingestqueue is served whenever MRTQ_PUBLIC_URL is set: a missing file is the route's 404.
    const answer = await fetch(`http://127.0.0.1:${port}/ingestqueue/${bid}/${jid}/system/nope.txt`);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { message: string }).message).toBe(
      `no file /ingestqueue/${bid}/${jid}/system/nope.txt`,
    );
  }, 120_000);
});
