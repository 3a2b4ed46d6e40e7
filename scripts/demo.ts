// `npm run demo`: a first run on embedded defaults. Starts a throwaway ZooKeeper and the service
// (ingest steps), serves a small sample collection (a manifest of manifests, one object broken)
// from a loopback HTTP server, submits it, shows progress live, prints the batch report and how
// to requeue the failed job, and shuts everything down.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobWorkingStates } from '../machines/index.js';
import { loadConfig } from '../src/config/config.js';
import { serveSampleCollection } from '../src/demo/sample.js';
import { createLogger } from '../src/logger.js';
import { createBatch } from '../src/queue/batches/create.js';
import { loadBatch } from '../src/queue/batches/load.js';
import { listBatchJobs } from '../src/queue/batches/jobs.js';
import { loadJob } from '../src/queue/jobs/load.js';
import { startService } from '../src/service.js';
import { provideZooKeeper } from '../src/zk-server/provider.js';
import { merrittJobLifecycle } from '../machines/index.js';

const STATES = ['pending', ...jobWorkingStates, 'completed', 'failed'] as const;
const tty = process.stdout.isTTY === true;

function bar(count: number, total: number): string {
  const width = 20;
  const filled = total === 0 ? 0 : Math.round((count / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-demo-'));
  const zookeeper = await provideZooKeeper({
    dir: join(dir, 'zookeeper'),
    config: { zkConnect: undefined, containers: 'off', zookeeperHome: undefined, javaHome: undefined },
  });
  console.log(`ZooKeeper (throwaway) on ${zookeeper.connectString}; data in ${dir}`);
  const config = loadConfig({
    ...process.env,
    ZK_CONNECT: zookeeper.connectString,
    MRTQ_DATA_DIR: join(dir, 'data'),
  });
  const service = await startService(config, { sweepIntervalMs: 10_000, httpPort: 0 }, createLogger('warn'));
  const sample = await serveSampleCollection();
  try {
    const queue = {
      zk: service.zk,
      lifecycle: merrittJobLifecycle,
      log: createLogger('silent'),
      now: () => new Date(),
    };
    const { bid } = await createBatch(queue, {
      profile_name: 'demo',
      submitter: 'demo',
      payload_url: sample.batchManifestUrl,
      type: 'batch-manifest',
      collection: 'demo',
      batchID: randomUUID(),
    });
    console.log(`submitted ${sample.batchManifestUrl} as ${bid}`);
    const batch = await follow(service.zk, bid, queue);
    await report(queue, bid, batch.status);
    return 0;
  } finally {
    await service.stop(5000);
    await sample.close();
    await zookeeper.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints progress until the batch is completed or failed (bars in a terminal, lines otherwise). */
async function follow(
  zk: import('../src/zk/index.js').ZkClient,
  bid: string,
  queue: Parameters<typeof loadBatch>[0],
) {
  let last = '';
  const deadline = Date.now() + 120_000;
  for (;;) {
    const batch = await loadBatch(queue, bid);
    const counts = await Promise.all(
      STATES.map(async (s) => (await zk.getChildren(`/jobs/states/${s}`)).length),
    );
    const total = counts.reduce((a, b) => a + b, 0);
    const line = `${bid} ${batch.status.padEnd(10)} ` + STATES.map((s, i) => `${s}=${counts[i]}`).join(' ');
    if (tty) {
      const bars = STATES.map((s, i) => `  ${s.padEnd(13)} ${bar(counts[i]!, total)} ${counts[i]}`).join(
        '\n',
      );
      process.stdout.write(`\x1b[2J\x1b[H${bid}: ${batch.status}\n${bars}\n`);
    } else if (line !== last) {
      console.log(line);
    }
    last = line;
    if (batch.status === 'completed' || batch.status === 'failed') return batch;
    if (Date.now() > deadline) throw new Error(`the demo batch did not finish within 2 minutes (${line})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function report(queue: Parameters<typeof loadBatch>[0], bid: string, status: string): Promise<void> {
  const { data } = await queue.zk.getData(`/batches/${bid}/status-report`);
  console.log(`\nbatch ${bid} ended ${status}; status-report:\n${data?.toString() ?? '(none)'}`);
  for (const { jid, folder } of await listBatchJobs(queue, bid)) {
    if (folder !== 'batch-failed') continue;
    const job = await loadJob(queue, jid);
    console.log(
      `\njob ${jid} failed (last successful step: ${job.lastSuccessfulStatus ?? 'none'}):\n  ${job.message}`,
    );
    console.log(`requeue it (with the service running, e.g. after \`npm start\`): npx mrtq requeue ${jid}`);
  }
}

main()
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
