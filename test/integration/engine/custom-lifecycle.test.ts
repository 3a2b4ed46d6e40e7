import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { raise, type AnyStateMachine } from 'xstate';
import {
  defineJobLifecycle,
  failureMessage,
  jobSetup,
  jobStateTable,
  merrittJobLifecycle,
  notProvided,
  type JobContext,
  type JobLifecycle,
  type StateRow,
} from '../../../machines/index.js';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { listEngines } from '../../../src/queue/tree/engines.js';
import { startService, type Service } from '../../../src/service.js';
import type { JobStep } from '../../../src/steps/contracts.js';
import { eventually } from '../../support/eventually.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// The proof that the lifecycle is data (DESIGN.md §7): a lifecycle defined here, in the test
// only — Merritt's plus a `scanning` state between processing and storing — runs through the real
// service, and the tree, consumers, API, OpenAPI, metrics, dashboard data and doctor all know the
// new state without a change anywhere else.

const chroot = useZkChroot();

type StateConfig = Record<string, unknown> & { on?: Record<string, unknown> };
interface RequeueEdge {
  target: string;
  guard: { type: string; params: { statuses: readonly string[] } };
  actions: unknown;
}

/** Merritt's machine configuration, read from the machine itself (states in definition order). */
const merritt = merrittJobLifecycle.machine.config as unknown as Record<string, unknown> & {
  states: Record<string, StateConfig>;
};

const scanningState: StateConfig = {
  description: 'Test only: the object is scanned between processing and storing',
  invoke: {
    id: 'scan',
    src: 'scan',
    input: ({ context }: { context: JobContext }) => ({ ...context }),
    onDone: { actions: raise({ type: 'scan.done' }) },
    onError: {
      // The event types are Merritt's; this machine's own are cast (it is built from plain config).
      actions: raise(({ event }) => ({
        type: 'scan.failed',
        message: failureMessage((event as unknown as { error: unknown }).error),
      })),
    },
  },
  on: {
    'scan.done': { target: 'storing', actions: { type: 'recordSuccess', params: { step: 'scanning' } } },
    'scan.failed': {
      target: 'failed',
      actions: {
        type: 'recordFailure',
        params: ({ event }: { event: { message: string } }) => ({ message: event.message }),
      },
    },
  },
};

/** Processing goes on to scanning; a requeue after processing resumes at scanning, after scanning at storing. */
function scanningStates(): Record<string, StateConfig> {
  const states: Record<string, StateConfig> = {};
  for (const [name, state] of Object.entries(merritt.states)) {
    if (name === 'processing') {
      const on = state.on ?? {};
      states.processing = {
        ...state,
        on: { ...on, 'process.done': { ...(on['process.done'] as object), target: 'scanning' } },
      };
      states.scanning = scanningState;
    } else if (name === 'failed') {
      const on = state.on ?? {};
      const requeue = (on['admin.requeue'] as RequeueEdge[]).flatMap((edge) =>
        edge.target === 'storing'
          ? [
              { ...edge, target: 'scanning' },
              { ...edge, target: 'storing', guard: { ...edge.guard, params: { statuses: ['scanning'] } } },
            ]
          : [edge],
      );
      states.failed = { ...state, on: { ...on, 'admin.requeue': requeue } };
    } else {
      states[name] = state;
    }
  }
  return states;
}

function scanningMachineAt(initial: string): AnyStateMachine {
  const config = { ...merritt, initial, states: scanningStates() };
  const machine = jobSetup.createMachine(config as unknown as Parameters<typeof jobSetup.createMachine>[0]);
  // The scan step's placeholder, as jobSetup declares one for each of Merritt's steps.
  return (machine as AnyStateMachine).provide({ actors: { scan: notProvided<void, unknown>('scan') } });
}

const scanningTable: StateRow[] = jobStateTable.flatMap((row): StateRow[] =>
  row.state === 'processing'
    ? [row, { state: 'scanning', wire: 'Scanning', folder: 'scanning', step: 'scan', category: 'work' }]
    : [row],
);

const scanningLifecycle: JobLifecycle = defineJobLifecycle({
  table: scanningTable,
  machineAt: scanningMachineAt,
});

