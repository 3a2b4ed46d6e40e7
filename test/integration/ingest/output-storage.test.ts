import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { type StoreFile } from '../../../src/steps/services/storage/port.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { parseStorageManifest } from '../../../src/steps/formats/storage-manifest.js';
import { prepareWorkDir, sha } from './output-fixtures.js';

const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4storage1';

describe('the local object store', () => {
  let root: string;
  let workDir: string;
  let dataDir: string;
  let files: StoreFile[];
  const contents = {
    'a.txt': 'hello\n',
    'images/b.bin': randomBytes(300_000),
    'odd | name %.txt': '',
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-store-'));
    workDir = join(root, 'work', 'bid1', 'jid1');
    dataDir = join(root, 'data');
    files = (await prepareWorkDir(workDir, contents, {}, 'md5')).files;
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const storage = () => createStorage({ dataDir, workRoot: join(root, 'work'), storage: { kind: 'local' } });
  const objectDir = () => join(dataDir, 'store', 'ark__99999_fk4storage1');

  it('stores every file byte for byte with a manifest of their digests and sizes', async () => {
    const result = await storage().store({ ark: ARK, workDir, files, signal });
    expect(result.version).toBe(1);
    expect(result.manifestUrl).toBe(`file://${objectDir()}/v1/manifest.checkm`);
    for (const [name, data] of Object.entries(contents)) {
      expect(
        Buffer.compare(await readFile(join(objectDir(), 'v1', 'producer', name)), Buffer.from(data)),
      ).toBe(0);
    }
    const manifest = parseStorageManifest(await readFile(join(objectDir(), 'v1', 'manifest.checkm'), 'utf8'));
    expect(manifest.map((e) => e.path).sort()).toEqual(
      Object.keys(contents)
        .map((n) => `producer/${n}`)
        .sort(),
    );
    for (const entry of manifest) {
      const stored = await readFile(join(objectDir(), 'v1', entry.path));
      expect(entry.size).toBe(stored.length);
      expect(entry.digest).toEqual({ algorithm: 'md5', value: sha(stored, 'md5') });
    }
  });

  it('returns the same version when the last one holds exactly these files, and adds one when a file changed', async () => {
    const first = await storage().store({ ark: ARK, workDir, files, signal });
    const again = await storage().store({ ark: ARK, workDir, files: [...files].reverse(), signal });
    expect(again).toEqual(first);
    expect((await readdir(objectDir())).filter((n) => n.startsWith('v'))).toEqual(['v1']);

    // A new download replaces a file (the fetcher unlinks first); v1 holds a link to the old one.
    await rm(join(workDir, 'producer', 'a.txt'));
    await writeFile(join(workDir, 'producer', 'a.txt'), 'changed\n');
    const changed = files.map((f) =>
      f.path === 'producer/a.txt'
        ? { ...f, size: 8, digest: { algorithm: 'md5' as const, value: sha('changed\n', 'md5') } }
        : f,
    );
    const second = await storage().store({ ark: ARK, workDir, files: changed, signal });
    expect(second.version).toBe(2);
    expect(await readFile(join(objectDir(), 'v2', 'producer', 'a.txt'), 'utf8')).toBe('changed\n');
    expect(await readFile(join(objectDir(), 'v1', 'producer', 'a.txt'), 'utf8')).toBe('hello\n');
  });

  it('takes the downloaded files without copying them: the version links the same bytes', async () => {
    await storage().store({ ark: ARK, workDir, files, signal });
    for (const name of Object.keys(contents)) {
      const stored = await stat(join(objectDir(), 'v1', 'producer', name));
      const downloaded = await stat(join(workDir, 'producer', name));
      expect(stored.ino).toBe(downloaded.ino);
      expect(stored.nlink).toBe(2);
    }
    // Completion removes the working directory; the stored version keeps its bytes.
    await rm(workDir, { recursive: true });
    expect(await readFile(join(objectDir(), 'v1', 'producer', 'a.txt'), 'utf8')).toBe('hello\n');
  });

  it('stores a version of 40 files (past the one-syncfs threshold) with MRTQ_STORE_SYNC on, and with it off', async () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`many/f${i}.txt`, `file ${i}\n`]));
    const manyFiles = (await prepareWorkDir(join(root, 'many'), many)).files;
    const synced = await storage().store({ ark: ARK, workDir: join(root, 'many'), files: manyFiles, signal });
    expect(synced.version).toBe(1);
    const unsynced = createStorage({
      dataDir: join(root, 'unsynced'),
      workRoot: join(root, 'work'),
      storage: { kind: 'local' },
      storeSync: false,
    });
    const plain = await unsynced.store({ ark: ARK, workDir: join(root, 'many'), files: manyFiles, signal });
    expect(plain.version).toBe(1);
    for (const data of [dataDir, join(root, 'unsynced')]) {
      const dir = join(data, 'store', 'ark__99999_fk4storage1', 'v1', 'producer', 'many');
      expect((await readdir(dir)).length).toBe(40);
      expect(await readFile(join(dir, 'f7.txt'), 'utf8')).toBe('file 7\n');
    }
  });

  it('refuses a file whose size is not the recorded one, leaving no version and no temporary files', async () => {
    await rm(join(workDir, 'producer', 'a.txt'));
    await writeFile(join(workDir, 'producer', 'a.txt'), 'HELLO!\n');
    const err: unknown = await storage()
      .store({ ark: ARK, workDir, files, signal })
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'DIGEST_MISMATCH')).toBe(true);
    expect((err as Error).message).toMatch(/producer\/a\.txt: expected 6 bytes with md5 \w+, found 7 bytes;/);
    expect((await readdir(objectDir())).sort()).toEqual(['ark.txt']);
  });

  it('clears what a crashed store left behind and stores normally', async () => {
    await mkdir(join(objectDir(), '.tmp-99999-dead', 'producer'), { recursive: true });
    await writeFile(join(objectDir(), '.tmp-99999-dead', 'producer', 'half'), 'x');
    await writeFile(join(objectDir(), 'ark.txt'), `${ARK}\n`);
    expect((await storage().store({ ark: ARK, workDir, files, signal })).version).toBe(1);
    expect((await readdir(objectDir())).sort()).toEqual(['ark.txt', 'v1']);
  });

  it('refuses an ark whose directory name belongs to another ark', async () => {
    await storage().store({ ark: 'ark:/99999/a_b', workDir, files, signal });
    await expect(storage().store({ ark: 'ark:/99999/a/b', workDir, files, signal })).rejects.toThrow(
      /belongs to ark:\/99999\/a_b, not ark:\/99999\/a\/b/,
    );
  });

  it('stores nothing when the step is aborted', async () => {
    const aborted = AbortSignal.abort(new Error('session lost'));
    await expect(storage().store({ ark: ARK, workDir, files, signal: aborted })).rejects.toThrow();
    expect((await readdir(objectDir())).filter((n) => n !== 'ark.txt')).toEqual([]);
  });
});

// The HTTP storage client (mrt-store's legacy API): storage-http-legacy.test.ts.
