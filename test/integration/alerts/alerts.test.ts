import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuleResult } from '../../../src/alerts/rules.js';
import { loadConfig } from '../../../src/config/config.js';
import {
  clearCollectionHold,
  holdCollection,
  pauseQueue,
  resumeQueue,
} from '../../../src/queue/locks/queue-pause.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { JobEvent } from '../../../machines/index.js';
import { startService, type Service } from '../../../src/service.js';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { client } from '../http/api-fixture.js';
import { parsePrometheus } from '../http/prometheus-parse.js';

const chroot = useZkChroot();
const TOKEN = 'alerts-test-token';
/** Deadlines for what the test waits on (evaluations run every 200 ms): generous, not budgets. */
const WAIT_MS = 30_000;

interface Alerts {
  evaluating: boolean;
  rules: RuleResult[];
  stateAges: {
    state: string;
    jobs: number;
    read: number;
    exact: boolean;
    quantiles: Record<string, number>;
  }[];
  ingest?: { paused: boolean; waitingJobs: number; waitingBatches: number; lastMovedAt: string };
  engines?: { registered?: number; gone: number };
}

describe('the alert rules of a real `mrtq serve` (no engine takes the work)', () => {
  let service: Service;
  let dataDir: string;
  let ctx: QueueContext;
  let api: ReturnType<typeof client>;
  let bid: string;
  let jids: string[];
  const engines: EngineProcess[] = [];

  const alerts = async (): Promise<Alerts> => (await api.get<Alerts>('/alerts')).body;
  const rule = (body: Alerts, name: string): RuleResult => {
    const found = body.rules.find((r) => r.rule === name);
    if (!found) throw new Error(`no rule ${name} in ${JSON.stringify(body)}`);
    return found;
  };
  const until = (name: string, ok: (r: RuleResult, body: Alerts) => boolean): Promise<Alerts> =>
    eventually(alerts, (body) => body.rules.length > 0 && ok(rule(body, name), body), WAIT_MS, 100);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrtq-alerts-'));
    const env = {
      ...process.env,
      ZK_CONNECT: chroot.connectString(),
      MRTQ_DATA_DIR: dataDir,
      MRTQ_API_TOKEN: TOKEN,
    };
    service = await startService(
      loadConfig(env),
      {
        steps: 'simulated',
        httpPort: 0,
        jobStates: [],
        batchWork: [],
        accessQueues: [],
        sweepIntervalMs: 0,
        alertsIntervalMs: 200,
      },
      pino({ level: 'silent' }),
    );
    api = client(service.httpUrl!, TOKEN);
    ctx = queueContext(await chroot.connect());
    const policy = {
      queue_stopped: '2s',
      batch_age: '3s',
      collection_hold: '2s',
      job_retries: 3,
      engine_gone: '1s',
    };
    const put = await fetch(`${service.httpUrl}/policies/alerts`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ value: { queue_stopped: 2000, engine_gone: 1000 } });
    // A batch of three jobs, expanded: two wait in the initial state, one fails at once.
    ({ bid, jids } = await expandedBatch(ctx, [objectSpec(1), objectSpec(2), objectSpec(3)]));
    await driveJob(ctx, jids[2]!, [{ type: 'job.rejected', message: 'a corrupt manifest' }]);
  });

  afterAll(async () => {
    for (const engine of engines) engine.signal('SIGKILL');
    await Promise.all(engines.map((engine) => engine.exited));
    await service?.stop(5000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fires queue_stopped once jobs have waited longer than its limit with nothing moving them, and /metrics shows it with the ages', async () => {
    const body = await until('queue_stopped', (r) => r.firing);
    const stopped = rule(body, 'queue_stopped');
    expect(stopped.threshold).toBe(2);
    expect(stopped.value).toBeGreaterThanOrEqual(2);
    expect(stopped.items).toEqual([expect.objectContaining({ kind: 'queue', id: 'ingest' })]);
    expect(Date.parse(stopped.since!)).toBeGreaterThanOrEqual(Date.parse(body.ingest!.lastMovedAt) + 2000);
    expect(body.ingest).toMatchObject({ paused: false, waitingJobs: 2 });

    const initial = ctx.lifecycle.initial;
    const waiting = body.stateAges.find((age) => age.state === initial);
    expect(waiting).toMatchObject({ jobs: 2, read: 2, exact: true });
    expect(waiting!.quantiles['0.5']).toBeGreaterThan(0);
    expect(body.stateAges.map((age) => age.state)).not.toContain(ctx.lifecycle.enteredBy('admin.delete'));

    const metrics = parsePrometheus((await api.get<string>('/metrics')).body);
    expect(metrics.value('mrtq_alert_active', { rule: 'queue_stopped' })).toBe(1);
    expect(metrics.value('mrtq_alert_threshold', { rule: 'queue_stopped' })).toBe(2);
    expect(
      metrics.value('mrtq_queue_last_transition_age_seconds', { queue: 'ingest' }),
    ).toBeGreaterThanOrEqual(2);
    expect(metrics.value('mrtq_queue_waiting', { queue: 'ingest', kind: 'jobs' })).toBe(2);
    expect(metrics.type.get('mrtq_job_state_age_seconds')).toBe('gauge');
    for (const quantile of ['0.5', '0.9', '0.99', '1'])
      expect(metrics.value('mrtq_job_state_age_seconds', { state: initial, quantile })).toBeGreaterThan(0);
    expect(metrics.value('mrtq_job_state_age_jobs_read', { state: initial })).toBe(2);

    // `mrtq alerts` says so too, and exits 1 for a cron job to notice.
    const cli = await runCli(['alerts', '--url', service.httpUrl!], { MRTQ_DATA_DIR: dataDir });
    expect(cli.stdout).toMatch(/^FIRING queue_stopped +value \d+, threshold 2s since /m);
    expect(cli.stdout).toContain('queue ingest: 2 jobs and 0 batches wait');
    expect(cli.code).toBe(1);
  });

  it('does not fire queue_stopped while the queue is paused, and fires it again once resumed', async () => {
    await pauseQueue(ctx, 'ingest');
    try {
      const paused = rule(await until('queue_stopped', (r) => !r.firing), 'queue_stopped');
      expect(paused.note).toContain('paused');
      expect(paused.value).toBeGreaterThanOrEqual(2);
    } finally {
      await resumeQueue(ctx, 'ingest');
    }
    await until('queue_stopped', (r) => r.firing);
  });

  it('fires collection_hold for a collection held longer than its limit, and stops when the hold goes', async () => {
    await holdCollection(ctx, 'alerts-test');
    const held = rule(await until('collection_hold', (r) => r.firing), 'collection_hold');
    expect(held.items.map((i) => i.id)).toEqual(['alerts-test']);
    expect(held.value).toBeGreaterThanOrEqual(2);
    await clearCollectionHold(ctx, 'alerts-test');
    await until('collection_hold', (r) => !r.firing && r.value === 0);
  });

  it('fires batch_age for the unfinished batch, and job_retries for a job retried more than its limit', async () => {
    const old = rule(await until('batch_age', (r) => r.firing), 'batch_age');
    expect(old.items.map((i) => i.id)).toEqual([bid]);
    // A job that failed downloading four times, requeued by an operator after each failure.
    const failAndRequeue: JobEvent[] = [
      { type: 'download.failed', message: 'HTTP 503' },
      { type: 'admin.requeue' },
    ];
    await driveJob(ctx, jids[1]!, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 0 },
      { type: 'provision.done' },
      ...failAndRequeue,
      ...failAndRequeue,
      ...failAndRequeue,
      ...failAndRequeue,
    ]);
    const retried = rule(await until('job_retries', (r) => r.firing), 'job_retries');
    expect(retried).toMatchObject({ value: 4, itemCount: 1 });
    expect(retried.items[0]).toMatchObject({ kind: 'job', id: jids[1], value: 4 });
    expect(retried.items[0]?.detail).toContain('retry_count 4');
  });

  it('fires engine_gone for an engine whose process was killed, not for one stopped cleanly', async () => {
    const args = ['--states', 'none', '--batches', 'none', '--access', 'none', '--no-http'];
    const env = { ZK_SESSION_TIMEOUT_MS: '4000' };
    const [stopped, killed] = await Promise.all([
      startEngineProcess(chroot.connectString(), args, env),
      startEngineProcess(chroot.connectString(), args, env),
    ]);
    engines.push(stopped, killed);
    await eventually(alerts, (body) => body.engines?.registered === 3, WAIT_MS, 100);
    stopped.signal('SIGTERM');
    expect(await stopped.exited).toBe(0);
    killed.signal('SIGKILL');
    const gone = rule(await until('engine_gone', (r) => r.firing), 'engine_gone');
    expect(gone.items).toHaveLength(1);
    expect(gone.items[0]?.detail).toContain(`pid ${killed.pid}`);
    expect(gone.value).toBe(1);
    const metrics = parsePrometheus((await api.get<string>('/metrics')).body);
    expect(metrics.value('mrtq_alert_active', { rule: 'engine_gone' })).toBe(1);
    expect(metrics.value('mrtq_engines_gone')).toBe(1);
    expect(metrics.value('mrtq_engines_registered')).toBe(1);
  });
});
