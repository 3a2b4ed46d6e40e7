import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { migrateLegacyQueue, type MigrationReport } from '../../../src/admin/legacy/migrate.js';
import { BATCHES, BATCH_UUIDS, JOBS, batchUuidPath, isJobId } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { decodeText } from '../../../src/queue/tree/wire.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { LEGACY_STATUS, legacyNodeData, serialized } from '../../support/legacy-queue.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const WHEN = new Date('2023-11-02T17:04:05Z');
const UUID1 = 'bid-11111111-aaaa-4aaa-8aaa-000000000001';
const UUID2 = 'bid-22222222-bbbb-4bbb-8bbb-000000000002';
const UUID4 = 'bid-44444444-dddd-4ddd-8ddd-000000000004';
const QUEUE_DIR = '/apps/ingest/queue';

/** The legacy queue as Merritt's ingest left it: readable records of every kind, and damaged ones. */
const LEGACY: Record<string, Buffer> = {
  'mrtQ-030000000001': legacyNodeData(LEGACY_STATUS.Pending, WHEN, serialized('BATCH1_JOB1')),
  'mrtQ-030000000002': legacyNodeData(LEGACY_STATUS.Failed, WHEN, serialized('BATCH1_JOB2')),
  'mrtQ-000000000003': legacyNodeData(LEGACY_STATUS.Consumed, WHEN, serialized('BATCH2_JOB3')),
  // The 2024 JSON payload, done: nothing to run.
  'mrtQ-050000000004': legacyNodeData(
    LEGACY_STATUS.Completed,
    WHEN,
    Buffer.from('{"batchID":"bid-333","jobID":"jid-333","profile":"legacy_profile","type":"file"}'),
  ),
  // Properties in their text form.
  'mrtQ-050000000005': legacyNodeData(
    LEGACY_STATUS.Held,
    WHEN,
    Buffer.from(
      `# queued\nbatchID=${UUID4}\njobID = jid-444\nprofile: legacy_profile\ntype=container\n` +
        'filename=https\\://example.org/c.zip\n',
    ),
  ),
  'mrtQ-050000000006': Buffer.from([0, 0, 0, 1, 2]),
  'mrtQ-050000000007': legacyNodeData(
    LEGACY_STATUS.Pending,
    WHEN,
    Buffer.from('hello world, no queue record'),
  ),
  'mrtQ-050000000008': legacyNodeData(
    LEGACY_STATUS.Pending,
    WHEN,
    Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x9c]),
  ),
  'mrtQ-050000000009': legacyNodeData(
    LEGACY_STATUS.Pending,
    WHEN,
    Buffer.concat([serialized('BATCH1_JOB1').subarray(0, 60), randomBytes(4)]),
  ),
};

const UNREADABLE = [
  ['mrtQ-050000000006', /truncated: 5 bytes, shorter than the 9-byte header/],
  ['mrtQ-050000000007', /properties-text payload without batchID, jobID, profile/],
  ['mrtQ-050000000008', /not UTF-8/],
  ['mrtQ-050000000009', /serialized Properties unreadable/],
] as const;

