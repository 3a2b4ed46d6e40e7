import type { Config } from '../config/config.js';
import { describeSearch } from '../config/discovery.js';
import type { QueueContext } from '../queue/tree/context.js';
import { readEndpoint } from '../endpoint-file.js';
import type { CliContext } from './context.js';
import { commandQueueContext } from './command-queue.js';
import { connectZk, isZkError, type ZkClient } from '../zk/index.js';
import { readEmbedded } from '../zk-server/embedded.js';
import { CliError, ExitCode } from './exit-codes.js';

/** Where the data directory came from, for messages. */
function dataDirOrigin(config: Config): string {
  const { sources } = config;
  if (config.dataDir !== `${sources.home}/.data`) return 'MRTQ_DATA_DIR';
  if (sources.homeFrom === 'MRTQ_HOME') return 'under MRTQ_HOME';
  if (sources.homeFrom === 'config file') return `beside ${sources.file}`;
  return "the package's own";
}

/** Where a command looked for ZooKeeper, and how to point it at the right one: one line. */
export function noZooKeeperMessage(config: Config): string {
  const { sources } = config;
  const configText = sources.file
    ? `config file ${sources.file}`
    : `no config file (looked in ${describeSearch(sources)})`;
  return (
    `No ZooKeeper to talk to: no running service's endpoint.json and no \`mrtq zk up\` server in ` +
    `${config.dataDir} (data dir: ${dataDirOrigin(config)}; ${configText}). ` +
    `Pass --zk host:port[/chroot], set ZK_CONNECT (e.g. 127.0.0.1:2181/merritt), or set MRTQ_HOME to ` +
    `the service's home (where its mrtq.yaml or .data is); to start the service's own ZooKeeper: mrtq zk up`
  );
}

/**
 * The connection string a command uses: `--zk`, else ZK_CONNECT, else the one the running
 * service recorded in its endpoint file, else the embedded server started by `mrtq zk up`. A stale
 * endpoint file (its service is gone) is ignored with a note on `notes`.
 */
export async function resolveConnectString(
  config: Config,
  flag: string | undefined,
  notes: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  if (flag) return flag;
  if (config.zkConnect) return config.zkConnect;
  const endpoint = readEndpoint(config.dataDir);
  if (endpoint.kind === 'live') return endpoint.record.connectString;
  if (endpoint.kind === 'stale')
    notes.write(
      `mrtq: note: ignoring ${endpoint.file}: the service that wrote it (pid ${endpoint.record.pid}, ` +
        `started ${endpoint.record.startedAt}) is not running\n`,
    );
  const embedded = await readEmbedded(config.dataDir);
  if (embedded) return embedded.connectString;
  throw new CliError(noZooKeeperMessage(config), ExitCode.unavailable);
}

/**
 * What a ZooKeeper failure means to a script, as one line: unavailable (exit 3) when it did not
 * answer, a usage error (exit 2) for a connect string or option it cannot use; undefined for any
 * other error.
 */
export function zkCliError(err: unknown): CliError | undefined {
  if (!isZkError(err)) return undefined;
  // CLOSED: the session ended under the command (expired, or the client gave up on it).
  if (err.retryable || err.kind === 'CLOSED')
    return new CliError(`ZooKeeper unavailable: ${oneLine(err.message)}`, ExitCode.unavailable, {
      cause: err,
    });
  if (isZkError(err, 'BAD_ARGUMENTS'))
    return new CliError(oneLine(err.message), ExitCode.usage, { cause: err });
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ');
}

/**
 * A command whose session is lost and not replaced within a session timeout (ZooKeeper went away
 * in the middle of it) ends with exit 3 and one line. A request in flight already failed with
 * SESSION_EXPIRED; this also ends a command that was only waiting (`mrtq watch`).
 */
function endWhenSessionLost(zk: ZkClient, connectString: string, graceMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  zk.session$.subscribe((event) => {
    if (event.state === 'connected') {
      clearTimeout(timer);
      timer = undefined;
    }
    if (event.state !== 'expired' || timer) return;
    timer = setTimeout(() => {
      process.stderr.write(
        `mrtq: ZooKeeper unavailable: the session to ${connectString} was lost in the middle of the command ` +
          `and none could be made for ${graceMs} ms\n`,
      );
      process.exit(ExitCode.unavailable);
    }, graceMs);
    timer.unref();
  });
}

/** Connects for one command; the caller closes the client. */
export async function connectForCommand(config: Config, flag: string | undefined): Promise<ZkClient> {
  const connectString = await resolveConnectString(config, flag);
  try {
    const zk = await connectZk({
      connectString,
      sessionTimeoutMs: config.zkSessionTimeoutMs,
      connectTimeoutMs: 10_000,
    });
    endWhenSessionLost(zk, connectString, config.zkSessionTimeoutMs);
    return zk;
  } catch (err) {
    const message = `Cannot connect to ZooKeeper at ${connectString}: ${oneLine((err as Error).message)}`;
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
