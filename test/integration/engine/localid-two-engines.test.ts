import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batch-create.js';
import { listBatchJobs } from '../../../src/queue/batch-jobs.js';
import type { QueueContext } from '../../../src/queue/context.js';
import { loadJob, type JobRecord } from '../../../src/queue/job-load.js';
import { localIdLockPathOf } from '../../../src/queue/localid-lock.js';
import { jobPath } from '../../../src/queue/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree-init.js';
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

describe('two jobs with the same new local id in two engine processes (merritt-protocols.md §3)', () => {
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

  it('get one ark, minted once, while the second waits on /locks/localid/<localid_owner>', async () => {
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
    expect(localIdLockPathOf(LOCAL_ID, OWNER)).toBe('/locks/localid/shared-lid-1_ark_13030_j2owner');
    await eventually(
      () => ezid.of('mint').length,
      (n) => n === 1,
      30_000,
    );
    const lock = await ctx.zk.exists(localIdLockPathOf(LOCAL_ID, OWNER));
    expect(processing.map((s) => s.owner)).toContain(lock?.ephemeralOwner);

    releaseMints();
    // Processing wrote each job's identifiers with its move to storing. (Storing the same object
    // twice at once is not this test's business: the second store may find /locks/storage taken.)
    const done = await eventually(
      () => Promise.all(jobs.map((job) => loadJob(ctx, job.jobId))),
      (records) => records.every((job) => job.status !== 'processing'),
      60_000,
      100,
    );
    const arks = done.map((job) => job.identifiers?.primary_id);
    expect(arks[0], JSON.stringify(done.map((job) => job.message))).toMatch(/^ark:\/99999\/fk4\d{7}$/);
    expect(arks[1]).toBe(arks[0]);
    expect(ezid.of('mint')).toHaveLength(1);
    // Each job told EZID the object's metadata once it had its ark.
    expect(ezid.of('update').map((r) => r.url)).toEqual([`/id/${arks[0]}`, `/id/${arks[0]}`]);
    expect(await ctx.zk.exists(localIdLockPathOf(LOCAL_ID, OWNER))).toBeUndefined();
  });
});
