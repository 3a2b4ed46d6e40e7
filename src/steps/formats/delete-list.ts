import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreTarget } from '../services/handoff/handoff.js';

/**
 * The delete list of an update (merritt-protocols.md §1): the depositor puts `mrt-delete.txt` in
 * the object, one path per line; Merritt's ingest moves it from `producer/` to `system/`
 * (`HandlerDescribe`, before the manifest is written) and hands its lines to storage in the
 * store node's `delete`, each prefixed with `producer/` when that prefix is missing and ended by
 * a newline (`HandlerTransfer.processDeleteFile`).
 */

/** Where Merritt's ingest keeps the list once it has moved it. */
export const SYSTEM_DELETE_LIST = 'system/mrt-delete.txt';
/** Where the depositor's object carries it. */
export const PRODUCER_DELETE_LIST = 'producer/mrt-delete.txt';

const PRODUCER = 'producer/';

/**
 * The store node's `delete` exactly as `HandlerTransfer.processDeleteFile` makes it: every line
 * that is not empty (`\n`, `\r\n` or `\r` end a line; blanks are kept), `producer/` prepended
 * when missing, each followed by `\n`.
 */
export function deleteField(text: string): string {
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line !== '');
  return lines.map((line) => `${line.startsWith(PRODUCER) ? line : `${PRODUCER}${line}`}\n`).join('');
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * `HandlerDescribe` before the manifest is written: on an update, the depositor's
 * `producer/mrt-delete.txt` moves to `system/mrt-delete.txt` (an add keeps it as an ordinary
 * file). Returns `files` with the list under its new path. Safe to re-run: once moved, the
 * file is found in `system/`.
 */
export async function moveDeleteList<T extends { path: string }>(
  workDir: string,
  target: Pick<StoreTarget, 'action'>,
  files: readonly T[],
): Promise<T[]> {
  if (target.action !== 'update') return [...files];
  try {
    await mkdir(join(workDir, 'system'), { recursive: true });
    await rename(join(workDir, PRODUCER_DELETE_LIST), join(workDir, SYSTEM_DELETE_LIST));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return files.map((file) =>
    file.path === PRODUCER_DELETE_LIST ? { ...file, path: SYSTEM_DELETE_LIST } : file,
  );
}

/**
 * The store node's `delete` for a job's working directory: `""` for an add (Merritt reads the
 * list only on update) and for an update without a list; else {@link deleteField} of
 * `system/mrt-delete.txt` (see {@link moveDeleteList}).
 */
export async function readDeleteList(workDir: string, target: Pick<StoreTarget, 'action'>): Promise<string> {
  if (target.action !== 'update') return '';
  const text = await readIfPresent(join(workDir, SYSTEM_DELETE_LIST));
  return text === undefined ? '' : deleteField(text);
}

/** The paths of a store node's `delete`, as mrt-store reads them (trimmed, split on line breaks). */
export function storeNodeDeletes(deleteField: string): string[] {
  return [
    ...new Set(
      deleteField
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    ),
  ];
}
