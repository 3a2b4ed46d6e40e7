import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerFormat, unpackContainer } from '../../../src/steps/formats/containers/containers.js';
import { decompressedStream } from '../../../src/steps/formats/containers/compressed.js';
import type { ContainerLimits } from '../../../src/config/ingest-settings.js';
import { ContainerError } from '../../../src/steps/intake-errors.js';
import { rawTar, renameInZip, tarOf, zipOf, type ArchiveEntry } from '../../support/archives.js';

const LIMITS: ContainerLimits = {
  maxEntries: 20,
  maxTotalBytes: 8 << 20,
  maxEntryBytes: 4 << 20,
  maxRatio: 50,
};
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const signal = () => new AbortController().signal;

const CONTENT: ArchiveEntry[] = [
  { name: 'a.txt', data: 'alpha' },
  { name: 'dir/sub/b.bin', data: Buffer.from([0, 1, 2, 3, 255]) },
];

describe('unpacking containers', () => {
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'intake-containers-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes the archive, unpacks it into a fresh directory, returns that directory and the result (or error). */
  async function unpack(archive: Buffer, name: string, limits = LIMITS) {
    n += 1;
    const path = join(dir, `${n}-${name}`);
    const dest = join(dir, `${n}-out`);
    await writeFile(path, archive);
    await mkdir(dest);
    const result = await unpackContainer(path, dest, limits, signal(), name).then(
      (files) => ({ files, error: undefined }),
      (error: unknown) => ({ files: undefined, error: error as ContainerError }),
    );
    return { dest, ...result };
  }

  async function expectContent(dest: string, files: { path: string; size: number }[] | undefined) {
    expect(files?.map((f) => f.path).sort()).toEqual(['a.txt', 'dir/sub/b.bin']);
    expect(await readFile(join(dest, 'a.txt'), 'utf8')).toBe('alpha');
    expect([...(await readFile(join(dest, 'dir/sub/b.bin')))]).toEqual([0, 1, 2, 3, 255]);
  }

  it('unpacks a zip with sizes and sha256 of every file', async () => {
    const { dest, files, error } = await unpack(await zipOf(CONTENT), 'c.zip');
    expect(error).toBeUndefined();
    await expectContent(dest, files);
    expect(files?.find((f) => f.path === 'a.txt')).toEqual({
      path: 'a.txt',
      size: 5,
      digest: { algorithm: 'sha256', value: sha256('alpha') },
    });
  });

  it('unpacks a tar.gz and a plain tar, recognised by content whatever the name', async () => {
    const gz = await unpack(await tarOf(CONTENT, join(dir, 'src-gz'), true), 'no-extension');
    expect(gz.error).toBeUndefined();
    await expectContent(gz.dest, gz.files);
    const plain = await unpack(await tarOf(CONTENT, join(dir, 'src-tar'), false), 'c.tar');
    await expectContent(plain.dest, plain.files);
  });

  it('refuses a zip entry that climbs out with ../ and writes nothing outside', async () => {
    const hostile = renameInZip(
      await zipOf([{ name: 'xx/evil.txt', data: 'evil' }]),
      'xx/evil.txt',
      '../evil.txt',
    );
    const { dest, error } = await unpack(hostile, 'evil.zip');
    expect(error).toBeInstanceOf(ContainerError);
    expect(error?.code).toBe('CONTAINER_INVALID');
    expect(error?.message).toMatch(/^container evil\.zip: .*\.\.\/evil\.txt/);
    expect(existsSync(join(dest, '..', 'evil.txt'))).toBe(false);
  });

  it('refuses a tar entry with a ../ path or an absolute path', async () => {
    const climbing = await unpack(rawTar('../evil.txt', 'evil'), 'evil.tar');
    expect(climbing.error?.code).toBe('CONTAINER_INVALID');
    expect(climbing.error?.message).toContain('entry "../evil.txt" is not allowed');
    const absolute = await unpack(rawTar('/tmp/evil.txt', 'evil'), 'abs.tar');
    expect(absolute.error?.message).toContain('absolute path');
  });

  it('refuses symbolic links in a zip and in a tar', async () => {
    const zip = await unpack(await zipOf([...CONTENT, { name: 'link', link: '/etc/passwd' }]), 'l.zip');
    expect(zip.error?.message).toBe(
      'container l.zip: entry "link" is a symbolic link; links are not allowed',
    );
    const tar = await unpack(
      await tarOf([{ name: 'out', link: '/etc' }], join(dir, 'src-link'), true),
      'l.tgz',
    );
    expect(tar.error?.message).toContain('entry "out" is a SymbolicLink');
    expect(await readdir(tar.dest)).toEqual([]);
  });

  it('refuses a zip bomb by its compression ratio before writing it', async () => {
    const bomb = await zipOf([{ name: 'zeros.bin', data: Buffer.alloc(3 << 20) }]);
    expect(bomb.length).toBeLessThan(20_000);
    const { dest, error } = await unpack(bomb, 'bomb.zip');
    expect(error?.code).toBe('CONTAINER_TOO_LARGE');
    expect(error?.message).toMatch(/entry "zeros\.bin" expands \d+ times, above the limit of 50/);
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses a gzip bomb in a tar.gz while streaming it', async () => {
    const bomb = await tarOf(
      [{ name: 'zeros.bin', data: Buffer.alloc(3 << 20) }],
      join(dir, 'src-bomb'),
      true,
    );
    const { error } = await unpack(bomb, 'bomb.tgz');
    expect(error?.code).toBe('CONTAINER_TOO_LARGE');
    expect(error?.message).toContain('(whole container)');
  });

  it('caps entries, entry size and total size', async () => {
    const many = await unpack(await zipOf(CONTENT), 'many.zip', { ...LIMITS, maxEntries: 1 });
    expect(many.error?.message).toBe('container many.zip: more than 1 entries');
    const big = await unpack(await zipOf(CONTENT), 'big.zip', { ...LIMITS, maxEntryBytes: 4 });
    expect(big.error?.message).toContain('entry "a.txt" is 5 bytes, the limit is 4');
    const total = await unpack(await tarOf(CONTENT, join(dir, 'src-total'), false), 't.tar', {
      ...LIMITS,
      maxTotalBytes: 7,
    });
    expect(total.error?.message).toContain('unpacked content exceeds the limit of 7 bytes');
  });

  it('refuses what is not a container, and an empty one', async () => {
    const text = await unpack(Buffer.from('just text'), 'notes.zip');
    expect(text.error?.message).toBe('container notes.zip: not a zip, tar, tar.gz, gz or bz2 file');
    const truncated = await unpack((await zipOf(CONTENT)).subarray(0, 60), 'cut.zip');
    expect(truncated.error?.code).toBe('CONTAINER_INVALID');
    const empty = await unpack(await zipOf([]), 'empty.zip');
    expect(empty.error?.message).toBe('container empty.zip: it holds no files');
  });

  it('recognises formats by their magic bytes', async () => {
    await writeFile(join(dir, 'x.bin'), await zipOf(CONTENT));
    expect(await containerFormat(join(dir, 'x.bin'))).toBe('zip');
    await writeFile(join(dir, 'y.bin'), 'plain');
    expect(await containerFormat(join(dir, 'y.bin'))).toBeUndefined();
  });

  /** bzip2 by Debian's bzip2, as a depositor's machine makes it. */
  const bzip2 = (data: Buffer): Buffer => execFileSync('bzip2', ['-c'], { input: data });

  it('a .gz of one file is that file, named as mrt-ingest names it (the .gz dropped)', async () => {
    const text = Buffer.from('one gzipped file\n'.repeat(100));
    const { dest, files, error } = await unpack(gzipSync(text), 'notes.txt.gz');
    expect(error).toBeUndefined();
    expect(files).toEqual([
      { path: 'notes.txt', size: text.length, digest: { algorithm: 'sha256', value: sha256(text) } },
    ]);
    expect(await readFile(join(dest, 'notes.txt'))).toEqual(text);
    // nothing but the object's file is left in the destination or beside it
    expect(await readdir(dest)).toEqual(['notes.txt']);
  });

  it('a .bz2 of a tar, a .tar.bz2 and a .bz2 of one file unpack as in mrt-ingest', async () => {
    const tar = await tarOf(CONTENT, join(dir, 'src-bz'), false);
    for (const name of ['c.tar.bz2', 'c.bz2']) {
      const unpacked = await unpack(bzip2(tar), name);
      expect(unpacked.error).toBeUndefined();
      await expectContent(unpacked.dest, unpacked.files);
    }
    const single = await unpack(bzip2(Buffer.from('alpha')), 'a.txt.bz2');
    expect(single.files?.map((f) => f.path)).toEqual(['a.txt']);
    expect(await readFile(join(single.dest, 'a.txt'), 'utf8')).toBe('alpha');
    expect(await containerFormat(join(dir, `${n}-a.txt.bz2`))).toBe('bzip2');
  });

  it('refuses a gzip or bzip2 bomb of one file, and a corrupt bz2, writing nothing', async () => {
    const zeros = Buffer.alloc(6 << 20);
    for (const [archive, name] of [
      [gzipSync(zeros), 'zeros.bin.gz'],
      [bzip2(zeros), 'zeros.bin.bz2'],
    ] as const) {
      const { dest, error } = await unpack(archive, name);
      expect(error?.code).toBe('CONTAINER_TOO_LARGE');
      expect(await readdir(dest)).toEqual([]);
    }
    const corrupt = Buffer.concat([Buffer.from('BZh9'), Buffer.alloc(200, 7)]);
    const { dest, error } = await unpack(corrupt, 'bad.bz2');
    expect(error?.code).toBe('CONTAINER_INVALID');
    expect(await readdir(dest)).toEqual([]);
  });

  it('a corrupt bz2 or gz that fails before its reader starts fails the read, never the process', async () => {
    const garbage = Buffer.concat([Buffer.from('BZh9'), Buffer.alloc(200, 7)]);
    for (const [format, data] of [
      ['bzip2', garbage],
      ['gzip', Buffer.concat([gzipSync(Buffer.from('x')).subarray(0, 10), Buffer.alloc(200, 7)])],
    ] as const) {
      const path = join(dir, `late-reader.${format}`);
      await writeFile(path, data);
      const stream = decompressedStream(path, format);
      // The decoder fails while the reader is still busy elsewhere (making its directory).
      await new Promise((resolve) => stream.once('close', resolve));
      const read = async (): Promise<number> => {
        let n = 0;
        for await (const chunk of stream) n += (chunk as Buffer).length;
        return n;
      };
      await expect(read()).rejects.toThrow();
    }
  });
});
