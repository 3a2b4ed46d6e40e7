import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** A ZooKeeper running in a container started through testcontainers. */
export interface ContainerZooKeeper {
  connectString: string;
  containerId: string;
  stop(): Promise<void>;
}

const IMAGE = 'zookeeper:3.8';

/**
 * True when a container runtime answers. testcontainers fails in about a millisecond with
 * "Could not find a working container runtime strategy" when there is none; a missing
 * testcontainers package (production install without dev dependencies) counts as none.
 */
export async function containerRuntimeAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the official `zookeeper` image. For a long-lived service (`keep`), the data directory is
 * bind-mounted so the queue survives restarts, and the container outlives this process (the
 * caller records its id to stop it later).
 */
export async function startContainer(options: {
  dataDir?: string;
  keep?: boolean;
}): Promise<ContainerZooKeeper> {
  const { GenericContainer, Wait } = await import('testcontainers');
  let container = new GenericContainer(IMAGE)
    .withExposedPorts(2181)
    .withEnvironment({ ZOO_4LW_COMMANDS_WHITELIST: '*', ZOO_ADMINSERVER_ENABLED: 'false' })
    .withWaitStrategy(Wait.forLogMessage(/binding to port/i));
  if (options.dataDir) {
    const data = join(options.dataDir, 'container-data');
    mkdirSync(data, { recursive: true });
    container = container.withBindMounts([{ source: data, target: '/data' }]);
  }
  if (options.keep) container = container.withLabels({ 'org.testcontainers.session-id': 'mrtq-zk-up' });
  const started = await container.start();
  return {
    connectString: `${started.getHost()}:${started.getMappedPort(2181)}`,
    containerId: started.getId(),
    stop: async () => {
      await started.stop();
    },
  };
}

/** Stops a container started by an earlier process (`mrtq zk down`). */
export async function stopContainerById(id: string): Promise<void> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(id);
  await client.container.stop(container);
  await client.container.remove(container);
}
