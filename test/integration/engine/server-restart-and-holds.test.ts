import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { releaseCollection } from '../../../src/admin/collections.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { holdCollection } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { connectZk } from '../../../src/zk/index.js';
import {
  commitCounts,
  readLedger,
  startEngineProcess,
  type EngineProcess,
} from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { startPrivateServer } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';

/** The engine's and this test's sessions: they outlive the outage, the server's restart included. */
const SESSION_MS = 45_000;
/** How long the server stays down: longer than a request's timeout and the old 15 s settle limit. */
const OUTAGE_MS = 17_000;

describe('an engine process across a ZooKeeper restart, and collection holds mid-run', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let ctx: QueueContext;
  let dir: string;
  let engine: EngineProcess;
  const ledger = (): string => join(dir, 'ledger.jsonl');

  beforeAll(async () => {
    server = await startPrivateServer();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-restart-'));
    // Sessions that outlast the outage below on a busy 2-core box (the server allows up to 60 s).
    ctx = queueContext(
      await connectZk({ connectString: server.server.connectString, sessionTimeoutMs: SESSION_MS }),
    );
    await ensureQueueTree(ctx.zk);
    engine = await startEngineProcess(
      server.server.connectString,
      ['--ledger', ledger(), '--sweep', '0', '--step-delay', '20', '--limit', '2'],
      { ZK_SESSION_TIMEOUT_MS: String(SESSION_MS) },
    );
  });
  afterEach(({ task }) => {
    // What the engine said is the evidence when this fails on a loaded machine.
    if (task.result?.state === 'fail') console.error(engine.output().split('\n').slice(-200).join('\n'));
  });
  afterAll(async () => {
    engine?.signal('SIGTERM');
    await engine?.exited;
    await ctx?.zk.close();
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a server away longer than a request waits, within the session timeout, loses no work and the streams keep flowing', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:60',
      type: 'manifest',
    });
    await eventually(
      () => readLedger(ledger()).filter((e) => e.kind === 'commit').length,
      (n) => n > 20,
      30_000,
    );
    // Longer than any request waits for its answer: commits in flight when the server went are
    // settled once it is back (the same session: its locks held), never guessed.
    await server.server.stop();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await server.server.start();
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      60_000,
      100,
    );
    expect(batch.jobCount).toBe(60);
    const entries = readLedger(ledger());
    const commits = entries.filter((e) => e.kind === 'commit' && e.item.startsWith('jid'));
    if (engine.output().includes('session lost; making a new one')) {
      // The server took longer to come back than the session lasts (a busy machine restarts a
      // JVM slowly): commits whose answer was lost with the session are never claimed (they may
      // be another worker's), so the ledger may miss a few that were applied. Each is one the
      // engine discarded as unknown; none is committed twice (below).
      const unknown = entries.filter((e) => e.kind === 'discard' && e.reason?.includes('lock-lost'));
      expect(commits.length).toBeLessThanOrEqual(60 * 8);
      expect(commits.length + unknown.length).toBeGreaterThanOrEqual(60 * 8);
    } else expect(commits).toHaveLength(60 * 8);
    expect([...commitCounts(entries).values()].every((n) => n === 1)).toBe(true);
    // A batch submitted after the restart is seen through the re-armed watches.
    const after = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
    });
    await eventually(
      () => loadBatch(ctx, after.bid),
      (b) => b.status === 'completed',
      30_000,
      100,
    );
  }, 180_000);

  it('holding a collection while its batch runs sends its pending jobs to held; releasing it lets them finish', async () => {
    // Enough jobs that the engine is still taking them out of pending when the hold is placed.
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:400',
      type: 'manifest',
      collection: 'dark',
    });
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.expansion === 'done',
      30_000,
      20,
    );
    await holdCollection(ctx, 'dark');
    const held = await eventually(
      () => ctx.zk.getChildren('/jobs/states/held'),
      (names) => names.length > 0,
      30_000,
      50,
    );
    expect(held.length).toBeGreaterThan(0);
    // Nothing is left pending: every pending job of the collection was sent to held.
    await eventually(
      () => ctx.zk.getChildren('/jobs/states/pending'),
      (names) => names.length === 0,
      30_000,
      50,
    );
    expect((await loadBatch(ctx, bid)).status).toBe('processing');

    const released = await releaseCollection(ctx, 'dark');
    expect(released.jobs.length).toBe(
      (await ctx.zk.getChildren('/jobs/states/held')).length + released.jobs.length,
    );
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      60_000,
      100,
    );
    expect(batch.jobCount).toBe(400);
  }, 120_000);
});
