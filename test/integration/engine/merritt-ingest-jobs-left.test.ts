import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { needsPayload } from '../../../src/queue/jobs/payload.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { startService, type Service } from '../../../src/service.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { capturingLogger, merrittConfig, type LogLine } from '../../support/merritt-service.js';

// merritt-protocols.md "The big picture": Merritt's ingest writes its jobs through mrt-zk's
// Job.createJob with the payload on its own disk (`filename`, no `payload_url`), and its own
// consumers download and process them there. Before this, a Merritt-mode engine took such a job
// in Estimating and failed it with `payload_type "undefined"`. The job below is written node by
// node exactly as Job.createJob writes it (lock; bid, priority, space_needed, configuration;
// status; batch ref; state ref; unlock), with the configuration bytes captured from mrt-zk's Java
// library (merritt-ingest-keys.test.ts), and moved state by state as Job.setStatus does.

const chroot = useZkChroot();
const REPO_PROFILE = join(import.meta.dirname, '..', '..', '..', 'profiles', 'merritt_demo_content');
const JAVA_TIME = '2026-11-25 14:55:27 +0000';
const UUID = 'bid-eeeeeeee-2222-3333-4444-555555555555';
const JAVA_SUBMISSION =
  '{"submitter":"ingest-style","filename":"hello.txt","profile":"merritt_demo_content","update":false,"submissionDate":"Wed Nov 25 06:00:00 PST 2026","batchID":"bid-eeeeeeee-2222-3333-4444-555555555555","type":"file"}';
const JAVA_BATCH_STATUS = `{"message":"","last_modified":"${JAVA_TIME}","status":"Processing"}`;
const JAVA_CONFIGURATION =
  '{"submitter":"ingest-style","jobID":"jid-ffffffff-7777-8888-9999-000000000000","filename":"hello.txt","notificationFormat":"json","profile":"merritt_demo_content","responseForm":"json","update":false,"submissionDate":"Wed Nov 25 06:00:00 PST 2026","batchID":"bid-eeeeeeee-2222-3333-4444-555555555555","type":"file"}';
const JAVA_IDENTIFIERS = '{"local_id":[],"primary_id":"ark:/99999/fk4left1"}';
const JAVA_STORE =
  '{"mode":"add/7777/ark%3A%2F99999%2Ffk4left1","manifest_url":"http://127.0.0.1:1/ingestqueue/x/y/system/mrt-manifest.txt","delete":""}';
const JAVA_INVENTORY =
  '{"mode":"","manifest_url":"http://127.0.0.1:1/store/manifest/7777/ark%3A%2F99999%2Ffk4left1"}';

/** Job.statusObject: the key order org.json wrote in the captured bytes. */
const javaStatus = (status: string, last: string | null, message = ''): string =>
  `{"retry_count":0,"last_successful_status":${last === null ? 'null' : `"${last}"`},"message":"${message}","last_modified":"${JAVA_TIME}","status":"${status}"}`;

/**
 * The batch Merritt's BatchConsumer acquired: locked while it writes its jobs (`unlockBatch`
 * after), as it holds the batch while it submits them.
 */
async function merrittBatch(zk: ZkClient): Promise<string> {
  const uuid = `bid-${randomUUID()}`;
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  await zk.create(`/batch-uuids/${uuid}`, bid);
  await zk.create(`/batches/${bid}/submission`, JAVA_SUBMISSION.replace(UUID, uuid));
  await zk.create(`/batches/${bid}/status`, JAVA_BATCH_STATUS.replace('Processing', 'Pending'));
  await zk.create(`/batches/${bid}/lock`, null, 'ephemeral');
  await zk.create(`/batches/${bid}/states`);
  await zk.setData(`/batches/${bid}/status`, JAVA_BATCH_STATUS);
  return bid;
}

const unlockBatch = (zk: ZkClient, bid: string): Promise<void> => zk.delete(`/batches/${bid}/lock`);

/**
 * Job.createJob, then Job.setStatus from state to state (wire names) up to the last one, under the
 * job's lock as Merritt's consumers hold it; the lock is removed at the end (Job.unlock).
 */
