import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { connectZk } from '../../../src/zk/index.js';
import { logLines } from '../../support/chaos/zk-ensemble.js';
import { spawnEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { sleep, startPrivateServer } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';

/** The engines' session timeout; each freeze lasts longer than it (sessions cannot outlive it). */
const SESSION_TIMEOUT_MS = 4000;
const FREEZE_MS = SESSION_TIMEOUT_MS * 1.5;
const env = { ZK_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) };

/** Reads from a starting engine; an engine that exited fails the wait at once, with its output. */
function whileRunning<T>(engine: EngineProcess, read: () => T): () => T {
  return () => {
    if (engine.proc.exitCode !== null || engine.proc.signalCode !== null)
      throw new Error(`the engine exited during start-up:\n${engine.output()}`);
    return read();
  };
}

/** The engine's HTTP base URL, once it listens. */
function httpUrlOf(engine: EngineProcess): string | undefined {
  return /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"HTTP API listening"/.exec(engine.output())?.[1];
}

/** Start-up steps the engine tried again because ZooKeeper did not answer. */
function startUpRetries(engine: EngineProcess): Record<string, unknown>[] {
  return logLines(engine).filter((line) => line.msg === 'ZooKeeper unavailable; trying again');
}

async function readyStatus(url: string): Promise<number> {
  return (await fetch(`${url}/readyz`)).status;
}

describe('mrtq serve starting while ZooKeeper does not answer', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let dir: string;
  let connectString: string;
  let engine: EngineProcess | undefined;

  beforeAll(async () => {
    server = await startPrivateServer();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-startup-'));
    // The engines create this chroot themselves: one more start-up step that needs ZooKeeper.
    connectString = `${server.server.connectString}/startup`;
  });
  // A failed test leaves neither a frozen server nor an engine behind for the next one.
  afterEach(async () => {
    server.server.thaw();
    engine?.signal('SIGKILL');
    await engine?.exited;
    engine = undefined;
  });
  afterAll(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Once ready, the engine runs a batch to completion; then it stops cleanly. */
  async function runsABatchThenStops(running: EngineProcess, url: string): Promise<void> {
    const queue = queueContext(await connectZk({ connectString }));
    try {
      const { bid } = await createBatch(queue, {
        profile_name: 'p',
        submitter: 'startup',
        payload_url: 'sim:3',
        type: 'manifest',
      });
      const batch = await eventually(
        () => loadBatch(queue, bid),
        (b) => b.status === 'completed',
        60_000,
        100,
      );
      expect(batch.jobCount).toBe(3);
      expect(await readyStatus(url)).toBe(200);
    } finally {
      await queue.zk.close();
    }
    running.signal('SIGTERM');
    expect(await running.exited).toBe(0);
  }

  it('frozen from before the start for longer than the session timeout: /readyz says 503, then 200 once ZooKeeper thaws', async () => {
    server.server.freeze();
    const frozenAt = Date.now();
    const started = spawnEngineProcess(connectString, ['--sweep', '0'], env);
    engine = started;
    // Health checks are answered while start-up waits for ZooKeeper.
    const url = await eventually(
      whileRunning(started, () => httpUrlOf(started)),
      Boolean,
      60_000,
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ error: 'NOT_READY' });
    // One log line per attempt, naming the step that waits.
    const retries = await eventually(
      whileRunning(started, () => startUpRetries(started)),
      (lines) => lines.length >= 2,
      60_000,
    );
    expect(retries[0]).toMatchObject({ step: `ZooKeeper session at ${connectString}`, attempt: 1 });
    await sleep(frozenAt + FREEZE_MS - Date.now());
    expect(await readyStatus(url!)).toBe(503);
    server.server.thaw();

    await eventually(
      whileRunning(started, () => readyStatus(url!)),
      (status) => status === 200,
      60_000,
      100,
    );
    await runsABatchThenStops(started, url!);
  }, 180_000);

  it('paused just after its session connects, for longer than the session timeout: it becomes ready once ZooKeeper thaws', async () => {
    const started = spawnEngineProcess(connectString, ['--sweep', '0'], env);
    engine = started;
    // Freeze the moment the engine's session is up (the service's own log line of it, not the
    // client's), while the rest of start-up is to do.
    let beforeFreeze: string | undefined;
    const frozen = new Promise<void>((resolve, reject) => {
      void started.exited.then(() => reject(new Error(`the engine exited:\n${started.output()}`)));
      const onData = (): void => {
        if (!/"hostname":"[^"]*","state":"connected"/.test(started.output())) return;
        server.server.freeze();
        beforeFreeze = started.output();
        started.proc.stdout?.off('data', onData);
        resolve();
      };
      started.proc.stdout?.on('data', onData);
    });
    await frozen;
    expect(beforeFreeze).not.toContain('"msg":"service running');
    await sleep(FREEZE_MS);
    server.server.thaw();

    const url = await eventually(
      whileRunning(started, () => httpUrlOf(started)),
      Boolean,
      60_000,
    );
    await eventually(
      whileRunning(started, () => readyStatus(url!)),
      (status) => status === 200,
      60_000,
      100,
    );
    // The pause met a start-up step, which was tried again rather than ending the process.
    expect(startUpRetries(started).length).toBeGreaterThan(0);
    await runsABatchThenStops(started, url!);
  }, 180_000);
});
