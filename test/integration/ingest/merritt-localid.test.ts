import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Inventory } from '../../../src/steps/services/inventory/port.js';
import { createInventory } from '../../../src/steps/adapters.js';
import { createLocalInventory } from '../../../src/steps/services/inventory/local.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { pino } from 'pino';
import { localIdLockPath } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import { createMinter } from '../../../src/steps/adapters.js';
import { createProcessStep } from '../../../src/steps/job/process.js';
import { closedPort } from '../../support/http-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';
import { startLocalIdServer, type LocalIdServer } from '../../support/localid-server.js';

const chroot = useZkChroot();
const signal = new AbortController().signal;
const A = 'ark:/13030/m5aaaa';
const B = 'ark:/13030/m5bbbb';
const OWNER = 'ark:/13030/j2owner';
const OTHER_OWNER = 'ark:/13030/j2other';

describe('the inventory\'s local-id API (merritt-protocols.md §3, "Local-id ↔ ARK lookups")', () => {
  let server: LocalIdServer;
  let inventory: Inventory;
  beforeAll(async () => {
    server = await startLocalIdServer();
    inventory = createInventory({ dataDir: '/unused', inventory: { kind: 'http', url: server.url } });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.splice(0);
    server.pairs.clear();
  });

  it('looks a local id up for its owner, records the pair, and then finds it', async () => {
    expect(await inventory.lookupLocalId('loc/1:x', signal, OWNER)).toBeUndefined();
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc/1:x', signal });
    expect(await inventory.lookupLocalId('loc/1:x', signal, OWNER)).toBe(A);
    expect(await inventory.lookupLocalId('loc/1:x', signal, OTHER_OWNER)).toBeUndefined();
    const [get, post] = server.requests;
    expect(`${get!.method} ${get!.url}`).toBe(
      'GET /inventory/primary/ark%3A%2F13030%2Fj2owner/loc%2F1%3Ax?t=json',
    );
    expect(`${post!.method} ${post!.url}`).toBe(
      'POST /inventory/primary/ark%3A%2F13030%2Fm5aaaa/ark%3A%2F13030%2Fj2owner/loc%2F1%3Ax?t=xml',
    );
    expect(post!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(post!.body).toBe('');
    expect(server.pairs.get(`${OWNER}\nloc/1:x`)).toBe(A);
  });

  it('recording a pair again is a no-op; a local id of another object is a conflict', async () => {
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc-2', signal });
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc-2', signal });
    const err: unknown = await inventory.bindLocalId!({
      ark: B,
      owner: OWNER,
      localId: 'loc-2',
      signal,
    }).catch((e: unknown) => e);
    expect(isOutputError(err, 'IDENTIFIER_CONFLICT')).toBe(true);
    expect((err as Error).message).toMatch(
      /local id "loc-2" of owner ark:\/13030\/j2owner already names another object/,
    );
    expect(server.pairs.get(`${OWNER}\nloc-2`)).toBe(A);
  });

  it('records a pair again when the connection drops (up to 3 more times)', async () => {
    server.dropNext(2);
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc-3', signal });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
    expect(server.pairs.get(`${OWNER}\nloc-3`)).toBe(A);
  });

  it('fails clearly when the service is down or the profile names no owner', async () => {
    const down = createInventory({
      dataDir: '/unused',
      inventory: { kind: 'http', url: `http://127.0.0.1:${await closedPort()}/inventory` },
    });
    const err: unknown = await down.lookupLocalId('loc-4', signal, OWNER).catch((e: unknown) => e);
    expect(isOutputError(err, 'INVENTORY_FAILED') && err.retryable).toBe(true);
    await expect(inventory.lookupLocalId('loc-4', signal)).rejects.toThrow(
      /the profile names no Owner, and Merritt's inventory keeps local ids per owner/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('the embedded inventory answers local ids with the same semantics', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mrtq-localid-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('scopes local ids by owner, refuses a second object, and keeps records made without an owner', async () => {
    const inventory = createLocalInventory(dataDir);
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc-1', signal });
    await inventory.bindLocalId!({ ark: A, owner: OWNER, localId: 'loc-1', signal });
    expect(await inventory.lookupLocalId('loc-1', signal, OWNER)).toBe(A);
    expect(await inventory.lookupLocalId('loc-1', signal, OTHER_OWNER)).toBeUndefined();
    expect(await inventory.lookupLocalId('loc-1', signal)).toBeUndefined();
    await expect(inventory.bindLocalId!({ ark: B, owner: OWNER, localId: 'loc-1', signal })).rejects.toThrow(
      `local id "loc-1" of owner ${OWNER} already names ${A}; it cannot also name ${B}`,
    );
    // Another owner may use the same local id for its own object.
    await inventory.bindLocalId!({ ark: B, owner: OTHER_OWNER, localId: 'loc-1', signal });
    expect(await inventory.lookupLocalId('loc-1', signal, OTHER_OWNER)).toBe(B);
    // Recording the stored versions (no owner known there) does not claim the local id again.
    await inventory.record({ ark: B, version: 1, manifestUrl: 'file:///b1', localId: 'loc-1', signal });
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///a1', localId: 'loc-1', signal });
    expect(await inventory.lookupLocalId('loc-1', signal)).toBeUndefined();
    // A record made without an owner is found without one, as before.
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///a1', localId: 'loc-9', signal });
    expect(await inventory.lookupLocalId('loc-9', signal)).toBe(A);
  });
});

describe('processing asks the local-id API before minting and records the pair (merritt-protocols.md §3)', () => {
  let server: LocalIdServer;
  let root: string;
  beforeAll(async () => {
    server = await startLocalIdServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    server.requests.splice(0);
    root = await mkdtemp(join(tmpdir(), 'mrtq-localid-process-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('mints once for a new local id, finds it for the next job, and skips (:unas)', async () => {
    const queue = queueContext(await chroot.connect());
    await ensureQueueTree(queue.zk);
    const settings = { ...outputSettings(root), inventory: { kind: 'http' as const, url: server.url } };
    const profile: Profile = {
      name: 'demo_profile',
      collection: 'demo',
      priority: 5,
      notifications: [],
      responseType: 'json',
      owner: OWNER,
    };
    const local = createMinter(settings);
    const mints: string[] = [];
    const locksSeen: (string | undefined)[] = [];
    const minter = {
      mint: async (s: AbortSignal) => {
        locksSeen.push((await queue.zk.exists(localIdLockPath('loc-p', OWNER)))?.ephemeralOwner);
        return mints[mints.push(await local.mint(s)) - 1]!;
      },
    };
    const inventory = createInventory(settings);
    const step = createProcessStep({ settings, minter, inventory, queue, profileOf: () => profile });
    const log = pino({ level: 'silent' });
    const run = async (jid: string, localIdentifier: string) => {
      const job = jobRecord(jid);
      await prepareWorkDir(workDirFor(settings, job), { 'a.txt': jid }, { localIdentifier });
      return (await step({ job, signal, log }))!.identifiers!.primary_id;
    };
    const first = await run('jid0000000101', 'loc-p');
    expect(mints).toEqual([first]);
    expect(locksSeen).toEqual([queue.zk.sessionId]);
    expect(server.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET /inventory/primary/ark%3A%2F13030%2Fj2owner/loc-p',
      `POST /inventory/primary/${encodeURIComponent(first)}/ark%3A%2F13030%2Fj2owner/loc-p`,
    ]);
    expect(await run('jid0000000102', 'loc-p')).toBe(first);
    expect(mints).toHaveLength(1);
    server.requests.splice(0);
    await run('jid0000000103', '(:unas)');
    expect(server.requests).toHaveLength(0);
    expect(mints).toHaveLength(2);
    expect(await queue.zk.exists(localIdLockPath('loc-p', OWNER))).toBeUndefined();
  });
});
