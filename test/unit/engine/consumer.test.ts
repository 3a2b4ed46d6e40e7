import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { Consumer, HAND_OVER_WAIT_MS, type ConsumerSpec } from '../../../src/engine/consumer.js';
import { WaitingItems } from '../../../src/engine/waiting-items.js';

/** A consumer of plain ids (named t, silent, no item locked elsewhere) with the rest of `spec`. */
function plainConsumer(
  spec: Pick<ConsumerSpec<string>, 'limit' | 'acquire' | 'work'> & Partial<ConsumerSpec<string>>,
): Consumer<string> {
  return new Consumer<string>({
    name: 't',
    log: pino({ level: 'silent' }),
    idOf: (id) => id,
    locks: new WaitingItems(() => undefined),
    ...spec,
  });
}

/**
 * A consumer over plain ids whose work waits until the test lets each item finish. Ids in
 * `lockedBy` are locked by another session: acquire reports them and goes on.
 */
function consumerOf(
  limit: number,
  outcome: 'moved' | 'defer' | undefined = 'moved',
  options: { locks?: WaitingItems; lockedBy?: Set<string>; rankOf?: (c: string) => string } = {},
) {
  const acquired: string[] = [];
  const givenBack: string[] = [];
  const tried: string[] = [];
  const finish = new Map<string, () => void>();
  const consumer = plainConsumer({
    limit,
    acquire: (candidates, skip, onLocked) => {
      for (const id of candidates) {
        if (skip(id)) continue;
        tried.push(id);
        if (options.lockedBy?.has(id)) {
          onLocked(id);
          continue;
        }
        acquired.push(id);
        return Promise.resolve(id);
      }
      return Promise.resolve(undefined);
    },
    work: (id) => new Promise((resolve) => finish.set(id, () => resolve(outcome))),
    locks: options.locks ?? new WaitingItems(() => undefined),
    rankOf: options.rankOf,
    giveBack: (id) => givenBack.push(id),
  });
  const demand: boolean[] = [];
  consumer.demand$.subscribe((d) => demand.push(d));
  return { consumer, acquired, tried, finish, demand, givenBack };
}

