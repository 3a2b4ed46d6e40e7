import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { createLocalStorage } from '../../../src/steps/services/storage/local.js';
import { objectDir } from '../../../src/steps/services/storage/layout.js';
import { prepareWorkDir } from './output-fixtures.js';

const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4update1';

describe('the local object store applies updates', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-store-update-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const storage = () => createLocalStorage(join(root, 'data'));
  const versions = async () =>
    (await readdir(objectDir(join(root, 'data'), ARK))).filter((n) => /^v\d+$/.test(n)).sort();

  it('adds one version, and returns it again when the update runs again after a crash', async () => {
    const first = join(root, 'w1');
    const files1 = (await prepareWorkDir(first, { 'a.txt': 'a', 'b.txt': 'b' })).files;
    await storage().store({ ark: ARK, workDir: first, files: files1, signal });
    const second = join(root, 'w2');
    const files2 = (await prepareWorkDir(second, { 'c.txt': 'c' })).files;
    const request = { ark: ARK, workDir: second, files: files2, deletes: ['producer/a.txt'], signal };
    const v2 = await storage().update(request);
    expect(v2.version).toBe(2);
    expect(await storage().update(request)).toEqual(v2);
    expect(await versions()).toEqual(['v1', 'v2']);
    const dir = join(objectDir(join(root, 'data'), ARK), 'v2', 'producer');
    expect((await readdir(dir)).sort()).toEqual(['b.txt', 'c.txt']);
    expect(await readFile(join(dir, 'b.txt'), 'utf8')).toBe('b');
  });

  it('refuses an object that is not stored, and a damaged earlier version, storing nothing', async () => {
    const work = join(root, 'w');
    const files = (await prepareWorkDir(work, { 'a.txt': 'a' })).files;
    const err: unknown = await storage()
      .update({ ark: ARK, workDir: work, files, deletes: [], signal })
      .catch((e: unknown) => e);
    expect(isOutputError(err, 'OBJECT_NOT_FOUND')).toBe(true);

    await storage().store({ ark: ARK, workDir: work, files, signal });
    await writeFile(join(objectDir(join(root, 'data'), ARK), 'v1', 'producer', 'a.txt'), 'X');
    const more = join(root, 'w3');
    const extra = (await prepareWorkDir(more, { 'z.txt': 'z' })).files;
    await expect(
      storage().update({ ark: ARK, workDir: more, files: extra, deletes: [], signal }),
    ).rejects.toThrow(/version 1 of ark:\/99999\/fk4update1 in the store is damaged/);
    expect(await versions()).toEqual(['v1']);
  });
});
