import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { teeLedger, type Ledger, type LedgerEntry } from '../engine/ledger.js';
import { HISTORY_KIND } from '../history/entry.js';
import { historyLedger } from '../history/ledger.js';
import { JournalWriter } from '../journal/writer.js';
import { createBatch } from '../queue/batches/create.js';
import { loadBatch } from '../queue/batches/load.js';
import { GroupCommit } from '../zk/group-commit.js';
import type { QueueContext } from '../queue/tree/context.js';
import { ensureQueueTree } from '../queue/tree/init.js';
import { createSimulatedSteps } from '../steps/simulated.js';
import { connectZk, type ZkClient } from '../zk/index.js';
import { merrittJobLifecycle, batchFinishedStates } from '../../machines/index.js';
import { persist } from './retry.js';

/** A ledger line with the time it was written (ms, performance.now()) and the session's requests so far. */
export type TimedEntry = LedgerEntry & { at: number; requests: number };

/** This process's CPU time so far (user + system, ms): a system call, so taken sparingly. */
export function cpuMsSoFar(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** An engine in this process over its own ZooKeeper session, with no-op (simulated) steps. */
export interface BenchEngine {
  engine: Engine;
  zk: ZkClient;
  queue: QueueContext;
  entries: TimedEntry[];
  /** ZooKeeper requests this engine's session has sent so far. */
  requests(): number;
  /** This process's CPU time (ms, see cpuMsSoFar) when the first job commit was recorded. */
  cpuMsAtFirstJobCommit(): number | undefined;
  stop(): Promise<void>;
}

export async function startBenchEngine(
  connectString: string,
  options: EngineOptions = {},
): Promise<BenchEngine> {
  let requests = 0;
  const zk = await persist('connect', () => connectZk({ connectString, onRequest: () => requests++ }));
  const log = pino({ level: 'silent' });
  const queue: QueueContext = {
    zk,
    lifecycle: merrittJobLifecycle,
    log,
    now: () => new Date(),
    commits: new GroupCommit(zk),
  };
  await persist('queue tree', () => ensureQueueTree(zk));
  const entries: TimedEntry[] = [];
  let firstJobCommitCpuMs: number | undefined;
  const ledger: Ledger = {
    record: (entry) => {
      // The fields the bench reads, in one shape (a spread of each entry cost the bench's own ledger
      // about 2 µs a line, counted in the engine's CPU a job).
      const { kind, item, state, version, event, to } = entry;
      entries.push({ kind, item, state, version, event, to, at: performance.now(), requests });
      if (firstJobCommitCpuMs === undefined && entry.kind === 'commit' && entry.item.startsWith('jid'))
        firstJobCommitCpuMs = cpuMsSoFar();
    },
  };
  // As deployed (`mrtq serve`): each step's end in the history journal, so its cost is measured.
  const historyDir = mkdtempSync(join(tmpdir(), 'mrtq-bench-history-'));
  const journal = new JournalWriter({
    dir: historyDir,
    kind: HISTORY_KIND,
    writer: 'bench',
    sync: false,
    log,
  });
  const engine = new Engine(
    { queue, ...createSimulatedSteps(), ledger: teeLedger(ledger, historyLedger(journal, 'bench')), log },
    { sweepIntervalMs: 0, ...options },
  );
  await persist('engine start', () => engine.start());
  return {
    engine,
    zk,
    queue,
    entries,
    requests: () => requests,
    cpuMsAtFirstJobCommit: () => firstJobCommitCpuMs,
    async stop() {
      await engine.stop(5000);
      await zk.close();
      await journal.close();
      rmSync(historyDir, { recursive: true, force: true });
    },
  };
}

/** Submits a simulated batch of `jobs` jobs from `queue` (a session other than the engine's), of `collection` if given. */
export async function submitSimulated(
  queue: QueueContext,
  jobs: number,
  submitter = 'bench',
  collection?: string,
): Promise<string> {
  // Under a uuid, a submission tried again after its answer was lost returns the same batch.
  const submission = {
    profile_name: 'bench',
    submitter,
    payload_url: `sim:${jobs}`,
    type: 'manifest',
    batchID: randomUUID(),
    ...(collection ? { collection } : {}),
  };
  const { bid } = await persist('submit', () => createBatch(queue, submission));
  return bid;
}

/** Waits until the batch is completed or failed, polling (the bench must not depend on the engine's own watches). */
export async function waitForBatch(queue: QueueContext, bid: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await persist('batch status', () => loadBatch(queue, bid));
    if (batchFinishedStates.has(status)) return;
    if (Date.now() > until) throw new Error(`batch ${bid} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