/** Resolves when `gate` does; rejects when the step is aborted (the service stops). */
function untilOpenOrAborted(gate: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    void gate.then(resolve);
  });
}

/** The `mrtq_jobs` sample of `state` in a Prometheus exposition (undefined when absent). */
function jobCount(exposition: string, state: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`mrtq_jobs{state="${state}"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

interface LedgerLine {
  kind: string;
  item: string;
  state: string;
  to?: string;
}

describe('a job lifecycle defined outside machines/ (Merritt’s plus scanning) runs through the real service', () => {
  let service: Service | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await service?.stop(5000);
    service = undefined;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  it('checks the test lifecycle itself: scanning is a working state between processing and storing', () => {
    expect(scanningLifecycle.states).toContain('scanning');
    expect(scanningLifecycle.workingStates).toEqual([
      'estimating',
      'provisioning',
      'downloading',
      'processing',
      'scanning',
      'storing',
      'recording',
      'notify',
    ]);
    expect(scanningLifecycle.stepOf('scanning')).toBe('scan');
    expect(scanningLifecycle.resumeAfter('processing')).toBe('scanning');
    expect(scanningLifecycle.resumeAfter('scanning')).toBe('storing');
    expect(merrittJobLifecycle.isState('scanning')).toBe(false);
  });

  it('runs every job through scanning; the API, OpenAPI, metrics and doctor know the state', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrtq-custom-lifecycle-'));
    const ledgerFile = join(dataDir, 'ledger.jsonl');
    const scanned: string[] = [];
    let heldJid: string | undefined;
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    // The first job to reach scanning stays there until the test has looked at it.
    const scan: JobStep = async ({ job, signal }) => {
      scanned.push(job.jobId);
      heldJid ??= job.jobId;
      if (job.jobId === heldJid) await untilOpenOrAborted(gate, signal);
    };

    const config = loadConfig({ ...process.env, ZK_CONNECT: chroot.connectString(), MRTQ_DATA_DIR: dataDir });
    service = await startService(
      config,
      {
        lifecycle: scanningLifecycle,
        extraJobSteps: { scan },
        steps: 'simulated',
        httpPort: 0,
        sweepIntervalMs: 1000,
        ledgerFile,
      },
      pino({ level: 'silent' }),
    );
    const base = service.httpUrl!;
    const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
      const res = await fetch(base + path);
      const text = await res.text();
      return {
        status: res.status,
        body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
      };
    };
    const ctx: QueueContext = {
      zk: await chroot.connect(),
      lifecycle: scanningLifecycle,
      log: pino({ level: 'silent' }),
      now: () => new Date(),
    };

    // The service made the folder of the new state, and serves it.
    expect(await ctx.zk.exists('/jobs/states/scanning')).toBeDefined();
    expect(service.engine.served.jobStates).toContain('scanning');

    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:3',
      type: 'manifest',
    });

    // One job waits in scanning; the other two go on to completed.
    await eventually(
      async () => ({ refs: await ctx.zk.getChildren('/jobs/states/scanning'), scanned: scanned.length }),
      ({ refs, scanned: runs }) => refs.length === 1 && runs === 3,
      30_000,
    );
    await eventually(
      async () => (await ctx.zk.getChildren('/jobs/states/completed')).length,
      (completed) => completed === 2,
      30_000,
    );
    expect(heldJid).toBeDefined();
    expect((await loadJob(ctx, heldJid!)).status).toBe('scanning');
    // Its step attempt names the engine as it is registered under /engines.
    const registered = (await listEngines(ctx)).map((engine) => engine.id);
    expect(registered).toEqual([service.engine.id]);
    const attempts = JSON.parse((await ctx.zk.getData(`/jobs/${heldJid}/attempts`)).data!.toString()) as {
      attempts: { engine: string }[];
    };
    expect(attempts.attempts.map((attempt) => attempt.engine)).toEqual(registered);

    // GET /jobs?state=scanning is valid, and lists the job that is there.
    const listed = await get<{ items: { jid: string; status: string }[]; total: number }>(
      '/jobs?state=scanning',
    );
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((j) => [j.jid, j.status])).toEqual([[heldJid, 'scanning']]);
    expect(listed.body.total).toBe(1);
    // A state no lifecycle has is still refused.
    expect((await get('/jobs?state=waiting')).status).toBe(400);

    // The OpenAPI document's state enum is the running lifecycle's.
    const doc = await get<{
      paths: Record<string, { get?: { parameters?: { name: string; schema: { enum?: string[] } }[] } }>;
    }>('/openapi.json');
    const stateParam = doc.body.paths['/jobs']?.get?.parameters?.find((p) => p.name === 'state');
    expect(stateParam?.schema.enum).toEqual([...scanningLifecycle.states]);

    // /metrics counts the jobs in scanning.
    const metrics = (await get<string>('/metrics')).body;
    expect(metrics).toMatch(/^# TYPE mrtq_jobs gauge$/m);
    expect(jobCount(metrics, 'scanning')).toBe(1);
    expect(jobCount(metrics, 'completed')).toBe(2);

    // What the dashboard lists and draws.
    const lifecycle = await get<{
      job: { initial: string; states: { state: string; wire: string; working: boolean; step?: string }[] };
    }>('/lifecycle');
    expect(lifecycle.status).toBe(200);
    expect(lifecycle.body.job.states.map((s) => s.state)).toEqual([...scanningLifecycle.states]);
    expect(lifecycle.body.job.states.find((s) => s.state === 'scanning')).toEqual({
      state: 'scanning',
      wire: 'Scanning',
      final: false,
      category: 'work',
      folder: 'scanning',
      working: true,
      step: 'scan',
    });
    const overview = await get<{ jobs: Record<string, number> }>('/overview');
    expect(overview.body.jobs.scanning).toBe(1);
    const diagram = (await get<string>('/machines/job/diagram')).body;
    expect(diagram).toContain('data-state="scanning"');
    expect(diagram).toContain('data-count-for="scanning">1</text>');

    // The doctor reads the tree with the lifecycle it is given: the custom one knows the folder
    // and the Scanning status; Merritt's does not.
    const withScanning = await doctor(ctx);
    expect(withScanning.problems).toEqual([]);
    const withMerritts = await doctor({ ...ctx, lifecycle: merrittJobLifecycle });
    expect(withMerritts.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'STATE_FOLDER_UNKNOWN', path: '/jobs/states/scanning' }),
        expect.objectContaining({ code: 'JOB_STATUS_UNKNOWN', item: heldJid }),
      ]),
    );

    // Let the held job go: the batch completes.
    openGate();
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      60_000,
    );
    expect(batch.status).toBe('completed');
    const jids = await ctx.zk.getChildren('/jobs/states/completed');
    expect(jids).toHaveLength(3);
    expect(await ctx.zk.getChildren('/jobs/states/scanning')).toEqual([]);

    // The scan step ran once for every job, and every job passed through scanning.
    expect([...scanned].sort()).toEqual(jids.map((ref) => ref.slice(3)).sort());
    // Stopped, the service has written its whole ledger.
    await service.stop(5000);
    service = undefined;
    const ledger = readFileSync(ledgerFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerLine)
      .filter((line) => line.kind === 'commit' && line.item.startsWith('jid'));
    for (const jid of scanned) {
      const path = ledger.filter((line) => line.item === jid).map((line) => `${line.state}→${line.to}`);
      expect(path, jid).toEqual(expect.arrayContaining(['processing→scanning', 'scanning→storing']));
      const job = await loadJob(ctx, jid);
      expect(job.status).toBe('completed');
    }

    // After the run: the empty scanning folder is still the custom lifecycle's, and unknown to Merritt's.
    expect((await doctor(ctx)).problems.filter((p) => p.code === 'STATE_FOLDER_UNKNOWN')).toEqual([]);
    expect((await doctor({ ...ctx, lifecycle: merrittJobLifecycle })).problems).toContainEqual(
      expect.objectContaining({ code: 'STATE_FOLDER_UNKNOWN', path: '/jobs/states/scanning' }),
    );
  });
});
