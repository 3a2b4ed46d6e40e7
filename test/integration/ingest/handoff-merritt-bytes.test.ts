import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { startService, type Service } from '../../../src/service.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { createFetcher } from '../../../src/steps/services/fetch/fetch.js';
import { createInventory } from '../../../src/steps/adapters.js';
import { createMinter } from '../../../src/steps/adapters.js';
import { createProcessStep } from '../../../src/steps/job/process.js';
import { createStoreStep } from '../../../src/steps/job/store.js';
import { createLocalStorage } from '../../../src/steps/services/storage/local.js';
import { objectDir, readVersionEntries } from '../../../src/steps/services/storage/layout.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';
import { handedToStorage } from '../../support/merritt-service.js';

// merritt-protocols.md §1 (a), (b), (d): in a Merritt deployment the engine hands a job to storage
// exactly as Merritt's ingest does: /jobs/JID/store as ProcessConsumer writes it, and at its
// manifest_url the mrt-add-manifest HandlerDigest writes (ManifestBuild.getPostManifest). The
// expected bytes below are written from those sources, not from the engine's code. The embedded
// storage then plays mrt-store: it reads that manifest over HTTP, fetches every file, checks
// size and digest, and stores the version.

const chroot = useZkChroot();
const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const log = pino({ level: 'silent' });
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];
const FILES: Record<string, string> = { 'hello.txt': 'hello', 'empty.txt': '', 'docs/a,b.txt': 'x,y\n' };

const HEADER =
  '#%checkm_0.7\n' +
  '#%profile | http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest\n' +
  '#%prefix | nfo:<http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#>\n' +
  '#%prefix | nie:<http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#>\n' +
  '#%prefix | mrt:<http://uc3.cdlib.org/ontology/mrt/mom#>\n' +
  '#%columns | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | nie:mimeType\n';

describe("the hand-off to storage, byte for byte as Merritt's ingest makes it (merritt-protocols.md §1 (a), (b), (d))", () => {
  let dir: string;
  let http: HttpFixture;
  let service: Service;
  let ctx: QueueContext;
  let publicUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-handoff-bytes-'));
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'profiles', 'demo.yaml'), 'collection: demo\npriority: 5\n');
    http = await startHttpFixture();
    const rows = Object.entries(FILES).map(([name, data]) => {
      http.route(`/deposit/${name}`, bytes(data));
      return {
        'nfo:fileUrl': http.url(`/deposit/${name}`),
        'nfo:hashAlgorithm': 'md5',
        'nfo:hashValue': createHash('md5').update(data).digest('hex'),
        'nfo:fileSize': String(Buffer.byteLength(data)),
        'nfo:fileName': name,
      };
    });
    http.route('/deposit/object.checkm', bytes(serializeCheckm(FIELDS, rows)));
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      ...process.env,
      ZK_CONNECT: chroot.connectString(),
      MRTQ_DATA_DIR: dir,
      MRTQ_PROFILES_DIR: join(dir, 'profiles'),
      MRTQ_DEPLOYMENT: 'merritt',
      MRTQ_PUBLIC_URL: publicUrl,
      MRTQ_STORAGE_SERVICE: 'http://store.example.org:35121/store',
      MRTQ_STORAGE_NODE: '7777',
    });
    service = await startService(config, { httpPort: port, sweepIntervalMs: 1000 }, log);
    ctx = queueContext(await chroot.connect());
  });

  afterAll(async () => {
    await service?.stop(2000);
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the store node and the manifest it names as Merritt does, and the embedded storage stores the object from them', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 'depositor',
      payload_url: http.url('/deposit/object.checkm'),
      type: 'object-manifest',
    });
    const job = await handedToStorage(ctx, bid);
    const jid = job.jobId;
    expect(job.status, job.message ?? '').toBe('storing');
    const ark = job.identifiers!.primary_id;

    // (a), (b): URLEncoder's ark (":" → %3A, "/" → %2F), "delete" present and empty on an add.
    const base = `${publicUrl}/ingestqueue/${bid}/${jid}`;
    const encodedArk = ark.replace(':', '%3A').replaceAll('/', '%2F');
    expect((await ctx.zk.getData(`/jobs/${jid}/store`)).data!.toString('utf8')).toBe(
      `{"manifest_url":"${base}/system/mrt-manifest.txt","mode":"add/7777/${encodedArk}","delete":""}`,
    );

    // (d): sha256 of every file (the depositor gave md5), an empty size for an empty file, no
    // fileLastModified (ManifestBuild sets none), Tika's MIME type, each path segment encoded by
    // URLEncoder (a comma is %2C), its own line and the submitted manifest left out, #%eof.
    const served = async (path: string) => Buffer.from(await (await fetch(`${base}/${path}`)).arrayBuffer());
    const dc = await served('system/mrt-dc.xml');
    const erc = await served('system/mrt-erc.txt');
    expect(erc.toString('utf8')).toContain(`where: ${ark}`);
    const manifest = await (await fetch(`${base}/system/mrt-manifest.txt`)).text();
    expect(manifest).toBe(
      HEADER +
        `${base}/producer/docs/a%2Cb.txt | sha256 | ${sha256('x,y\n')} | 4 |  | producer/docs/a,b.txt | text/plain\n` +
        `${base}/producer/empty.txt | sha256 | ${sha256('')} |  |  | producer/empty.txt | text/plain\n` +
        `${base}/producer/hello.txt | sha256 | ${sha256('hello')} | 5 |  | producer/hello.txt | text/plain\n` +
        `${base}/system/mrt-dc.xml | sha256 | ${sha256(dc)} | ${dc.length} |  | system/mrt-dc.xml | application/xml\n` +
        `${base}/system/mrt-erc.txt | sha256 | ${sha256(erc)} | ${erc.length} |  | system/mrt-erc.txt | text/plain\n` +
        '#%eof\n',
    );

    // The embedded storage in mrt-store's place, on a host of its own: everything over HTTP.
    const storeSettings = testIngestSettings(join(dir, 'store-host'));
    const storage = createLocalStorage(storeSettings.dataDir);
    const store = createStoreStep({
      settings: storeSettings,
      storage,
      fetcher: createFetcher(storeSettings.fetch),
      queue: ctx,
    });
    const signal = new AbortController().signal;
    await store({ job, signal, log });
    await store({ job, signal, log });
    const objectRoot = objectDir(storeSettings.dataDir, ark);
    expect(readdirSync(objectRoot).filter((n) => /^v\d+$/.test(n))).toEqual(['v1']);
    const v1 = join(objectRoot, 'v1');
    expect(readFileSync(join(v1, 'producer', 'docs', 'a,b.txt'), 'utf8')).toBe('x,y\n');
    expect(readFileSync(join(v1, 'producer', 'hello.txt'), 'utf8')).toBe('hello');
    expect(readFileSync(join(v1, 'producer', 'empty.txt'), 'utf8')).toBe('');
    expect(readFileSync(join(v1, 'system', 'mrt-dc.xml')).equals(dc)).toBe(true);
    const stored = (await readVersionEntries(objectRoot, 1)).map(
      (e) => `${e.path} ${e.size} ${e.digest.value}`,
    );
    expect(stored.sort()).toEqual(
      [
        `producer/docs/a,b.txt 4 ${sha256('x,y\n')}`,
        `producer/empty.txt 0 ${sha256('')}`,
        `producer/hello.txt 5 ${sha256('hello')}`,
        `system/mrt-dc.xml ${dc.length} ${sha256(dc)}`,
        `system/mrt-erc.txt ${erc.length} ${sha256(erc)}`,
      ].sort(),
    );
  });
});

