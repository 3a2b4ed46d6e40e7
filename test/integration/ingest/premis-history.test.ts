import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { openRecords, type Records } from '../../../src/history/records.js';
import { premisOf } from '../../../src/history/premis.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { batchJobRecords, batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// A real ingest (download with the depositor's digests, minting, storing) kept in the job's
// history, exported as PREMIS events: digests verified and computed, the ark assigned, stored.

const chroot = useZkChroot();
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];

describe('a job history as PREMIS events', () => {
  let http: HttpFixture;
  let dir: string;
  let ingest: IngestEngine | undefined;
  let records: Records;

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-premis-'));
    const records_ = { dir: join(dir, 'records'), readDirs: [], historyRetentionMs: 0, auditRetentionMs: 0 };
    records = openRecords(records_, 'premis-engine', pino({ level: 'silent' }));
    ingest = await startIngestEngine(
      chroot,
      testIngestSettings(dir),
      { premis: 'collection: premis\npriority: 5\nresponseType: json\n' },
      {},
      records.ledger,
    );
  });
  afterAll(async () => {
    await ingest?.stop();
    await records?.close();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records the digests verified, the ark minted and the storing, and exports them', async () => {
    const files = [Buffer.from('first file\n'), Buffer.from('second file\n')];
    const rows = files.map((data, i) => {
      http.route(`/p/f${i}.txt`, bytes(data));
      return {
        'nfo:fileUrl': http.url(`/p/f${i}.txt`),
        'nfo:hashAlgorithm': 'sha256',
        'nfo:hashValue': sha256(data),
        'nfo:fileSize': String(data.length),
        'nfo:fileName': `f${i}.txt`,
      };
    });
    http.route('/p/object.checkm', bytes(serializeCheckm(FIELDS, rows)));
    const { bid } = await createBatch(ingest!.ctx, {
      profile_name: 'premis',
      submitter: 'depositor',
      payload_url: http.url('/p/object.checkm'),
      type: 'object-manifest',
    });
    expect((await batchSettled(ingest!.ctx, bid)).status).toBe('completed');
    const [job] = await batchJobRecords(ingest!.ctx, bid);
    const ark = job!.identifiers!.primary_id;
    const history = await eventually(
      () => records.history.of(job!.jobId),
      (h) => h.events.some((e) => e.type === 'step' && e.to === 'completed'),
      20_000,
    );
    const steps = history.events.flatMap((e) => (e.type === 'step' ? [e] : []));
    const download = steps.find(
      (s) => merrittJobLifecycle.stepOf(s.state) === 'download' && s.to !== s.state,
    );
    expect(download!.detail).toMatchObject({ files: 2, verified: { sha256: 2 }, computed: {} });
    const xml = premisOf(merrittJobLifecycle, job!.jobId, steps);
    expect(xml).toContain(`<premis:objectIdentifierValue>${ark}</premis:objectIdentifierValue>`);
    for (const type of [
      'message digest calculation',
      'fixity check',
      'identifier assignment',
      'replication',
      'ingestion',
    ])
      expect(xml).toContain(`>${type}</premis:eventType>`);
    expect(xml).toContain('depositor&apos;s digests verified: 2 sha256');
    expect(xml).not.toContain('<premis:eventOutcome>failure');
    // Well-formed XML, as a parser other than ours reads it.
    const parsed = spawnSync(
      'python3',
      ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())'],
      { input: xml },
    );
    expect(parsed.status, parsed.stderr?.toString()).toBe(0);
  }, 90_000);
});
