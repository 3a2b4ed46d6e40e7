import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInventory } from '../../../src/steps/adapters.js';
import { createLocalInventory, readInventoryObject } from '../../../src/steps/services/inventory/local.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { startHttpRecorder, type HttpRecorder } from '../../support/http-recorder.js';

const signal = new AbortController().signal;
const A = 'ark:/99999/fk4inva';
const B = 'ark:/99999/fk4invb';

describe('the local inventory', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mrtq-inventory-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('records versions and answers which ark a local id names', async () => {
    const inventory = createInventory({ dataDir, inventory: { kind: 'local' } });
    expect(await inventory.lookupLocalId('loc-1', signal)).toBeUndefined();
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///m1', localId: 'loc-1', signal });
    await inventory.record({ ark: A, version: 2, manifestUrl: 'file:///m2', localId: 'loc-1', signal });
    expect(await inventory.lookupLocalId('loc-1', signal)).toBe(A);
    const object = await readInventoryObject(dataDir, A);
    expect(object).toMatchObject({ ark: A, localIds: ['loc-1'] });
    expect(object!.versions.map((v) => [v.version, v.manifestUrl])).toEqual([
      [1, 'file:///m1'],
      [2, 'file:///m2'],
    ]);
  });

  it('is idempotent: recording the same version again changes nothing on disk', async () => {
    let clock = new Date('2026-01-01T00:00:00Z');
    const inventory = createLocalInventory(dataDir, () => clock);
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///m1', localId: 'loc-1', signal });
    const file = join(dataDir, 'inventory', 'objects', 'ark__99999_fk4inva.json');
    const before = { text: await readFile(file, 'utf8'), mtime: (await stat(file)).mtimeMs };
    clock = new Date('2026-02-01T00:00:00Z');
    await new Promise((r) => setTimeout(r, 20));
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///m1', localId: 'loc-1', signal });
    expect({ text: await readFile(file, 'utf8'), mtime: (await stat(file)).mtimeMs }).toEqual(before);
    // A second local id is added; the version keeps its first recording time.
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///m1', localId: 'loc-2', signal });
    const object = await readInventoryObject(dataDir, A);
    expect(object!.localIds).toEqual(['loc-1', 'loc-2']);
    expect(object!.versions).toEqual([
      { version: 1, manifestUrl: 'file:///m1', recordedAt: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('refuses a local id that already names another object, and records nothing for it', async () => {
    const inventory = createInventory({ dataDir, inventory: { kind: 'local' } });
    await inventory.record({ ark: A, version: 1, manifestUrl: 'file:///m1', localId: 'loc-1', signal });
    const err: unknown = await inventory
      .record({ ark: B, version: 1, manifestUrl: 'file:///b1', localId: 'loc-1', signal })
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'IDENTIFIER_CONFLICT')).toBe(true);
    expect((err as Error).message).toBe(`local id "loc-1" already names ${A}; it cannot also name ${B}`);
    expect(await readInventoryObject(dataDir, B)).toBeUndefined();
  });

  it('binds a contested new local id to exactly one of two objects recorded at once', async () => {
    const inventory = createInventory({ dataDir, inventory: { kind: 'local' } });
    const outcomes = await Promise.allSettled(
      [A, B].map((ark) =>
        inventory.record({ ark, version: 1, manifestUrl: `file:///${ark}`, localId: 'contested', signal }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const winner = outcomes[0]!.status === 'fulfilled' ? A : B;
    expect(await inventory.lookupLocalId('contested', signal)).toBe(winner);
  });

  it('keeps arbitrary local ids out of its paths', async () => {
    const inventory = createInventory({ dataDir, inventory: { kind: 'local' } });
    await inventory.record({
      ark: A,
      version: 1,
      manifestUrl: 'file:///m1',
      localId: '../../etc/passwd',
      signal,
    });
    expect(await inventory.lookupLocalId('../../etc/passwd', signal)).toBe(A);
  });
});

describe('the HTTP inventory client', () => {
  let server: HttpRecorder;
  beforeAll(async () => {
    server = await startHttpRecorder();
  });
  afterAll(() => server.close());
  const inventory = () =>
    createInventory({ dataDir: '/unused', inventory: { kind: 'http', url: `${server.url}/inv/` } });

  it('POSTs the record as JSON', async () => {
    server.script({ status: 201 });
    await inventory().record({ ark: A, version: 2, manifestUrl: 'http://s/m2', localId: 'loc-1', signal });
    const request = server.requests.at(-1)!;
    expect([request.method, request.url]).toEqual(['POST', '/inv/objects']);
    expect(JSON.parse(request.body)).toEqual({
      ark: A,
      version: 2,
      manifestUrl: 'http://s/m2',
      localId: 'loc-1',
    });
  });

  it("looks local ids up in the owner's local ids: an ark, unknown, or an error naming the answer", async () => {
    const state = (exists: boolean, ark?: string) =>
      JSON.stringify({
        'invloc:localContainerState': { 'invloc:exists': exists, 'invloc:primaryIdentifier': ark },
      });
    server.script(
      { status: 200, body: state(true, A) },
      { status: 200, body: state(false) },
      { status: 500, body: 'db down' },
    );
    const owner = 'ark:/13030/j2owner';
    expect(await inventory().lookupLocalId('loc/1 x', signal, owner)).toBe(A);
    expect(server.requests.at(-1)!.url).toBe('/inv/primary/ark%3A%2F13030%2Fj2owner/loc%2F1+x?t=json');
    expect(await inventory().lookupLocalId('nope', signal, owner)).toBeUndefined();
    await expect(inventory().lookupLocalId('loc-1', signal, owner)).rejects.toThrow(
      /answered 500 "db down" to looking up local id "loc-1"/,
    );
  });

  it('turns a 409 into an identifier conflict', async () => {
    server.script({ status: 409, body: 'loc-1 belongs to ark:/99999/other' });
    const err: unknown = await inventory()
      .record({ ark: A, version: 1, manifestUrl: 'x', localId: 'loc-1', signal })
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'IDENTIFIER_CONFLICT')).toBe(true);
  });
});
