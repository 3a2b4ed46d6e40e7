import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/http/event-log.js';

describe('EventLog: the frames of /events kept once for every client', () => {
  it('numbers pieces and knows the byte offset of each', () => {
    const log = new EventLog();
    expect(log.head).toBe(0);
    log.append('ab');
    log.append('é'); // two bytes
    log.append('');
    log.append('cde');
    expect(log.head).toBe(3);
    expect([0, 1, 2, 3].map((seq) => log.offsetOf(seq))).toEqual([0, 2, 4, 7]);
    expect(log.endOffset).toBe(7);
    expect(log.piece(1)).toBe('é');
    expect(log.heldBytes).toBe(7);
  });

  it('drops what every client has written, and refuses to read what it dropped', () => {
    const log = new EventLog();
    for (const piece of ['aa', 'bbb', 'c']) log.append(piece);
    log.trim(2);
    expect(log.heldBytes).toBe(1);
    expect(log.offsetOf(2)).toBe(5);
    expect(log.piece(2)).toBe('c');
    expect(() => log.piece(1)).toThrow(RangeError);
    log.trim(1); // behind what is kept: nothing to do
    log.trim(99); // past the head: everything
    expect(log.heldBytes).toBe(0);
    expect(log.offsetOf(log.head)).toBe(6);
  });

  it('keeps its numbering and offsets across compaction of a long run', () => {
    const log = new EventLog();
    for (let i = 0; i < 10_000; i++) {
      log.append('xy');
      if (i % 7 === 0) log.trim(log.head - 3);
    }
    expect(log.head).toBe(10_000);
    expect(log.offsetOf(9_998)).toBe(19_996);
    expect(log.piece(9_999)).toBe('xy');
    log.trim(log.head);
    expect(log.heldBytes).toBe(0);
  });
});
