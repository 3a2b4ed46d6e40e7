import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { listJobs } from '../../../src/views/listing/listing.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { startService, type Service } from '../../../src/service.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// merritt-protocols.md §1-§2 ("The big picture"): Merritt's ingest writes its batches and jobs
// through mrt-zk (Batch.createBatch, Job.createJob) with its own key names: `profile`, not
// `profile_name`. Before this was read, such a job failed in Notify ("profile undefined not
// found") and its batch was reported without its profile.
//
// Every node below holds the exact bytes mrt-zk's Java library wrote, captured from a probe that
// ran mrt-zk (CDLUC3/mrt-zk at commit f113b84f203f84ddd0d1c981aa8c87f7f6bc98d7) as mrt-ingest
// does: Batch.createBatch, Batch.acquirePendingBatch, Job.createJob with HandlerSubmit's
// configuration, then lock/setStatus/unlock through every state up to Notify (setStore and
// setInventory before Storing, as ProcessConsumer does).

const chroot = useZkChroot();
const REPO_PROFILE = join(import.meta.dirname, '..', '..', '..', 'profiles', 'merritt_demo_content');
const UUID = 'bid-eeeeeeee-2222-3333-4444-555555555555';

const JAVA_SUBMISSION =
  '{"submitter":"ingest-style","filename":"hello.txt","profile":"merritt_demo_content","update":false,"submissionDate":"Wed Nov 25 06:00:00 PST 2026","batchID":"bid-eeeeeeee-2222-3333-4444-555555555555","type":"file"}';
const JAVA_BATCH_STATUS = '{"message":"","last_modified":"2026-11-25 14:55:27 +0000","status":"Processing"}';
const JAVA_CONFIGURATION =
  '{"submitter":"ingest-style","jobID":"jid-ffffffff-7777-8888-9999-000000000000","filename":"hello.txt","notificationFormat":"json","profile":"merritt_demo_content","responseForm":"json","update":false,"submissionDate":"Wed Nov 25 06:00:00 PST 2026","batchID":"bid-eeeeeeee-2222-3333-4444-555555555555","type":"file"}';
const JAVA_IDENTIFIERS = '{"local_id":[],"primary_id":"ark:/99999/fk4notify1"}';
const JAVA_JOB_STATUS =
  '{"retry_count":0,"last_successful_status":"Recording","message":"Success","last_modified":"2026-11-25 14:55:28 +0000","status":"Notify"}';
const JAVA_STORE =
  '{"mode":"add/7777/ark%3A%2F99999%2Ffk4notify1","manifest_url":"http://127.0.0.1:1/ingestqueue/x/y/system/mrt-manifest.txt","delete":""}';
const JAVA_INVENTORY =
  '{"mode":"","manifest_url":"http://127.0.0.1:1/store/manifest/7777/ark%3A%2F99999%2Ffk4notify1"}';

/**
 * Writes the captured batch and its one job, in Notify, node by node as the Java library did,
 * under the batch's ephemeral lock as mrt-ingest's BatchConsumer holds it while it submits jobs.
 */
async function writeJavaBatch(zk: ZkClient): Promise<{ bid: string; jid: string }> {
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  await zk.create(`/batch-uuids/${UUID}`, bid);
  await zk.create(`/batches/${bid}/submission`, JAVA_SUBMISSION);
  await zk.create(`/batches/${bid}/status`, JAVA_BATCH_STATUS.replace('Processing', 'Pending'));
  await zk.create(`/batches/${bid}/lock`, null, 'ephemeral');
  await zk.create(`/batches/${bid}/states`);
  await zk.setData(`/batches/${bid}/status`, JAVA_BATCH_STATUS);
  const jid = (await zk.create('/jobs/jid', null, 'persistent_sequential')).slice('/jobs/'.length);
  await zk.create(`/jobs/${jid}/bid`, bid);
  await zk.create(`/jobs/${jid}/priority`, '5');
  await zk.create(`/jobs/${jid}/space_needed`, '0');
  await zk.create(`/jobs/${jid}/configuration`, JAVA_CONFIGURATION);
  await zk.create(`/jobs/${jid}/identifiers`, JAVA_IDENTIFIERS);
  await zk.create(`/jobs/${jid}/store`, JAVA_STORE);
  await zk.create(`/jobs/${jid}/inventory`, JAVA_INVENTORY);
  await zk.create(`/jobs/${jid}/status`, JAVA_JOB_STATUS);
  await zk.mkdirp(`/batches/${bid}/states/batch-processing`);
  await zk.create(`/batches/${bid}/states/batch-processing/${jid}`);
  await zk.create(`/jobs/states/notify/05-${jid}`);
  await zk.delete(`/batches/${bid}/lock`);
  return { bid, jid };
}

