import type { LedgerEntry } from '../../src/engine/ledger.js';
import { eventually } from './eventually.js';

/**
 * Waits until `ledger` holds a commit of `item` with `commit`'s event and/or target state. The tree
 * shows a commit as soon as ZooKeeper makes it; the engine records it when the reply comes, a
 * moment later: a test that saw the tree change waits here before it counts the ledger. One
 * engine's replies come in order, so its earlier commits are recorded by then too.
 */
export async function ledgerCommitted(
  ledger: readonly LedgerEntry[],
  item: string,
  commit: Pick<LedgerEntry, 'event'> | Pick<LedgerEntry, 'to'>,
  ms = 30_000,
): Promise<void> {
  const wanted = (e: LedgerEntry) =>
    e.kind === 'commit' &&
    e.item === item &&
    ('event' in commit ? e.event === commit.event : true) &&
    ('to' in commit ? e.to === commit.to : true);
  await eventually(
    () => ledger.filter((e) => e.item === item && e.kind === 'commit').map((e) => e.event ?? e.to),
    () => ledger.some(wanted),
    ms,
  );
}
