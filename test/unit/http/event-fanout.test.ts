import { describe, expect, it, vi } from 'vitest';
import { EventClient } from '../../../src/http/events/client.js';
import { EventFanout } from '../../../src/http/events/fanout.js';
import type { FeedListener, TransitionFeed } from '../../../src/streams/transition-feed.js';
import type { Transition } from '../../../src/streams/transition-tracker.js';
import { fakeSink } from './fake-sink.js';

/** A feed the test drives: `listener` is the subscriber while there is one. */
function fakeFeed() {
  const feed = { listener: undefined as FeedListener | undefined, subscriptions: 0, stops: 0 };
  const source: TransitionFeed = {
    subscribe(listener) {
      feed.listener = listener;
      feed.subscriptions += 1;
      return () => {
        feed.listener = undefined;
        feed.stops += 1;
      };
    },
  };
  return { feed, source };
}

const transition = (id: string): Transition => ({
  kind: 'job',
  id,
  from: 'pending',
  to: 'estimating',
  at: '2026-11-25T00:00:00.000Z',
});
const READY = 'event: ready\ndata: {}\n\n';
const frameOf = (id: string): string => `event: transition\ndata: ${JSON.stringify(transition(id))}\n\n`;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a client was sent, without the `id:` lines (their own test is below). */
const withoutIds = (written: string[]): string[] => written.map((text) => text.replace(/^id: .*\n/gm, ''));

/** Every frame a client was sent, as `{event, id, data}`. */
function framesOf(written: string[]): { event: string; id: string; data: unknown }[] {
  return written
    .join('')
    .split('\n\n')
    .filter(Boolean)
    .map((text) => {
      const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1] ?? '';
      return { event: field('event'), id: field('id'), data: JSON.parse(field('data')) as unknown };
    });
}

function connect(fanout: EventFanout, lastEventId?: string) {
  const { sink, state } = fakeSink(1_000_000, 1_000_000);
  const client = new EventClient(sink, 1_000_000, () => undefined);
  fanout.add(client, lastEventId);
  return { client, state, frames: () => framesOf(state.written) };
}

/** Ends of the old behaviour: nothing kept for clients that come back. */
const NO_RESUME = { retainBytes: 0, lingerMs: 0 };

