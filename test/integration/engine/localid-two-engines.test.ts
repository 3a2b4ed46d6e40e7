import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../../src/queue/jobs/load.js';
import type { HeldLock } from '../../../src/queue/locks/lock.js';
import { releaseLock } from '../../../src/queue/locks/lock.js';
import { jobPath, localIdLockPath, storageLockPath } from '../../../src/queue/tree/paths.js';
import { lockObject } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { startEzidServer, type EzidServer } from '../../support/ezid-server.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const OWNER = 'ark:/13030/j2owner';
const LOCAL_ID = 'shared-lid-1';
const CREDENTIALS = 'ingest:secret';
/** What the EZID fixture mints first (`{shoulder}{7-digit sequence}`): the ark both jobs get. */
const ARK = 'ark:/99999/fk40000001';

describe('two jobs with the same new local id in two engine processes (merritt-protocols.md §3, §1(c), §2(b))', () => {
  let ctx: QueueContext;
  let ezid: EzidServer;
  let http: HttpFixture;
  let dir: string;
  const engines: EngineProcess[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    ezid = await startEzidServer({ credentials: CREDENTIALS });
    http = await startHttpFixture();
    dir = await mkdtemp(join(tmpdir(), 'mrtq-localid-engines-'));
    await mkdir(join(dir, 'profiles'), { recursive: true });
    await writeFile(join(dir, 'profiles', 'lid.yaml'), `collection: lid_demo\nowner: ${OWNER}\n`);
  });
  afterAll(async () => {
    for (const engine of engines) engine.signal('SIGTERM');
    await Promise.all(engines.map((engine) => engine.exited));
    await ezid.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  const jobOf = async (bid: string): Promise<JobRecord> => {
    const [ref] = await eventually(
      () => listBatchJobs(ctx, bid),
      (jobs) => jobs.length === 1,
      30_000,
    );
    return loadJob(ctx, ref!.jid);
  };

  it('get one ark, minted once, while the second waits on /locks/localid/<localid_owner>; both wait for /locks/storage/<ark> and complete', async () => {
    // Both engines serve every state but work on one job at a time per state: while one is
    // minting (EZID holds its answer), the other job can only be processed by the other engine.
    const env = {
      MRTQ_DATA_DIR: join(dir, 'data'),
      MRTQ_PROFILES_DIR: join(dir, 'profiles'),
      MRTQ_MINTER_URL: ezid.shoulderUrl('ark:/99999/fk4'),
      MRTQ_EZID_CREDENTIALS: CREDENTIALS,
      MRTQ_MAX_USED_FRACTION: '0.99',
    };
    const args = ['--steps', 'ingest', '--sweep', '0', '--limit', '1'];
    engines.push(
      ...(await Promise.all([0, 1].map(() => startEngineProcess(chroot.connectString(), args, env)))),
    );
    http.route('/a.txt', bytes('first deposit'));
    http.route('/b.txt', bytes('second deposit'));
    const releaseMints = ezid.holdMints();

    const submit = (file: string) =>
      createBatch(ctx, {
        profile_name: 'lid',
        submitter: 'depositor',
        payload_url: http.url(file),
        type: 'file',
        local_id: LOCAL_ID,
      });
    const [first, second] = await Promise.all([submit('/a.txt'), submit('/b.txt')]);
    const jobs = await Promise.all([jobOf(first.bid), jobOf(second.bid)]);

    // Both jobs are being processed at once, by two different sessions (two engine processes).
    const processing = await eventually(
      async () =>
        Promise.all(
          jobs.map(async (job) => ({
            status: (await loadJob(ctx, job.jobId)).status,
            owner: (await ctx.zk.exists(`${jobPath(job.jobId)}/lock`))?.ephemeralOwner,
          })),
        ),
      (states) => states.every((s) => s.status === 'processing' && s.owner !== undefined),
      60_000,
      100,
    );
    expect(new Set(processing.map((s) => s.owner)).size).toBe(2);
    // One of them holds the local id's lock and is minting; the other waits for the lock.
    expect(localIdLockPath(LOCAL_ID, OWNER)).toBe('/locks/localid/shared-lid-1_ark_13030_j2owner');
    await eventually(
      () => ezid.of('mint').length,
      (n) => n === 1,
      30_000,
    );
    const lock = await ctx.zk.exists(localIdLockPath(LOCAL_ID, OWNER));
    expect(processing.map((s) => s.owner)).toContain(lock?.ephemeralOwner);

    // The object's storage lock is held elsewhere (this test's session, standing in for a store
    // another engine or Merritt's storage service is running) before the ark is even minted.
    expect(storageLockPath(ARK)).toBe('/locks/storage/ark_99999_fk40000001');
    const storageLock: HeldLock | undefined = await lockObject(ctx, 'storage', ARK);
    expect(storageLock).toBeDefined();

    releaseMints();
    // Processing wrote each job's identifiers with its move to storing, where both now wait.
    const storing = await eventually(
      () => Promise.all(jobs.map((job) => loadJob(ctx, job.jobId))),
      (records) => records.every((job) => job.status === 'storing'),
      60_000,
      100,
    );
    expect(storing.map((job) => job.identifiers?.primary_id)).toEqual([ARK, ARK]);
    expect(ezid.of('mint')).toHaveLength(1);
    // Each job told EZID the object's metadata once it had its ark.
    expect(ezid.of('update').map((r) => r.url)).toEqual([`/id/${ARK}`, `/id/${ARK}`]);
    expect(await ctx.zk.exists(localIdLockPath(LOCAL_ID, OWNER))).toBeUndefined();
    // Each engine says, once, that its storing step waits for the lock and who holds it.
    const waitLine = `"lock":"${storageLockPath(ARK)}","holder":"${ctx.zk.sessionId}"`;
    await eventually(
      () => engines.map((engine) => engine.output().split(waitLine).length - 1),
      (counts) => counts.every((n) => n === 1),
      30_000,
      100,
    );

    // Released: the two stores run one after the other, and both jobs and both batches complete.
    await releaseLock(ctx, storageLock!);
    const done = await eventually(
      () => Promise.all(jobs.map((job) => loadJob(ctx, job.jobId))),
      (records) => records.every((job) => job.status === 'completed' || job.status === 'failed'),
      60_000,
      100,
    );
    expect(
      done.map((job) => job.status),
      JSON.stringify(done.map((job) => job.message)),
    ).toEqual(['completed', 'completed']);
    const batches = await eventually(
      () => Promise.all([first.bid, second.bid].map(async (bid) => (await loadBatch(ctx, bid)).status)),
      (states) => states.every((state) => state === 'completed' || state === 'failed'),
      60_000,
      100,
    );
    expect(batches).toEqual(['completed', 'completed']);
    expect(await ctx.zk.exists(storageLockPath(ARK))).toBeUndefined();
  });
});
