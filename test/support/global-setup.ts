import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'vitest';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config/config.js';
import { provideZooKeeper, type ProvidedZooKeeper } from '../../src/zk-server/provider.js';
import { provideChromium } from './browser.js';
import { contentionOf, startContention } from './contention.js';
import { provideDepositorTools } from './debian-packages.js';

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
let stopContention: (() => void) | undefined;

/** Starts one throwaway ZooKeeper for the whole run (ZK_CONNECT, a container, or a local process). */
export async function setup(project: TestProject): Promise<void> {
  const busy = contentionOf(process.env);
  if (busy > 0) {
    stopContention = startContention(busy);
    console.log(`MRTQ_CONTENTION=${busy}: ${busy} busy processes run beside the tests`);
  }
  dir = mkdtempSync(join(tmpdir(), 'mrtq-test-zk-'));
  // Engines the tests start write their endpoint file and work directories here, never into the
  // repo's own .data, where a developer's `mrtq` would find a test's ZooKeeper.
  process.env.MRTQ_DATA_DIR ??= join(dir, 'service-data');
  zookeeper = await provideZooKeeper({ dir, config: loadConfig() }).catch((err: unknown) => {
    stopContention?.();
    throw err;
  });
  const noBrowser = provideChromium();
  if (noBrowser)
    console.log(`the dashboard's browser tests ${process.env.CI ? 'fail' : 'skip'}: ${noBrowser}`);
  // The depositor side of the ingest tests (a python3 file server, openssl, bzip2, unzip, curl):
  // installed like Chromium; a test that needs a missing one fails naming it.
  const noTools = provideDepositorTools();
  if (noTools) console.log(`some ingest tests fail: ${noTools}`);
  project.provide('zkConnect', zookeeper.connectString);
  project.provide('zkPid', zookeeper.server?.pid ?? 0);
}

export async function teardown(): Promise<void> {
  stopContention?.();
  await zookeeper?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
