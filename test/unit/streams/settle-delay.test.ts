import { describe, expect, it } from 'vitest';
import { settleDelayFor } from '../../../src/streams/children.js';
import { candidatesPerRead } from '../../../src/streams/queue-events.js';

describe('settleDelayFor', () => {
  it('waits the floor for small folders, then 1 ms every 20 children: 500 ms at 10,000, 5 s at 100,000, 20 s from 400,000', () => {
    expect(settleDelayFor(0, 50)).toBe(50);
    expect(settleDelayFor(500, 50)).toBe(50);
    expect(settleDelayFor(10_000)).toBe(500);
    expect(settleDelayFor(20_000)).toBe(1000);
    expect(settleDelayFor(100_000)).toBe(5000);
    expect(settleDelayFor(400_000)).toBe(20_000);
    expect(settleDelayFor(5_000_000)).toBe(20_000);
  });

  it('never waits less for a bigger folder', () => {
    let before = 0;
    for (let size = 0; size <= 1_200_000; size += 500) {
      const delay = settleDelayFor(size, 50);
      expect(delay, `at ${size} children`).toBeGreaterThanOrEqual(before);
      before = delay;
    }
  });
});

describe('candidatesPerRead', () => {
  it('hands over enough refs to last until the next read at 2,500 jobs a second: 20,000, 50,000 for a million', () => {
    expect(candidatesPerRead(0)).toBe(20_000);
    expect(candidatesPerRead(100_000)).toBe(20_000); // read again after 5 s: 12,500 would do
    expect(candidatesPerRead(400_000)).toBe(50_000); // after 20 s
    expect(candidatesPerRead(1_000_000)).toBe(50_000);
    for (let size = 0; size <= 1_200_000; size += 1000) {
      const count = candidatesPerRead(size);
      expect(count * 1000, `at ${size} children`).toBeGreaterThanOrEqual(settleDelayFor(size) * 2500);
    }
  });
});
