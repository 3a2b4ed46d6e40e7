import { describe, expect, it } from 'vitest';
import { EventClient } from '../../../src/http/event-client.js';
import { fakeSink } from './fake-sink.js';

describe('EventClient: a bounded buffer per client of /events', () => {
  it('sends while the client holds no more than the limit, then disconnects it once and sends nothing more', () => {
    const { sink, state } = fakeSink(1000);
    const dropped: number[] = [];
    const client = new EventClient(sink, 100, (buffered) => dropped.push(buffered));
    const frame = 'x'.repeat(30);
    expect([1, 2, 3].map(() => client.send(frame))).toEqual([true, true, true]);
    expect(client.send(frame)).toBe(false); // 120 bytes would wait: over the limit
    expect(state.destroyed).toBe(true);
    expect(dropped).toEqual([90]);
    expect(client.send(frame)).toBe(false);
    expect(dropped).toEqual([90]);
    expect(state.written).toEqual([frame, frame, frame]);
  });

  it('counts bytes, not characters', () => {
    const { sink } = fakeSink(1000);
    const client = new EventClient(sink, 10, () => undefined);
    expect(client.send('ééééé')).toBe(true); // 10 bytes
    expect(client.send('é')).toBe(false);
  });

  it('does not cut off a client whose socket takes many times the limit', () => {
    const { sink, state } = fakeSink(50, 10_000);
    const dropped: number[] = [];
    const client = new EventClient(sink, 100, (buffered) => dropped.push(buffered));
    for (let i = 0; i < 100; i++) expect(client.send('0123456789')).toBe(true);
    expect(dropped).toEqual([]);
    expect(state.written).toHaveLength(100);
  });

  it('joins what it is sent while the socket is backed up into one write at the next drain', () => {
    const { sink, state, take } = fakeSink(50);
    const client = new EventClient(sink, 1000, () => undefined);
    client.send('a'.repeat(60)); // the socket's buffer is full now
    client.send('b');
    client.send('c');
    expect(state.written).toEqual(['a'.repeat(60)]);
    take();
    expect(state.written).toEqual(['a'.repeat(60), 'bc']);
    client.send('d');
    expect(state.written).toEqual(['a'.repeat(60), 'bc', 'd']);
  });

  it('counts what waits for the drain against the limit too', () => {
    const { sink, state } = fakeSink(50);
    const dropped: number[] = [];
    const client = new EventClient(sink, 100, (buffered) => dropped.push(buffered));
    client.send('a'.repeat(60));
    expect(client.send('b'.repeat(30))).toBe(true);
    expect(client.send('c'.repeat(30))).toBe(false);
    expect(dropped).toEqual([90]);
    expect(state.destroyed).toBe(true);
  });

  it('ends a client whose socket keeps up with the last frame, and destroys one that does not', () => {
    const taking = fakeSink();
    const client = new EventClient(taking.sink, 100, () => undefined);
    client.close('bye');
    expect(taking.state).toMatchObject({ ended: true, destroyed: false, written: ['bye'] });
    expect(client.send('more')).toBe(false);

    const stuck = fakeSink(5);
    const behind = new EventClient(stuck.sink, 100, () => undefined);
    behind.send('behind');
    behind.close('bye');
    expect(stuck.state).toMatchObject({ ended: false, destroyed: true, written: ['behind'] });
  });
});
