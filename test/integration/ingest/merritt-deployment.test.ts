import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { startService, type Service } from '../../../src/service.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { handedToStorage } from '../../support/merritt-service.js';

// merritt-protocols.md "The big picture", §1 and §2: in a Merritt deployment the engine serves
// ingest's states and leaves Storing to mrt-store and Recording to mrt-inventory. Merritt's side
// is played here from the documented protocol with plain ZooKeeper writes (as mrt-zk's Java
// library makes them), never with the engine's own queue code.

const chroot = useZkChroot();
const STORE = 'http://store.example.org:35121/store';
const JAVA_TIME = '2026-11-21 09:34:25 +0000';
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** What mrt-store (Storing) and mrt-inventory (Recording) do to a job they finished: lock, status, ref, unlock. */
async function merrittMovesOn(zk: ZkClient, jid: string, from: string, to: string): Promise<void> {
  await zk.create(`/jobs/${jid}/lock`, null, 'ephemeral');
  const status = JSON.parse((await zk.getData(`/jobs/${jid}/status`)).data!.toString('utf8')) as object;
  const next = {
    ...status,
    status: to,
    last_successful_status: from,
    last_modified: JAVA_TIME,
    message: 'Success',
  };
  await zk.setData(`/jobs/${jid}/status`, JSON.stringify(next));
  const folder = `/jobs/states/${from.toLowerCase()}`;
  const ref = (await zk.getChildren(folder)).find((name) => name.endsWith(jid))!;
  await zk.create(`/jobs/states/${to.toLowerCase()}/${ref}`);
  await zk.delete(`${folder}/${ref}`);
  await zk.delete(`/jobs/${jid}/lock`);
}

/** A batch as mrt-ingest's HandlerSubmit creates it through mrt-zk's Batch.createBatch. */
async function merrittCreatesBatch(zk: ZkClient): Promise<string> {
  const uuid = `bid-${randomUUID()}`;
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  await zk.create(`/batch-uuids/${uuid}`, bid);
  const submission = {
    batchID: uuid,
    profile: 'merritt_demo_content',
    type: 'container',
    size: 4096,
    filename: 'object.zip',
    update: false,
    submitter: 'depositor/Depositor',
    notificationFormat: 'xml',
    submissionDate: '2026-11-21T09:34:25-0800',
  };
  await zk.create(`/batches/${bid}/submission`, JSON.stringify(submission));
  await zk.create(
    `/batches/${bid}/status`,
    JSON.stringify({ status: 'Pending', last_modified: JAVA_TIME, message: '' }),
  );
  return bid;
}

