import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { releaseLock } from '../../../src/queue/locks/lock.js';
import { inventoryLockPath } from '../../../src/queue/tree/paths.js';
import { lockObject } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { type Inventory } from '../../../src/steps/services/inventory/port.js';
import { createInventory } from '../../../src/steps/adapters.js';
import { readInventoryObject } from '../../../src/steps/services/inventory/local.js';
import { createMinter } from '../../../src/steps/adapters.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { createProcessStep } from '../../../src/steps/job/process.js';
import { createRecordStep } from '../../../src/steps/job/record.js';
import { type Storage } from '../../../src/steps/services/storage/port.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { createStoreStep } from '../../../src/steps/job/store.js';
import { createFetcher } from '../../../src/steps/services/fetch/fetch.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const chroot = useZkChroot();
const log = pino({ level: 'silent' });
const signal = new AbortController().signal;

describe('the recording step', () => {
  let queue: QueueContext;
  let other: QueueContext;
  let root: string;
  let settings: IngestSettings;
  let inventory: Inventory;
  let storage: Storage;
  let lockSeen: Array<string | undefined>;
  let seq = 0;

  beforeAll(async () => {
    queue = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(queue.zk);
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-record-'));
    settings = outputSettings(root);
    lockSeen = [];
    storage = createStorage(settings);
    const real = createInventory(settings);
    inventory = {
      lookupLocalId: (id, s) => real.lookupLocalId(id, s),
      async record(request) {
        lockSeen.push((await other.zk.exists(inventoryLockPath(request.ark)))?.ephemeralOwner);
        return real.record(request);
      },
    };
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A job processed for real, as the engine hands it to recording (identifiers written). */
  async function processedJob(files: Record<string, string>, localId: string): Promise<JobRecord> {
    const job = jobRecord(`jid${String(++seq).padStart(10, '0')}`);
    await prepareWorkDir(workDirFor(settings, job), files, { localIdentifier: localId });
    const process = createProcessStep({ settings, minter: createMinter(settings), inventory, queue });
    const writes = (await process({ job, signal, log }))!;
    const store = createStoreStep({ settings, storage, fetcher: createFetcher(settings.fetch), queue });
    const handedOff = { ...job, ...writes };
    await store({ job: { ...handedOff, status: 'storing' }, signal, log });
    return { ...handedOff, status: 'recording' };
  }

  const recordStep = () => createRecordStep({ settings, inventory, storage, queue });

  it('records the version storing stored, found through the inventory hand-off node, under the inventory lock', async () => {
    const job = await processedJob({ 'a.txt': 'alpha' }, 'loc-r1');
    const ark = job.identifiers!.primary_id;
    expect(job.inventory?.manifest_url).toBe(`mrtq:store/manifest/7777/${encodeURIComponent(ark)}`);
    const writes = await recordStep()({ job, signal, log });
    expect(writes).toBeUndefined();
    const manifestUrl = `file://${settings.dataDir}/store/${ark.replace(/[:/]/g, '_')}/v1/manifest.checkm`;
    expect((await readInventoryObject(settings.dataDir, ark))?.versions[0]?.manifestUrl).toBe(manifestUrl);
    expect(lockSeen).toEqual([queue.zk.sessionId]);
    expect(await other.zk.exists(inventoryLockPath(ark))).toBeUndefined();
    expect(await inventory.lookupLocalId('loc-r1', signal)).toBe(ark);
    expect((await readInventoryObject(settings.dataDir, ark))?.versions).toHaveLength(1);

    // Again (a crash before the transition committed): still one version.
    await recordStep()({ job, signal, log });
    expect((await readInventoryObject(settings.dataDir, ark))?.versions).toHaveLength(1);
  });

  it('a later job for the same local id records version 2', async () => {
    const record = recordStep();
    const first = await processedJob({ 'a.txt': 'alpha' }, 'loc-r2');
    await record({ job: first, signal, log });
    const second = await processedJob({ 'a.txt': 'alpha, revised' }, 'loc-r2');
    expect(second.identifiers!.primary_id).toBe(first.identifiers!.primary_id);
    await record({ job: second, signal, log });
    const object = await readInventoryObject(settings.dataDir, first.identifiers!.primary_id);
    expect(object?.versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it('fails with OBJECT_LOCKED, naming the holder and the wait, when another session holds the inventory lock past MRTQ_INVENTORY_LOCK_WAIT_MS', async () => {
    const job = await processedJob({ 'a.txt': 'alpha' }, 'loc-r3');
    const held = await lockObject(other, 'inventory', job.identifiers!.primary_id);
    settings.inventoryLockWaitMs = 300;
    try {
      const started = Date.now();
      const err: unknown = await recordStep()({ job, signal, log }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(isOutputError(err, 'OBJECT_LOCKED')).toBe(true);
      expect((err as Error).message).toMatch(
        new RegExp(
          `^${held!.path} is held by ZooKeeper session ${other.zk.sessionId}: .* waited \\d+ ms for it \\(MRTQ_INVENTORY_LOCK_WAIT_MS\\)`,
        ),
      );
      expect(lockSeen).toEqual([]);
    } finally {
      await releaseLock(other, held!);
    }
  });

  it('fails naming what to do when there is no hand-off node, or storage holds nothing of its ark', async () => {
    const job = jobRecord('jid0000009999', { status: 'recording' });
    await prepareWorkDir(workDirFor(settings, job), { 'a.txt': 'alpha' });
    await expect(recordStep()({ job, signal, log })).rejects.toThrow(
      'job jid0000009999: no /jobs/jid0000009999/inventory hand-off node (processing writes it); requeue from processing',
    );
    const ark = 'ark:/99999/fk4nothing';
    const inventoryNode = { manifest_url: `mrtq:store/manifest/7777/${encodeURIComponent(ark)}`, mode: '' };
    await expect(recordStep()({ job: { ...job, inventory: inventoryNode }, signal, log })).rejects.toThrow(
      `job jid0000009999: storage holds no version of ${ark} (named by /jobs/jid0000009999/inventory); requeue from storing`,
    );
    const garbled = { manifest_url: 'http://store.example/state/7777/x', mode: '' };
    await expect(recordStep()({ job: { ...job, inventory: garbled }, signal, log })).rejects.toThrow(
      /names http:\/\/store\.example\/state\/7777\/x, which is no storage manifest URL/,
    );
  });
});