describe("a batch and a job Merritt's ingest wrote with mrt-zk's Java library (its key names)", () => {
  let dir: string;
  let zk: ZkClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-ingest-keys-'));
    zk = await chroot.connect();
    await ensureQueueTree(zk);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('are read under this engine’s names too: profile, collection, response type, submission mode', async () => {
    const ctx = queueContext(zk);
    const { bid, jid } = await writeJavaBatch(zk);
    const job = await loadJob(ctx, jid);
    expect(job).toMatchObject({ status: 'notify', lastSuccessfulStatus: 'recording', priority: 5 });
    expect(job.configuration).toMatchObject({
      profile_name: 'merritt_demo_content',
      collection: 'merritt_demo_content',
      response_type: 'json',
      submission_mode: 'add',
      // Merritt's own keys are kept as they are.
      profile: 'merritt_demo_content',
      jobID: 'jid-ffffffff-7777-8888-9999-000000000000',
    });
    expect((await loadBatch(ctx, bid)).submission).toMatchObject({
      profile_name: 'merritt_demo_content',
      submission_mode: 'add',
    });
    const held = await listJobs(ctx, { collection: 'merritt_demo_content' }, { offset: 0, limit: 10 });
    expect(held.items.map((i) => i.jid)).toContain(jid);
    // Read, never rewritten: the nodes stay as Merritt's library wrote them.
    expect((await zk.getData(`/jobs/${jid}/configuration`)).data?.toString()).toBe(JAVA_CONFIGURATION);
    expect((await zk.getData(`/batches/${bid}/submission`)).data?.toString()).toBe(JAVA_SUBMISSION);
    await zk.deleteRecursive(`/batches/${bid}`);
    await zk.deleteRecursive(`/jobs/${jid}`);
    await zk.delete(`/jobs/states/notify/05-${jid}`);
    await zk.delete(`/batch-uuids/${UUID}`);
  });

  describe('run by a Merritt-mode engine with the real ingest steps', () => {
    let service: Service;

    beforeAll(async () => {
      mkdirSync(join(dir, 'profiles'));
      copyFileSync(REPO_PROFILE, join(dir, 'profiles', 'merritt_demo_content'));
      const config = loadConfig({
        ...process.env,
        ZK_CONNECT: chroot.connectString(),
        MRTQ_DATA_DIR: dir,
        MRTQ_PROFILES_DIR: join(dir, 'profiles'),
        MRTQ_DEPLOYMENT: 'merritt',
        MRTQ_PUBLIC_URL: 'http://127.0.0.1:9',
      });
      service = await startService(config, { httpPort: false, steps: 'ingest' }, pino({ level: 'silent' }));
    });
    afterAll(async () => {
      await service?.stop(2000);
    });

    it('the job in Notify completes (its profile is found) and the batch is reported completed', async () => {
      const ctx = queueContext(zk);
      const { bid, jid } = await writeJavaBatch(zk);
      const batch = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed' || b.status === 'failed',
        30_000,
      );
      const job = await loadJob(ctx, jid);
      expect({ job: job.status, message: job.message }).toEqual({ job: 'completed', message: null });
      expect(batch.status).toBe('completed');
      const report = JSON.parse((await zk.getData(`/batches/${bid}/status-report`)).data!.toString()) as {
        successful_jobs: string[];
      };
      expect(report.successful_jobs).toEqual([jid]);
    });
  });
});
