import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { stopContainerById } from './container.js';
import { isServing } from './four-letter.js';
import { freePort } from './free-port.js';
import { provideZooKeeper, type ZooKeeperSource } from './provider.js';
import { attachServerProcess, isAlive } from './server-process.js';

/** What `mrtq zk up` records so that `mrtq zk down` (or the service) can find the server later. */
export interface EmbeddedRecord {
  source: Exclude<ZooKeeperSource, 'ZK_CONNECT'>;
  connectString: string;
  pid?: number;
  port?: number;
  containerId?: string;
  startedAt: string;
}

const PREFERRED_PORT = 2181;

function recordFile(dataDir: string): string {
  return join(dataDir, 'zookeeper', 'embedded.json');
}

/** The running embedded ZooKeeper recorded under `dataDir`, or undefined when there is none. */
export async function readEmbedded(dataDir: string): Promise<EmbeddedRecord | undefined> {
  const file = recordFile(dataDir);
  if (!existsSync(file)) return undefined;
  let record: EmbeddedRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as EmbeddedRecord;
  } catch {
    return undefined;
  }
  if (record.source === 'process') {
    if (!isAlive(record.pid) || !isOurServer(record.pid, dataDir)) return undefined;
    const [host = '127.0.0.1', port = ''] = record.connectString.split(':');
    if (!(await isServing(host, Number(port)))) return undefined;
  }
  return record;
}

/** A pid may have been reused since the record was written: only ever signal our own JVM. */
function isOurServer(pid: number | undefined, dataDir: string): boolean {
  if (pid === undefined) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(join(dataDir, 'zookeeper', 'zoo.cfg'));
  } catch {
    return true; // no /proc (macOS): trust the record
  }
}

async function choosePort(): Promise<number> {
  return (await isServing('127.0.0.1', PREFERRED_PORT, 200)) ? freePort() : PREFERRED_PORT;
}

/**
 * Starts the service's own ZooKeeper (unless one is already recorded and serving) and returns its
 * record. Data lives under `<dataDir>/zookeeper`, so the queue survives restarts; the server
 * outlives this process until `stopEmbedded`.
 */
export async function startEmbedded(config: Config): Promise<EmbeddedRecord & { reused: boolean }> {
  const running = await readEmbedded(config.dataDir);
  if (running) return { ...running, reused: true };
  const dir = join(config.dataDir, 'zookeeper');
  mkdirSync(dir, { recursive: true });
  let port = await choosePort();
  const previous = readPreviousPort(config.dataDir);
  if (previous !== undefined && !(await isServing('127.0.0.1', previous, 200))) port = previous;
  const provided = await provideZooKeeper({
    dir,
    config: { ...config, zkConnect: undefined },
    port,
    detached: true,
    tickTime: 2000,
  });
  const record: EmbeddedRecord = {
    source: provided.source === 'container' ? 'container' : 'process',
    connectString: provided.connectString,
    pid: provided.server?.pid,
    port: provided.server?.port,
    containerId: provided.containerId,
    startedAt: new Date().toISOString(),
  };
  writeFileSync(recordFile(config.dataDir), JSON.stringify(record, null, 2) + '\n');
  if (record.port !== undefined) writeFileSync(lastPortFile(config.dataDir), String(record.port));
  return { ...record, reused: false };
}

/** The port the embedded server used last time, so connection strings stay stable across restarts. */
function readPreviousPort(dataDir: string): number | undefined {
  try {
    const port = Number(readFileSync(lastPortFile(dataDir), 'utf8'));
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

function lastPortFile(dataDir: string): string {
  return join(dataDir, 'zookeeper', 'last-port');
}

/** Stops the recorded embedded ZooKeeper. Returns false when none was running. */
export async function stopEmbedded(dataDir: string): Promise<boolean> {
  const record = await readEmbedded(dataDir);
  if (!record) return false;
  if (record.source === 'container' && record.containerId) {
    await stopContainerById(record.containerId);
  } else if (record.pid !== undefined) {
    const dir = join(dataDir, 'zookeeper');
    await attachServerProcess({ dir, clientPort: record.port ?? 0 }, record.pid).stop();
  }
  rmSync(recordFile(dataDir), { force: true });
  return true;
}
