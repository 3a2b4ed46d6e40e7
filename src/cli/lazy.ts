/**
 * What a command needs only once it runs, loaded then: `mrtq --help` and `mrtq --version` load
 * the command modules (to list their options) but none of ZooKeeper's client, the queue, pino or
 * xstate. A command module imports types statically and values through these (or `await
 * import()` in its action).
 */
import type { ZkClient } from '../zk/index.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { CliContext } from './context.js';

/** `connection.ts`'s `withQueue`: a session opened for this command, closed afterwards. */
export async function withQueue<T>(
  ctx: CliContext,
  work: (queue: QueueContext, zk: ZkClient) => Promise<T>,
): Promise<T> {
  const connection = await import('./connection.js');
  return connection.withQueue(ctx, work);
}

/** A ZooKeeper session and a queue context for one command; the caller closes `zk`. */
export async function openQueue(ctx: CliContext): Promise<{ zk: ZkClient; queue: QueueContext }> {
  const [{ connectForCommand }, { commandQueueContext }] = await Promise.all([
    import('./connection.js'),
    import('./command-queue.js'),
  ]);
  const zk = await connectForCommand(ctx.config, ctx.zkFlag());
  return { zk, queue: commandQueueContext(zk) };
}

/** A ZooKeeper session for one command; the caller closes it. */
export async function connect(ctx: CliContext): Promise<ZkClient> {
  const { connectForCommand } = await import('./connection.js');
  return connectForCommand(ctx.config, ctx.zkFlag());
}

type AsyncFunction = (...args: never[]) => Promise<unknown>;

/**
 * `module[name]`, imported when first called: for functions a command registers before it runs
 * (`mrtq hold` names `holdJob` and `holdBatch`).
 */
export function lazy<M extends Record<K, AsyncFunction>, K extends keyof M>(
  load: () => Promise<M>,
  name: K,
): M[K] {
  const call = async (...args: Parameters<M[K]>): Promise<unknown> => {
    const module = await load();
    return module[name](...args);
  };
  return call as unknown as M[K];
}
