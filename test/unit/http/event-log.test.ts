import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/http/events/log.js';

describe('EventLog: the frames of /events kept once for every client', () => {
  it('numbers pieces and knows the byte offset of each', () => {
    const log = new EventLog();
    expect(log.head).toBe(0);
    log.append(['ab'], 1);
    log.append(['é'], 2); // two bytes
    log.append([], 3);
    log.append(['cde'], 3);
    expect(log.head).toBe(3);
    expect([0, 1, 2, 3].map((seq) => log.offsetOf(seq))).toEqual([0, 2, 4, 7]);
    expect(log.endOffset).toBe(7);
    expect(log.piece(1)).toBe('é');
    expect(log.heldBytes).toBe(7);
  });

  it('drops what every client has written, and refuses to read what it dropped', () => {
    const log = new EventLog();
    for (const [i, piece] of ['aa', 'bbb', 'c'].entries()) log.append([piece], i + 1);
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
      log.append(['xy'], i + 1);
      if (i % 7 === 0) log.trim(log.head - 3);
    }
    expect(log.head).toBe(10_000);
    expect(log.offsetOf(9_998)).toBe(19_996);
    expect(log.piece(9_999)).toBe('xy');
    expect(log.find(9_999)).toEqual({ seq: 9_998, offset: 0 });
    log.trim(log.head);
    expect(log.heldBytes).toBe(0);
  });

  it('finds where each event starts, inside its piece, while the log holds it', () => {
    const log = new EventLog();
    log.append(['a1', 'b22', 'c3'], 1); // events 1-3
    log.append(['d4'], 4);
    log.append(['e5', 'f66'], 5); // events 5-6
    expect(log.find(1)).toEqual({ seq: 0, offset: 0 });
    expect(log.find(2)).toEqual({ seq: 0, offset: 2 });
    expect(log.find(3)).toEqual({ seq: 0, offset: 5 });
    expect(log.find(4)).toEqual({ seq: 1, offset: 0 });
    expect(log.find(6)).toEqual({ seq: 2, offset: 2 });
    expect(log.find(7)).toBeUndefined(); // not made yet
    expect(log.find(0)).toBeUndefined(); // before the first
    log.trim(1);
    expect(log.find(3)).toBeUndefined(); // dropped
    expect(log.find(4)).toEqual({ seq: 1, offset: 0 });
  });

  it('tells from which piece on it holds at most a number of bytes', () => {
    const log = new EventLog();
    for (const [i, piece] of ['aaaa', 'bbb', 'cc', 'd'].entries()) log.append([piece], i + 1);
    expect(log.keepFrom(10)).toBe(0);
    expect(log.keepFrom(6)).toBe(1);
    expect(log.keepFrom(3)).toBe(2);
    expect(log.keepFrom(0)).toBe(4);
  });
});
