import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { containerRuntimeAvailable, startContainer } from './container.js';
import { freePort } from './free-port.js';
import { createServerProcess, type ServerProcess } from './server-process.js';

/** Where the ZooKeeper came from. */
export type ZooKeeperSource = 'ZK_CONNECT' | 'container' | 'process';

export interface ProvidedZooKeeper {
  connectString: string;
  source: ZooKeeperSource;
  /** Local server process, when source is `process`. */
  server?: ServerProcess;
  containerId?: string;
  /** Stops what this call started; does nothing for ZK_CONNECT. */
  stop(): Promise<void>;
}

export interface ProvideOptions {
  /** Working directory for a started server (data, config, log). */
  dir: string;
  config: Pick<Config, 'zkConnect' | 'containers' | 'zookeeperHome' | 'javaHome'>;
  /** Port for a local process; a free one when absent. */
  port?: number;
  /** Outlive this process (`mrtq zk up`). */
  detached?: boolean;
  tickTime?: number;
  /**
   * Called, just before a local server process is spawned, with a way to stop it: from then on
   * (no turn of the event loop comes between) the stop covers the JVM, also before it answers, so
   * a caller interrupted while it starts (the benchmarks, on SIGTERM) can stop it then.
   */
  onStarting?: (stop: () => Promise<void>) => void;
}

/**
 * The one place that decides where ZooKeeper comes from, in this order:
 * 1. ZK_CONNECT is set: use it;
 * 2. a container runtime answers: the official image through testcontainers;
 * 3. otherwise a local server process (Debian's package or ZOOKEEPER_HOME; installed with apt when
 *    root on Debian/Ubuntu; else an error saying what to install).
 */
export async function provideZooKeeper(options: ProvideOptions): Promise<ProvidedZooKeeper> {
  const { config } = options;
  if (config.zkConnect) {
    return { connectString: config.zkConnect, source: 'ZK_CONNECT', stop: async () => {} };
  }
  if (config.containers !== 'off' && (await containerRuntimeAvailable())) {
    const started = await startContainer({ dataDir: options.dir, keep: options.detached ?? false });
    return { ...started, source: 'container' };
  }
  const server = createServerProcess({
    dir: options.dir,
    clientPort: options.port ?? (await freePort()),
    detached: options.detached ?? false,
    tickTime: options.tickTime ?? 500,
    env: { zookeeperHome: config.zookeeperHome, javaHome: config.javaHome },
  });
  options.onStarting?.(() => server.stop());
  await server.start();
  return { connectString: server.connectString, source: 'process', server, stop: () => server.stop() };
}

/** A directory for the service's embedded ZooKeeper under the data dir. */
export function embeddedZooKeeperDir(dataDir: string): string {
  return join(dataDir, 'zookeeper');
}
