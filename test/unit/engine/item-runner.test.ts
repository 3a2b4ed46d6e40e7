import { pino } from 'pino';
import { BehaviorSubject } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import type { EngineDeps } from '../../../src/engine/deps.js';
import {
  commitItem,
  stepItem,
  type CommitAttempt,
  type ItemKind,
} from '../../../src/engine/items/step-and-commit.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { StepAbortedError } from '../../../src/engine/step-runner.js';
import { QueueError } from '../../../src/queue/tree/errors.js';
import type { HeldLock } from '../../../src/queue/locks/lock.js';
import { ZkError, type SessionEvent, type ZkClient } from '../../../src/zk/index.js';

interface Thing {
  id: string;
  status: string;
  statusVersion: number;
}
interface HeldThing {
  thing: Thing;
  lock: HeldLock;
}

const lock: HeldLock = { path: '/things/t1/lock', sessionId: 's1' };
const held: HeldThing = { thing: { id: 't1', status: 'waiting', statusVersion: 3 }, lock };
const after: Thing = { id: 't1', status: 'done', statusVersion: 4 };
const event = { type: 'thing.done' };

/**
 * The runner over fakes: a connected session that owns the lock (a release reads its owner and
 * deletes it in a multi), a ledger kept in memory, and a store whose status reads as `stored`
 * when a commit is settled.
 */
function runner(stored: Thing = after) {
  const ledger: LedgerEntry[] = [];
  const released = vi.fn((_ops: unknown) => Promise.resolve());
  const zk = {
    session$: new BehaviorSubject<SessionEvent>({ state: 'connected', sessionId: 's1', at: 0 }),
    sessionId: 's1',
    getDataMany: () => Promise.resolve([{ data: undefined, stat: { ephemeralOwner: 's1', version: 0 } }]),
    multi: released,
  } as unknown as ZkClient;
  const deps = {
    queue: { zk, log: pino({ level: 'silent' }) },
    ledger: { record: (entry: LedgerEntry) => ledger.push(entry) },
    log: pino({ level: 'silent' }),
  } as unknown as EngineDeps;
  const kind: ItemKind<HeldThing, Thing> = {
    noun: 'job',
    record: (h) => h.thing,
    id: (thing) => thing.id,
    load: () => Promise.resolve(stored),
  };
  return { deps, kind, ledger, released };
}

/** An attempt whose writes fail with `failures` in turn, then succeed. */
function attempt(...failures: Error[]) {
  const hooks = { writes: 0, committed: vi.fn(), failed: vi.fn() };
  const make = (): CommitAttempt<Thing> => ({
    write: () => {
      hooks.writes++;
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve(after) : Promise.reject(failure);
    },
    expected: () => after,
    committed: hooks.committed,
    failed: hooks.failed,
  });
  return { make, hooks };
}

const lost = (): ZkError => new ZkError('CONNECTION_LOSS', { operation: 'multi' });
const base = { item: 't1', state: 'waiting', version: 3 };

