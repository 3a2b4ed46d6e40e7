import { describe, expect, it } from 'vitest';
import { StallGuard } from '../../../src/engine/stall-guard.js';
import type { ZkClient } from '../../../src/zk/index.js';

/** Blocks the event loop, as a step hogging the CPU or a frozen process would. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 250));

describe('how long the loop stalled since an attempt began', () => {
  it('tells a short stall (a busy machine) from one long enough to cost a session', async () => {
    // stalledSince never asks ZooKeeper; only beforeStep does.
    const guard = new StallGuard({} as ZkClient);
    try {
      const before = performance.now();
      await tick();
      expect(guard.stalledSince(before)).toBe(false);

      stall(1300);
      await tick(); // the tick sees the gap
      expect(guard.stalledSince(before)).toBe(true); // any stall
      expect(guard.stalledSince(before, 1200)).toBe(true);
      expect(guard.stalledSince(before, 6000)).toBe(false); // a third of a 20 s session: not this one

      const after = performance.now();
      await tick();
      expect(guard.stalledSince(after)).toBe(false); // the stall was before `after`
    } finally {
      guard.stop();
    }
  });
});
