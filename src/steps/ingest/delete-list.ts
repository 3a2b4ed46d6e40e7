import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreTarget } from './handoff.js';

/**
 * The delete list of an update (merritt-protocols.md §1): the depositor puts `mrt-delete.txt` in
 * the object, one path per line; Merritt's ingest moves it from `producer/` to `system/`
 * (`HandlerDescribe`) and hands its lines to storage in the store node's `delete`, each prefixed
 * with `producer/` when that prefix is missing (`HandlerTransfer.processDeleteFile`).
 */

/** Where Merritt's ingest keeps the list once it has moved it. */
export const SYSTEM_DELETE_LIST = 'system/mrt-delete.txt';
/** Where the depositor's object carries it. */
export const PRODUCER_DELETE_LIST = 'producer/mrt-delete.txt';

const PRODUCER = 'producer/';

/**
 * The paths a delete list names: one per line (`\n`, `\r\n` or `\r`), blank lines skipped,
 * surrounding blanks trimmed, `producer/` prepended when missing, each path once.
 */
export function parseDeleteList(text: string): string[] {
  const paths = text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => (line.startsWith(PRODUCER) ? line : `${PRODUCER}${line}`));
  return [...new Set(paths)];
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
 * The delete list of a job's working directory for the store node: `[]` for an add (Merritt
 * reads the list only on update) and for an update without a list; else the paths of
 * `system/mrt-delete.txt`, or of `producer/mrt-delete.txt` where it has not been moved.
 */
export async function readDeleteList(
  workDir: string,
  target: Pick<StoreTarget, 'action'>,
): Promise<string[]> {
  if (target.action !== 'update') return [];
  const text =
    (await readIfPresent(join(workDir, SYSTEM_DELETE_LIST))) ??
    (await readIfPresent(join(workDir, PRODUCER_DELETE_LIST)));
  return text === undefined ? [] : parseDeleteList(text);
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
