import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { BatchRecord } from '../../../src/queue/batches/load.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { commitJobTransition } from '../../../src/queue/jobs/transition.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { createExpandStep } from '../../../src/steps/batch/expand.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { loadProfiles, type ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** A Merritt profile as Merritt writes it, whose Priority Merritt would write as a `150-jid…` ref. */
const HOT_PROFILE = [
  'ProfileID: merritt_hot_content',
  'Collection.1: ark:/99999/m5000000',
  'Owner: ark:/99999/j2000000',
  'Type: MRT-curatorial',
  'Role: MRT-content',
  'Priority: 150',
  '',
].join('\n');

describe('a profile priority above 99 is clamped on every write (merritt-protocols.md §8)', () => {
  let ctx: QueueContext;
  let dir: string;
  let settings: IngestSettings;
  let fetcher: Fetcher;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = await mkdtemp(join(tmpdir(), 'profile-priority-'));
    settings = testIngestSettings(dir);
    await mkdir(settings.profilesDir, { recursive: true });
    await writeFile(join(settings.profilesDir, 'merritt_hot_content'), HOT_PROFILE);
    fetcher = createFetcher(settings.fetch);
  });
  afterAll(async () => {
    await fetcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function expandOneFile(profiles: ProfileStore, profileName: string): Promise<string> {
    const { bid } = await createBatch(ctx, {
      profile_name: profileName,
      submitter: 'ann',
      payload_url: 'https://example.org/a.txt',
      type: 'file',
    });
    const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
    if (!acquired) throw new Error(`could not acquire ${bid}`);
    const batch: BatchRecord = await commitBatchTransition(
      ctx,
      acquired,
      { type: 'batch.acquired' },
      { release: false },
    );
    const expand = createExpandStep({ fetcher, profiles, settings });
    const log = pino({ level: 'silent' });
    expect(await expand({ batch, signal: new AbortController().signal, log, queue: ctx })).toEqual({
      jobCount: 1,
    });
    const [ref, ...rest] = await listBatchJobs(ctx, bid);
    expect(rest).toEqual([]);
    return ref!.jid;
  }

  async function expectPriority99(jid: string, state: string): Promise<void> {
    const refs = await ctx.zk.getChildren(`/jobs/states/${state}`);
    expect(refs.filter((name) => name.endsWith(jid))).toEqual([`99-${jid}`]);
    const { data } = await ctx.zk.getData(`/jobs/${jid}/priority`);
    expect(data?.toString()).toBe('99');
    expect((await loadJob(ctx, jid)).priority).toBe(99);
  }

  it('a Merritt profile with Priority 150 loads with a warning and its jobs get 99-jid… refs', async () => {
    const profiles = await loadProfiles(settings.profilesDir);
    expect(profiles.getProfile('merritt_hot_content').priority).toBe(99);
    expect(profiles.warnings()).toEqual([expect.stringContaining('merritt_hot_content: Priority: 150')]);
    await expectPriority99(await expandOneFile(profiles, 'merritt_hot_content'), 'pending');
  });

  it('job creation clamps a priority that reached it unclamped', async () => {
    const unclamped: Profile = {
      name: 'loose',
      collection: 'loose',
      priority: 150,
      notifications: [],
      responseType: 'json',
    };
    const profiles: ProfileStore = {
      getProfile: () => unclamped,
      resolve: () => Promise.resolve(unclamped),
      names: () => ['loose'],
      reload: () => Promise.resolve(),
    };
    await expectPriority99(await expandOneFile(profiles, 'loose'), 'pending');
  });

  it('an estimate that raises the priority past 99 moves the job to a 99-jid… ref', async () => {
    const jid = await expandOneFile(await loadProfiles(settings.profilesDir), 'merritt_hot_content');
    let acquired = await acquireJob(ctx, 'pending', { skip: (j) => j !== jid });
    await commitJobTransition(ctx, acquired!, { type: 'job.acquired' });
    acquired = await acquireJob(ctx, 'estimating', { skip: (j) => j !== jid });
    // Merritt's EstimateConsumer adds 10 when the size is unknown, unclamped.
    await commitJobTransition(ctx, acquired!, { type: 'estimate.done', spaceNeeded: 0, priority: 109 });
    await expectPriority99(jid, 'provisioning');
  });
});
