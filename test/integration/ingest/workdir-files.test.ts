import { link, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeParentDirs, openFresh, writeFileFresh } from '../../../src/steps/workdir/files.js';

describe('the working directory file helpers, on a real file system', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-files-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('makeParentDirs with a root makes it and every directory below it that holds a file, and takes those already there', async () => {
    const top = join(root, 'v1');
    await makeParentDirs(
      [join(top, 'producer', 'files', 'a.bin'), join(top, 'producer', 'b.txt'), join(top, 'system', 'c.xml')],
      top,
    );
    expect((await readdir(top)).sort()).toEqual(['producer', 'system']);
    expect(await readdir(join(top, 'producer'))).toEqual(['files']);
    // Again, with one directory there and one new: no error, the new one made.
    await makeParentDirs(
      [join(top, 'producer', 'files', 'a.bin'), join(top, 'producer', 'deep', 'er', 'd')],
      top,
    );
    expect((await stat(join(top, 'producer', 'deep', 'er'))).isDirectory()).toBe(true);
  });

  it('makeParentDirs refuses a file in the way of a directory', async () => {
    const top = join(root, 'v1');
    await mkdir(top);
    await writeFile(join(top, 'producer'), 'a file, not a directory');
    const refused = await makeParentDirs([join(top, 'producer', 'files', 'a.bin')], top).then(
      () => undefined,
      (err: unknown) => err as NodeJS.ErrnoException,
    );
    expect(['EEXIST', 'ENOTDIR']).toContain(refused?.code);
  });

  it('writeFileFresh makes the directory, and replaces a file without changing the bytes of a hard link to it', async () => {
    const path = join(root, 'work', 'system', 'mrt-erc.txt');
    await writeFileFresh(path, 'first\n');
    // The store links what it stores: the stored copy must keep its bytes when processing runs again.
    const stored = join(root, 'stored-erc.txt');
    await link(path, stored);
    await writeFileFresh(path, 'second, longer\n', { durable: true });
    expect(await readFile(path, 'utf8')).toBe('second, longer\n');
    expect(await readFile(stored, 'utf8')).toBe('first\n');
    expect((await stat(stored)).nlink).toBe(1);
  });

  for (const offLoop of [false, true]) {
    it(`openFresh${offLoop ? ' off the loop' : ''} replaces a file left by an earlier run, and a hard link to it keeps its bytes`, async () => {
      const path = join(root, 'producer-a.bin');
      await writeFile(path, 'an earlier run');
      const kept = join(root, 'stored-a.bin');
      await link(path, kept);
      const handle = await openFresh(path, { offLoop });
      await handle.writeFile('this run');
      await handle.close();
      expect(await readFile(path, 'utf8')).toBe('this run');
      expect(await readFile(kept, 'utf8')).toBe('an earlier run');
    });
  }
});
