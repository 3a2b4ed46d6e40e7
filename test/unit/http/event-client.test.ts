import { describe, expect, it } from 'vitest';
import { EventClient } from '../../../src/http/events/client.js';
import { EventLog } from '../../../src/http/events/log.js';
import { fakeSink } from './fake-sink.js';

/** A client joined to a fresh log, `ready` first; `add` appends a piece and lets the client catch up. */
function joined(sinkArgs: [number?, number?], limit: number) {
  const { sink, state, take } = fakeSink(...sinkArgs);
  const dropped: number[] = [];
  const log = new EventLog();
  const client = new EventClient(sink, limit, (behind) => dropped.push(behind));
  client.join(log, 'R');
  const add = (piece: string): boolean => {
    log.append([piece], log.head);
    return client.catchUp();
  };
  return { client, log, state, take, dropped, add };
}

describe('EventClient: a position in the shared log of /events, cut off when too far behind', () => {
  it('writes each piece the log gets while its socket takes them', () => {
    const { state, add } = joined([1000], 100);
    expect(add('a')).toBe(true);
    expect(add('b')).toBe(true);
    expect(state.written).toEqual(['R', 'a', 'b']);
  });

  it('once its socket is backed up, writes nothing more until the drain, then the log from where it stopped', () => {
    const { state, take, add } = joined([50], 1000);
    add('a'.repeat(60)); // the socket's buffer is full now
    add('b');
    add('c');
    expect(state.written).toEqual(['R', 'a'.repeat(60)]);
    take();
    expect(state.written).toEqual(['R', 'a'.repeat(60), 'b', 'c']);
    add('d');
    expect(state.written.at(-1)).toBe('d');
  });

  it('is disconnected once what waits in the log and in its socket is over the limit, and told once', () => {
    const { client, state, add, dropped } = joined([50], 100);
    expect(add('a'.repeat(60))).toBe(true); // 61 bytes in the socket, with `R`
    expect(add('b'.repeat(30))).toBe(true); // 91 behind
    expect(add('c'.repeat(30))).toBe(false); // 121 behind
    expect(state.destroyed).toBe(true);
    expect(dropped).toEqual([121]);
    expect(client.catchUp()).toBe(false);
    expect(dropped).toEqual([121]);
  });

  it('counts bytes, not characters', () => {
    const { add } = joined([0], 11);
    expect(add('ééééé')).toBe(true); // 10 bytes and `R`
    expect(add('é')).toBe(false);
  });

  it('takes a burst larger than its socket takes at once, when the limit allows it', () => {
    const { state, add, take, dropped } = joined([50], 10_000);
    for (let i = 0; i < 100; i++) expect(add('0123456789'.repeat(9))).toBe(true);
    expect(dropped).toEqual([]);
    for (let i = 0; i < 100; i++) take(); // the client reads, piece by piece
    expect(state.written.slice(1).join('')).toBe('0123456789'.repeat(900));
  });

  it('is not cut off while the operating system takes many times the limit', () => {
    const { state, add, dropped } = joined([50, 10_000], 100);
    for (let i = 0; i < 100; i++) expect(add('0123456789')).toBe(true);
    expect(dropped).toEqual([]);
    expect(state.written).toHaveLength(101);
  });

  it('sends a keep-alive only when nothing else waits for the client', () => {
    const { client, state, add, take } = joined([50], 1000);
    client.keepAlive(':k');
    add('a'.repeat(60));
    add('b');
    client.keepAlive(':k');
    expect(state.written).toEqual(['R', ':k', 'a'.repeat(60)]);
    take();
    client.keepAlive(':k');
    expect(state.written).toEqual(['R', ':k', 'a'.repeat(60), 'b', ':k']);
  });

  it('ends a client that has everything with the last frame, and destroys one that is behind', () => {
    const caughtUp = joined([100, 1000], 1000);
    caughtUp.add('x');
    caughtUp.client.close('bye');
    expect(caughtUp.state).toMatchObject({ ended: true, destroyed: false, written: ['R', 'x', 'bye'] });
    expect(caughtUp.client.catchUp()).toBe(false);

    const behind = joined([5], 1000);
    behind.add('behind');
    behind.add('more');
    behind.client.close('bye');
    expect(behind.state).toMatchObject({ ended: false, destroyed: true, written: ['R', 'behind'] });
  });
});
