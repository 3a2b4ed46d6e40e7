import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/cli/options.js';
import { createLimit } from '../../../src/queue/scan/reader.js';

describe('createLimit', () => {
  it('never runs more than the limit at once and keeps every result', async () => {
    const limit = createLimit(3);
    let running = 0;
    let peak = 0;
    const task = (value: number) => async (): Promise<number> => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 1 + (value % 3)));
      running -= 1;
      return value * 2;
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => limit(task(i))));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(peak).toBe(3);
  });

  it('passes a failure to its caller and goes on with the next task', async () => {
    const limit = createLimit(1);
    const failing = limit(() => Promise.reject(new Error('boom')));
    const throwing = limit((): Promise<number> => {
      throw new Error('sync boom');
    });
    const next = limit(() => Promise.resolve(7));
    await expect(failing).rejects.toThrow('boom');
    await expect(throwing).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe(7);
  });
});

describe('parseDuration', () => {
  it('reads the units the cleanup command documents', () => {
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5h')).toBe(5_400_000);
  });

  it('refuses what it cannot read', () => {
    for (const text of ['', '7', 'd', '7 days', '-1d', '1y']) expect(parseDuration(text)).toBeUndefined();
  });
});
