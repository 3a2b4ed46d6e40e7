import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../../src/queue/jobs/load.js';
import { jobChild } from '../../../src/queue/tree/paths.js';
import type { Submission } from '../../../src/queue/tree/records.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { objectDir } from '../../../src/steps/services/storage/layout.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Update submissions (merritt-protocols.md §1): an update's store node carries `update/…` and
// the depositor's delete list, and the embedded storage makes the next version of the existing
// object from it, through the real ingest steps and the engine on a real ZooKeeper.

const chroot = useZkChroot();
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];
const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');

describe('update submissions (merritt-protocols.md §1)', () => {
  let http: HttpFixture;
  let dir: string;
  let ctx: QueueContext;
  let ingest: IngestEngine | undefined;
  let dataDir: string;
  let workRoot: string;
  let served = 0;

  /** An object manifest of `files` served over loopback HTTP; returns its URL. */
  const objectManifest = (files: Record<string, string>): string => {
    served += 1;
    const rows = Object.entries(files).map(([name, data]) => {
      http.route(`/o${served}/${name}`, bytes(data));
      return {
        'nfo:fileUrl': http.url(`/o${served}/${name}`),
        'nfo:hashAlgorithm': 'sha256',
        'nfo:hashValue': sha256(data),
        'nfo:fileSize': String(Buffer.byteLength(data)),
        'nfo:fileName': name,
      };
    });
    http.route(`/o${served}/object.checkm`, bytes(serializeCheckm(FIELDS, rows)));
    return http.url(`/o${served}/object.checkm`);
  };
  const submit = async (files: Record<string, string>, extra: Partial<Submission>): Promise<JobRecord> => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'upd',
      submitter: 'depositor',
      payload_url: objectManifest(files),
      type: 'object-manifest',
      ...extra,
    });
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed' || b.status === 'failed',
      60_000,
      100,
    );
    const [ref] = await listBatchJobs(ctx, bid);
    return loadJob(ctx, ref!.jid);
  };
  const versionFiles = (ark: string, version: number): Record<string, string> => {
    const root = join(objectDir(dataDir, ark), `v${version}`, 'producer');
    return Object.fromEntries(
      readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => {
          const path = join(entry.parentPath, entry.name);
          return [path.slice(root.length + 1), readFileSync(path, 'utf8')];
        }),
    );
  };

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-update-'));
    const settings = testIngestSettings(dir);
    dataDir = settings.dataDir;
    workRoot = settings.workRoot;
    ingest = await startIngestEngine(chroot, settings, { upd: 'collection: upd\npriority: 5\n' });
    ctx = ingest.ctx;
  });
  afterAll(async () => {
    await ingest?.stop();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an update after an add stores version 2: deletions applied, files replaced and added, the rest kept', async () => {
    const added = await submit(
      { 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma', 'keep/d.txt': 'delta' },
      { local_id: 'upd-local-1' },
    );
    expect(added.status).toBe('completed');
    const ark = added.identifiers!.primary_id;
    expect(ark).toMatch(/^ark:\/99999\/fk4/);
    expect(JSON.parse((await ctx.zk.getData(jobChild(added.jobId, 'store'))).data!.toString())).toMatchObject(
      {
        mode: `add/7777/${encodeURIComponent(ark)}`,
        delete: '',
      },
    );

    const updated = await submit(
      { 'b.txt': 'beta, revised', 'e.txt': 'epsilon', 'mrt-delete.txt': 'a.txt\r\n\nproducer/c.txt\n' },
      { primary_id: ark, submission_mode: 'update' },
    );
    expect(updated.status).toBe('completed');
    expect(updated.identifiers!.primary_id).toBe(ark);

    // The hand-off node, byte for byte: keys in Merritt's order, the ark percent-encoded,
    // the delete list one path per line, each under producer/ and ended by a newline
    // (HandlerTransfer.processDeleteFile).
    const workDir = join(workRoot, updated.batchId, updated.jobId);
    const manifestUrl = pathToFileURL(join(workDir, 'system', 'mrt-manifest.txt')).href;
    const raw = (await ctx.zk.getData(jobChild(updated.jobId, 'store'))).data!.toString('utf8');
    expect(raw).toBe(
      `{"manifest_url":${JSON.stringify(manifestUrl)},"mode":"update/7777/${encodeURIComponent(ark)}",` +
        `"delete":"producer/a.txt\\nproducer/c.txt\\n"}`,
    );

    expect(versionFiles(ark, 1)).toEqual({
      'a.txt': 'alpha',
      'b.txt': 'beta',
      'c.txt': 'gamma',
      'keep/d.txt': 'delta',
    });
    const v2 = versionFiles(ark, 2);
    expect(v2).toMatchObject({ 'b.txt': 'beta, revised', 'e.txt': 'epsilon', 'keep/d.txt': 'delta' });
    // HandlerDescribe moved the list to system/ before the manifest was written.
    expect(Object.keys(v2).sort()).toEqual(['b.txt', 'e.txt', 'keep/d.txt']);
    expect(readFileSync(join(objectDir(dataDir, ark), 'v2', 'system', 'mrt-delete.txt'), 'utf8')).toBe(
      'a.txt\r\n\nproducer/c.txt\n',
    );
    const manifest = readFileSync(join(objectDir(dataDir, ark), 'v2', 'manifest.checkm'), 'utf8');
    expect(manifest).not.toMatch(/producer\/a\.txt|producer\/c\.txt/);
    expect(manifest).toContain(`| ${sha256('delta')} | 5 |`);
    expect(existsSync(join(objectDir(dataDir, ark), 'v3'))).toBe(false);
  });

  it('an update naming the object by its local id only goes to the same ark', async () => {
    const added = await submit({ 'x.txt': 'x1' }, { local_id: 'upd-local-2' });
    const ark = added.identifiers!.primary_id;
    const updated = await submit(
      { 'y.txt': 'y1', 'mrt-delete.txt': 'x.txt\n' },
      { local_id: 'upd-local-2', submission_mode: 'update' },
    );
    expect(updated.status).toBe('completed');
    expect(updated.identifiers!.primary_id).toBe(ark);
    const v2 = versionFiles(ark, 2);
    expect(v2['y.txt']).toBe('y1');
    expect(v2['x.txt']).toBeUndefined();
  });

  it('an update of an object that is not stored fails in storing, saying why', async () => {
    const job = await submit(
      { 'z.txt': 'zeta' },
      { primary_id: 'ark:/99999/fk4nosuchobject', submission_mode: 'update' },
    );
    expect(job.status).toBe('failed');
    expect(job.lastSuccessfulStatus).toBe('processing');
    expect(job.message).toMatch(/update of ark:\/99999\/fk4nosuchobject: no object with this ark is stored/);
    expect(existsSync(objectDir(dataDir, 'ark:/99999/fk4nosuchobject'))).toBe(false);
  });

  it('an update deleting a file the object does not hold fails, naming it', async () => {
    const added = await submit({ 'p.txt': 'pi' }, {});
    const ark = added.identifiers!.primary_id;
    const job = await submit(
      { 'q.txt': 'qu', 'mrt-delete.txt': 'not-there.txt\n' },
      { primary_id: ark, submission_mode: 'update' },
    );
    expect(job.status).toBe('failed');
    expect(job.message).toContain(`the update of ${ark} deletes producer/not-there.txt`);
    expect(existsSync(join(objectDir(dataDir, ark), 'v2'))).toBe(false);
  });
});
