import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { Attr } from '../../../src/telemetry/attributes.js';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.js';
import { MERRITT_WORKING_STATES } from '../../support/lifecycle-paths.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

const JOB_STEPS = MERRITT_WORKING_STATES;
const ENGINE_A_STATES = 'pending,estimating,provisioning,downloading';
const ENGINE_B_STATES = 'processing,storing,recording,notify';

function tracingEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'mrtq-test',
  };
}

interface LogLine {
  level: number;
  msg: string;
  state?: string;
  jobId?: string;
  component?: string;
  trace_id?: string;
  span_id?: string;
}

function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function stop(engine: EngineProcess): Promise<number | string> {
  engine.signal('SIGTERM');
  return engine.exited;
}

describe('traces of a batch run by two engine processes, received over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let ctx: QueueContext;
  let engineA: EngineProcess;
  let engineB: EngineProcess;
  let cliPid: number;
  let spans: ReceivedSpan[];
  let tracedBid: string;
  let untracedBid: string;
  let outputs: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const env = { ...tracingEnv(receiver), LOG_LEVEL: 'debug' };
    // A takes batches and the first job states, B the rest: every job crosses processes.
    engineA = await startEngineProcess(
      chroot.connectString(),
      ['--states', ENGINE_A_STATES, '--batches', 'expand,report', '--sweep', '0'],
      env,
    );
    engineB = await startEngineProcess(
      chroot.connectString(),
      ['--states', ENGINE_B_STATES, '--sweep', '0'],
      env,
    );

    // A batch submitted by the command line (its own process and trace root) …
    const submitted = await runCli(
      ['submit', 'sim:3', '--profile', 'demo', '--json', '--zk', chroot.connectString()],
      tracingEnv(receiver),
    );
    expect(submitted.code, submitted.stderr).toBe(0);
    tracedBid = (JSON.parse(submitted.stdout) as { bid: string }).bid;
    // … and one written by another tool (no trace context stored), whose job 1 fails in B.
    untracedBid = (
      await createBatch(ctx, {
        profile_name: 'demo',
        submitter: 'other-tool',
        payload_url: 'sim:3',
        type: 'file',
        simulate: { failAt: { '1': 'processing' } },
      })
    ).bid;
    await eventually(
      () => loadBatch(ctx, tracedBid),
      (b) => b.status === 'completed',
      30_000,
      100,
    );
    await eventually(
      () => loadBatch(ctx, untracedBid),
      (b) => b.status === 'failed',
      30_000,
      100,
    );
    // Stopping flushes what each process still buffers.
    expect(await stop(engineA)).toBe(0);
    expect(await stop(engineB)).toBe(0);
    outputs = engineA.output() + engineB.output();
    spans = receiver.spans();
    cliPid = spans.find((s) => s.name === 'batch submit')?.resource['process.pid'] as number;
  }, 90_000);

  afterAll(async () => {
    engineA?.signal('SIGKILL');
    engineB?.signal('SIGKILL');
    await receiver?.close();
  });

  const ofBatch = (bid: string) => spans.filter((s) => s.attributes[Attr.batchId] === bid);
  const named = (list: ReceivedSpan[], name: string) => list.filter((s) => s.name === name);
  const one = (list: ReceivedSpan[], name: string): ReceivedSpan => {
    const found = named(list, name);
    expect(
      found.map((s) => s.name),
      `exactly one span "${name}"`,
    ).toEqual([name]);
    return found[0]!;
  };

  it('shows a submitted batch as one tree: submission → expansion → each job’s steps → report', () => {
    const mine = ofBatch(tracedBid);
    const submit = one(mine, 'batch submit');
    expect(submit.parentSpanId).toBe('');
    expect(submit.resource).toMatchObject({ 'service.name': 'mrtq-test' });
    expect(new Set(mine.map((s) => s.traceId))).toEqual(new Set([submit.traceId]));

    const expand = one(mine, 'batch expand');
    const report = one(mine, 'batch report');
    expect(expand.parentSpanId).toBe(submit.spanId);
    expect(report.parentSpanId).toBe(submit.spanId);
    expect(expand.attributes).toMatchObject({ [Attr.profile]: 'demo', [Attr.jobCount]: 3 });

    const jobs = [...new Set(mine.map((s) => s.attributes[Attr.jobId]).filter(Boolean))] as string[];
    expect(jobs).toHaveLength(3);
    for (const jid of jobs) {
      const steps = mine.filter((s) => s.attributes[Attr.jobId] === jid && s.name.startsWith('step '));
      expect(steps.map((s) => s.name).sort()).toEqual(JOB_STEPS.map((state) => `step ${state}`).sort());
      for (const step of steps) expect(step.parentSpanId, step.name).toBe(expand.spanId);
    }
  });

  it('has no dangling parent: every span of the trace hangs off a span that was received', () => {
    const submit = one(ofBatch(tracedBid), 'batch submit');
    const trace = spans.filter((s) => s.traceId === submit.traceId);
    const ids = new Set(trace.map((s) => s.spanId));
    const orphans = trace.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId));
    expect(orphans.map((s) => s.name)).toEqual([]);
    // Requests to ZooKeeper are children of the work that made them.
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const multis = named(trace, 'zk multi');
    // Group commit: one multi may carry the transitions of several jobs ready in the same turn
    // (its span hangs off the transition of the job that opened the group), so three jobs make
    // at least one multi per transition, 7 (batch transitions and expansion add their own).
    expect(multis.length).toBeGreaterThanOrEqual(7);
    const parents = new Set(multis.map((s) => byId.get(s.parentSpanId)?.name.split(' ')[0]));
    expect(parents).toContain('transition');
    for (const multi of multis) expect(multi.attributes[Attr.zkOps]).toBeGreaterThan(0);
  });

  it('runs each job’s steps in both processes, each span naming the process that ran it', () => {
    const mine = ofBatch(tracedBid);
    const pidsOf = (state: string) =>
      new Set(named(mine, `step ${state}`).map((s) => s.resource['process.pid']));
    expect(pidsOf('estimating')).toEqual(new Set([engineA.pid]));
    expect(pidsOf('processing')).toEqual(new Set([engineB.pid]));
    expect(cliPid).not.toBe(engineA.pid);
    expect(cliPid).not.toBe(engineB.pid);
  });

  it('records a committed transition per move, a child of the step that caused it', () => {
    const mine = ofBatch(tracedBid);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const jobTransitions = mine.filter((s) => s.name.startsWith('transition ') && s.attributes[Attr.jobId]);
    expect(jobTransitions).toHaveLength(3 * 8); // pending → … → completed
    for (const t of jobTransitions) {
      const parent = byId.get(t.parentSpanId);
      const from = t.attributes[Attr.stateFrom] as string;
      // The pending job is taken without a step: its transition continues the expansion.
      const expected = from === 'pending' ? 'batch expand' : `step ${from}`;
      expect(parent?.name, `parent of ${t.name}`).toBe(expected);
      if (parent?.attributes[Attr.jobId])
        expect(parent.attributes[Attr.jobId]).toBe(t.attributes[Attr.jobId]);
      expect(t.attributes[Attr.stateTo]).toBeTruthy();
      expect(t.status.code).not.toBe(2);
    }
    const batchTransitions = mine
      .filter((s) => s.name.startsWith('transition ') && !s.attributes[Attr.jobId])
      .map((s) => `${s.attributes[Attr.stateFrom] as string}→${s.attributes[Attr.stateTo] as string}`);
    expect(batchTransitions).toEqual(
      expect.arrayContaining(['pending→processing', 'processing→reporting', 'reporting→completed']),
    );
  });

  it('carries the attributes from one constants module on step spans', () => {
    const step = named(ofBatch(tracedBid), 'step downloading')[0]!;
    expect(step.attributes).toMatchObject({
      [Attr.batchId]: tracedBid,
      [Attr.state]: 'downloading',
      [Attr.profile]: 'demo',
      [Attr.priority]: expect.any(Number) as unknown,
      [Attr.retryCount]: 0,
      [Attr.event]: 'download.done',
      [Attr.stateTo]: 'processing',
    });
    expect(step.attributes[Attr.jobId]).toMatch(/^jid\d+$/);
  });

  it('marks the failed step ERROR, with its message, in a batch that had no stored trace context', () => {
    const mine = ofBatch(untracedBid);
    // Written by another tool: the trace starts where an engine first took the batch, whose
    // context is kept in the batch's status, and still holds the whole batch.
    const roots = mine.filter((s) => s.parentSpanId === '');
    expect(roots.map((s) => [s.name, s.attributes[Attr.stateTo]])).toEqual([
      ['transition pending', 'processing'],
    ]);
    const root = roots[0]!;
    expect(new Set(mine.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(one(mine, 'batch expand').parentSpanId).toBe(root.spanId);
    expect(one(mine, 'batch report').parentSpanId).toBe(root.spanId);
    const failed = mine.filter((s) => s.status.code === 2);
    expect(failed.map((s) => [s.name, s.status.message, s.resource['process.pid']])).toEqual([
      ['step processing', 'simulated failure while processing', engineB.pid],
    ]);
    expect(failed[0]!.attributes[Attr.event]).toBe('process.failed');
  });

  it('writes the step’s trace and span ids into every log line of the step', () => {
    const stepLines = logLines(outputs).filter((l) => l.msg === 'simulated step');
    // The traced batch: 3 jobs × 7 steps; the other: 2 jobs × 7 and the failing one up to processing.
    expect(stepLines.length).toBe(3 * 7 + 2 * 7 + 4);
    const stepSpans = spans.filter((s) => s.name.startsWith('step '));
    for (const line of stepLines) {
      const span = stepSpans.find(
        (s) => s.attributes[Attr.jobId] === line.jobId && s.name === `step ${line.state}`,
      );
      expect(span, `span of ${line.jobId} ${line.state}`).toBeDefined();
      expect({ trace_id: line.trace_id, span_id: line.span_id }).toEqual({
        trace_id: span!.traceId,
        span_id: span!.spanId,
      });
    }
  });

  it('prints no exporter errors while the collector is there', () => {
    const problems = logLines(outputs).filter((l) => l.level >= 40 && l.component === 'otel');
    expect(problems).toEqual([]);
  });
});