describe("mrtq migrate-legacy: Merritt's pre-2024 ingest queue into batches and jobs", () => {
  let zk: ZkClient;
  let ctx: QueueContext;

  const legacyNodes = async () =>
    Object.fromEntries(
      await Promise.all(
        (await zk.getChildren('/ingest')).map(
          async (n) => [n, (await zk.getData(`/ingest/${n}`)).data] as const,
        ),
      ),
    );
  const treeCounts = async () => ({
    batches: (await zk.getChildren(BATCHES)).length,
    uuids: (await zk.getChildren(BATCH_UUIDS)).length,
    jobs: (await zk.getChildren(JOBS)).filter(isJobId).length,
  });
  const bidOf = async (uuid: string) => decodeText((await zk.getData(batchUuidPath(uuid))).data);
  const expectUnreadableReported = (report: MigrationReport) => {
    for (const [node, reason] of UNREADABLE)
      expect(report.unreadable.find((u) => u.node === node)?.reason).toMatch(reason);
    expect(report.unreadable).toHaveLength(UNREADABLE.length);
  };

  beforeAll(async () => {
    zk = await chroot.connect();
    ctx = queueContext(zk);
    await ensureQueueTree(zk);
    await zk.create('/ingest', null);
    for (const [name, data] of Object.entries(LEGACY)) await zk.create(`/ingest/${name}`, data);
  });

  it('a dry run lists what it would create and what it cannot read, and changes nothing', async () => {
    const before = await legacyNodes();
    const report = await migrateLegacyQueue(ctx, { dryRun: true, queueDir: QUEUE_DIR });
    expect(report.batches.map((b) => [b.uuid, b.outcome, b.jobs.map((j) => [j.node, j.state])])).toEqual([
      [
        UUID1,
        'would-create',
        [
          ['mrtQ-030000000001', 'pending'],
          ['mrtQ-030000000002', 'failed'],
        ],
      ],
      [UUID2, 'would-create', [['mrtQ-000000000003', 'pending']]],
      [UUID4, 'would-create', [['mrtQ-050000000005', 'failed']]],
    ]);
    expect(report.skipped).toEqual([
      { node: 'mrtQ-050000000004', reason: 'completed in the legacy queue: nothing to run' },
    ]);
    expectUnreadableReported(report);
    expect(await treeCounts()).toEqual({ batches: 0, uuids: 0, jobs: 0 });
    expect(await legacyNodes()).toEqual(before);
  });

  it('without the old queue directory, a batch whose files lie there is kept for a later run', async () => {
    const report = await migrateLegacyQueue(ctx);
    expect(report.batches.map((b) => [b.uuid, b.outcome])).toEqual([
      [UUID2, 'created'],
      [UUID4, 'created'],
    ]);
    expect(report.skipped.filter((s) => s.reason.includes('--queue-dir')).map((s) => s.node)).toEqual([
      'mrtQ-030000000001',
      'mrtQ-030000000002',
    ]);
    expect(await treeCounts()).toEqual({ batches: 2, uuids: 2, jobs: 2 });

    const [ref] = await listBatchJobs(ctx, await bidOf(UUID2));
    const job = await loadJob(ctx, ref!.jid);
    expect(job).toMatchObject({ status: 'pending', priority: 0 });
    expect(job.configuration).toMatchObject({
      profile_name: 'legacy_profile',
      payload_url: 'https://example.org/deposit/object3.checkm',
      payload_type: 'object_manifest',
      submission_mode: 'update',
      legacy_node: '/ingest/mrtQ-000000000003',
      manifest_position: 3,
    });
    expect(job.identifiers).toEqual({ primary_id: 'ark:/99999/fk4legacy3', local_id: [] });
    const held = await loadJob(ctx, (await listBatchJobs(ctx, await bidOf(UUID4)))[0]!.jid);
    expect(held).toMatchObject({ status: 'failed', lastSuccessfulStatus: null });
    expect(held.message).toMatch(
      /held in the legacy ingest queue \(in \/ingest\/mrtQ-050000000005 since 2023-11-02 17:04:05 \+0000\); requeue/,
    );
    expect(held.configuration.payload_url).toBe('https://example.org/c.zip');
  });

  it('with it, the rest is created as expanded batches; a second run creates nothing', async () => {
    const report = await migrateLegacyQueue(ctx, { queueDir: QUEUE_DIR });
    expect(report.batches.map((b) => [b.uuid, b.outcome, b.jobs.length])).toEqual([
      [UUID1, 'created', 2],
      [UUID2, 'exists', 0],
      [UUID4, 'exists', 0],
    ]);
    expectUnreadableReported(report);
    const bid = await bidOf(UUID1);
    const batch = await loadBatch(ctx, bid);
    expect(batch).toMatchObject({ status: 'processing', jobCount: 2, expansion: 'done' });
    expect(batch.submission).toMatchObject({
      batchID: UUID1,
      profile_name: 'legacy_profile',
      submitter: 'jdoe/Jane Doe',
    });
    const jobs = await Promise.all((await listBatchJobs(ctx, bid)).map(({ jid }) => loadJob(ctx, jid)));
    const pending = jobs.find((j) => j.status === 'pending')!;
    expect(pending.priority).toBe(3);
    expect(pending.configuration).toMatchObject({
      payload_url: pathToFileURL(
        `${QUEUE_DIR}/${UUID1}/jid-11111111-0000-4000-8000-000000000001/object1.checkm`,
      ).href,
      payload_type: 'object_manifest',
      response_type: 'xml',
      local_id: 'legacy-local-1',
      legacy_job_id: 'jid-11111111-0000-4000-8000-000000000001',
    });
    expect(pending.identifiers).toEqual({ primary_id: '', local_id: ['legacy-local-1'] });
    const failed = jobs.find((j) => j.status === 'failed')!;
    expect(failed.message).toMatch(/failed in the legacy ingest queue .*mrtQ-030000000002/);
    expect(failed.configuration).toMatchObject({
      payload_type: 'file',
      digest_type: 'md5',
      file_name: 'data.bin',
    });

    const counts = await treeCounts();
    const again = await migrateLegacyQueue(ctx, { queueDir: QUEUE_DIR });
    expect(again.batches.map((b) => b.outcome)).toEqual(['exists', 'exists', 'exists']);
    expect(await treeCounts()).toEqual(counts);
    expect(Object.keys(await legacyNodes()).sort()).toEqual(Object.keys(LEGACY).sort());
    // What it wrote is a tree the consistency check finds nothing wrong with.
    expect((await doctor(ctx)).problems).toEqual([]);
  });

  it('the command reports unreadable records by name and exits 1; its JSON says the rest exists', async () => {
    const cli = await runCli(['migrate-legacy', '--queue-dir', QUEUE_DIR, '--zk', chroot.connectString()]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`migrated before, nothing to create`);
    expect(cli.stdout).toMatch(/unreadable \/ingest\/mrtQ-050000000006: truncated/);
    expect(cli.stderr).toMatch(/created 0 batches and 0 jobs; 1 records kept, 4 unreadable/);
    const json = await runCli(['migrate-legacy', '--dry-run', '--json', '--zk', chroot.connectString()]);
    const report = JSON.parse(json.stdout) as MigrationReport;
    expect(report.dryRun).toBe(true);
    expect(report.batches.filter((b) => b.outcome === 'exists').map((b) => b.uuid)).toEqual([UUID2, UUID4]);
  });
});
