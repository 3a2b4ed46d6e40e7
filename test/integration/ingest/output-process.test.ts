import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { releaseLock } from '../../../src/queue/locks/lock.js';
import { storageLockPath } from '../../../src/queue/tree/paths.js';
import { lockObject } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { type Inventory } from '../../../src/steps/services/inventory/port.js';
import { createInventory } from '../../../src/steps/adapters.js';
import { type Minter } from '../../../src/steps/services/minter/port.js';
import { createMinter } from '../../../src/steps/adapters.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { createFetcher } from '../../../src/steps/services/fetch/fetch.js';
import { createProcessStep } from '../../../src/steps/job/process.js';
import { createStoreStep } from '../../../src/steps/job/store.js';
import { type Storage } from '../../../src/steps/services/storage/port.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const chroot = useZkChroot();
const log = pino({ level: 'silent' });
const signal = new AbortController().signal;
const MINTED = /^ark:\/99999\/fk4[0-9a-z]{10}$/;

describe('the processing step, and storing from its hand-off node', () => {
  let queue: QueueContext;
  let other: QueueContext;
  let root: string;
  let settings: IngestSettings;
  let inventory: Inventory;
  let mints: string[];
  let minter: Minter;
  /** Owner of /locks/storage/<ark> as another client saw it while each store ran. */
  let lockSeen: Array<string | undefined>;
  let failNextStore: string | undefined;
  let storage: Storage;
  let seq = 0;

  beforeAll(async () => {
    queue = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(queue.zk);
  });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-process-'));
    settings = outputSettings(root);
    inventory = createInventory(settings);
    mints = [];
    const local = createMinter(settings);
    minter = { mint: async (s) => mints[mints.push(await local.mint(s)) - 1]! };
    lockSeen = [];
    failNextStore = undefined;
    const real = createStorage(settings);
    storage = {
      async store(request) {
        lockSeen.push((await other.zk.exists(storageLockPath(request.ark)))?.ephemeralOwner);
        if (failNextStore) {
          const message = failNextStore;
          failNextStore = undefined;
          throw new Error(message);
        }
        return real.store(request);
      },
    };
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** Processing, then storing from the hand-off node processing wrote (as the engine runs them). */
  const step = () => {
    const process = createProcessStep({ settings, minter, inventory, queue });
    const store = createStoreStep({ settings, storage, fetcher: createFetcher(settings.fetch), queue });
    return async (args: { job: JobRecord; signal: AbortSignal; log: typeof log }) => {
      const writes = await process(args);
      const job = { ...args.job, status: 'storing', ...writes };
      await store({ ...args, job });
      return writes;
    };
  };
  const newJob = (overrides: Partial<JobRecord> = {}) =>
    jobRecord(`jid${String(++seq).padStart(10, '0')}`, overrides);
  const storeDir = (ark: string) => join(settings.dataDir, 'store', ark.replace(/[:/]/g, '_'));

  it("mints an ark, writes ERC and Dublin Core, hands off in Merritt's format, stores under the storage lock", async () => {
    const job = newJob({ configuration: { ...newJob().configuration, local_id: 'loc-1' } });
    const workDir = workDirFor(settings, job);
    await prepareWorkDir(workDir, { 'a.txt': 'alpha', 'sub/b.txt': 'beta' }, { localIdentifier: 'loc-1' });

    const writes = await step()({ job, signal, log });
    const ark = writes?.identifiers?.primary_id ?? '';
    expect(ark).toMatch(MINTED);
    const encoded = encodeURIComponent(ark);
    expect(encoded).toContain('%2F');
    expect(writes).toEqual({
      identifiers: { primary_id: ark, local_id: ['loc-1'] },
      store: {
        manifest_url: pathToFileURL(join(workDir, 'system', 'mrt-manifest.txt')).href,
        mode: `add/7777/${encoded}`,
        delete: '',
      },
      inventory: { manifest_url: `mrtq:store/manifest/7777/${encoded}`, mode: '' },
    });
    const handedOff = await readFile(join(workDir, 'system', 'mrt-manifest.txt'), 'utf8');
    expect(handedOff).toMatch(/^#%checkm_0\.7/);
    expect(handedOff).toContain(`| producer/sub/b.txt |`);
    expect(handedOff).not.toContain('mrt-manifest.txt');
    expect(lockSeen).toEqual([queue.zk.sessionId]);
    expect(await other.zk.exists(storageLockPath(ark))).toBeUndefined();

    const erc = await readFile(join(workDir, 'system', 'mrt-erc.txt'), 'utf8');
    expect(erc).toBe(`erc:\nwho: Doe, Jane\nwhat: A test object\nwhen: 2024\nwhere: ${ark}\nwhere: loc-1\n`);
    const v1 = join(storeDir(ark), 'v1');
    expect((await readdir(join(v1, 'producer'))).sort()).toEqual(['a.txt', 'sub']);
    expect((await readdir(join(v1, 'system'))).sort()).toEqual(['mrt-dc.xml', 'mrt-erc.txt']);
    expect(await readFile(join(v1, 'system', 'mrt-erc.txt'), 'utf8')).toBe(erc);
    expect(await readFile(join(v1, 'manifest.checkm'), 'utf8')).toMatch(/\| producer\/sub\/b\.txt \|/);
  });

  it('run again (after a crash) returns the same ark and version: nothing minted or stored twice', async () => {
    const job = newJob();
    await prepareWorkDir(workDirFor(settings, job), { 'a.txt': 'alpha' });
    const first = await step()({ job, signal, log });
    const again = await step()({ job, signal, log });
    expect(again).toEqual(first);
    expect(mints).toHaveLength(1);
    expect((await readdir(storeDir(mints[0]!))).filter((n) => /^v\d+$/.test(n))).toEqual(['v1']);
  });

  it('a store that failed after minting is retried with the ark minted the first time', async () => {
    const job = newJob();
    await prepareWorkDir(workDirFor(settings, job), { 'a.txt': 'alpha' });
    failNextStore = 'disk full';
    await expect(step()({ job, signal, log })).rejects.toThrow('disk full');
    const writes = await step()({ job, signal, log });
    expect(mints).toHaveLength(1);
    expect(writes?.identifiers?.primary_id).toBe(mints[0]);
  });

  it('uses the ark a known local id names, storing the new files as its next version', async () => {
    const ark = 'ark:/99999/fk4known';
    await createStorage(settings).store({ ark, workDir: root, files: [], signal });
    await inventory.record({ ark, version: 1, manifestUrl: 'file:///v1', localId: 'loc-known', signal });
    const job = newJob();
    await prepareWorkDir(
      workDirFor(settings, job),
      { 'new.txt': 'v2 content' },
      { localIdentifier: 'loc-known' },
    );
    const writes = await step()({ job, signal, log });
    expect(writes?.identifiers).toEqual({ primary_id: ark, local_id: ['loc-known'] });
    expect(mints).toEqual([]);
    expect(
      JSON.parse(await readFile(join(workDirFor(settings, job), 'system', 'storage.json'), 'utf8')),
    ).toMatchObject({
      ark,
      version: 2,
    });
  });

  it("fails with a clear message when the depositor's ark disagrees with the local id's, storing nothing", async () => {
    await inventory.record({
      ark: 'ark:/99999/fk4first',
      version: 1,
      manifestUrl: 'file:///x',
      localId: 'loc-9',
      signal,
    });
    const job = newJob();
    await prepareWorkDir(
      workDirFor(settings, job),
      { 'a.txt': 'alpha' },
      {
        primaryIdentifier: 'ark:/99999/fk4second',
        localIdentifier: 'loc-9',
      },
    );
    const err: unknown = await step()({ job, signal, log }).catch((e: unknown) => e);
    expect(isOutputError(err, 'IDENTIFIER_CONFLICT')).toBe(true);
    expect((err as Error).message).toBe(
      `the depositor's ark ark:/99999/fk4second disagrees with ark:/99999/fk4first, which local id "loc-9" ` +
        'already names; correct the ark or the local id and submit again',
    );
    expect(lockSeen).toEqual([]);
    expect(mints).toEqual([]);
  });

  it('waits for the storage lock another session holds and stores once it is released; past MRTQ_STORAGE_LOCK_WAIT_MS fails naming the holder', async () => {
    const ark = 'ark:/99999/fk4busy';
    const held = await lockObject(other, 'storage', ark);
    expect(held?.path).toBe('/locks/storage/ark_99999_fk4busy');
    const job = newJob();
    await prepareWorkDir(workDirFor(settings, job), { 'a.txt': 'alpha' }, { primaryIdentifier: ark });
    settings.storageLockWaitMs = 300;
    const err: unknown = await step()({ job, signal, log }).catch((e: unknown) => e);
    expect(isOutputError(err, 'OBJECT_LOCKED') && err.retryable).toBe(true);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^/locks/storage/ark_99999_fk4busy is held by ZooKeeper session ${other.zk.sessionId}: another job is ` +
          `working on ark:/99999/fk4busy; waited \\d+ ms for it \\(MRTQ_STORAGE_LOCK_WAIT_MS\\)`,
      ),
    );
    expect(lockSeen).toEqual([]);

    settings.storageLockWaitMs = 60_000;
    const lines: string[] = [];
    const watched = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const storing = step()({ job, signal, log: watched });
    await eventually(
      () => lines.filter((line) => line.includes('lock held elsewhere; waiting')),
      (waiting) => waiting.length === 1,
    );
    expect(lockSeen).toEqual([]);
    await releaseLock(other, held!);
    expect((await storing)?.identifiers?.primary_id).toBe(ark);
    expect(lockSeen).toEqual([queue.zk.sessionId]);
    expect(await other.zk.exists(held!.path)).toBeUndefined();
  });

  it('refuses a download record that names files outside producer/', async () => {
    const job = newJob();
    const workDir = workDirFor(settings, job);
    await prepareWorkDir(workDir, { 'a.txt': 'alpha' });
    const record = JSON.parse(await readFile(join(workDir, 'download.json'), 'utf8')) as {
      files: Array<{ path: string }>;
    };
    record.files[0]!.path = 'producer/../download.json';
    await writeFile(join(workDir, 'download.json'), JSON.stringify(record));
    await expect(step()({ job, signal, log })).rejects.toThrow(/download\.json: unusable entry/);
    await rm(join(workDir, 'download.json'));
    await expect(step()({ job, signal, log })).rejects.toThrow(
      /download\.json is missing: the job was not downloaded/,
    );
  });
});
