import { isZkError, type Op, type ZkClient } from '../zk/index.js';
import { persist } from './retry.js';

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

/**
 * Keeps `inFlight` loops busy for `durationMs`; each loop runs `once(loop, i)` repeatedly. A
 * request whose answer was lost is not counted, and its loop goes on (the run is not aborted).
 */
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
        try {
          await once(loop, i);
          count++;
        } catch (err) {
          if (!isZkError(err) || !err.retryable) throw err;
        }
      }
    }),
  );
  return { count, seconds: (performance.now() - started) / 1000 };
}

/** Multis shaped like a job transition: set the status, move the state ref, add a batch ref. */
export async function multiCeiling(zk: ZkClient, options: CeilingOptions): Promise<number> {
  const { root, inFlight } = options;
  // Nodes made with mkdirp, which may run again; each multi sets the status's data.
  await persist('ceiling setup', async () => {
    for (const folder of ['a', 'b', 'log']) await zk.mkdirp(`${root}/${folder}`);
    await Promise.all(
      Array.from({ length: inFlight }, async (_, loop) => {
        await zk.mkdirp(`${root}/s${loop}`);
        await zk.mkdirp(`${root}/a/j${loop}`);
      }),
    );
  });
  const status = Buffer.from(JSON.stringify({ status: 'Estimating', retry_count: 0, last_modified: 'now' }));
  /** The folder each loop's node is in; read again after a multi whose outcome is unknown. */
  const side = Array.from({ length: inFlight }, () => 'a');
  const { count, seconds } = await saturate(inFlight, options.durationMs, async (loop, i) => {
    const from = side[loop]!;
    const to = from === 'a' ? 'b' : 'a';
    const ops: Op[] = [
      { op: 'set', path: `${root}/s${loop}`, data: status },
      { op: 'delete', path: `${root}/${from}/j${loop}` },
      { op: 'create', path: `${root}/${to}/j${loop}` },
      { op: 'create', path: `${root}/log/j${loop}-${i}` },
    ];
    try {
      await zk.multi(ops);
      side[loop] = to;
    } catch (err) {
      if (isZkError(err) && err.retryable)
        side[loop] = (await persist('ceiling node', () => zk.exists(`${root}/a/j${loop}`))) ? 'a' : 'b';
      throw err;
    }
  });
  return count / seconds;
}

/** Plain persistent creates with small data. */
export async function createCeiling(zk: ZkClient, options: CeilingOptions): Promise<number> {
  await persist('ceiling setup', () => zk.mkdirp(options.root));
  const data = Buffer.from('x'.repeat(64));
  const { count, seconds } = await saturate(options.inFlight, options.durationMs, async (loop, i) => {
    await zk.create(`${options.root}/n${loop}-${i}`, data);
  });
  return count / seconds;
}
