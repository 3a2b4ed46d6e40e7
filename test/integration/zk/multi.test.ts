import { beforeAll, describe, expect, it } from 'vitest';
import { ZkError, ZkTransactionError, type Op, type ZkClient } from '../../../src/zk/index.js';
import { assertVersionZeroHonoured, guardInstalledLibrary } from '../../../src/zk/version-guard.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
let zk: ZkClient;

beforeAll(async () => {
  zk = await chroot.connect();
});

async function transactionFailure(ops: Op[]): Promise<ZkTransactionError> {
  const outcome = await zk.multi(ops).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof ZkTransactionError)) {
    throw new Error(`expected a ZkTransactionError, got ${String(outcome)}`);
  }
  return outcome;
}

/** A node at version 1: created (version 0), then set once. */
async function nodeAtVersionOne(path: string): Promise<void> {
  await zk.create(path, 'v0');
  expect((await zk.setData(path, 'v1')).version).toBe(1);
}

describe('multi', () => {
  it('a failing check aborts every op, and the error names the failing op and its index', async () => {
    await zk.create('/job', 'original');
    await zk.create('/job/lock');
    await zk.setData('/job/lock', 'taken'); // version 1
    const ops: Op[] = [
      { op: 'create', path: '/job/new-ref' },
      { op: 'set', path: '/job', data: 'changed', version: 0 },
      { op: 'check', path: '/job/lock', version: 0 },
      { op: 'delete', path: '/job/lock' },
    ];

    const error = await transactionFailure(ops);
    expect(error.message).toBe('multi failed at op 2 (check /job/lock version 0): BAD_VERSION');
    expect(error).toMatchObject({
      failedIndex: 2,
      failedOp: ops[2],
      code: 'ZK_BAD_VERSION',
      path: '/job/lock',
    });
    expect(error.results).toEqual(['OK', 'OK', 'BAD_VERSION', 'ROLLED_BACK']);
    expect(error).toBeInstanceOf(ZkError);

    expect(await zk.exists('/job/new-ref')).toBeUndefined();
    const job = await zk.getData('/job');
    expect(job.data?.toString()).toBe('original');
    expect(job.stat.version).toBe(0);
    expect(await zk.exists('/job/lock')).toBeDefined();
  });

  it('names the failing op for other refusals too (NODE_EXISTS, NO_NODE)', async () => {
    await zk.create('/taken');
    const exists = await transactionFailure([
      { op: 'create', path: '/fresh' },
      { op: 'create', path: '/taken' },
    ]);
    expect(exists.message).toBe('multi failed at op 1 (create /taken): NODE_EXISTS');
    expect(await zk.exists('/fresh')).toBeUndefined();

    const missing = await transactionFailure([{ op: 'delete', path: '/never' }]);
    expect(missing).toMatchObject({ failedIndex: 0, code: 'ZK_NO_NODE', path: '/never' });
  });

  it('returns per-op results of a committed multi', async () => {
    await zk.create('/ok', 'a');
    await zk.create('/ok/old-ref');
    const results = await zk.multi([
      { op: 'check', path: '/ok', version: 0 },
      { op: 'set', path: '/ok', data: 'b', version: 0 },
      { op: 'delete', path: '/ok/old-ref', version: 0 },
      { op: 'create', path: '/ok/ref-', data: 'x', mode: 'persistent_sequential' },
    ]);
    expect(results.map((result) => result.op)).toEqual(['check', 'set', 'delete', 'create']);
    expect(results[1]?.stat?.version).toBe(1);
    expect(results[3]?.createdPath).toMatch(/^\/ok\/ref-\d{10}$/);
    expect(await zk.getChildren('/ok')).toEqual([results[3]?.createdPath?.slice(4)]);
    expect(await zk.multi([])).toEqual([]);
  });

  it('refuses a transaction too large for one request before sending it', async () => {
    const sessionId = zk.sessionId;
    const chunk = Buffer.alloc(60_000);
    const ops: Op[] = Array.from({ length: 20 }, (_, i) => ({
      op: 'create',
      path: `/bulk-${i}`,
      data: chunk,
    }));
    const error = await zk.multi(ops).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'ZK_BAD_ARGUMENTS' });
    expect(await zk.exists('/bulk-0')).toBeUndefined();
    expect(zk.isConnected).toBe(true);
    expect(zk.sessionId).toBe(sessionId);
    expect(await zk.multi(ops.slice(0, 10))).toHaveLength(10);
  });
});

// Regression for node-zookeeper-client #67 (`version = version || -1` in transactions). On the
// unpatched library these expected-version-0 ops match any version and the multi succeeds, so
// the BAD_VERSION expectations below fail (and connectZk's guard refuses to connect at all).
describe('expected version 0 inside a transaction', () => {
  it('check and set with version 0 fail with BAD_VERSION on a node at version 1', async () => {
    await nodeAtVersionOne('/cas');
    const check = await transactionFailure([{ op: 'check', path: '/cas', version: 0 }]);
    expect(check).toMatchObject({ code: 'ZK_BAD_VERSION', failedIndex: 0 });

    const set = await transactionFailure([{ op: 'set', path: '/cas', data: 'lost update', version: 0 }]);
    expect(set).toMatchObject({ code: 'ZK_BAD_VERSION', failedIndex: 0 });
    const after = await zk.getData('/cas');
    expect(after.data?.toString()).toBe('v1');
    expect(after.stat.version).toBe(1);

    const remove = await transactionFailure([{ op: 'delete', path: '/cas', version: 0 }]);
    expect(remove).toMatchObject({ code: 'ZK_BAD_VERSION' });
    expect(await zk.exists('/cas')).toBeDefined();
  });

  it('check and set with version 0 succeed on a node at version 0', async () => {
    await zk.create('/fresh-cas', 'v0');
    const results = await zk.multi([
      { op: 'check', path: '/fresh-cas', version: 0 },
      { op: 'set', path: '/fresh-cas', data: 'v1', version: 0 },
    ]);
    expect(results[1]?.stat?.version).toBe(1);
    expect((await zk.getData('/fresh-cas')).data?.toString()).toBe('v1');
  });

  it('the connect-time guard accepts the installed library and rejects the upstream behaviour', () => {
    expect(() => guardInstalledLibrary()).not.toThrow();
    // A transaction builder with the exact upstream line, to show the guard catches it.
    const upstream = () => {
      const ops: Array<{ version: number }> = [];
      const transaction = {
        ops,
        check(_path: string, version?: number) {
          version = version || -1;
          ops.push({ version });
          return transaction;
        },
      };
      return transaction;
    };
    expect(() => assertVersionZeroHonoured(upstream as never)).toThrow(/upstream #67/);
  });
});