describe('the hand-off written again after a crash, and an update (merritt-protocols.md §1 (a), (d))', () => {
  let root: string;
  let ctx: QueueContext;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'mrtq-handoff-rerun-'));
    ctx = queueContext(await chroot.connect());
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("is the same bytes every run; an update's mrt-delete.txt moves to system/ first and its delete ends each path with a newline", async () => {
    const settings = outputSettings(root);
    const steps = {
      process: createProcessStep({
        settings,
        minter: createMinter(settings),
        inventory: createInventory(settings),
        queue: ctx,
      }),
      store: createStoreStep({
        settings,
        storage: createLocalStorage(settings.dataDir),
        fetcher: createFetcher(settings.fetch),
        queue: ctx,
      }),
    };
    const signal = new AbortController().signal;
    const add = jobRecord('jid0000000101');
    await prepareWorkDir(workDirFor(settings, add), { 'a.txt': 'alpha', 'c.txt': 'gamma' }, {}, 'md5');
    const first = await steps.process({ job: add, signal, log });
    const manifestPath = join(workDirFor(settings, add), 'system', 'mrt-manifest.txt');
    const written = readFileSync(manifestPath, 'utf8');
    expect(written).toMatch(
      /^#%checkm_0\.7\n[^]*\| sha256 \| [0-9a-f]{64} \| 5 \| {2}\| producer\/a\.txt \| text\/plain\n/,
    );
    expect(await steps.process({ job: add, signal, log })).toEqual(first);
    expect(readFileSync(manifestPath, 'utf8')).toBe(written);
    const ark = first!.identifiers!.primary_id;
    await steps.store({ job: { ...add, status: 'storing', ...first }, signal, log });

    const update = jobRecord('jid0000000102', {
      configuration: { ...add.configuration, submission_mode: 'update' },
    });
    const updateDir = workDirFor(settings, update);
    await prepareWorkDir(
      updateDir,
      { 'b.txt': 'beta', 'mrt-delete.txt': 'a.txt\r\n\nproducer/c.txt' },
      { primaryIdentifier: ark },
    );
    const writes = await steps.process({ job: update, signal, log });
    expect(writes!.store!.delete).toBe('producer/a.txt\nproducer/c.txt\n');
    expect(writes!.store!.mode).toBe(`update/7777/${ark.replace(':', '%3A').replaceAll('/', '%2F')}`);
    const manifest = readFileSync(join(updateDir, 'system', 'mrt-manifest.txt'), 'utf8');
    const names = manifest
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#%'))
      .map((l) => l.split(' | ')[5]);
    expect(names).toEqual([
      'producer/b.txt',
      'system/mrt-dc.xml',
      'system/mrt-delete.txt',
      'system/mrt-erc.txt',
    ]);
    expect(readdirSync(join(updateDir, 'producer'))).toEqual(['b.txt']);
    // After the move a re-run finds the list in system/: same node, same manifest.
    expect(await steps.process({ job: update, signal, log })).toEqual(writes);
    expect(readFileSync(join(updateDir, 'system', 'mrt-manifest.txt'), 'utf8')).toBe(manifest);

    await steps.store({ job: { ...update, status: 'storing', ...writes }, signal, log });
    const v2 = (await readVersionEntries(objectDir(settings.dataDir, ark), 2)).map((e) => e.path).sort();
    expect(v2).toEqual([
      'producer/b.txt',
      'system/mrt-dc.xml',
      'system/mrt-delete.txt',
      'system/mrt-erc.txt',
    ]);
  });
});
