import type { Op, ZkClient } from '../zk/index.js';
import { isZkError } from '../zk/index.js';
import { merrittJobLifecycle } from '../../machines/index.js';
import { persist } from './retry.js';

/**
 * The peer baseline: the job lifecycle written the way the seeds describe it (003's
 * walkthrough) — for each step, take the ephemeral lock, read the status, then one awaited write
 * per line of the recipe (update status, delete the old state ref, create the new one, move the
 * batch ref when the job ends), then delete the lock — with workers that find work by listing
 * their state folder in a loop (sleeping `idlePollMs` when it is empty), as consumer daemons
 * that poll do. Same server, same no-op steps, same number of workers per state as the engine.
 */
export interface BaselineOptions {
  root: string;
  jobs: number;
  workersPerState: number;
  idlePollMs: number;
}

// The states and moves the engine runs, from Merritt's lifecycle: a job leaves each servable state
// for the state a success leads to (where a requeue after it would resume), the last one for completed.
const STATES = merrittJobLifecycle.servableStates;
const COMPLETED = merrittJobLifecycle.enteredBy('notify.done') as string;
const NEXT: Record<string, string> = Object.fromEntries(
  STATES.map((state) => [state, merrittJobLifecycle.resumeAfter(state) ?? COMPLETED]),
);

function status(state: string, last: string | null): Buffer {
  return Buffer.from(
    JSON.stringify({
      status: state,
      last_successful_status: last,
      last_modified: new Date().toISOString(),
      retry_count: 0,
    }),
  );
}

/** Runs the baseline; resolves with jobs per second from the first job's pickup to the last completion. */
export async function baselineRate(
  zk: ZkClient,
  options: BaselineOptions,
): Promise<{ jobsPerS: number; seconds: number }> {
  const { root, jobs } = options;
  const folders = [...STATES, COMPLETED].map((state) => `states/${state}`);
  for (const folder of [...folders, 'batch/batch-processing', 'batch/batch-completed', 'jobs'])
    await persist('baseline setup', () => zk.mkdirp(`${root}/${folder}`));
  // Jobs created up front (not measured), as the engine's expansion is not in its window either.
  for (let start = 0; start < jobs; start += 500) {
    const ops: Op[] = [];
    for (let i = start; i < Math.min(jobs, start + 500); i++) {
      const jid = `jid${String(i).padStart(10, '0')}`;
      ops.push(
        { op: 'create' as const, path: `${root}/jobs/${jid}` },
        {
          op: 'create' as const,
          path: `${root}/jobs/${jid}/status`,
          data: status(merrittJobLifecycle.initial, null),
        },
        { op: 'create' as const, path: `${root}/states/pending/05-${jid}` },
        { op: 'create' as const, path: `${root}/batch/batch-processing/${jid}` },
      );
    }
    // A multi whose answer was lost may have been applied: then its first job exists.
    await persist('baseline setup', async () => {
      if (!(await zk.exists(ops[0]!.path))) await zk.multi(ops);
    });
  }
  const write = idempotentWrites(zk);
  let completed = 0;
  let firstPickup: number | undefined;
  let stop = false;

  async function step(state: string, ref: string): Promise<boolean> {
    const jid = ref.slice(3);
    const lock = `${root}/jobs/${jid}/lock`;
    if (!(await write.lock(lock))) return false;
    try {
      const { data } = await persist('baseline read', () => zk.getData(`${root}/jobs/${jid}/status`));
      const current = (JSON.parse(String(data)) as { status: string }).status;
      const next = NEXT[state]!;
      // A step whose writes were cut short by a lost answer is finished by the next pass.
      if (current !== state && current !== next) return false;
      firstPickup ??= performance.now();
      await write.set(`${root}/jobs/${jid}/status`, status(next, state));
      await write.remove(`${root}/states/${state}/${ref}`);
      await write.create(`${root}/states/${next}/${ref}`);
      if (next === COMPLETED) {
        await write.remove(`${root}/batch/batch-processing/${jid}`);
        if (await write.create(`${root}/batch/batch-completed/${jid}`)) completed++;
      }
      return true;
    } finally {
      await write.remove(lock).catch(() => undefined);
    }
  }

  async function worker(state: string, index: number): Promise<void> {
    while (!stop) {
      const refs = (await persist('baseline list', () => zk.getChildren(`${root}/states/${state}`))).sort();
      let worked = false;
      // Workers of a state start at different places in the list, as separate daemons would.
      for (let i = 0; i < refs.length && !stop; i++) {
        const ref = refs[(i + index * 7) % refs.length]!;
        if (await step(state, ref)) worked = true;
      }
      if (!worked) await new Promise((r) => setTimeout(r, options.idlePollMs));
    }
  }

  const workers = STATES.flatMap((state) =>
    Array.from({ length: options.workersPerState }, (_, i) => worker(state, i)),
  );
  const started = performance.now();
  while (completed < jobs) {
    await new Promise((r) => setTimeout(r, 20));
    if (performance.now() - started > 900_000) break;
  }
  const ended = performance.now();
  stop = true;
  await Promise.all(workers);
  const seconds = (ended - (firstPickup ?? started)) / 1000;
  return { jobsPerS: completed / seconds, seconds };
}

/**
 * The recipe's writes, each tried again when its answer was lost: a create or delete that had
 * been applied then finds its node there or gone, which is what it wanted. `create` is true when
 * this call made the node; `lock` is true when the lock is this session's.
 */
function idempotentWrites(zk: ZkClient) {
  const tolerant = (kind: 'NODE_EXISTS' | 'NO_NODE', request: () => Promise<unknown>) =>
    persist('baseline write', async () => {
      try {
        await request();
        return true;
      } catch (err) {
        if (isZkError(err, kind)) return false;
        throw err;
      }
    });
  return {
    set: (path: string, data: Buffer) => persist('baseline write', () => zk.setData(path, data)),
    create: (path: string) => tolerant('NODE_EXISTS', () => zk.create(path)),
    remove: (path: string) => tolerant('NO_NODE', () => zk.delete(path)),
    async lock(path: string): Promise<boolean> {
      const mine = await persist('baseline lock', async () => {
        try {
          await zk.create(path, null, 'ephemeral');
          return true;
        } catch (err) {
          if (isZkError(err, 'NO_NODE')) return false;
          if (!isZkError(err, 'NODE_EXISTS')) throw err;
          // Ours when an earlier create's answer was lost.
          return (await zk.exists(path))?.ephemeralOwner === zk.sessionId;
        }
      });
      return mine;
    },
  };
}
