import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { dayOf, journalFiles } from './files.js';

/** Which lines of a journal a query wants. */
export interface JournalQuery<T> {
  /** Lines from this moment on (files of earlier days are not read). */
  since?: Date;
  until?: Date;
  /**
   * Text every wanted line contains (an item id, a name): lines without it are not parsed, so a
   * query for one job reads a day's file at the speed of the disk, not of JSON.parse.
   */
  contains?: string;
  /** The lines wanted, once parsed. */
  where?: (entry: T) => boolean;
  /** The most recent this many (default all). */
  limit?: number;
}

/** What a journal line has at least: when it was written. */
export interface Timed {
  at: string;
}

/** A line that is not JSON (cut by a crash, edited by hand) is passed over, counted. */
export interface JournalRead<T> {
  entries: T[];
  /** Lines that could not be read. */
  unreadable: number;
  /** Files read. */
  files: number;
  /** True when more lines matched than `limit`: the oldest were left out. */
  truncated: boolean;
}

const byTime = (a: Timed, b: Timed): number => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0);

/**
 * Reads the lines of `kind` in `dirs` (the records folders of every host that writes them, or one
 * folder they share) that match `query`, merged in time order: the view of all engines' journals
 * together. Only files of the days the query covers are opened.
 */
export async function readJournal<T extends Timed>(
  dirs: readonly string[],
  kind: string,
  query: JournalQuery<T> = {},
): Promise<JournalRead<T>> {
  const fromDay = query.since ? dayOf(query.since) : '';
  const toDay = query.until ? dayOf(query.until) : '9999';
  const sinceIso = query.since?.toISOString();
  const untilIso = query.until?.toISOString();
  const files = (await Promise.all(dirs.map((dir) => journalFiles(dir, kind))))
    .flat()
    .filter((file) => file.day >= fromDay && file.day <= toDay);
  let entries: T[] = [];
  let unreadable = 0;
  let dropped = false;
  const limit = query.limit ?? Infinity;
  // Memory stays within twice the limit: the oldest are let go as the newest come.
  const trim = (): void => {
    entries.sort(byTime);
    entries = entries.slice(entries.length - limit);
    dropped = true;
  };
  for (const file of files) {
    const lines = createInterface({ input: createReadStream(file.path), crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line === '' || (query.contains !== undefined && !line.includes(query.contains))) continue;
        let entry: T;
        try {
          entry = JSON.parse(line) as T;
        } catch {
          unreadable += 1;
          continue;
        }
        if (typeof entry?.at !== 'string') {
          unreadable += 1;
          continue;
        }
        if (sinceIso !== undefined && entry.at < sinceIso) continue;
        if (untilIso !== undefined && entry.at > untilIso) continue;
        if (query.where && !query.where(entry)) continue;
        entries.push(entry);
        if (entries.length >= 2 * limit) trim();
      }
    } catch (err) {
      // A file removed by the retention sweep while it was read: what was read stands.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  entries.sort(byTime);
  const truncated = dropped || entries.length > limit;
  if (entries.length > limit) entries = entries.slice(entries.length - limit);
  return { entries, unreadable, files: files.length, truncated };
}
