import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm as removeTree } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  link,
  mkdir,
  open,
  openOffLoop,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  statfs,
  unlink,
  writeFile,
} from '../../../src/steps/fs/calls.js';
import { INLINE_WRITE_BYTES, InlineFileHandle } from '../../../src/steps/fs/inline-handle.js';
import { isOnLocalRoot, registerLocalRoot } from '../../../src/steps/fs/local-roots.js';
import { createLocalInventory } from '../../../src/steps/services/inventory/local.js';
import { createLocalMinter } from '../../../src/steps/services/minter/local.js';
import { createLocalStorage } from '../../../src/steps/services/storage/local.js';

/** The error a promise rejects with (a call must reject, never throw at its caller). */
async function rejection(call: () => Promise<unknown>): Promise<NodeJS.ErrnoException | undefined> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (err) {
    throw new Error(`threw at the caller instead of rejecting: ${String(err)}`, { cause: err });
  }
  return promise.then(
    () => undefined,
    (err: unknown) => err as NodeJS.ErrnoException,
  );
}

describe('the steps file-system calls, inline below a local root and through the thread pool elsewhere', () => {
  let base: string;
  let local: string;
  let elsewhere: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'mrtq-calls-'));
    local = join(base, 'local');
    elsewhere = join(base, 'elsewhere');
    expect(await registerLocalRoot(local)).toBe(true);
    await mkdir(local);
    await mkdir(elsewhere);
  });
  afterEach(() => removeTree(base, { recursive: true, force: true }));

  it('finds a root on this disk local, before it exists, and only paths below it', () => {
    expect(isOnLocalRoot(local)).toBe(true);
    expect(isOnLocalRoot(join(local, 'a', 'b'))).toBe(true);
    expect(isOnLocalRoot(`${local}-sibling/a`)).toBe(false);
    expect(isOnLocalRoot(join(elsewhere, 'a'))).toBe(false);
  });

  it('the embedded store, inventory and minter register their folders, found local soon after', async () => {
    const dataDir = join(base, 'data');
    createLocalStorage(dataDir);
    createLocalInventory(dataDir);
    createLocalMinter(dataDir);
    const below = ['store', 'inventory', 'minter'].map((name) => join(dataDir, name, 'x'));
    await vi.waitFor(() => expect(below.map((path) => isOnLocalRoot(path))).toEqual([true, true, true]), {
      timeout: 10_000,
    });
    expect(isOnLocalRoot(join(dataDir, 'elsewhere', 'x'))).toBe(false);
  });

  it('leaves a root on a pseudo file system (procfs) on the thread pool', async () => {
    expect(await registerLocalRoot('/proc/self')).toBe(false);
    expect(isOnLocalRoot('/proc/self/status')).toBe(false);
  });

  it('makes a call below a local root at once, in the caller, and answers it as a promise', async () => {
    const dir = join(local, 'made');
    const made = mkdir(dir);
    expect(existsSync(dir)).toBe(true);
    await made;
    const handle = await open(join(local, 'f'), 'wx');
    expect(handle).toBeInstanceOf(InlineFileHandle);
    await handle.close();
    const pooled = await open(join(elsewhere, 'f'), 'wx');
    expect(pooled).not.toBeInstanceOf(InlineFileHandle);
    await pooled.close();
  });

  it('openOffLoop creates as open does, and hands back an inline handle below a local root', async () => {
    // Which thread made the create is not observable without a race; its answers and handle are.
    const path = join(local, 'off.bin');
    const handle = await openOffLoop(path, 'wx');
    expect(handle).toBeInstanceOf(InlineFileHandle);
    await handle.writeFile('made off the loop');
    await handle.close();
    expect(readFileSync(path, 'utf8')).toBe('made off the loop');
    expect((await rejection(() => openOffLoop(path, 'wx')))?.code).toBe('EEXIST');
    expect((await rejection(() => openOffLoop(join(local, 'no', 'such'), 'wx')))?.code).toBe('ENOENT');
    const pooled = await openOffLoop(join(elsewhere, 'off.bin'), 'wx');
    expect(pooled).not.toBeInstanceOf(InlineFileHandle);
    await pooled.close();
  });

  for (const where of ['local', 'elsewhere'] as const) {
    it(`answers as node:fs/promises does (${where})`, async () => {
      const root = where === 'local' ? local : elsewhere;
      const deep = join(root, 'a', 'b', 'c');
      expect(await mkdir(deep, { recursive: true })).toBe(join(root, 'a'));
      expect(await mkdir(deep, { recursive: true })).toBeUndefined();
      expect((await rejection(() => mkdir(deep)))?.code).toBe('EEXIST');
      await writeFile(join(deep, 'x.txt'), 'hello');
      expect(await readFile(join(deep, 'x.txt'), 'utf8')).toBe('hello');
      expect((await readFile(join(deep, 'x.txt'))).toString()).toBe('hello');
      expect((await rejection(() => readFile(join(deep, 'missing'), 'utf8')))?.code).toBe('ENOENT');
      expect((await rejection(() => open(join(deep, 'x.txt'), 'wx')))?.code).toBe('EEXIST');
      await link(join(deep, 'x.txt'), join(deep, 'y.txt'));
      expect((await stat(join(deep, 'y.txt'))).nlink).toBe(2);
      await rename(join(deep, 'y.txt'), join(root, 'z.txt'));
      expect(readFileSync(join(root, 'z.txt'), 'utf8')).toBe('hello');
      expect((await statfs(root)).bsize).toBeGreaterThan(0);
      await unlink(join(root, 'z.txt'));
      await rm(join(root, 'z.txt'), { force: true });
      expect((await rejection(() => rm(join(root, 'z.txt'))))?.code).toBe('ENOENT');
      expect((await rejection(() => rmdir(join(root, 'a'))))?.code).toBe('ENOTEMPTY');
      await rm(join(root, 'a'), { recursive: true });
      expect(existsSync(join(root, 'a'))).toBe(false);
    });
  }

  it('an inline handle writes, reads, truncates, syncs and closes a file as a FileHandle does', async () => {
    const path = join(local, 'h.bin');
    const handle = await open(path, 'w+');
    await handle.writeFile('abc');
    expect((await handle.write(Buffer.from('XY'), 0, 2, 1)).bytesWritten).toBe(2);
    expect((await handle.writev([Buffer.from('12'), Buffer.from('34')], 3)).bytesWritten).toBe(4);
    const buffer = Buffer.alloc(7);
    expect((await handle.read(buffer, 0, 7, 0)).bytesRead).toBe(7);
    expect(buffer.toString()).toBe('aXY1234');
    await handle.truncate(5);
    expect((await handle.stat()).size).toBe(5);
    await handle.sync();
    await handle.datasync();
    await handle.close();
    await handle.close();
    expect(readFileSync(path, 'utf8')).toBe('aXY12');
    expect((await rejection(() => handle.writeFile('late')))?.code).toBe('EBADF');
  });

  it('a file written past INLINE_WRITE_BYTES, by write and writev in turn, holds every byte in place', async () => {
    const path = join(local, 'big.bin');
    const chunks = Array.from({ length: Math.ceil((3 * INLINE_WRITE_BYTES) / 65536) }, () =>
      randomBytes(65536),
    );
    const handle = await open(path, 'wx');
    let at = 0;
    for (const [i, chunk] of chunks.entries()) {
      const wrote =
        i % 2 === 0 ? await handle.writev([chunk], at) : await handle.write(chunk, 0, chunk.length, at);
      expect(wrote.bytesWritten).toBe(chunk.length);
      at += chunk.length;
    }
    await handle.close();
    const expected = createHash('sha256');
    for (const chunk of chunks) expected.update(chunk);
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(expected.digest('hex'));
  });
});
