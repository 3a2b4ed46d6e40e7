import { describe, expect, it } from 'vitest';
import { EventClient } from '../../../src/http/event-client.js';
import { EventFanout } from '../../../src/http/event-fanout.js';
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

function connect(fanout: EventFanout) {
  const { sink, state } = fakeSink(1_000_000, 1_000_000);
  const client = new EventClient(sink, 1_000_000, () => undefined);
  fanout.add(client);
  return { client, state };
}

describe('EventFanout: one feed subscription for every client of /events', () => {
  it('tells ready once the feed is synced, then sends the frames of a turn as one string to every client', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined);
    const early = connect(fanout);
    expect(early.state.written).toEqual([]);
    feed.listener!.ready();
    const late = connect(fanout); // synced already: ready at once
    feed.listener!.transition(transition('jid1'));
    feed.listener!.transition(transition('jid2'));
    expect(late.state.written).toEqual([READY]);
    await turn();
    for (const { state } of [early, late])
      expect(state.written).toEqual([READY, frameOf('jid1') + frameOf('jid2')]);
    expect(feed.subscriptions).toBe(1);
    expect(fanout.size).toBe(2);
  });

  it('sends a burst in pieces of about 16 KiB without waiting for the end of the turn', () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined);
    const { state } = connect(fanout);
    feed.listener!.ready();
    for (let i = 0; i < 1000; i++) feed.listener!.transition(transition(`jid${i}`));
    const pieces = state.written.slice(1);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeGreaterThanOrEqual(16 * 1024);
  });

  it('holds what clients behind have not written once for all of them, until the slowest has it or is gone', async () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined);
    const stuck = [0, 1, 2].map(() => {
      const { sink, state, take } = fakeSink(50);
      const client = new EventClient(sink, 1_000_000, () => undefined);
      fanout.add(client);
      return { client, state, take };
    });
    feed.listener!.ready();
    for (let i = 0; i < 1000; i++) feed.listener!.transition(transition(`jid${i}`));
    await turn();
    const burst = 1000 * frameOf('jid000').length;
    // Each wrote its first piece into its socket; the rest is held once, not three times.
    expect(fanout.heldBytes).toBeGreaterThan(burst / 2);
    expect(fanout.heldBytes).toBeLessThan(burst);
    for (const { take } of stuck.slice(0, 2)) for (let i = 0; i < 100; i++) take();
    feed.listener!.transition(transition('jid-next'));
    await turn();
    expect(fanout.heldBytes).toBeGreaterThan(burst / 2); // the third has not read
    fanout.remove(stuck[2]!.client);
    expect(fanout.heldBytes).toBe(0);
    expect(stuck[0]!.state.written.join('')).toBe(
      READY + Array.from({ length: 1000 }, (_, i) => frameOf(`jid${i}`)).join('') + frameOf('jid-next'),
    );
  });

  it('holds the subscription while there are clients, and starts again for the next one', () => {
    const { feed, source } = fakeFeed();
    const fanout = new EventFanout(source, () => undefined);
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
    expect(third.state.written).toEqual([READY]);
  });

  it('ends every stream with an error frame when the feed fails', () => {
    const { feed, source } = fakeFeed();
    const errors: unknown[] = [];
    const fanout = new EventFanout(source, (err) => errors.push(err));
    const { state } = connect(fanout);
    feed.listener!.ready();
    feed.listener!.error(new Error('session expired'));
    expect(errors).toHaveLength(1);
    expect(state.ended).toBe(true);
    expect(state.written.at(-1)).toContain('event: error');
    expect(feed.stops).toBe(1);
    expect(fanout.size).toBe(0);
  });
});
