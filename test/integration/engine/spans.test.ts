import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { Attr } from '../../../src/telemetry/attributes.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('every step runs in one span', () => {
  const exporter = new InMemorySpanExporter();
  let ctx: QueueContext;
  let engine: Engine;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0 },
    );
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(1000);
    trace.disable();
  });

  it('names the state, carries job and batch ids, and marks failed steps ERROR', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:2',
      type: 'manifest',
      simulate: { failAt: { '1': 'recording' } },
    });
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'failed',
      30_000,
    );
    // A step's span ends once its commit's reply comes, which may be after the tree shows it.
    const spans = await eventually(
      () => exporter.getFinishedSpans(),
      (all) => all.some((s) => s.name === 'batch report' && s.attributes[Attr.batchId] === bid),
      30_000,
    );
    const jobSpans = spans.filter((s) => s.attributes[Attr.batchId] === bid && s.attributes[Attr.jobId]);
    const names = jobSpans.map((s) => s.name);
    for (const state of ['estimating', 'provisioning', 'downloading', 'processing', 'recording']) {
      expect(names.filter((n) => n === `step ${state}`)).toHaveLength(2);
    }
    expect(names.filter((n) => n === 'step notify')).toHaveLength(1);
    const failed = jobSpans.filter((s) => s.status.code === SpanStatusCode.ERROR);
    expect(failed.map((s) => [s.name, s.attributes[Attr.event], s.status.message])).toEqual([
      ['step recording', 'record.failed', 'simulated failure while recording'],
    ]);
    const ok = jobSpans.find((s) => s.name === 'step notify')!;
    expect(ok.attributes).toMatchObject({ [Attr.event]: 'notify.done', [Attr.stateTo]: 'completed' });
    const batchSpans = spans
      .filter((s) => s.attributes[Attr.batchId] === bid && !s.attributes[Attr.jobId])
      .map((s) => s.name);
    expect(batchSpans).toEqual(expect.arrayContaining(['batch expand', 'batch report']));
  });
});
