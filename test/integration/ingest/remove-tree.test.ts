import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTree } from '../../../src/steps/workdir/remove-tree.js';

describe('removeTree (a worker thread removing directory trees)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-remove-tree-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  async function tree(dir: string, files: number): Promise<void> {
    await mkdir(join(dir, 'producer', 'deep', 'er'), { recursive: true });
    await mkdir(join(dir, 'system'), { recursive: true });
    for (let i = 0; i < files; i += 1) await writeFile(join(dir, 'producer', 'deep', 'er', `f${i}`), `${i}`);
    await writeFile(join(dir, 'system', 'ark.txt'), 'ark:/99999/fk4x\n');
    await writeFile(join(dir, 'download.json'), '{}');
  }

  it('removes a tree and leaves its neighbours; many at once, each answered', async () => {
    const dirs = Array.from({ length: 20 }, (_, i) => join(root, `jid${i}`));
    for (const dir of dirs) await tree(dir, 5);
    await writeFile(join(root, 'keep.txt'), 'kept');
    await Promise.all(dirs.map((dir) => removeTree(dir)));
    expect(await readdir(root)).toEqual(['keep.txt']);
  });

  it('does nothing for a path that is not there', async () => {
    await expect(removeTree(join(root, 'never-made'))).resolves.toBeUndefined();
  });

  it("rejects with the file system's error code, and works again after", async () => {
    await writeFile(join(root, 'a-file'), 'x');
    await expect(removeTree(join(root, 'a-file', 'below'))).rejects.toMatchObject({
      code: 'ENOTDIR',
      message: expect.stringContaining('ENOTDIR') as unknown,
    });
    await tree(join(root, 'later'), 1);
    await removeTree(join(root, 'later'));
    expect(await readdir(root)).toEqual(['a-file']);
  });
});
