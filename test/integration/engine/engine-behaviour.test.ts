import { pino } from 'pino';
import { WebSocket } from 'ws';
import type { InspectionEvent, Observer } from 'xstate';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type EngineOptions } from '../../../src/engine/engine.js';
import type { MerrittJobSteps } from '../../../src/steps/contracts.js';
import { startInspector } from '../../../src/inspect/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { pauseQueue, resumeQueue } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('engine behaviour', () => {
  let ctx: QueueContext;
  let engine: Engine | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  async function startEngine(
    jobSteps: Partial<MerrittJobSteps> = {},
    options: EngineOptions = {},
    inspect?: Observer<InspectionEvent>,
  ) {
    const simulated = createSimulatedSteps();
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        jobSteps: { steps: { ...simulated.jobSteps.steps, ...jobSteps } },
        batchSteps: simulated.batchSteps,
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
        inspect,
      },
      { sweepIntervalMs: 0, ...options },
    );
    await engine.start();
  }

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });
  afterEach(async () => {
    await engine?.stop(1000);
    engine = undefined;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('a paused queue acquires nothing; resumed, the batch runs', async () => {
    await pauseQueue(ctx, 'ingest');
    await startEngine();
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:3',
      type: 'manifest',
    });
    await sleep(800);
    expect((await loadBatch(ctx, bid)).status).toBe('pending');
    await resumeQueue(ctx, 'ingest');
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      30_000,
    );
  });

  it('provisioning keeps a job waiting while space is short, without spinning, and lets it go when space returns', async () => {
    let space = false;
    let calls = 0;
    await startEngine(
      {
        provision: () => {
          calls += 1;
          return Promise.resolve(
            space ? { hasSpace: true } : { hasSpace: false, message: 'needs 5 GB, 1 GB free' },
          );
        },
      },
      { provisioningIntervalMs: 400 },
    );
    const submittedAt = Date.now();
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
    });
    const waiting = await eventually(
      () => ctx.zk.getChildren('/jobs/states/provisioning'),
      (names) => names.length === 2,
      30_000,
    );
    expect(waiting).toHaveLength(2);
    // Evaluated on arrival and at each re-evaluation (every 400 ms here), not in a loop.
    await eventually(
      () => calls,
      (n) => n >= 4,
      10_000,
    );
    const intervals = Math.ceil((Date.now() - submittedAt) / 400);
    expect(calls).toBeLessThanOrEqual(2 * (2 + intervals));
    const job = JSON.parse(
      (await ctx.zk.getData(`/jobs/${waiting[0]!.slice(3)}/status`)).data!.toString(),
    ) as {
      message: string;
    };
    expect(job.message).toBe('needs 5 GB, 1 GB free');
    space = true;
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      30_000,
    );
  });

  it('attaches the Stately inspector to every machine actor it runs', async () => {
    const inspector = await startInspector({ port: await freePort() });
    cleanups.push(() => inspector.stop());
    const socket = new WebSocket(inspector.relayUrl);
    const types = new Set<string>();
    const jobs = new Set<string>();
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as {
        type: string;
        snapshot?: { context?: { jobId?: string } };
      };
      types.add(message.type);
      if (message.snapshot?.context?.jobId) jobs.add(message.snapshot.context.jobId);
    });
    await new Promise((resolve) => socket.once('open', resolve));
    cleanups.push(() => Promise.resolve(socket.close()));
    await startEngine({}, {}, inspector.inspect);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
    });
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      30_000,
    );
    await eventually(
      () => types.size,
      () => types.has('@xstate.actor') && types.has('@xstate.snapshot') && types.has('@xstate.event'),
      5000,
    );
    expect(jobs.size).toBe(2);
  });
});
