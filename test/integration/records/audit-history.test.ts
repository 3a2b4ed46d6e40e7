import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from '../../../src/admin/cleanup.js';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { RETRY_POLICY, writePolicy } from '../../../src/queue/policies/store.js';
import { retryPolicySchema } from '../../../src/engine/retry/policy.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { startService, type Service } from '../../../src/service.js';
import { listEngines } from '../../../src/queue/tree/engines.js';
import type { AuditEntry } from '../../../src/audit/entry.js';
import type { ItemHistory } from '../../../src/history/reader.js';
import { batchJobRecords, batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Issue 35, items 1 and 3, through the real service: every step of a job in its history (from,
// to, engine, duration, retries with their class), operator actions in the audit log with who,
// why, before and after, from the API and from the CLI, and both kept after the job is gone.

const chroot = useZkChroot();
const TOKEN = 'history-test-token';

describe('audit log and histories', () => {
  let dataDir: string;
  let service: Service;
  let ctx: QueueContext;
  let base: string;
  const env = (): Record<string, string> => ({
    ZK_CONNECT: chroot.connectString(),
    MRTQ_DATA_DIR: dataDir,
    MRTQ_API_TOKEN: TOKEN,
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as unknown };
  };
  const historyOf = async (id: string, until: (h: ItemHistory) => boolean) =>
    eventually(
      async () =>
        (
          await api('GET', `/${id.startsWith('jid') ? 'jobs' : 'batches'}/${id}/history`)
        ).json() as ItemHistory,
      until,
      20_000,
    );
  const auditOf = async (query: string) => {
    const answer = await api('GET', `/audit?${query}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.json() as { entries: AuditEntry[] }).entries;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrtq-records-'));
    ctx = queueContext(await chroot.connect());
    await writePolicy(ctx, RETRY_POLICY, retryPolicySchema, {
      default: { attempts: 4, first_delay: '200ms', max_delay: '1s', jitter: 0 },
    });
    service = await startService(
      loadConfig({ ...process.env, ...env() }),
      { steps: 'simulated', httpPort: 0, sweepIntervalMs: 1000 },
      pino({ level: 'silent' }),
    );
    base = service.httpUrl!;
  }, 60_000);

  afterAll(async () => {
    await service?.stop(2000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every step of a job: transitions with engine and duration, a retry with its failure's class", async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
      simulate: { transientAt: { '0': 'downloading' }, transientTimes: { '0': 1 } },
    });
    expect((await batchSettled(ctx, bid)).status).toBe('completed');
    const [job] = await batchJobRecords(ctx, bid);
    const jid = job!.jobId;
    const history = await historyOf(jid, (h) =>
      h.events.some((e) => e.type === 'step' && e.to === 'completed'),
    );
    const steps = history.events.flatMap((e) => (e.type === 'step' ? [e] : []));
    const engineId = steps[0]!.engine;
    expect((await listEngines(ctx)).map((e) => e.id)).toContain(engineId); // as under /engines
    for (const step of steps) expect(step.engine).toBe(engineId);
    // Every step that ran has its start and duration (taking the job from pending runs none).
    for (const step of steps.filter((s) => s.event !== 'job.acquired'))
      expect(typeof step.ms, JSON.stringify(step)).toBe('number');
    const retry = steps.find((s) => s.event === 'step.retry');
    expect(retry).toMatchObject({ state: 'downloading', to: 'downloading', outcome: 'committed' });
    expect(retry!.detail).toMatchObject({
      failure: { class: 'transient', code: 'SIMULATED_TRANSIENT', failures: 1, limit: 4 },
    });
    expect(retry!.message).toContain('attempt 1 of 4');
    // The transitions, in order, end in completed; each after the first says how long the job stayed.
    const transitions = steps.filter((s) => s.outcome === 'committed' && s.to !== s.state);
    expect(transitions.at(-1)!.to).toBe('completed');
    expect(transitions.slice(1).every((t) => typeof t.inStateMs === 'number')).toBe(true);
    // The batch has its own.
    const batch = await historyOf(bid, (h) =>
      h.events.some((e) => e.type === 'step' && e.to === 'completed'),
    );
    expect(batch.events.every((e) => e.type !== 'step' || e.item === bid)).toBe(true);

    // Kept after the job is gone from ZooKeeper (cleanup with no retention removes the batch).
    await cleanup(ctx, { retentionMs: 0, orphanGraceMs: 0, dryRun: false });
    expect((await api('GET', `/jobs/${jid}`)).status).toBe(404);
    const after = await historyOf(jid, () => true);
    expect(after.events.length).toBe(history.events.length);
  }, 90_000);

  it('audits operator actions: who, why, before and after; a destructive one needs its reason', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:3',
      type: 'manifest',
      simulate: { failAt: { '0': 'processing', '1': 'processing', '2': 'processing' } },
    });
    await batchSettled(ctx, bid);
    const [first, second, third] = await batchJobRecords(ctx, bid);
    expect(first!.status).toBe('failed');

    const refused = await api('POST', `/jobs/${first!.jobId}/delete`, {});
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'REASON_REQUIRED' });
    expect((await batchJobRecords(ctx, bid))[0]!.status).toBe('failed'); // nothing was done

    expect(
      (await api('POST', `/jobs/${first!.jobId}/delete`, { reason: 'the depositor withdrew it' })).status,
    ).toBe(200);
    // A refusal is audited too: a completed-or-failed check the lifecycle refuses.
    expect((await api('POST', `/jobs/${second!.jobId}/hold`, {})).status).toBe(409);
    const lines = await auditOf(`item=${first!.jobId}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      action: 'delete job',
      item: first!.jobId,
      reason: 'the depositor withdrew it',
      before: 'failed',
      after: 'deleted',
      outcome: 'done',
      actor: { via: 'api' },
      detail: { batch: bid },
    });
    expect(lines[0]!.actor.name).not.toBe('anonymous');
    const refusedLine = (await auditOf(`item=${second!.jobId}`))[0];
    expect(refusedLine).toMatchObject({
      action: 'hold job',
      outcome: 'refused',
      before: 'failed',
      after: 'failed',
    });
    expect(refusedLine!.error).toContain('INVALID_TRANSITION');

    // A bulk delete: its reason required, then one line for the run and one for each job.
    expect((await api('POST', '/jobs/bulk/delete', { batch: bid, dryRun: false })).status).toBe(400);
    const bulk = await api('POST', '/jobs/bulk/delete', { batch: bid, dryRun: false, reason: 'bad batch' });
    expect(bulk.status).toBe(200);
    const bulkLines = await auditOf('action=bulk%20delete');
    const perJob = bulkLines.filter((l) => l.item?.startsWith('jid'));
    expect(perJob.map((l) => l.item).sort()).toEqual([second!.jobId, third!.jobId].sort());
    expect(new Set(bulkLines.map((l) => l.request)).size).toBe(1);
    expect(
      perJob.every((l) => l.reason === 'bad batch' && l.before === 'failed' && l.after === 'deleted'),
    ).toBe(true);
    // A request the guards refuse (no credential) is audited too, as anonymous.
    const anonymous = await fetch(`${base}/jobs/${third!.jobId}/requeue`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect((await auditOf(`item=${third!.jobId}&action=requeue%20job`))[0]).toMatchObject({
      actor: { name: 'anonymous' },
      outcome: 'refused',
      error: 'UNAUTHORIZED',
    });
    // A batch's lines include its jobs'.
    expect((await auditOf(`item=${bid}`)).length).toBeGreaterThanOrEqual(4);
    // The job's history shows the operator's action beside its steps.
    const history = await historyOf(first!.jobId, (h) => h.events.some((e) => e.type === 'operator'));
    expect(history.events.find((e) => e.type === 'operator')).toMatchObject({ action: 'delete job' });
  }, 90_000);

  it('the CLI writes its actions with the person at the terminal, and reads the log and histories', async () => {
    const paused = await runCli(['pause', 'ingest'], env());
    expect(paused.code, paused.stderr).toBe(0);
    const resumed = await runCli(['resume', 'ingest'], env());
    expect(resumed.code, resumed.stderr).toBe(0);
    const listed = await runCli(['audit', '--item', 'queue:ingest', '--json'], env());
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(lines.map((l) => [l.action, l.before, l.after])).toEqual([
      ['pause queue', 'running', 'paused'],
      ['resume queue', 'paused', 'running'],
    ]);
    expect(lines[0]!.actor).toMatchObject({ via: 'cli' });
    expect(lines[0]!.actor.name).toContain('@');
    // The API reads the CLI's lines too: one log, merged.
    expect((await auditOf('item=queue:ingest')).map((l) => l.action)).toEqual([
      'pause queue',
      'resume queue',
    ]);
    // Refused by the queue (a completed job is not requeued): its line says so, with the state
    // it stayed in and its batch.
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
    });
    expect((await batchSettled(ctx, bid)).status).toBe('completed');
    const [done] = await batchJobRecords(ctx, bid);
    const requeue = await runCli(['requeue', done!.jobId], env());
    expect(requeue.code).not.toBe(0);
    const [line] = await auditOf(`item=${done!.jobId}`);
    expect(line).toMatchObject({
      action: 'requeue job',
      actor: { via: 'cli' },
      before: 'completed',
      after: 'completed',
      outcome: 'refused',
      detail: { batch: bid },
    });
    expect(line!.error).toContain('INVALID_TRANSITION');
    // A delete without --reason is refused before anything is done.
    const refused = await runCli(['delete', 'jid999999'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--reason');
  }, 90_000);
});
