import { describe, expect, it } from 'vitest';
import { StepIsolation } from '../../../src/engine/step-isolation.js';
import { StepAbortedError } from '../../../src/engine/step-runner.js';

/** A step the test ends by hand. */
function pending() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { done, end };
}

describe('suspects run alone', () => {
  it('a suspect waits for the steps under way, runs alone, and steps arriving meanwhile are handed back', async () => {
    const gate = new StepIsolation();
    const states: boolean[] = [];
    gate.isolating$.subscribe((s) => states.push(s));
    const a = pending();
    const running = gate.run(false, () => a.done);
    let suspectRan = false;
    const s = pending();
    const suspect = gate.run(true, () => {
      suspectRan = true;
      return s.done;
    });
    await Promise.resolve();
    expect(suspectRan).toBe(false);
    expect(states).toEqual([false, true]);
    await expect(gate.run(false, () => Promise.resolve(1))).rejects.toBeInstanceOf(StepAbortedError);
    a.end();
    await running;
    await new Promise((r) => setTimeout(r, 0));
    expect(suspectRan).toBe(true);
    expect(gate.running).toBe(1);
    s.end();
    await suspect;
    expect(states).toEqual([false, true, false]);
    expect(await gate.run(false, () => Promise.resolve(2))).toBe(2);
  });

  it('suspects run one at a time, in the order they came', async () => {
    const gate = new StepIsolation();
    const order: string[] = [];
    const first = pending();
    const one = gate.run(true, async () => {
      order.push('one');
      await first.done;
      order.push('one done');
    });
    const two = gate.run(true, () => {
      order.push('two');
      return Promise.resolve();
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(order).toEqual(['one']);
    first.end();
    await Promise.all([one, two]);
    expect(order).toEqual(['one', 'one done', 'two']);
  });

  it('a suspect whose step fails lets the others go on', async () => {
    const gate = new StepIsolation();
    await expect(gate.run(true, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(false, () => Promise.resolve('ok'))).toBe('ok');
  });
});
