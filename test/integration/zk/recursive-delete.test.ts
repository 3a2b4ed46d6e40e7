import { beforeAll, describe, expect, it } from 'vitest';
import { isZkError, joinPath, type Op, type ZkClient } from '../../../src/zk/index.js';
import { deleteRecursive } from '../../../src/zk/recursive-delete.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
let zk: ZkClient;

beforeAll(async () => {
  zk = await chroot.connect();
});

/** Creates a full tree under `root`: `fanout` children per node, `depth` levels below root. */
async function buildTree(root: string, depth: number, fanout: number): Promise<number> {
  await zk.mkdirp(root);
  let level = [root];
  let count = 0;
  for (let d = 0; d < depth; d += 1) {
    const next = level.flatMap((parent) =>
      Array.from({ length: fanout }, (_, i) => joinPath(parent, `n${d}-${i}`)),
    );
    await Promise.all(next.map((path) => zk.create(path, `data of ${path}`)));
    count += next.length;
    level = next;
  }
  return count;
}

describe('deleteRecursive', () => {
  it('deletes a tree 4 levels deep below its top (plus an ephemeral leaf), leaving siblings alone', async () => {
    const created = await buildTree('/tree/doomed', 4, 3);
    expect(created).toBe(3 + 9 + 27 + 81);
    await zk.create('/tree/doomed/n0-0/n1-0/n2-0/n3-0/eph', null, 'ephemeral');
    await zk.create('/tree/keep', 'sibling');

    await zk.deleteRecursive('/tree/doomed');

    expect(await zk.exists('/tree/doomed')).toBeUndefined();
    expect(await zk.getChildren('/tree')).toEqual(['keep']);
  });

  it('deletes a node with many children', async () => {
    await zk.create('/wide');
    const ops: Op[] = Array.from({ length: 3000 }, (_, i) => ({ op: 'create', path: `/wide/child-${i}` }));
    for (let i = 0; i < ops.length; i += 500) await zk.multi(ops.slice(i, i + 500));
    expect((await zk.exists('/wide'))?.numChildren).toBe(3000);

    const started = Date.now();
    await zk.deleteRecursive('/wide');
    console.log(`deleteRecursive of 3000 children: ${Date.now() - started} ms`);
    expect(await zk.exists('/wide')).toBeUndefined();
  });

  it('accepts a path that does not exist, and refuses the root', async () => {
    await expect(zk.deleteRecursive('/not/there')).resolves.toBeUndefined();
    const root = await zk.deleteRecursive('/').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isZkError(root, 'BAD_ARGUMENTS')).toBe(true);
  });

  it('lists again and finishes when a child appears while the tree is being deleted', async () => {
    await buildTree('/race', 2, 2);
    let raced = false;
    // The real client, except that just before the top node is deleted another child appears.
    const racing = {
      getChildren: (path: string) => zk.getChildren(path),
      async delete(path: string) {
        if (path === '/race' && !raced) {
          raced = true;
          await zk.mkdirp('/race/late-comer/deeper');
        }
        await zk.delete(path);
      },
    };
    await deleteRecursive(racing, '/race');
    expect(raced).toBe(true);
    expect(await zk.exists('/race')).toBeUndefined();
  });
});