async function merrittJob(zk: ZkClient, bid: string, path: readonly string[]): Promise<string> {
  const jid = (await zk.create('/jobs/jid', null, 'persistent_sequential')).slice('/jobs/'.length);
  await zk.create(`/jobs/${jid}/lock`, null, 'ephemeral');
  await zk.create(`/jobs/${jid}/bid`, bid);
  await zk.create(`/jobs/${jid}/priority`, '5');
  await zk.create(`/jobs/${jid}/space_needed`, '0');
  await zk.create(`/jobs/${jid}/configuration`, JAVA_CONFIGURATION);
  await zk.create(`/jobs/${jid}/status`, javaStatus('Pending', null));
  await zk.mkdirp(`/batches/${bid}/states/batch-processing`);
  await zk.create(`/batches/${bid}/states/batch-processing/${jid}`);
  await zk.create(`/jobs/states/pending/05-${jid}`);
  let from = 'Pending';
  for (const to of path) {
    if (to === 'Storing') {
      await zk.create(`/jobs/${jid}/identifiers`, JAVA_IDENTIFIERS);
      await zk.create(`/jobs/${jid}/store`, JAVA_STORE);
      await zk.create(`/jobs/${jid}/inventory`, JAVA_INVENTORY);
    }
    await merrittMoves(zk, jid, from, to);
    from = to;
  }
  await zk.delete(`/jobs/${jid}/lock`);
  return jid;
}

/** Job.setStatus(…, "Success") and Job.setJobStatePath: status first, then the ref moves. */
async function merrittMoves(zk: ZkClient, jid: string, from: string, to: string): Promise<void> {
  await zk.setData(`/jobs/${jid}/status`, javaStatus(to, from, 'Success'));
  await zk.delete(`/jobs/states/${from.toLowerCase()}/05-${jid}`);
  await zk.create(`/jobs/states/${to.toLowerCase()}/05-${jid}`);
}

