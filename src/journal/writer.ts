import { join } from 'node:path';
import type { Logger } from 'pino';
import sonicBoom, { type SonicBoom } from 'sonic-boom';

// A CommonJS module: its class is the default export at run time, a named one in its types.
const SonicBoomClass = sonicBoom as unknown as typeof SonicBoom;
import { dayOf, journalFileName, safeWriter, sweepJournal } from './files.js';

/** How a journal is written: its folder, its kind, the process writing it, and how it rotates. */
export interface JournalWriterOptions {
  /** The kind's folder (`<records>/audit`, `<records>/history`); made when absent. */
  dir: string;
  kind: string;
  /** This process (engine id, or `cli-<host>-<pid>`). */
  writer: string;
  /**
   * Each line on disk (the kernel's page cache) before `write` returns: the audit log, whose line
   * must not be lost with the process that acted. Otherwise lines are buffered and written at
   * least every `flushMs` (a crash loses at most that much of the history).
   */
  sync: boolean;
  /** A file of a day grows to this size, then the next part begins (default 256 MiB). */
  maxBytes?: number;
  /** Files of days older than this are removed, at start and at each new day; none when 0/undefined. */
  retentionMs?: number;
  flushMs?: number;
  log: Logger;
  now?: () => Date;
}

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_FLUSH_MS = 250;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Appends JSON lines to the journal files of one process (see files.ts): a new file each UTC day
 * and each `maxBytes`, old days removed after the retention. Written through sonic-boom, pino's
 * own writer (buffered appends; a stream a file). A disk that refuses a line (full, gone) is
 * logged, never thrown: the work the line records has been done, and the process must go on.
 */
export class JournalWriter {
  private readonly now: () => Date;
  private readonly maxBytes: number;
  private stream: SonicBoom | undefined;
  private day = '';
  private nextDayAt = 0;
  private part = 0;
  private bytes = 0;
  private failures = 0;
  /** Lines not yet handed to the stream (not `sync`): handed over once a loop turn. */
  private pending: string[] = [];
  /** Streams of files before the current one, writing what they hold before they close. */
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly options: JournalWriterOptions) {
    this.now = options.now ?? (() => new Date());
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Appends `entry` as one line. */
  write(entry: object): void {
    const line = `${JSON.stringify(entry)}\n`;
    try {
      const stream = this.streamFor(Buffer.byteLength(line));
      if (this.options.sync) {
        stream.write(line);
        return;
      }
      this.pending.push(line);
      if (this.pending.length === 1) setImmediate(this.handOver);
    } catch (err) {
      this.failed(err);
    }
  }

  /**
   * The lines written since the last hand-over, to the stream as one string. sonic-boom measures
   * the bytes of its whole unwritten buffer on every write (a string joined one line at a time,
   * flattened and counted again each time: about 5 KB allocated a line in the engine's history);
   * handed a loop turn's lines at once, it does that once a turn.
   */
  private readonly handOver = (): void => {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    try {
      this.stream?.write(text);
    } catch (err) {
      this.failed(err);
    }
  };

  /** Writes what is buffered and closes the file (and files before it still being written). */
  async close(): Promise<void> {
    this.handOver();
    if (this.stream) this.end(this.stream);
    this.stream = undefined;
    await Promise.all([...this.ending]);
  }

  private end(stream: SonicBoom): void {
    const ended: Promise<void> = endStream(stream).then(() => void this.ending.delete(ended));
    this.ending.add(ended);
  }

  private streamFor(lineBytes: number): SonicBoom {
    const nowMs = Date.now();
    if (this.stream && nowMs < this.nextDayAt && this.bytes + lineBytes <= this.maxBytes) {
      this.bytes += lineBytes;
      return this.stream;
    }
    const now = this.now();
    const day = dayOf(now);
    if (day !== this.day) {
      this.day = day;
      this.part = 0;
      this.nextDayAt = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
      this.sweep(now);
    } else if (this.stream) {
      this.part += 1; // the day's file is full
    }
    const file = join(
      this.options.dir,
      journalFileName(this.options.kind, day, safeWriter(this.options.writer), this.part),
    );
    this.bytes = lineBytes;
    if (this.stream) {
      // The lines written so far belong to the file before: its stream ends there, writing what it
      // holds, and the next file has a stream of its own (sonic-boom's reopen would carry lines it
      // has not written yet into the new file).
      this.handOver();
      this.end(this.stream);
      this.stream = undefined;
    }
    const sync = this.options.sync;
    const stream = new SonicBoomClass({
      dest: file,
      mkdir: true,
      append: true,
      sync,
      ...(sync ? {} : { minLength: 8192, periodicFlush: this.options.flushMs ?? DEFAULT_FLUSH_MS }),
    });
    stream.on('error', (err) => this.failed(err));
    this.stream = stream;
    return stream;
  }

  private sweep(now: Date): void {
    const { retentionMs, dir, kind, log } = this.options;
    if (!retentionMs) return;
    sweepJournal(dir, kind, retentionMs, now).then(
      (removed) => removed > 0 && log.info({ kind, removed }, 'journal files past their retention removed'),
      (err: unknown) => log.warn({ err, kind }, 'journal files past their retention could not be removed'),
    );
  }

  private failed(err: unknown): void {
    this.failures += 1;
    // The first of a run of failures, then one in a thousand: a full disk must not flood the log.
    if (this.failures === 1 || this.failures % 1000 === 0)
      this.options.log.error(
        { err, kind: this.options.kind, failures: this.failures },
        'journal line not written',
      );
  }
}

/** Ends `stream` (what it holds written first); resolves once it is closed or has failed. */
function endStream(stream: SonicBoom): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
    stream.end();
  });
}
