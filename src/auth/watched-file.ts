import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/**
 * A file read once now and again whenever it changes (its inode, modification time or size), so
 * credentials are added or removed without a restart. Read now, a missing or malformed file
 * throws: a service refuses to start with it. Later, a malformed version (an editor half way
 * through writing) is reported once and the last good contents kept; a removed file reads as
 * `empty` (its credentials are withdrawn), also reported once.
 */
export class WatchedFile<T> {
  private seen: string;
  private value: T;

  constructor(
    private readonly path: string,
    private readonly parse: (text: string, source: string) => T,
    private readonly empty: T,
    private readonly report: (err: Error) => void,
  ) {
    this.seen = versionOf(statSync(path));
    this.value = parse(readFileSync(path, 'utf8'), path);
  }

  /** The contents as last read, without looking for a change. */
  get last(): T {
    return this.value;
  }

  /** The contents, read again first when the file changed. */
  async current(): Promise<T> {
    const info = await stat(this.path).catch((err: NodeJS.ErrnoException) => err);
    const version = info instanceof Error ? `missing:${info.code}` : versionOf(info);
    if (version === this.seen) return this.value;
    this.seen = version;
    if (info instanceof Error) {
      this.value = this.empty;
      this.report(new Error(`${this.path} cannot be read (${info.code}): none of its credentials is taken`));
      return this.value;
    }
    try {
      this.value = this.parse(await readFile(this.path, 'utf8'), this.path);
    } catch (err) {
      this.report(new Error(`${(err as Error).message}; its previous contents are still used`));
    }
    return this.value;
  }
}

function versionOf(info: Stats): string {
  return `${info.ino}:${info.mtimeMs}:${info.size}`;
}
