import { readdir, readFile } from '../../fs/calls.js';
import { join } from 'node:path';
import { objectDirName } from '../../workdir/files.js';
import { parseStorageManifest, type ManifestEntry } from '../../formats/storage-manifest.js';

/**
 * The layout of the local store on disk, `<dataDir>/store/<ark with : and / as _>/v<N>/…` with
 * `v<N>/manifest.checkm`: written by the local storage adapter (local.ts), read by it and by the
 * access step, which assembles an object's files from the same store.
 */

export const MANIFEST_NAME = 'manifest.checkm';
const VERSION = /^v(\d+)$/;

/** The store's directory of an object. */
export const objectDir = (dataDir: string, ark: string): string => join(dataDir, 'store', objectDirName(ark));

/** Version numbers of an object, ascending ([] when it is not stored). */
export async function listVersions(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return versionsIn(names);
}

/** The version numbers among an object directory's names, ascending. */
export function versionsIn(names: readonly string[]): number[] {
  return names
    .map((name) => VERSION.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The entries of a stored version; [] when its manifest is missing (it then matches nothing). */
export async function readVersionEntries(dir: string, version: number): Promise<ManifestEntry[]> {
  try {
    return parseStorageManifest(await readFile(join(dir, `v${version}`, MANIFEST_NAME), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
