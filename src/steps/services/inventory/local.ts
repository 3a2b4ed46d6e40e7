import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readdir, rm, writeFile } from '../../fs/calls.js';
import { join } from 'node:path';
import type { Inventory, InventoryRecord, LocalIdPair } from './port.js';
import { OutputError } from '../../output-errors.js';
import { objectDirName, readJsonIfPresent, writeFileAtomic } from '../../workdir/files.js';
import { registerLocalRoot } from '../../fs/local-roots.js';

/**
 * The local default inventory, files under `<dataDir>/inventory/`:
 * - `objects/<ark with : and / as _>.json`: the ark, its local ids and its versions;
 * - `local-ids/<sha256 of the local id>/<sha256 of the owner>.json`: `{ localId, owner, ark }`,
 *   the local-id index scoped by owner, as Merritt's inventory keeps it (merritt-protocols.md §3);
 * - `local-ids/<sha256 of the local id>.json`: `{ localId, ark }`, local ids recorded without an
 *   owner (profiles that name none, and every record made before owners were kept).
 * Hashed, because local ids and owners are arbitrary strings and must not become paths.
 * Object files are rewritten atomically (temp + rename) by the one holder of
 * `/locks/inventory/<ark>`. Index entries are created once, atomically and exclusively (a
 * complete temp file hard-linked to its name), so two objects can never claim one local id.
 */

export interface InventoryVersion {
  version: number;
  manifestUrl: string;
  recordedAt: string;
}

export interface InventoryObject {
  ark: string;
  localIds: string[];
  versions: InventoryVersion[];
}

const objectFile = (dataDir: string, ark: string): string =>
  join(dataDir, 'inventory', 'objects', `${objectDirName(ark)}.json`);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The index entry of a local id: of an owner's local ids, or of those recorded without one. */
const localIdFile = (dataDir: string, localId: string, owner?: string): string =>
  owner === undefined
    ? join(dataDir, 'inventory', 'local-ids', `${sha256(localId)}.json`)
    : join(dataDir, 'inventory', 'local-ids', sha256(localId), `${sha256(owner)}.json`);

/** What the local inventory holds for an ark (undefined when nothing was recorded). */
export async function readInventoryObject(
  dataDir: string,
  ark: string,
): Promise<InventoryObject | undefined> {
  const object = (await readJsonIfPresent(objectFile(dataDir, ark))) as InventoryObject | undefined;
  if (object && object.ark !== ark) {
    throw new OutputError('IDENTIFIER_CONFLICT', `inventory file of ${ark} belongs to ${object.ark}`);
  }
  return object;
}

async function boundArk(dataDir: string, localId: string, owner?: string): Promise<string | undefined> {
  const file = localIdFile(dataDir, localId, owner);
  const entry = (await readJsonIfPresent(file)) as { ark?: unknown } | undefined;
  return typeof entry?.ark === 'string' ? entry.ark : undefined;
}

/** Whether some owner's entry binds `localId` to `ark` (processing recorded the pair with its owner). */
async function boundForAnOwner(dataDir: string, localId: string, ark: string): Promise<boolean> {
  const dir = join(dataDir, 'inventory', 'local-ids', sha256(localId));
  const names = await readdir(dir).catch(() => []);
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const entry = (await readJsonIfPresent(join(dir, name))) as { ark?: unknown } | undefined;
    if (entry?.ark === ark) return true;
  }
  return false;
}

/** Binds `localId` (of `owner`) to `ark` unless it is bound already; refuses a binding to another ark. */
async function bindLocalId(dataDir: string, localId: string, ark: string, owner?: string): Promise<void> {
  const file = localIdFile(dataDir, localId, owner);
  await mkdir(join(file, '..'), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify({ localId, ...(owner === undefined ? {} : { owner }), ark })}\n`);
  try {
    await link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(temp, { force: true });
  }
  const bound = await boundArk(dataDir, localId, owner);
  if (bound !== ark) {
    const of = owner === undefined ? '' : ` of owner ${owner}`;
    throw new OutputError(
      'IDENTIFIER_CONFLICT',
      `local id ${JSON.stringify(localId)}${of} already names ${bound}; it cannot also name ${ark}`,
    );
  }
}

/** The object with this version and local id added; undefined when it holds them already. */
function merged(object: InventoryObject, request: InventoryRecord, now: Date): InventoryObject | undefined {
  const known = object.versions.find((v) => v.version === request.version);
  const hasLocalId = !request.localId || object.localIds.includes(request.localId);
  if (known?.manifestUrl === request.manifestUrl && hasLocalId) return undefined;
  const versions = object.versions
    .filter((v) => v.version !== request.version)
    .concat({
      version: request.version,
      manifestUrl: request.manifestUrl,
      recordedAt: known?.recordedAt ?? now.toISOString(),
    })
    .sort((a, b) => a.version - b.version);
  const localIds = hasLocalId ? object.localIds : [...object.localIds, request.localId!];
  return { ark: object.ark, localIds, versions };
}

/** The local inventory under `<dataDir>/inventory`. */
export function createLocalInventory(dataDir: string, now: () => Date = () => new Date()): Inventory {
  void registerLocalRoot(join(dataDir, 'inventory'));
  return {
    async record(request: InventoryRecord): Promise<void> {
      request.signal.throwIfAborted();
      const file = objectFile(dataDir, request.ark);
      // The index first: a conflicting local id then leaves the object's record untouched. A
      // pair processing recorded with its owner is not recorded again without one.
      const { localId } = request;
      if (localId && !(await boundForAnOwner(dataDir, localId, request.ark)))
        await bindLocalId(dataDir, localId, request.ark);
      const current = (await readInventoryObject(dataDir, request.ark)) ?? {
        ark: request.ark,
        localIds: [],
        versions: [],
      };
      const next = merged(current, request, now());
      if (next) await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
    },
    async lookupLocalId(localId: string, signal: AbortSignal, owner?: string): Promise<string | undefined> {
      signal.throwIfAborted();
      return boundArk(dataDir, localId, owner);
    },
    async bindLocalId(pair: LocalIdPair): Promise<void> {
      pair.signal.throwIfAborted();
      await bindLocalId(dataDir, pair.localId, pair.ark, pair.owner);
    },
  };
}
