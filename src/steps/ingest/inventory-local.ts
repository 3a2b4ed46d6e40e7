import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Inventory, InventoryRecord } from './inventory.js';
import { OutputError } from './output-errors.js';
import { objectDirName, readJsonIfPresent, writeFileAtomic } from './output-files.js';

/**
 * The local default inventory, files under `<dataDir>/inventory/`:
 * - `objects/<ark with : and / as _>.json`: the ark, its local ids and its versions;
 * - `local-ids/<sha256 of the local id>.json`: `{ localId, ark }`, the local-id index (hashed,
 *   because local ids are arbitrary depositor strings and must not become paths).
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

const localIdFile = (dataDir: string, localId: string): string =>
  join(dataDir, 'inventory', 'local-ids', `${createHash('sha256').update(localId).digest('hex')}.json`);

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

async function boundArk(dataDir: string, localId: string): Promise<string | undefined> {
  const entry = (await readJsonIfPresent(localIdFile(dataDir, localId))) as { ark?: unknown } | undefined;
  return typeof entry?.ark === 'string' ? entry.ark : undefined;
}

/** Binds `localId` to `ark` unless it is bound already; refuses a binding to another ark. */
async function bindLocalId(dataDir: string, localId: string, ark: string): Promise<void> {
  const file = localIdFile(dataDir, localId);
  await mkdir(join(file, '..'), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify({ localId, ark })}\n`);
  try {
    await link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(temp, { force: true });
  }
  const bound = await boundArk(dataDir, localId);
  if (bound !== ark) {
    throw new OutputError(
      'IDENTIFIER_CONFLICT',
      `local id ${JSON.stringify(localId)} already names ${bound}; it cannot also name ${ark}`,
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
  return {
    async record(request: InventoryRecord): Promise<void> {
      request.signal.throwIfAborted();
      const file = objectFile(dataDir, request.ark);
      // The index first: a conflicting local id then leaves the object's record untouched.
      if (request.localId) await bindLocalId(dataDir, request.localId, request.ark);
      const current = (await readInventoryObject(dataDir, request.ark)) ?? {
        ark: request.ark,
        localIds: [],
        versions: [],
      };
      const next = merged(current, request, now());
      if (next) await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
    },
    async lookupLocalId(localId: string, signal: AbortSignal): Promise<string | undefined> {
      signal.throwIfAborted();
      return boundArk(dataDir, localId);
    },
  };
}
