import type { LedgerEntry } from '../../src/engine/ledger.js';
import { eventually } from './eventually.js';

/**
 * Waits until `ledger` holds a commit of `item` with `commit`'s event or target state. The tree
 * shows a commit as soon as ZooKeeper makes it; the engine records it when the reply comes, a
 * moment later: a test that saw the tree change waits here before it counts the ledger. One
 * engine's replies come in order, so its earlier commits are recorded by then too.
 */
export async function ledgerCommitted(
  ledger: readonly LedgerEntry[],
  item: string,
  commit: { event: string } | { to: string },
  ms = 30_000,
): Promise<void> {
  // The item's commits so far (a timeout names them), until one is the one wanted.
  await eventually(
    () => ledger.filter((e) => e.kind === 'commit' && e.item === item),
    (commits) => commits.some((e) => ('event' in commit ? e.event === commit.event : e.to === commit.to)),
    ms,
  );
}
