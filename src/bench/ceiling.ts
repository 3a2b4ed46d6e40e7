import type { Op, ZkClient } from '../zk/index.js';

/**
 * The ZooKeeper ceiling through src/zk: how many job-transition-shaped multis (setData +
 * delete + 2 creates) and plain creates one server takes per second from this process.
 */
export interface CeilingOptions {
  /** Requests kept in flight. */
  inFlight: number;
  durationMs: number;
  /** Unique prefix for this run's nodes. */
  root: string;
}

/** Keeps `inFlight` loops busy for `durationMs`; each loop runs `once(loop, i)` repeatedly. */
async function saturate(
  inFlight: number,
  durationMs: number,
  once: (loop: number, iteration: number) => Promise<void>,
): Promise<{ count: number; seconds: number }> {
  let count = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, loop) => {
      for (let i = 0; performance.now() < until; i++) {
        await once(loop, i);
        count++;
      }
    }),
  );
  return { count, seconds: (performance.now() - started) / 1000 };
}

/** Multis shaped like a job transition: set the status, move the state ref, add a batch ref. */
export async function multiCeiling(zk: ZkClient, options: CeilingOptions): Promise<number> {
  const { root, inFlight } = options;
  await zk.mkdirp(`${root}/a`);
  await zk.mkdirp(`${root}/b`);
  await zk.mkdirp(`${root}/log`);
  const status = Buffer.from(JSON.stringify({ status: 'Estimating', retry_count: 0, last_modified: 'now' }));
  await Promise.all(
    Array.from({ length: inFlight }, async (_, loop) => {
      await zk.create(`${root}/s${loop}`, status);
      await zk.create(`${root}/a/j${loop}`);
    }),
  );
  const { count, seconds } = await saturate(inFlight, options.durationMs, async (loop, i) => {
    const [from, to] = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const ops: Op[] = [
      { op: 'set', path: `${root}/s${loop}`, data: status },
      { op: 'delete', path: `${root}/${from}/j${loop}` },
      { op: 'create', path: `${root}/${to}/j${loop}` },
      { op: 'create', path: `${root}/log/j${loop}-${i}` },
    ];
    await zk.multi(ops);
  });
  return count / seconds;
}

/** Plain persistent creates with small data. */
export async function createCeiling(zk: ZkClient, options: CeilingOptions): Promise<number> {
  await zk.mkdirp(options.root);
  const data = Buffer.from('x'.repeat(64));
  const { count, seconds } = await saturate(options.inFlight, options.durationMs, async (loop, i) => {
    await zk.create(`${options.root}/n${loop}-${i}`, data);
  });
  return count / seconds;
}