describe('tracing switched off, or with no collector listening', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  async function runOneBatch(
    env: Record<string, string>,
  ): Promise<{ output: string; code: number | string; stopMs: number }> {
    const engine = await startEngineProcess(chroot.connectString(), ['--sweep', '0'], env);
    try {
      const { bid } = await createBatch(ctx, {
        profile_name: 'demo',
        submitter: 's',
        payload_url: 'sim:2',
        type: 'file',
      });
      await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed',
        30_000,
        100,
      );
      const started = Date.now();
      const code = await stop(engine);
      return { output: engine.output(), code, stopMs: Date.now() - started };
    } finally {
      engine.signal('SIGKILL');
    }
  }

  it('exports nothing and prints nothing about it when no endpoint is configured, and stops cleanly', async () => {
    const { output, code } = await runOneBatch({
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    });
    expect(code).toBe(0);
    const lines = logLines(output);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.filter((l) => l.trace_id !== undefined)).toEqual([]);
    expect(output).not.toMatch(/otel|OTLP|export/i);
    // Nothing but JSON log lines: no stack trace printed by a library.
    expect(output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'))).toEqual([]);
  }, 60_000);

  it('stops within its bound when the collector is gone, saying once that spans were lost', async () => {
    const gone = await startOtlpReceiver();
    const url = gone.url;
    await gone.close(); // the port is free again: connections are refused
    const { output, code, stopMs } = await runOneBatch({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(15_000);
    // The operator learns why spans were lost, once, not once per failed export.
    const warnings = logLines(output).filter((l) => l.component === 'otel');
    expect(warnings.map((l) => l.msg)).toContain('spans not all flushed before shutdown');
    expect(warnings.length).toBeLessThanOrEqual(2);
    expect(output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'))).toEqual([]);
  }, 60_000);

  it('sends protobuf by default (what Jaeger and collectors take), to <endpoint>/v1/traces', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { code } = await runOneBatch({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      expect(code).toBe(0);
      const bodies = Buffer.concat(receiver.protobufBodies()).toString('latin1');
      expect(receiver.spans()).toEqual([]); // nothing came as JSON
      for (const text of ['mrtq', 'step estimating', 'batch expand', 'batch report', Attr.batchId])
        expect(bodies, text).toContain(text);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
