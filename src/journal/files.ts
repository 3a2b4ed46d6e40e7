import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The files of a journal (issue 35): a folder per kind (`audit`, `history`) under the records
 * directory, one file per writing process and UTC day, `<kind>-<YYYY-MM-DD>-<writer>[.<part>].jsonl`.
 * A writer is one process (engine id or `cli-<host>-<pid>`), so on a directory shared by many
 * hosts (as Merritt shares its ingest folders over NFS) no two processes append to one file.
 */

export const JOURNAL_EXT = '.jsonl';

const NAME = /^([a-z]+)-(\d{4}-\d{2}-\d{2})-(.+?)(?:\.(\d+))?\.jsonl$/;

export interface JournalFile {
  path: string;
  kind: string;
  /** UTC day of the lines it holds, `YYYY-MM-DD`. */
  day: string;
  writer: string;
  part: number;
}

/** `YYYY-MM-DD` of `at`, in UTC. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

export function journalFileName(kind: string, day: string, writer: string, part: number): string {
  return `${kind}-${day}-${writer}${part > 0 ? `.${part}` : ''}${JOURNAL_EXT}`;
}

/** A writer id safe in a file name (host names and engine ids are, but a CLI user may not be). */
export const safeWriter = (id: string): string => id.replace(/[^A-Za-z0-9_.@-]/g, '_');

/** The journal files of `kind` in `dir`, oldest day first; none when the folder is not there. */
export async function journalFiles(dir: string, kind: string): Promise<JournalFile[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const files: JournalFile[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (!match || match[1] !== kind) continue;
    files.push({
      path: join(dir, name),
      kind,
      day: match[2]!,
      writer: match[3]!,
      part: Number(match[4] ?? 0),
    });
  }
  return files.sort(
    (a, b) => a.day.localeCompare(b.day) || a.writer.localeCompare(b.writer) || a.part - b.part,
  );
}

/** Removes the files of days older than `retentionMs` before `now`; resolves with how many went. */
export async function sweepJournal(
  dir: string,
  kind: string,
  retentionMs: number,
  now: Date,
): Promise<number> {
  const oldest = dayOf(new Date(now.getTime() - retentionMs));
  const old = (await journalFiles(dir, kind)).filter((file) => file.day < oldest);
  await Promise.all(old.map((file) => rm(file.path, { force: true })));
  return old.length;
}
