import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { create as createTar, Header } from 'tar';
import yazl from 'yazl';

/** One entry of a test archive: a file's content, or a symlink target. */
export type ArchiveEntry =
  { name: string; data: Buffer | string; mode?: number } | { name: string; link: string };

/** A zip (yazl) of the entries, compressed; a symlink is a file with mode 0o120777 holding its target. */
export function zipOf(entries: ArchiveEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    if ('link' in entry) zip.addBuffer(Buffer.from(entry.link), entry.name, { mode: 0o120777 });
    else zip.addBuffer(Buffer.from(entry.data), entry.name, { mode: entry.mode ?? 0o100644, compress: true });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/**
 * yazl refuses `..` names, as it should; a hostile zip is made by renaming an entry in the
 * bytes (local header and central directory) to a name of the same length.
 */
export function renameInZip(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('renameInZip needs names of the same length');
  const out = Buffer.from(zip);
  for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + 1)) out.write(to, at, 'latin1');
  return out;
}

/** A tar (gzipped when asked) of the entries, made by `tar` from real files in `scratch`. */
export async function tarOf(entries: ArchiveEntry[], scratch: string, gzip: boolean): Promise<Buffer> {
  for (const entry of entries) {
    const path = join(scratch, entry.name);
    await mkdir(dirname(path), { recursive: true });
    if ('link' in entry) await symlink(entry.link, path);
    else await writeFile(path, entry.data);
  }
  const chunks: Buffer[] = [];
  const stream = createTar(
    { cwd: scratch, gzip, portable: true },
    entries.map((e) => e.name),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A plain tar with one file entry whose header says `path` verbatim (tar's writer would clean it). */
export function rawTar(path: string, data: string): Buffer {
  const body = Buffer.from(data);
  const header = new Header({ path, mode: 0o644, size: body.length, mtime: new Date(0), type: 'File' });
  header.encode();
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return Buffer.concat([header.block as Buffer, padded, Buffer.alloc(1024)]);
}
