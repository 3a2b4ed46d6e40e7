import { beforeAll, describe, expect, it } from 'vitest';
import { connectZk, type ZkClient, type ZkError } from '../../../src/zk/index.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
let root: ZkClient;

beforeAll(async () => {
  root = await chroot.connect();
});

async function failureOf(promise: Promise<unknown>): Promise<ZkError> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as ZkError,
  );
}

describe('chroot', () => {
  it('a client with a chroot sees and writes only its subtree, with paths relative to it', async () => {
    await root.mkdirp('/apps/one');
    await root.create('/apps/one/inside', 'in');
    await root.create('/outside', 'out');

    const app = await connectZk({ connectString: `${chroot.connectString()}/apps/one` });
    try {
      expect(await app.getChildren('/')).toEqual(['inside']);
      expect(await app.exists('/outside')).toBeUndefined();
      expect(await app.create('/new-', 'x', 'persistent_sequential')).toMatch(/^\/new-\d{10}$/);

      let fire: (event: { type: string; path: string }) => void = () => {};
      const changed = new Promise<{ type: string; path: string }>((resolve) => (fire = resolve));
      await app.getData('/inside', fire);
      await root.setData('/apps/one/inside', 'touched');
      expect(await changed).toEqual({ type: 'changed', path: '/inside' });

      const [result] = await app.multi([{ op: 'create', path: '/via-multi' }]);
      expect(result?.createdPath).toBe('/via-multi');
      const children = await root.getChildren('/apps/one');
      expect(children).toHaveLength(3);
      expect(children).toEqual(expect.arrayContaining(['inside', 'via-multi']));
      expect(children.filter((name) => /^new-\d{10}$/.test(name))).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('creates a missing chroot, or leaves it missing when asked to', async () => {
    const created = await connectZk({ connectString: `${chroot.connectString()}/made/on/connect` });
    expect(await created.getChildren('/')).toEqual([]);
    await created.close();
    expect(await root.exists('/made/on/connect')).toBeDefined();

    const bare = await connectZk({ connectString: `${chroot.connectString()}/absent`, createChroot: false });
    try {
      expect(await failureOf(bare.create('/x'))).toMatchObject({ code: 'ZK_NO_NODE' });
      expect(await root.exists('/absent')).toBeUndefined();
    } finally {
      await bare.close();
    }
  });
});

describe('digest auth and creator ACL', () => {
  const alice = { scheme: 'digest', credentials: 'alice:secret' } as const;

  it('a node created with acl creator is readable with the credentials and NO_AUTH without', async () => {
    const owner = await chroot.connect({ auth: alice, acl: 'creator' });
    await owner.create('/private', 'for alice only');

    const stranger = await chroot.connect();
    const denied = await failureOf(stranger.getData('/private'));
    expect(denied).toMatchObject({ code: 'ZK_NO_AUTH', path: '/private', retryable: false });
    expect(await failureOf(stranger.setData('/private', 'vandal'))).toMatchObject({ code: 'ZK_NO_AUTH' });

    const impostor = await chroot.connect({ auth: { scheme: 'digest', credentials: 'alice:guess' } });
    expect(await failureOf(impostor.getData('/private'))).toMatchObject({ code: 'ZK_NO_AUTH' });

    const aliceAgain = await chroot.connect({ auth: alice });
    expect((await aliceAgain.getData('/private')).data?.toString()).toBe('for alice only');
  });

  it('deleteRecursive removes a creator-ACL leaf it cannot list (delete needs the parent only)', async () => {
    const owner = await chroot.connect({ auth: alice, acl: 'creator' });
    await root.create('/shared');
    await owner.create('/shared/alices', 'x');
    await root.deleteRecursive('/shared');
    expect(await root.exists('/shared')).toBeUndefined();
  });
});
