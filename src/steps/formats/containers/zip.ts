import { mkdir } from 'node:fs/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { entryPath, invalid, writeEntry, type UnpackContext, type UnpackedFile } from './entry.js';
import { isIntakeError } from '../../intake-errors.js';
import { joinInside } from '../../workdir/safe-path.js';

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** The next entry, or undefined at the end; yauzl's own refusals (`../` names…) reject. */
function nextEntry(zip: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
    };
    const onEntry = (entry: Entry): void => (done(), resolve(entry));
    const onEnd = (): void => (done(), resolve(undefined));
    const onError = (err: Error): void => (done(), reject(err));
    zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zip.readEntry();
  });
}

/** Host systems whose zips keep a Unix mode in the external attributes (Unix, OS X). */
const UNIX_HOSTS = new Set([3, 19]);

/** Unix file type from the entry's external attributes (0 when the zip was not made on Unix). */
function fileType(entry: Entry): number {
  if (!UNIX_HOSTS.has(entry.versionMadeBy >>> 8)) return 0;
  return ((entry.externalFileAttributes >>> 16) & S_IFMT) >>> 0;
}

async function unpackEntry(
  ctx: UnpackContext,
  zip: ZipFile,
  entry: Entry,
): Promise<UnpackedFile | undefined> {
  ctx.budget.entry();
  const path = entryPath(ctx, entry.fileName);
  const type = fileType(entry);
  if (entry.fileName.endsWith('/') || type === S_IFDIR) {
    await mkdir(joinInside(ctx.dest, path), { recursive: true });
    return undefined;
  }
  if (type === S_IFLNK)
    throw invalid(ctx, `entry "${entry.fileName}" is a symbolic link; links are not allowed`);
  if (type !== 0 && type !== S_IFREG) throw invalid(ctx, `entry "${entry.fileName}" is not a regular file`);
  ctx.budget.declared(path, entry.uncompressedSize, entry.compressedSize);
  const stream = await zip.openReadStreamPromise(entry);
  return writeEntry(ctx, path, stream, entry.compressedSize);
}

/**
 * Unpacks a zip entry by entry (yauzl, lazily, entry sizes validated against the bytes read),
 * refusing links, unsafe names and anything over the budget before or while it is written.
 */
export async function unpackZip(ctx: UnpackContext): Promise<UnpackedFile[]> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(ctx.archive, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
    });
  } catch (err) {
    throw invalid(ctx, `not a readable zip (${(err as Error).message})`, err);
  }
  try {
    const files: UnpackedFile[] = [];
    for (;;) {
      ctx.signal.throwIfAborted();
      const entry = await nextEntry(zip);
      if (!entry) return files;
      const file = await unpackEntry(ctx, zip, entry);
      if (file) files.push(file);
    }
  } catch (err) {
    ctx.signal.throwIfAborted();
    if (isIntakeError(err) || (err as { syscall?: string }).syscall) throw err;
    throw invalid(ctx, (err as Error).message, err);
  } finally {
    if (zip.isOpen) zip.close();
  }
}
