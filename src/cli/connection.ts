import type { Config } from '../config.js';
import type { QueueContext } from '../queue/context.js';
import type { CliContext } from './context.js';
import { commandQueueContext } from './options.js';
import { connectZk, isZkError, type ZkClient } from '../zk/index.js';
import { readEmbedded } from '../zk-server/embedded.js';
import { CliError, ExitCode } from './exit-codes.js';

/**
 * The connection string a command uses: `--zk`, else ZK_CONNECT, else the embedded server
 * started by `mrtq zk up`.
 */
export async function resolveConnectString(config: Config, flag: string | undefined): Promise<string> {
  if (flag) return flag;
  if (config.zkConnect) return config.zkConnect;
  const embedded = await readEmbedded(config.dataDir);
  if (embedded) return embedded.connectString;
  throw new CliError(
    'No ZooKeeper to talk to: set ZK_CONNECT (e.g. 127.0.0.1:2181/merritt), pass --zk, or run `mrtq zk up`.',
    ExitCode.unavailable,
  );
}

/**
 * What a ZooKeeper failure means to a script, as one line: unavailable (exit 3) when it did not
 * answer, a usage error (exit 2) for a connect string or option it cannot use; undefined for any
 * other error.
 */
export function zkCliError(err: unknown): CliError | undefined {
  if (!isZkError(err)) return undefined;
  if (err.retryable)
    return new CliError(`ZooKeeper unavailable: ${err.message}`, ExitCode.unavailable, { cause: err });
  if (isZkError(err, 'BAD_ARGUMENTS')) return new CliError(err.message, ExitCode.usage, { cause: err });
  return undefined;
}

/** Connects for one command; the caller closes the client. */
export async function connectForCommand(config: Config, flag: string | undefined): Promise<ZkClient> {
  const connectString = await resolveConnectString(config, flag);
  try {
    return await connectZk({
      connectString,
      sessionTimeoutMs: config.zkSessionTimeoutMs,
      connectTimeoutMs: 10_000,
    });
  } catch (err) {
    const message = `Cannot connect to ZooKeeper at ${connectString}: ${(err as Error).message}`;
    throw zkCliError(err) ?? new CliError(message, ExitCode.unavailable, { cause: err });
  }
}

/** Runs `work` with a queue context on a session opened for this command, closed afterwards. */
export async function withQueue<T>(
  ctx: CliContext,
  work: (queue: QueueContext, zk: ZkClient) => Promise<T>,
): Promise<T> {
  const zk = await connectForCommand(ctx.config, ctx.zkFlag());
  try {
    return await work(commandQueueContext(zk), zk);
  } finally {
    await zk.close();
  }
}
