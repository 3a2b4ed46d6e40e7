import { describe, expect, it, onTestFinished } from 'vitest';
import { onInterrupt, runInterruptible, undoneOnInterrupt } from '../../../src/bench/interrupt.js';
import { REPEATED_SIGNAL_MS } from '../../../src/signals.js';

// The signal is emitted on `process` (its listeners run as for a real one); `exit` is recorded.
describe('an interruptible benchmark run', () => {
  it('on SIGTERM undoes what is registered, latest first, then exits 143; the body failing meanwhile is not reported', async () => {
    // The interrupted run never settles, so its handlers stay: removed at the end of this test.
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    onTestFinished(() => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        for (const listener of process.listeners(signal))
          if (!before[signal].includes(listener)) process.off(signal, listener);
    });
    const done: string[] = [];
    const exits: number[] = [];
    let fail: (err: Error) => void = () => undefined;
    const run = runInterruptible(
      () =>
        undoneOnInterrupt(
          () => {
            done.push('profile');
            return Promise.resolve();
          },
          async () => {
            const forget = onInterrupt(() => done.push('service'));
            await new Promise<void>((_, reject) => (fail = reject));
            forget();
          },
        ),
      (code) => exits.push(code),
    );
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGTERM', 'SIGTERM'); // the same interrupt again (npm forwards it): not a second
    fail(new Error('mrtq serve exited (SIGKILL)')); // what killing the service does to the body
    await expect.poll(() => exits).toEqual([143]);
    expect(done.slice(0, 2)).toEqual(['service', 'profile']);
    let settled = false;
    void run.finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false); // the process is ending: nothing is returned or thrown
    // Well past the window (a timer may fire a fraction of a millisecond early by performance.now()).
    await new Promise((resolve) => setTimeout(resolve, REPEATED_SIGNAL_MS + 100));
    process.emit('SIGINT', 'SIGINT'); // a second signal: at once
    expect(exits).toEqual([143, 130]);
  });

  it('without a signal returns what the body returns, and leaves no handler behind', async () => {
    const before = process.listenerCount('SIGTERM');
    await expect(runInterruptible(() => Promise.resolve(7))).resolves.toBe(7);
    await expect(runInterruptible(() => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
