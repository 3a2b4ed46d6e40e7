import { describe, expect, it } from 'vitest';
import { EngineTracker } from '../../../src/alerts/engine-tracker.js';
import { createdBetween, MovementTracker } from '../../../src/alerts/movement.js';
import { ageQuantiles, quantiles } from '../../../src/alerts/quantiles.js';

const engine = (id: string, host = 'h1') => ({ id, host, pid: 1, states: [] });
const none: ReadonlySet<string> = new Set();

describe('children created in a folder, from two stats of it', () => {
  it('counts creates, not deletes', () => {
    expect(createdBetween({ cversion: 10, numChildren: 5 }, { cversion: 12, numChildren: 5 })).toBe(1);
    expect(createdBetween({ cversion: 10, numChildren: 5 }, { cversion: 13, numChildren: 2 })).toBe(0);
    expect(createdBetween({ cversion: 10, numChildren: 5 }, { cversion: 14, numChildren: 9 })).toBe(4);
    expect(createdBetween(undefined, { cversion: 3, numChildren: 3 })).toBe(3);
    expect(createdBetween({ cversion: 10, numChildren: 5 }, undefined)).toBe(0);
  });
});

describe('when the queue last moved', () => {
  it('is the start until a ref is created, then the evaluation that saw it; a batch write dates itself', () => {
    const tracker = new MovementTracker(1_000);
    const folders = (cversion: number, numChildren: number) =>
      new Map([['pending', { cversion, numChildren }]]);
    tracker.observe(folders(5, 5), undefined, 2_000);
    expect(tracker.lastMovedAt).toBe(1_000);
    tracker.observe(folders(7, 3), undefined, 3_000); // two deletes (cleanup): no movement
    expect(tracker.lastMovedAt).toBe(1_000);
    tracker.observe(folders(8, 4), undefined, 4_000);
    expect(tracker.lastMovedAt).toBe(4_000);
    tracker.observe(folders(8, 4), 4_500, 5_000);
    expect(tracker.lastMovedAt).toBe(4_500);
  });
});

describe('engines gone', () => {
  it('counts an engine whose node went without a clean stop, until it or a replacement registers', () => {
    const tracker = new EngineTracker(0);
    tracker.update([engine('a'), engine('b', 'h2')], none, 1);
    tracker.update([engine('a')], none, 2);
    expect(tracker.goneEngines()).toEqual([{ ...engine('b', 'h2'), goneAt: 2 }]);
    tracker.update([engine('a'), engine('b', 'h2')], none, 3); // the same id again: a new session
    expect(tracker.goneEngines()).toEqual([]);
    tracker.update([engine('a')], none, 4);
    tracker.update([engine('a'), engine('c', 'h9')], none, 5); // a new process anywhere replaces it
    expect(tracker.goneEngines()).toEqual([]);
  });

  it('forgets an engine that stopped cleanly, and replaces one on the same host first', () => {
    const tracker = new EngineTracker(0);
    tracker.update([engine('a', 'h1'), engine('b', 'h2'), engine('c', 'h3')], none, 1);
    tracker.update([engine('c', 'h3')], new Set(['a']), 2);
    expect(tracker.goneEngines().map((e) => e.id)).toEqual(['b']);
    tracker.update([], none, 3);
    tracker.update([engine('d', 'h3')], none, 4);
    expect(tracker.goneEngines().map((e) => e.id)).toEqual(['b']);
  });

  it('knows since when fewer than a minimum are registered', () => {
    const tracker = new EngineTracker(100);
    expect(tracker.fewerSince(1)).toBeUndefined();
    tracker.update([engine('a')], none, 200);
    expect(tracker.fewerSince(2)).toBe(100);
    tracker.update([engine('a'), engine('b')], none, 300);
    tracker.update([engine('a')], none, 400);
    expect(tracker.fewerSince(2)).toBe(400);
    expect(tracker.fewerSince(1)).toBeUndefined();
    expect(tracker.registered()).toBe(1);
  });
});

describe('age quantiles', () => {
  it('are nearest-rank values of what was read, the oldest at 1 taken from every read', () => {
    const values = Array.from({ length: 100 }, (_, i) => (i + 1) * 1000);
    expect(quantiles(values)).toEqual([50_000, 90_000, 99_000, 100_000]);
    expect(quantiles([])).toEqual([]);
    expect(ageQuantiles({ sampled: values, oldest: 500_000 })).toEqual({
      '0.5': 50,
      '0.9': 90,
      '0.99': 99,
      '1': 500,
    });
    expect(ageQuantiles({ sampled: [], oldest: undefined })).toEqual({});
  });
});
