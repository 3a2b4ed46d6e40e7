import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import type { Ledger } from '../../src/engine/ledger.js';
import type { QueueContext } from '../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../src/queue/tree/init.js';
import type { IngestSettings } from '../../src/config/ingest-settings.js';
import { createIngestSteps, type IngestSteps } from '../../src/steps/ingest.js';
import { queueContext } from './queue-context.js';
import type { ZkChroot } from './zk-chroot.js';

/** An engine running the real ingest steps, and a queue context of its own for the test to look with. */
export interface IngestEngine {
  ctx: QueueContext;
  engine: Engine;
  steps: IngestSteps;
  /** Stops the engine and closes the steps' connections. */
  stop(): Promise<void>;
}

/**
 * Starts an engine with the real ingest steps built from `settings` (read afresh by the steps,
 * so a test may change a field while it runs), after writing `profiles` (name → YAML) and the
 * queue tree; no sweep unless `options` asks for one.
 */
export async function startIngestEngine(
  chroot: ZkChroot,
  settings: IngestSettings,
  profiles: Record<string, string>,
  options: EngineOptions = {},
  ledger: Ledger = { record: () => {} },
): Promise<IngestEngine> {
  mkdirSync(settings.profilesDir, { recursive: true });
  for (const [name, yaml] of Object.entries(profiles))
    writeFileSync(join(settings.profilesDir, `${name}.yaml`), yaml);
  const ctx = queueContext(await chroot.connect());
  await ensureQueueTree(ctx.zk);
  const queue = queueContext(await chroot.connect());
  const steps = await createIngestSteps(settings, queue);
  const engine = new Engine(
    {
      queue,
      jobSteps: steps.jobSteps,
      batchSteps: steps.batchSteps,
      accessSteps: steps.accessSteps,
      ledger,
      log: pino({ level: 'silent' }),
    },
    { sweepIntervalMs: 0, ...options },
  );
  await engine.start();
  return {
    ctx,
    engine,
    steps,
    stop: async () => {
      await engine.stop(2000);
      await steps.close();
    },
  };
}