/** A consumer of one slot whose acquisition ends when the test answers it; its work ends at once. */
function slowlyAcquiring() {
  let answered: ((id: string) => void) | undefined;
  const started: string[] = [];
  const givenBack: string[] = [];
  const consumer = plainConsumer({
    limit: 1,
    acquire: (candidates, skip) =>
      candidates.some((c) => !skip(c))
        ? new Promise((resolve) => (answered = resolve))
        : Promise.resolve(undefined),
    work: (id) => {
      started.push(id);
      return Promise.resolve('moved');
    },
    giveBack: (id) => givenBack.push(id),
  });
  return { consumer, started, givenBack, answer: (id: string) => answered!(id) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the consumer', () => {
  it('says what it holds: claimed while an acquisition is under way, then running, then nothing', async () => {
    const { consumer, answer } = slowlyAcquiring();
    expect(consumer.holding()).toEqual([]);
    consumer.offer(['a']);
    await tick();
    expect(consumer.holding()).toEqual(['a']);
    answer('a');
    await tick();
    expect(consumer.holding()).toEqual([]);
    const held = consumerOf(1);
    held.consumer.offer(['x']);
    await tick();
    expect(held.consumer.holding()).toEqual(['x']);
    held.finish.get('x')!();
    await tick();
    expect(held.consumer.holding()).toEqual([]);
  });

  it('takes candidates up to its limit and says when it wants no more', async () => {
    const { consumer, acquired, finish, demand } = consumerOf(2);
    consumer.offer(['a', 'b', 'c']);
    await tick();
    expect(acquired).toEqual(['a', 'b']);
    expect(demand).toEqual([true, false]);
    finish.get('a')!();
    await tick();
    expect(acquired).toEqual(['a', 'b', 'c']);
  });

  it('does not take again an item that moved on, until a new listing', async () => {
    const { consumer, acquired, finish } = consumerOf(1);
    consumer.offer(['a', 'b']);
    await tick();
    finish.get('a')!(); // a moved on; the stale list still names it
    await tick();
    expect(acquired).toEqual(['a', 'b']);
    finish.get('b')!();
    await tick();
    consumer.offer(['a']); // listed again: a came back (requeued)
    await tick();
    expect(acquired).toEqual(['a', 'b', 'a']);
  });

  it('does not take again an item that moved on after a listing was read, though that listing names it', async () => {
    const { consumer, acquired, finish } = consumerOf(1);
    consumer.offer(['a', 'b']);
    await tick();
    const readAt = performance.now(); // ZooKeeper answers a re-read while a is still pending
    finish.get('a')!(); // a moves on before that listing is taken in
    await tick();
    consumer.offer(['a', 'b', 'c'], readAt);
    await tick();
    expect(acquired).toEqual(['a', 'b']); // b, not the stale a
    finish.get('b')!();
    await tick();
    expect(acquired).toEqual(['a', 'b', 'c']);
    finish.get('c')!();
    await tick();
    consumer.offer(['a']); // read after a moved on: a is back (requeued)
    await tick();
    expect(acquired).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not try a candidate said to have left another way, until a new listing', async () => {
    const { consumer, acquired } = consumerOf(2);
    consumer.left('a'); // failed as incomplete by the engine, still named by a stale listing
    consumer.offer(['a', 'b']);
    await tick();
    expect(acquired).toEqual(['a', 'b']); // a fresh listing forgets what was said before it
    const second = consumerOf(1);
    second.consumer.offer(['a', 'b', 'c']);
    second.consumer.left('b');
    await tick();
    second.finish.get('a')!();
    await tick();
    expect(second.acquired).toEqual(['a', 'c']);
  });

  it('stops walking past the candidates already done: the head that moved on is dropped', async () => {
    const seen: number[] = [];
    const finish = new Map<string, () => void>();
    const consumer = plainConsumer({
      limit: 1,
      acquire: (candidates, skip) => {
        seen.push(candidates.length);
        const id = candidates.find((c) => !skip(c));
        return Promise.resolve(id);
      },
      work: (id) => new Promise((resolve) => finish.set(id, () => resolve('moved'))),
    });
    const ids = Array.from({ length: 500 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    consumer.offer(ids);
    for (const id of ids) {
      await tick();
      finish.get(id)!();
    }
    await tick();
    // Every item was taken once, in order; the list handed to acquire shrank as the head moved on.
    expect([...finish.keys()]).toEqual(ids);
    expect(Math.min(...seen)).toBeLessThan(500 - 64);
  });

  it('reserves a slot for a handed-over item only when it would be next anyway', async () => {
    const { consumer, acquired, finish } = consumerOf(2);
    consumer.offer(['05-jid2']);
    await tick();
    expect(consumer.reserve('05-jid9')).toBe(true); // a free slot, nothing waiting
    // No slot left: two more may wait for one (as many as the limit), not a third.
    expect(consumer.reserve('05-jid8')).toBe(true);
    expect(consumer.reserve('05-jid7')).toBe(true);
    expect(consumer.reserve('05-jid6')).toBe(false);
    consumer.unreserve(); // their commits failed: nothing to adopt
    consumer.unreserve();
    expect(consumer.adopt('05-jid9')).toBe(true);
    finish.get('05-jid2')!();
    await tick();
    consumer.offer(['03-jid1']);
    await tick(); // 03-jid1 taken into the free slot
    expect(acquired).toEqual(['05-jid2', '03-jid1']);
    finish.get('05-jid9')!();
    await tick();
    consumer.offer(['03-jid3']);
    consumer.setPaused(true);
    expect(consumer.reserve('01-jid4')).toBe(false); // paused
    consumer.setPaused(false);
    await tick(); // 03-jid3 taken
    finish.get('03-jid1')!();
    finish.get('03-jid3')!();
    await tick();
    consumer.offer(['02-jid5', '02-jid7', '02-jid8']);
    consumer.setPaused(true);
    consumer.setPaused(false);
    // 02-jid5 and 02-jid7 are being taken (a hand-over jumps neither), 02-jid8 waits and comes first.
    expect(consumer.reserve('04-jid6')).toBe(false);
  });

  it('with a rank, lets a handed-over item go before waiting items of the same rank, never a better one', () => {
    const rankOf = (c: string) => c.slice(0, 3);
    const { consumer } = consumerOf(3, 'moved', { rankOf });
    consumer.setPaused(true); // nothing is taken: the candidates wait
    consumer.offer(['05-jid1', '05-jid2']);
    consumer.setPaused(false);
    expect(consumer.reserve('05-jid9')).toBe(true); // 05-jid1 waits, but ranks the same
    consumer.offer(['03-jid3']);
    expect(consumer.reserve('05-jid8')).toBe(false); // 03-jid3 waits and ranks better
  });

  it('does not try again an item locked elsewhere until its lock goes, whichever consumer met it', async () => {
    const watches = new Map<string, () => void>();
    const locks = new WaitingItems((id, gone) => watches.set(id, gone));
    const lockedBy = new Set(['a']);
    const first = consumerOf(1, 'moved', { locks, lockedBy });
    const second = consumerOf(1, 'moved', { locks, lockedBy });
    first.consumer.offer(['a', 'b']);
    await tick();
    expect(first.tried).toEqual(['a', 'b']); // a is locked elsewhere: b taken
    first.finish.get('b')!();
    await tick();
    second.consumer.offer(['a', 'c']); // a, still locked, shows up in the next state's folder
    await tick();
    expect(second.tried).toEqual(['c']);
    expect(watches.size).toBe(1);
    lockedBy.delete('a');
    second.finish.get('c')!();
    watches.get('a')!(); // its lock went: both consumers look again
    await tick();
    expect(second.acquired).toEqual(['c', 'a']);
  });

  it('refuses a handed-over item once stopped, and lets its lock go', async () => {
    const { consumer, givenBack } = consumerOf(1);
    expect(consumer.reserve('05-jid1')).toBe(true);
    await consumer.stop(10);
    expect(consumer.adopt('05-jid1')).toBe(false);
    expect(givenBack).toEqual(['05-jid1']);
  });

  it('keeps a handed-over item waiting while its slots are busy, then runs it before acquiring', async () => {
    const { consumer, acquired, finish, givenBack } = consumerOf(1, 'moved', {
      rankOf: (c) => c.slice(0, 3),
    });
    consumer.offer(['05-jid1', '05-jid2']);
    await tick();
    expect(acquired).toEqual(['05-jid1']);
    expect(consumer.reserve('05-jid9')).toBe(true);
    expect(consumer.adopt('05-jid9')).toBe(true); // no slot: it waits, its lock kept
    expect(finish.has('05-jid9')).toBe(false);
    expect(consumer.holds('05-jid9')).toBe(true);
    finish.get('05-jid1')!();
    await tick();
    expect(finish.has('05-jid9')).toBe(true); // the freed slot went to the waiting item
    expect(acquired).toEqual(['05-jid1']); // 05-jid2 not acquired meanwhile
    expect(givenBack).toEqual([]);
    finish.get('05-jid9')!();
    await tick();
    expect(acquired).toEqual(['05-jid1', '05-jid2']);
  });

  it("runs a handed-over item under its step's own signal while that is not aborted, else a new one", async () => {
    const made = () => {
      const signals = new Map<string, AbortSignal>();
      const finish = new Map<string, () => void>();
      const consumer = plainConsumer({
        limit: 1,
        acquire: (candidates, skip) => Promise.resolve(candidates.find((c) => !skip(c))),
        work: (id, signal) => {
          signals.set(id, signal);
          return new Promise((resolve) => finish.set(id, () => resolve('moved')));
        },
        giveBack: () => undefined,
      });
      return { consumer, signals, finish };
    };
    const first = made();
    const next = made();
    first.consumer.offer(['05-jid1']);
    await tick();
    const one = first.signals.get('05-jid1')!;
    // jid1's step hands it over with its signal: the next state's step runs under the same one.
    next.consumer.reserve('05-jid1');
    next.consumer.adopt('05-jid1', one);
    expect(next.signals.get('05-jid1')).toBe(one);
    first.finish.get('05-jid1')!();
    // Waiting for a slot first, then started: still the one it came with.
    first.consumer.offer(['05-jid2']);
    await tick();
    const two = first.signals.get('05-jid2')!;
    expect(two).not.toBe(one);
    next.consumer.reserve('05-jid2');
    next.consumer.adopt('05-jid2', two);
    expect(next.signals.has('05-jid2')).toBe(false);
    next.finish.get('05-jid1')!();
    await tick();
    expect(next.signals.get('05-jid2')).toBe(two);
    // A lost session aborts it through the consumer now running its item.
    next.consumer.abortAll('session expired');
    expect(two.aborted).toBe(true);
    expect(one.aborted).toBe(false); // jid1's work has ended everywhere
    // An aborted signal, or one no consumer made, is not carried on.
    next.finish.get('05-jid2')!();
    await tick();
    const elsewhere = new AbortController().signal;
    for (const [jid, given] of [
      ['05-jid3', two],
      ['05-jid4', elsewhere],
    ] as const) {
      next.consumer.reserve(jid);
      next.consumer.adopt(jid, given);
      expect(next.signals.get(jid)).not.toBe(given);
      expect(next.signals.get(jid)!.aborted).toBe(false);
      next.finish.get(jid)!();
      await tick();
    }
  });

  it('gives a waiting item back after HAND_OVER_WAIT_MS, and when stopped, paused or aborted', async () => {
    vi.useFakeTimers();
    try {
      const { consumer, finish, givenBack } = consumerOf(1);
      consumer.offer(['05-jid1']);
      await vi.advanceTimersByTimeAsync(0);
      consumer.reserve('05-jid9');
      consumer.adopt('05-jid9');
      await vi.advanceTimersByTimeAsync(HAND_OVER_WAIT_MS - 1);
      expect(givenBack).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(givenBack).toEqual(['05-jid9']); // another process may take it now
      expect(consumer.holds('05-jid9')).toBe(false);
      finish.get('05-jid1')!();
      await vi.advanceTimersByTimeAsync(0);
      expect(finish.has('05-jid9')).toBe(false);
      for (const end of [
        (c: Consumer<string>) => c.setPaused(true),
        (c: Consumer<string>) => c.abortAll('session expired'),
        (c: Consumer<string>) => void c.stop(10),
      ]) {
        const other = consumerOf(1);
        other.consumer.offer(['05-jid1']);
        await vi.advanceTimersByTimeAsync(0);
        other.consumer.reserve('05-jid8');
        other.consumer.adopt('05-jid8');
        end(other.consumer);
        expect(other.givenBack).toEqual(['05-jid8']);
        expect(other.consumer.holds('05-jid8')).toBe(false);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('acquires for every free slot at once, each acquisition trying a candidate no other tries', async () => {
    const answers = new Map<string, (taken: boolean) => void>();
    const tried: string[] = [];
    const started: string[] = [];
    const consumer = plainConsumer({
      limit: 3,
      acquire: async (candidates, skip) => {
        for (const id of candidates) {
          if (skip(id)) continue;
          tried.push(id);
          if (await new Promise<boolean>((resolve) => answers.set(id, resolve))) return id;
        }
        return undefined;
      },
      work: (id) => {
        started.push(id);
        return new Promise(() => undefined);
      },
    });
    consumer.offer(['a', 'b', 'c', 'd', 'e']);
    expect(tried).toEqual(['a', 'b', 'c']); // three round trips under way together
    answers.get('b')!(false); // b could not be taken: that acquisition goes on to d, not to a or c
    await tick();
    expect(tried).toEqual(['a', 'b', 'c', 'd']);
    answers.get('a')!(true);
    answers.get('c')!(true);
    answers.get('d')!(true);
    await tick();
    expect(started).toEqual(['a', 'c', 'd']);
    expect(tried).toEqual(['a', 'b', 'c', 'd']); // all slots running: nothing more tried
  });

  it('looks again after an empty-handed acquisition only when poked meanwhile', async () => {
    let calls = 0;
    let release: (() => void) | undefined;
    const consumer = plainConsumer({
      limit: 2,
      acquire: async (candidates, skip) => {
        calls++;
        const id = candidates.find((c) => !skip(c));
        if (id === undefined) return undefined;
        await new Promise<void>((resolve) => (release = resolve));
        return undefined; // locked elsewhere, say
      },
      work: () => new Promise(() => undefined),
    });
    consumer.offer(['a']);
    expect(calls).toBe(2); // one tries a; the other finds nothing to claim
    await tick();
    expect(calls).toBe(2); // and does not walk the list again on its own
    consumer.poke(); // something changed while a was tried
    expect(calls).toBe(3);
    release!();
    await tick();
    expect(calls).toBe(5); // the poke is honoured once a's acquisition ends: both slots look again
    await tick();
    expect(calls).toBe(5);
  });

  it('waits for acquisitions under way when stopped, and runs what they took', async () => {
    const { consumer, answer, started } = slowlyAcquiring();
    consumer.offer(['a']);
    let stopped = false;
    const stopping = consumer.stop(1000).then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    answer('a');
    await stopping;
    expect(started).toEqual(['a']);
  });

  it('takes new items only while the consumer it hands over to has room, and looks again when it has', async () => {
    const next = consumerOf(1); // room for hand-overs: one slot and one waiting place
    const roomChanged: number[] = [];
    const intake = plainConsumer({
      name: 'intake',
      limit: 8,
      acquire: (candidates, skip) => Promise.resolve(candidates.find((c) => !skip(c))),
      work: () => new Promise(() => undefined),
      intakeRoom: () => next.consumer.handOverRoom(),
    });
    expect(next.consumer.handOverRoom()).toBe(2);
    intake.offer(['05-jid1', '05-jid2', '05-jid3', '05-jid4']);
    await tick();
    expect(intake.running).toBe(2); // not 4: the next state could take two of them
    next.consumer.reserve('05-jid1');
    next.consumer.adopt('05-jid1');
    expect(next.consumer.handOverRoom()).toBe(1);
    next.consumer.setPaused(true); // a paused consumer bounds nothing: its items wait in its folder
    expect(next.consumer.handOverRoom()).toBe(Number.POSITIVE_INFINITY);
    intake.refill();
    await tick();
    expect(intake.running).toBe(4);
    // roomChanged is told when an item finishes, so the intake can look again.
    const told = plainConsumer({
      name: 'told',
      limit: 1,
      acquire: (candidates, skip) => Promise.resolve(candidates.find((c) => !skip(c))),
      work: () => Promise.resolve('moved'),
      roomChanged: () => roomChanged.push(1),
    });
    told.offer(['a']);
    await tick();
    expect(roomChanged.length).toBe(1);
  });

  it('gives back an item its acquisition took after the consumer was paused', async () => {
    const { consumer, answer, started, givenBack } = slowlyAcquiring();
    consumer.offer(['a']);
    consumer.setPaused(true); // the pause arrives while a is being acquired
    answer('a');
    await tick();
    expect(started).toEqual([]);
    expect(givenBack).toEqual(['a']);
  });
});
