import { describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { startEngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('mrtq serve with its HTTP API', () => {
  it('answers health, readiness and metrics, takes a batch with the token, refuses one without', async () => {
    const engine = await startEngineProcess(chroot.connectString(), ['--sweep', '0'], {
      MRTQ_API_TOKEN: 's3cret',
    });
    try {
      const url = /"http":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(engine.output())?.[1];
      expect(url).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const body = JSON.stringify({ profile: 'demo', submitter: 'api', payloadUrl: 'sim:2', type: 'file' });
      const headers = { 'content-type': 'application/json' };
      expect((await fetch(`${url}/batches`, { method: 'POST', headers, body })).status).toBe(401);
      const created = await fetch(`${url}/batches`, {
        method: 'POST',
        headers: { ...headers, authorization: 'Bearer s3cret' },
        body,
      });
      expect(created.status).toBe(201);
      const { bid } = (await created.json()) as { bid: string };
      const ctx = queueContext(await chroot.connect());
      await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed',
        30_000,
        100,
      );
      // The tree shows the batch completed as soon as ZooKeeper commits it; this process counts
      // that commit when its reply arrives, which may be a moment later.
      const batchDone = /^mrtq_transitions_total\{kind="batch",from="reporting",to="completed"\} 1$/m;
      const metrics = await eventually(
        async () => (await fetch(`${url}/metrics`)).text(),
        (text) => batchDone.test(text),
        30_000,
        100,
      );
      expect(metrics).toMatch(/^mrtq_jobs\{state="completed"\} 2$/m);
      // What this process did: transitions, step durations, ZooKeeper latency.
      expect(metrics).toMatch(/^mrtq_transitions_total\{kind="job",from="notify",to="completed"\} 2$/m);
      expect(metrics).toMatch(batchDone);
      expect(metrics).toMatch(/^mrtq_step_duration_seconds_count\{state="downloading"\} 2$/m);
      // prom-client writes a bucket's `le` first.
      expect(metrics).toMatch(/^mrtq_step_duration_seconds_bucket\{le="\+Inf",state="downloading"\} 2$/m);
      expect(metrics).toMatch(
        /^mrtq_zk_request_duration_seconds_count\{operation="multi",outcome="ok"\} \d+$/m,
      );
      expect(metrics).toMatch(/^# TYPE mrtq_step_duration_seconds histogram$/m);
    } finally {
      engine.signal('SIGTERM');
      expect(await engine.exited).toBe(0);
    }
  }, 60_000);
});
