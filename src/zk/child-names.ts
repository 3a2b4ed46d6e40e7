import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ZkStat } from './types.js';

/** Names decoded per event-loop turn by {@link ChildNames.each}: about 5–10 ms of work. */
export const NAMES_PER_TURN = 20_000;

/**
 * A folder's child names as ZooKeeper sent them, decoded on demand. A folder of a million
 * children is a 20 MB reply; decoding it into a million strings at once blocks the event loop
 * for most of a second (DESIGN.md §6), so a consumer that can take them a slice at a time walks
 * them with {@link each}, and one that keeps only some of them never holds the rest.
 */
export class ChildNames {
  /** @internal made by `ZkClient.getChildNames`. */
  constructor(
    private readonly buffer: Buffer,
    private readonly start: number,
    /** How many names there are. */
    readonly count: number,
    /** The folder's stat as of this read (`cversion` changes with every child added or removed). */
    readonly stat: ZkStat,
  ) {}

  /**
   * Calls `visit` with every name in the reply's order, `perTurn` names per event-loop turn
   * (other work runs between two slices). Unsorted, as ZooKeeper lists them.
   */
  async each(visit: (name: string) => void, perTurn = NAMES_PER_TURN): Promise<void> {
    const { buffer } = this;
    let position = this.start;
    for (let done = 0; done < this.count;) {
      const until = Math.min(this.count, done + Math.max(1, perTurn));
      for (; done < until; done++) {
        const length = buffer.readInt32BE(position);
        position += 4;
        if (length <= 0) {
          visit('');
          continue;
        }
        visit(buffer.toString('utf8', position, position + length));
        position += length;
      }
      if (done < this.count) await nextTurn();
    }
  }

  /** Every name, decoded across turns (see {@link each}). */
  async toArray(perTurn = NAMES_PER_TURN): Promise<string[]> {
    const names = new Array<string>(this.count);
    let i = 0;
    await this.each((name) => (names[i++] = name), perTurn);
    return names;
  }
}
