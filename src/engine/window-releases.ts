import type { Logger } from 'pino';
import type { QueueContext } from '../queue/tree/context.js';
import { clearReleasing } from '../queue/windows/holds.js';
import type { StoredWindow } from '../queue/windows/store.js';

/**
 * What a collection window's end leaves to do once its hold is lifted: release the items the hold
 * kept (held → pending), then clear the window's `releasing` mark. The mark, written in the same
 * multi that lifts the hold, lets an engine that starts later finish a release whose engine
 * ended midway (releasing twice is harmless: an item released already is refused, not harmed).
 */
export class WindowReleases {
  private readonly running = new Set<Promise<void>>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly ctx: QueueContext,
    private readonly log: Logger,
    private readonly releaseHeld: (mnemonic: string) => Promise<unknown>,
  ) {}

  /** Releases what window `name`'s hold on collection `mnemonic` kept; `marked`: clear its mark after. */
  release(name: string, mnemonic: string, occurrence: string, marked: boolean): void {
    const done = (async () => {
      try {
        await this.releaseHeld(mnemonic);
        if (marked) await clearReleasing(this.ctx, name, occurrence);
      } catch (err) {
        this.log.warn(
          { err, window: name, collection: mnemonic },
          `held items of collection ${mnemonic} not all released: the next engine to start tries again, or run \`mrtq collection release ${mnemonic}\``,
        );
      }
    })();
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
  }

  /**
   * Windows seen for the first time with a `releasing` mark (and not in force): the engine that
   * lifted the hold ended before it had released what it kept. Released again here.
   */
  resume(windows: Iterable<StoredWindow>, inForce: ReadonlyMap<string, unknown>): void {
    for (const { name, window } of windows) {
      if (this.seen.has(name)) continue;
      this.seen.add(name);
      if (window?.releasing === undefined || inForce.has(name) || !('collection' in window.target)) continue;
      this.log.info(
        { window: name, occurrence: window.releasing },
        'maintenance window: releasing what its hold kept',
      );
      this.release(name, window.target.collection, window.releasing, true);
    }
  }

  /** Resolves when every release under way has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
