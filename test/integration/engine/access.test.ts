import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createAccess, loadAccess } from '../../../src/queue/access/requests.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { pauseQueue, resumeQueue } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('the access queues', () => {
  let ctx: QueueContext;
  let engine: Engine;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0, jobStates: [], batchWork: [] },
    );
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('assembles a request to completed with its token updated, and fails one that cannot be assembled', async () => {
    const ok = await createAccess(ctx, 'small', { token: 't-1', ark: 'ark:/99999/fk4x' });
    const bad = await createAccess(ctx, 'large', { token: 't-2', simulate_fail: true });
    const done = await eventually(
      () => loadAccess(ctx, 'small', ok),
      (r) => r.status === 'completed',
      15_000,
    );
    expect(done.token).toMatchObject({ token: 't-1', url: `sim://access/${ok}.zip`, status: 'available' });
    const failed = await eventually(
      () => loadAccess(ctx, 'large', bad),
      (r) => r.status === 'failed',
      15_000,
    );
    expect(failed.message).toBe('simulated assembly failure');
  });

  it('a paused access queue acquires nothing until resumed; the other queue goes on', async () => {
    await pauseQueue(ctx, 'accessSmall');
    const held = await createAccess(ctx, 'small', { token: 't-3' });
    const other = await createAccess(ctx, 'large', { token: 't-4' });
    await eventually(
      () => loadAccess(ctx, 'large', other),
      (r) => r.status === 'completed',
      15_000,
    );
    await sleep(300);
    expect((await loadAccess(ctx, 'small', held)).status).toBe('pending');
    await resumeQueue(ctx, 'accessSmall');
    await eventually(
      () => loadAccess(ctx, 'small', held),
      (r) => r.status === 'completed',
      15_000,
    );
  });
});
