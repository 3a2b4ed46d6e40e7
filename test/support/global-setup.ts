import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'vitest';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { provideZooKeeper, type ProvidedZooKeeper } from '../../src/zk-server/provider.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the throwaway ZooKeeper every integration test file shares (each in its own chroot). */
    zkConnect: string;
    /** Its process id when it is a local process (not a container or ZK_CONNECT): 0 otherwise. */
    zkPid: number;
  }
}

let zookeeper: ProvidedZooKeeper | undefined;
let dir: string | undefined;

/** Starts one throwaway ZooKeeper for the whole run (ZK_CONNECT, a container, or a local process). */
export async function setup(project: TestProject): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'mrtq-test-zk-'));
  zookeeper = await provideZooKeeper({ dir, config: loadConfig() });
  project.provide('zkConnect', zookeeper.connectString);
  project.provide('zkPid', zookeeper.server?.pid ?? 0);
}

export async function teardown(): Promise<void> {
  await zookeeper?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