describe('Merritt deployment (merritt-protocols.md "The big picture", §1, §2)', () => {
  let dir: string;
  let http: HttpFixture;
  let service: Service;
  let ctx: QueueContext;
  let zk: ZkClient;
  let publicUrl: string;
  const logLines: string[] = [];
  let merrittBid: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-merritt-mode-'));
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'profiles', 'demo.yaml'), 'collection: demo\npriority: 5\nresponseType: json\n');
    http = await startHttpFixture();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      ...process.env,
      ZK_CONNECT: chroot.connectString(),
      MRTQ_DATA_DIR: dir,
      MRTQ_PROFILES_DIR: join(dir, 'profiles'),
      MRTQ_DEPLOYMENT: 'merritt',
      MRTQ_PUBLIC_URL: publicUrl,
      MRTQ_STORAGE_SERVICE: STORE,
      MRTQ_STORAGE_NODE: '9501',
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    service = await startService(
      config,
      { httpPort: port, sweepIntervalMs: 1000 },
      pino({ level: 'info' }, sink),
    );
    zk = await chroot.connect();
    ctx = queueContext(zk);
  });

  afterAll(async () => {
    await service?.stop(2000);
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves ingest's states, leaves Storing and Recording to Merritt, and says so", async () => {
    expect(service.engine.served.jobStates).not.toContain('storing');
    expect(service.engine.served.jobStates).not.toContain('recording');
    expect(service.engine.served.jobStates).toContain('processing');
    expect(service.engine.served.jobStates).toContain('notify');
    const ready = (await (await fetch(`${publicUrl}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({
      status: 'ready',
      deployment: 'merritt',
      leftToMerritt: [
        { state: 'storing', service: 'storage' },
        { state: 'recording', service: 'inventory' },
      ],
    });
    const started = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(started.some((l) => l.deployment === 'merritt' && Array.isArray(l.leftToMerritt))).toBe(true);
  });

  it("leaves a batch Merritt's ingest created (payload on ingest's disk) pending and says why", async () => {
    merrittBid = await merrittCreatesBatch(zk);
    const status = await eventually(
      async () =>
        JSON.parse((await zk.getData(`/batches/${merrittBid}/status`)).data!.toString('utf8')) as Record<
          string,
          string
        >,
      (s) => typeof s.message === 'string' && s.message !== '',
      20_000,
    );
    expect(status.status).toBe('Pending');
    expect(status.last_modified).toBe(JAVA_TIME);
    expect(status.message).toMatch(/^left pending for Merritt's ingest: .*"object\.zip".*no payload_url/);
    expect(await zk.exists(`/batches/${merrittBid}/states`)).toBeFalsy();
    expect(await zk.exists(`/batches/${merrittBid}/lock`)).toBeFalsy();
    const shown = (await (await fetch(`${publicUrl}/batches/${merrittBid}`)).json()) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(shown)).toContain("left pending for Merritt's ingest");
  });

  it('runs a batch to Storing and stays there; hand-off nodes as Merritt writes them; Merritt moves it on; the engine completes it', async () => {
    const data = randomBytes(20_000);
    http.route('/deposit/data.bin', bytes(data));
    const { bid } = await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 'depositor',
      payload_url: http.url('/deposit/data.bin'),
      type: 'file',
      digest_type: 'sha256',
      digest_value: sha256(data),
      file_name: 'data.bin',
    });
    const stored = await handedToStorage(ctx, bid);
    const jid = stored.jobId;
    expect(stored.status, stored.message ?? '').toBe('storing');
    // Nobody here takes it: its lock is free for mrt-store (it fails if the engine held it).
    await zk.create(`/jobs/${jid}/lock`, null, 'ephemeral');
    await zk.delete(`/jobs/${jid}/lock`);
    expect((await loadJob(ctx, jid)).status).toBe('storing');

    const ark = stored.identifiers!.primary_id;
    expect(ark).toMatch(/^ark:\/\d+\/[a-z0-9]+$/);
    // URLEncoder.encode of an ark of letters and digits: ":" → %3A and "/" → %2F.
    const encodedArk = ark.replace(':', '%3A').replaceAll('/', '%2F');
    const manifestUrl = `${publicUrl}/ingestqueue/${bid}/${jid}/system/mrt-manifest.txt`;
    expect((await zk.getData(`/jobs/${jid}/store`)).data!.toString('utf8')).toBe(
      `{"manifest_url":"${manifestUrl}","mode":"add/9501/${encodedArk}","delete":""}`,
    );
    expect((await zk.getData(`/jobs/${jid}/inventory`)).data!.toString('utf8')).toBe(
      `{"manifest_url":"${STORE}/manifest/9501/${encodedArk}","mode":""}`,
    );

    // mrt-store fetches the manifest and every file it lists over HTTP, with no token. The
    // manifest is byte for byte what Merritt's HandlerDigest writes (merritt-protocols.md §1 (d)):
    // mrt-add-manifest header, no fileLastModified, Tika's MIME types, #%eof, its own line left out.
    const manifest = await (await fetch(manifestUrl)).text();
    const base = `${publicUrl}/ingestqueue/${bid}/${jid}`;
    const served = async (path: string) => Buffer.from(await (await fetch(`${base}/${path}`)).arrayBuffer());
    const line = async (path: string, mime: string) => {
      const body = path === 'producer/data.bin' ? data : await served(path);
      return `${base}/${path} | sha256 | ${sha256(body)} | ${body.length} |  | ${path} | ${mime}\n`;
    };
    expect(manifest).toBe(
      '#%checkm_0.7\n' +
        '#%profile | http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest\n' +
        '#%prefix | nfo:<http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#>\n' +
        '#%prefix | nie:<http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#>\n' +
        '#%prefix | mrt:<http://uc3.cdlib.org/ontology/mrt/mom#>\n' +
        '#%columns | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | nie:mimeType\n' +
        (await line('producer/data.bin', 'application/octet-stream')) +
        (await line('system/mrt-dc.xml', 'application/xml')) +
        (await line('system/mrt-erc.txt', 'text/plain')) +
        '#%eof\n',
    );
    const rows = manifest.split('\n').filter((line) => line !== '' && !line.startsWith('#%'));
    for (const row of rows) {
      const [url, algorithm, value, size, , name] = row.split(' | ');
      expect(url!.startsWith(`${publicUrl}/ingestqueue/${bid}/${jid}/`)).toBe(true);
      const body = Buffer.from(await (await fetch(url!)).arrayBuffer());
      expect(body.length).toBe(Number(size));
      expect(createHash(algorithm!).update(body).digest('hex')).toBe(value);
      if (name === 'producer/data.bin') expect(body.equals(data)).toBe(true);
    }
    expect((await fetch(`${publicUrl}/ingestqueue/${bid}/${jid}/download.json`)).status).toBe(404);
    expect(
      (await fetch(`${publicUrl}/ingestqueue/${bid}/${jid}/system/..%2F..%2F..%2Fprofiles%2Fdemo.yaml`))
        .status,
    ).toBe(404);

    await merrittMovesOn(zk, jid, 'Storing', 'Recording');
    await merrittMovesOn(zk, jid, 'Recording', 'Notify');
    const done = await eventually(
      () => loadJob(ctx, jid),
      (job) => job.status === 'completed' || job.status === 'failed',
      30_000,
      100,
    );
    expect(done.status, done.message ?? '').toBe('completed');
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed' || b.status === 'failed',
      30_000,
      100,
    );
    expect(batch.status).toBe('completed');
  });

  it("still leaves Merritt's batch alone after all that work: annotated and logged once, never taken", async () => {
    const stat = await zk.exists(`/batches/${merrittBid}/status`);
    expect(stat?.version).toBe(1);
    expect(await zk.exists(`/batches/${merrittBid}/states`)).toBeFalsy();
    expect((await loadBatch(ctx, merrittBid)).status).toBe('pending');
    const told = logLines.filter(
      (line) => line.includes(merrittBid) && line.includes('left for the service'),
    );
    expect(told).toHaveLength(1);
  });
});