describe('EventFanout: one feed subscription for every client of /events', () => {
  it('tells ready once the feed is synced, then sends the frames of a turn as one string to every client', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, NO_RESUME);
    const early = connect(fanout);
    expect(early.state.written).toEqual([]);
    feed.listener!.ready();
    const late = connect(fanout); // synced already: ready at once
    feed.listener!.transition(transition('jid1'));
    feed.listener!.transition(transition('jid2'));
    expect(withoutIds(late.state.written)).toEqual([READY]);
    await turn();
    for (const { state } of [early, late])
      expect(withoutIds(state.written)).toEqual([READY, frameOf('jid1') + frameOf('jid2')]);
    expect(feed.subscriptions).toBe(1);
    expect(fanout.size).toBe(2);
  });

  it('sends a burst in pieces of about 16 KiB without waiting for the end of the turn', () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, NO_RESUME);
    const { state } = connect(fanout);
    feed.listener!.ready();
    for (let i = 0; i < 1000; i++) feed.listener!.transition(transition(`jid${i}`));
    const pieces = state.written.slice(1);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeGreaterThanOrEqual(16 * 1024);
  });

  it('holds what clients behind have not written once for all of them, until the slowest has it or is gone', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, NO_RESUME);
    const stuck = [0, 1, 2].map(() => {
      const { sink, state, take } = fakeSink(50);
      const client = new EventClient(sink, 1_000_000, () => undefined);
      fanout.add(client);
      return { client, state, take };
    });
    feed.listener!.ready();
    for (let i = 0; i < 1000; i++) feed.listener!.transition(transition(`jid${i}`));
    await turn();
    const burst = 1000 * (frameOf('jid000').length + 'id: 0123abcd-1000\n'.length);
    // Each wrote its first piece into its socket; the rest is held once, not three times.
    expect(fanout.heldBytes).toBeGreaterThan(burst / 2);
    expect(fanout.heldBytes).toBeLessThan(burst);
    for (const { take } of stuck.slice(0, 2)) for (let i = 0; i < 100; i++) take();
    feed.listener!.transition(transition('jid-next'));
    await turn();
    expect(fanout.heldBytes).toBeGreaterThan(burst / 2); // the third has not read
    fanout.remove(stuck[2]!.client);
    expect(fanout.heldBytes).toBe(0);
    expect(withoutIds(stuck[0]!.state.written).join('')).toBe(
      READY + Array.from({ length: 1000 }, (_, i) => frameOf(`jid${i}`)).join('') + frameOf('jid-next'),
    );
  });

  it('holds the subscription while there are clients, and starts again for the next one', () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, NO_RESUME);
    const first = connect(fanout);
    const second = connect(fanout);
    fanout.remove(first.client);
    expect(feed.stops).toBe(0);
    fanout.remove(second.client);
    expect(feed.stops).toBe(1);
    expect(fanout.size).toBe(0);
    const third = connect(fanout);
    expect(feed.subscriptions).toBe(2);
    feed.listener!.ready();
    expect(withoutIds(third.state.written)).toEqual([READY]);
  });

  it('ends every stream with an error frame when the feed fails', () => {
    const { feed, source } = fakeFeed();
    const errors: unknown[] = [];
    const fanout = new EventFanout(source, (err) => errors.push(err), NO_RESUME);
    const { state } = connect(fanout);
    feed.listener!.ready();
    feed.listener!.error(new Error('session expired'));
    expect(errors).toHaveLength(1);
    expect(state.ended).toBe(true);
    expect(state.written.at(-1)).toContain('event: error');
    expect(feed.stops).toBe(1);
    expect(fanout.size).toBe(0);
  });

  it('gives every event an id, increasing, and ready the id of the last event before it', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined);
    const first = connect(fanout);
    feed.listener!.ready();
    for (const jid of ['jid1', 'jid2', 'jid3']) feed.listener!.transition(transition(jid));
    await turn();
    const late = connect(fanout);
    const ids = first.frames().map((f) => f.id);
    expect(ids).toHaveLength(4);
    const [epoch] = ids[0]!.split('-');
    expect(ids).toEqual([0, 1, 2, 3].map((n) => `${epoch}-${n}`));
    expect(late.frames()).toEqual([{ event: 'ready', id: `${epoch}-3`, data: {} }]);
  });

  it('replays to a client that comes back exactly the events it missed, in order, then goes on', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, { retainBytes: 1_000_000, lingerMs: 60_000 });
    const first = connect(fanout);
    feed.listener!.ready();
    feed.listener!.transition(transition('jid1'));
    feed.listener!.transition(transition('jid2'));
    await turn();
    const lastSeen = first.frames().at(-1)!;
    expect((lastSeen.data as Transition).id).toBe('jid2');
    fanout.remove(first.client); // the last client: the subscription lingers
    expect(feed.stops).toBe(0);
    for (const jid of ['jid3', 'jid4', 'jid5']) feed.listener!.transition(transition(jid));
    await turn();
    const back = connect(fanout, lastSeen.id);
    feed.listener!.transition(transition('jid6'));
    await turn();
    expect(back.frames().map((f) => [f.event, (f.data as Transition).id])).toEqual(
      ['jid3', 'jid4', 'jid5', 'jid6'].map((jid) => ['transition', jid]),
    );
    // Ids carry on where the first client's stopped.
    const n = (id: string) => Number(id.split('-')[1]);
    expect(back.frames().map((f) => n(f.id))).toEqual([3, 4, 5, 6].map((i) => n(lastSeen.id) + i - 2));
    // A client that had seen everything resumes with nothing to replay.
    const current = connect(fanout, back.frames().at(-1)!.id);
    expect(current.state.written).toEqual([]);
    expect(feed.subscriptions).toBe(1);
  });

  it('sends reset in place of ready for an id it cannot resume from: unknown, dropped, or of an ended subscription', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined, { retainBytes: 300, lingerMs: 0 });
    const first = connect(fanout);
    feed.listener!.ready();
    feed.listener!.transition(transition('jid1'));
    await turn();
    const oldest = first.frames().at(-1)!.id;
    for (let i = 2; i < 10; i++) {
      feed.listener!.transition(transition(`jid${i}`));
      await turn(); // a piece each: the log keeps only the last 300 bytes
    }
    for (const id of ['nonsense', 'abcdef01-1', oldest]) {
      const client = connect(fanout, id);
      expect(
        client.frames().map((f) => [f.event, f.data]),
        id,
      ).toEqual([['reset', expect.objectContaining({ lastEventId: id }) as unknown]]);
      fanout.remove(client.client);
    }
    const latest = first.frames().at(-1)!.id;
    fanout.remove(first.client); // lingerMs 0: the subscription ends, and its ids with it
    const later = connect(fanout, latest);
    expect(later.state.written).toEqual([]); // reset waits for the feed's first read, like ready
    feed.listener!.ready();
    expect(later.frames().map((f) => f.event)).toEqual(['reset']);
  });

  it('ends the lingering subscription and forgets its events once no client came back in time', () => {
    vi.useFakeTimers();
    try {
      const { feed, source } = fakeFeed();
      const fanout = new EventFanout(source, () => undefined, { retainBytes: 1_000_000, lingerMs: 60_000 });
      const { client } = connect(fanout);
      feed.listener!.ready();
      fanout.remove(client);
      vi.advanceTimersByTime(59_000);
      expect(feed.stops).toBe(0);
      const again = connect(fanout); // came back in time: the timer is off
      vi.advanceTimersByTime(120_000);
      expect(feed.stops).toBe(0);
      feed.listener!.transition(transition('jid1'));
      vi.runOnlyPendingTimers(); // setImmediate: the frame goes into the log
      fanout.remove(again.client);
      expect(fanout.heldBytes).toBeGreaterThan(0); // kept for a client that comes back
      vi.advanceTimersByTime(60_000);
      expect(feed.stops).toBe(1);
      expect(fanout.heldBytes).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