describe("jobs Merritt's ingest wrote (payload on its own disk) are left to it where a step needs the payload", () => {
  let dir: string;
  let service: Service;
  let zk: ZkClient;
  const lines: LogLine[] = [];
  const leftLines = (jid: string): LogLine[] =>
    lines.filter(
      (l) => l.jobId === jid && l.level >= 30 && l.msg === `job ${jid} left for the service that can take it`,
    );
  const errorsAbout = (jid: string): LogLine[] => lines.filter((l) => l.jobId === jid && l.level >= 50);
  /** The engine's getData requests so far, from its own /metrics (each sweep reads the jobs again). */
  const getDataCount = async (): Promise<number> => {
    const text = await (await fetch(`${service.httpUrl}/metrics`)).text();
    return text
      .split('\n')
      .filter(
        (l) => l.startsWith('mrtq_zk_request_duration_seconds_count{') && l.includes('operation="getData"'),
      )
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-jobs-left-'));
    mkdirSync(join(dir, 'profiles'));
    copyFileSync(REPO_PROFILE, join(dir, 'profiles', 'merritt_demo_content'));
    zk = await chroot.connect();
    await ensureQueueTree(zk);
    const port = await freePort();
    const config = merrittConfig({
      connectString: chroot.connectString(),
      dataDir: dir,
      profilesDir: join(dir, 'profiles'),
      publicUrl: `http://127.0.0.1:${port}`,
    });
    // A short sweep: every job is looked at again and again, and must be logged once.
    service = await startService(
      config,
      { httpPort: port, steps: 'ingest', sweepIntervalMs: 200 },
      capturingLogger(lines, 'debug'),
    );
  });

  afterAll(async () => {
    await service?.stop(2000);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the states that need the payload are the table’s, not a list: pending and every working state before storing', () => {
    const marked = merrittJobLifecycle.table.filter((row) => needsPayload(merrittJobLifecycle, row.state));
    expect(marked.map((row) => row.state)).toEqual([
      'pending',
      'estimating',
      'provisioning',
      'downloading',
      'processing',
    ]);
    expect(needsPayload(merrittJobLifecycle, 'notify')).toBe(false);
    expect(needsPayload(merrittJobLifecycle, 'storing')).toBe(false);
  });

  it('are not taken, said once each (log, status message, API, doctor), and a job in Notify still completes', async () => {
    const ctx = queueContext(zk);
    const bid = await merrittBatch(zk);
    const pending = await merrittJob(zk, bid, []);
    const walk = ['Estimating', 'Provisioning', 'Downloading', 'Processing'];
    const left = new Map<string, string>();
    for (let i = 1; i <= walk.length; i++)
      left.set(await merrittJob(zk, bid, walk.slice(0, i)), walk[i - 1]!);
    const notify = await merrittJob(zk, bid, [...walk, 'Storing', 'Recording', 'Notify']);
    await unlockBatch(zk, bid);

    // Merritt's ingest creates the working directory on the move out of Pending (InitializeConsumer).
    left.set(pending, 'Pending');
    for (const [jid, wire] of left) {
      const job = await eventually(
        () => loadJob(ctx, jid),
        (j) => (j.message ?? '').startsWith("left for Merritt's ingest:"),
        30_000,
      );
      expect(job.status).toBe(wire.toLowerCase());
      expect(job.message).toBe(
        `left for Merritt's ingest: its configuration names the file "hello.txt" on that service's own disk ` +
          `(job jid-ffffffff-7777-8888-9999-000000000000) and no payload_url, so only the ingest service ` +
          `that wrote it can run it in ${wire}`,
      );
      expect(await zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
    }
    const done = await eventually(
      () => loadJob(ctx, notify),
      (j) => j.status === 'completed' || j.status === 'failed',
      30_000,
    );
    expect({ status: done.status, message: done.message }).toEqual({ status: 'completed', message: null });

    // Many sweeps later (200 ms each: every job looked at again), still one line per job.
    const reads = await getDataCount();
    await eventually(getDataCount, (n) => n >= reads + 60, 20_000, 100);
    for (const jid of left.keys()) {
      expect(leftLines(jid)).toHaveLength(1);
      expect(errorsAbout(jid)).toEqual([]);
      expect((await loadJob(ctx, jid)).status).not.toBe('failed');
    }

    // The API shows why.
    const [someJid, someWire] = [...left][2]!;
    const answer = (await (await fetch(`${service.httpUrl}/jobs/${someJid}`)).json()) as Record<
      string,
      unknown
    >;
    expect((answer.job as Record<string, unknown>).message).toBe((await loadJob(ctx, someJid)).message);
    expect(JSON.stringify(answer.job)).toContain(someWire.toLowerCase());

    // Doctor: notes, not problems.
    const report = await doctor(ctx);
    expect(report.problems.map((p) => p.message)).toEqual([]);
    const notes = report.notes.filter((n) => n.code === 'JOB_LEFT_FOR_INGEST');
    expect(notes.map((n) => n.item).sort()).toEqual([...left.keys()].sort());
    expect(notes[0]!.message).toMatch(/^job jid\d+ is left for Merritt's ingest: /);
  }, 90_000);

  it("a left job Merritt's ingest moves on is looked at again (its nodes changed) and said once more, in its new state", async () => {
    const ctx = queueContext(zk);
    const bid = await merrittBatch(zk);
    const jid = await merrittJob(zk, bid, ['Estimating']);
    await unlockBatch(zk, bid);
    await eventually(
      () => leftLines(jid),
      (found) => found.length === 1,
      30_000,
    );
    // Merritt's EstimateConsumer: acquire (lock), setStatus, unlock.
    await zk.create(`/jobs/${jid}/lock`, null, 'ephemeral');
    await merrittMoves(zk, jid, 'Estimating', 'Provisioning');
    await zk.delete(`/jobs/${jid}/lock`);
    const job = await eventually(
      () => loadJob(ctx, jid),
      (j) => (j.message ?? '').endsWith('run it in Provisioning'),
      30_000,
    );
    expect(job.status).toBe('provisioning');
    // The log line may come a moment after the message it accompanies (a busy machine).
    const lines = await eventually(
      () => leftLines(jid),
      (found) => found.length >= 2,
      30_000,
    );
    expect(lines.map((l) => l.state)).toEqual(['estimating', 'provisioning']);
  }, 60_000);
});
