import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import {
  connectZk,
  joinPath,
  parseConnectString,
  type ZkClient,
  type ZkOptions,
} from '../../src/zk/index.js';

export interface ZkChroot {
  /** A client rooted in this file's chroot (closed in afterAll); options override the defaults. */
  connect(opts?: Partial<ZkOptions>): Promise<ZkClient>;
  /** Connection string of the chroot, e.g. `127.0.0.1:2181/t-multi-3f2a1c`. */
  connectString: () => string;
}

const CLEANUP_DEADLINE_MS = 600_000;
/**
 * Gives an integration test file its own chroot `/t-<file>-<random>` on the shared test
 * ZooKeeper (`inject('zkConnect')`), and deletes it with every client afterwards.
 */
export function useZkChroot(): ZkChroot {
  const name = `/t-${fileTag()}-${randomBytes(4).toString('hex')}`;
  const clients: ZkClient[] = [];
  let shared: string | undefined;

  const base = (): string => {
    if (shared === undefined) throw new Error('useZkChroot: connect only inside tests or hooks');
    return shared;
  };
  const connectString = (): string => {
    const { servers, chroot } = parseConnectString(base());
    return servers + joinPath(chroot ?? '/', name);
  };

  beforeAll(async () => {
    shared = inject('zkConnect');
    const admin = await connectZk({ connectString: shared });
    await admin.mkdirp(name);
    await admin.close();
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    if (shared === undefined) return; // beforeAll failed; its error is the one to see
    const admin = await connectZk({ connectString: shared });
    try {
      await admin.deleteRecursive(name);
    } finally {
      await admin.close();
    }
    // A file that made 100,000 nodes takes a while to remove on a busy machine (MRTQ_CONTENTION=2:
    // over the default 60 s): a generous deadline, not a budget.
  }, CLEANUP_DEADLINE_MS);

  return {
    async connect(opts: Partial<ZkOptions> = {}): Promise<ZkClient> {
      const client = await connectZk({ ...opts, connectString: connectString() });
      clients.push(client);
      return client;
    },
    connectString,
  };
}

/** A short, path-safe tag of the test file's name (`multi` for `multi.test.ts`). */
function fileTag(): string {
  const testPath = expect.getState().testPath ?? 'zk';
  const tag = basename(testPath)
    .replace(/\.test\.[cm]?[jt]s$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return tag.slice(0, 40) || 'zk';
}