describe('committing through the item runner', () => {
  it('records a commit with the state it left and reached, then tells the caller', async () => {
    const { deps, kind, ledger, released } = runner();
    const { make, hooks } = attempt();
    expect(await commitItem(deps, kind, held, event, make)).toEqual(after);
    expect(ledger).toEqual([{ kind: 'commit', ...base, event: 'thing.done', to: 'done' }]);
    expect(hooks.committed).toHaveBeenCalledWith(after, false);
    expect(released).not.toHaveBeenCalled();
  });

  it.each(['LOCK_LOST', 'CONFLICT'] as const)(
    'a stale result (%s) is discarded with its event and reason, and the lock let go',
    async (code) => {
      const { deps, kind, ledger, released } = runner();
      const { make, hooks } = attempt(new QueueError(code, 'stale'));
      expect(await commitItem(deps, kind, held, event, make)).toBeUndefined();
      expect(ledger).toEqual([
        { kind: 'discard', ...base, event: 'thing.done', reason: code, message: 'stale' },
      ]);
      expect(hooks.failed).toHaveBeenCalledOnce();
      expect(released).toHaveBeenCalledWith([{ op: 'delete', path: lock.path, version: 0 }]);
    },
  );

  it('a commit whose answer was lost but which was applied is recorded once, as settled', async () => {
    const { deps, kind, ledger, released } = runner(after);
    const { make, hooks } = attempt(lost());
    expect(await commitItem(deps, kind, held, event, make)).toEqual(after);
    expect(hooks.writes).toBe(1);
    expect(ledger).toEqual([{ kind: 'commit', ...base, event: 'thing.done', to: 'done' }]);
    expect(hooks.committed).toHaveBeenCalledWith(after, true);
    expect(released).not.toHaveBeenCalled();
  });

  it('a commit found not applied is made once more, and given up when that one is not either', async () => {
    const unchanged = held.thing;
    const once = runner(unchanged);
    const retried = attempt(lost());
    expect(await commitItem(once.deps, once.kind, held, event, retried.make)).toEqual(after);
    expect(retried.hooks.writes).toBe(2);
    expect(once.ledger.map((e) => e.kind)).toEqual(['commit']);

    const twice = runner(unchanged);
    const given = attempt(lost(), lost());
    expect(await commitItem(twice.deps, twice.kind, held, event, given.make)).toBeUndefined();
    expect(given.hooks.writes).toBe(2);
    expect(twice.ledger).toEqual([
      {
        kind: 'discard',
        ...base,
        event: 'thing.done',
        reason: 'commit outcome unknown (not-applied)',
        message: lost().message,
      },
    ]);
    expect(twice.released).toHaveBeenCalledOnce();
  });

  it('a commit someone else moved on meanwhile is discarded, never claimed', async () => {
    const { deps, kind, ledger } = runner({ ...after, statusVersion: 6 });
    const { make } = attempt(lost());
    expect(await commitItem(deps, kind, held, event, make)).toBeUndefined();
    expect(ledger.map((e) => e.reason)).toEqual(['commit outcome unknown (moved-on)']);
  });

  it('any other failure is discarded, the lock let go, and thrown', async () => {
    const { deps, kind, ledger, released } = runner();
    const refused = new QueueError('INVALID_TRANSITION', 'no');
    const { make } = attempt(refused);
    await expect(commitItem(deps, kind, held, event, make)).rejects.toBe(refused);
    expect(ledger).toEqual([
      { kind: 'discard', ...base, event: 'thing.done', reason: 'commit error', message: 'no' },
    ]);
    expect(released).toHaveBeenCalledOnce();
  });
});

describe('stepping through the item runner', () => {
  it('asks the stall guard, records the start, then runs the step', async () => {
    const { deps, kind, ledger } = runner();
    const order: string[] = [];
    deps.beforeStep = (l) => {
      order.push(`guard ${l.path}`);
      return Promise.resolve();
    };
    const stepped = await stepItem(deps, kind, held, () => {
      order.push(`run after ${ledger.length} entries`);
      return Promise.resolve(event);
    });
    expect(stepped).toEqual({ ran: true, value: event });
    expect(order).toEqual([`guard ${lock.path}`, 'run after 1 entries']);
    expect(ledger).toEqual([{ kind: 'start', ...base }]);
  });

  it('a step the stall guard refuses never runs: discarded as stalled, the lock let go', async () => {
    const { deps, kind, ledger, released } = runner();
    deps.beforeStep = () => Promise.reject(new StepAbortedError(new Error('lock lost while stalled')));
    const run = vi.fn(() => Promise.resolve(event));
    expect(await stepItem(deps, kind, held, run)).toEqual({ ran: false, reason: 'stalled' });
    expect(run).not.toHaveBeenCalled();
    expect(ledger).toEqual([
      { kind: 'discard', ...base, reason: 'stalled', message: 'step aborted: lock lost while stalled' },
    ]);
    expect(released).toHaveBeenCalledOnce();
  });

  it('an aborted step is discarded; a step that throws is discarded and its error thrown', async () => {
    const aborted = runner();
    const abort = () => Promise.reject(new StepAbortedError(new Error('session expired')));
    expect(await stepItem(aborted.deps, aborted.kind, held, abort)).toEqual({
      ran: false,
      reason: 'aborted',
    });
    expect(aborted.ledger.map((e) => e.reason)).toEqual([undefined, 'aborted']);
    expect(aborted.released).toHaveBeenCalledOnce();

    const failed = runner();
    const broken = new Error('machine error');
    await expect(stepItem(failed.deps, failed.kind, held, () => Promise.reject(broken))).rejects.toBe(broken);
    expect(failed.ledger.map((e) => e.reason)).toEqual([undefined, 'step error']);
    expect(failed.released).toHaveBeenCalledOnce();
  });
});
