import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { connectZk } from '../../../src/zk/index.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { readLedger, startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { sleep, startPrivateServer } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';

const profile = chaosProfile();
/** Sessions that outlive each outage (the private server allows up to 24 s). */
const SESSION_MS = 20_000;
/** How long ZooKeeper stays dead each time: as the probe that failed jobs did it. */
const DOWN_MS = 3_000;

describe('chaos, ZooKeeper killed: SIGKILL and a restart 3 s later, ten times, while 300 jobs run', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let ctx: QueueContext;
  let dir: string;
  let engine: EngineProcess | undefined;

  beforeAll(async () => {
    server = await startPrivateServer();
    dir = mkdtempSync(join(tmpdir(), 'chaos-zk-kill-'));
    ctx = queueContext(
      await connectZk({ connectString: server.server.connectString, sessionTimeoutMs: SESSION_MS }),
    );
    await ensureQueueTree(ctx.zk);
  });
  afterAll(async () => {
    engine?.signal('SIGKILL');
    await engine?.exited;
    await ctx?.zk.close();
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'fails no job: a step whose ZooKeeper calls (object locks) lost their answer is handed back, never failed',
    async () => {
      const startedAt = Date.now();
      const ledger = join(dir, 'ledger.jsonl');
      engine = await startEngineProcess(
        server.server.connectString,
        ['--ledger', ledger, '--sweep', '5000', '--step-delay', '20'],
        { ZK_SESSION_TIMEOUT_MS: String(SESSION_MS) },
      );
      const jobs = 300;
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
        // Store and record hold their object's lock in ZooKeeper, as the real steps do: the
        // steps whose calls a restart interrupted were failed for good before.
        simulate: { objectLocks: true },
      });
      const commits = () => readLedger(ledger).filter((e) => e.kind === 'commit').length;
      const kills = profile.size(10, 20);
      for (let kill = 0; kill < kills; kill++) {
        // Under load: some commits since the last restart (the engine reconnected and moves).
        const before = commits();
        await eventually(commits, (n) => n >= before + 20, 120_000, 50);
        await server.server.kill();
        await sleep(DOWN_MS);
        await server.server.start();
      }
      const batch = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed' || b.status === 'failed',
        profile.size(240_000, 600_000),
        200,
      );
      const failed = await Promise.all(
        (await listBatchJobs(ctx, bid))
          .filter((j) => j.folder === 'batch-failed')
          .map(async (j) => ({ ...j, message: (await loadJob(ctx, j.jid)).message })),
      );
      // Each with its message: which call failed it, and how.
      expect(failed, 'jobs failed by a ZooKeeper restart').toEqual([]);
      expect(batch.status).toBe('completed');
      expect(engine.proc.exitCode).toBeNull();
      engine.signal('SIGTERM');
      expect(await engine.exited).toBe(0);
      await finishScenario({
        scenario: 'zk-kill',
        profile,
        ctx,
        batches: [{ bid, jobs }],
        ledger: readLedger(ledger).map((e) => ({ ...e })),
        counts: { kills, down_ms: DOWN_MS },
        startedAt,
      });
    },
    profile.size(420_000, 1_200_000),
  );
});
