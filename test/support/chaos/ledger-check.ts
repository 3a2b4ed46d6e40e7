import type { LedgerEntry } from '../../../src/engine/ledger.js';

/** A ledger line as `fileLedger` writes it. */
export type LedgerLine = LedgerEntry & { pid: number; t: number };

/** What a ledger proves about a run. */
export interface LedgerFigures {
  starts: number;
  commits: number;
  /** Starts of a step for an (item, status version) that had started before: re-runs. */
  stepsRerun: number;
  /** (item, version) pairs committed more than once: a transition done twice. Must be 0. */
  duplicates: string[];
  /** Steps started again after their (item, version) was committed. Must be 0. */
  runsAfterCommit: string[];
  /** Commits without a version (an engine too old to say): they cannot be checked. */
  unversioned: number;
}

/**
 * Reads the ledger of a run for the two promises the engine makes: a transition is committed at
 * most once (a commit moves the status on from the version the step read, so one commit per
 * item and version), and a step runs again only when no run before it committed.
 */
export function checkLedger(entries: readonly LedgerLine[]): LedgerFigures {
  const started = new Map<string, number>();
  const committed = new Map<string, LedgerLine>();
  const duplicates: string[] = [];
  const runsAfterCommit: string[] = [];
  let stepsRerun = 0;
  let unversioned = 0;
  const ordered = [...entries].sort((a, b) => a.t - b.t);
  for (const entry of ordered) {
    if (entry.version === undefined) {
      if (entry.kind === 'commit') unversioned++;
      continue;
    }
    const key = `${entry.item}@${entry.version}`;
    if (entry.kind === 'start') {
      if (started.has(key)) stepsRerun++;
      started.set(key, (started.get(key) ?? 0) + 1);
      // Same-millisecond lines from two processes may be ordered either way: only a start
      // strictly after the commit is a run after commit.
      const commit = committed.get(key);
      if (commit !== undefined && entry.t > commit.t)
        runsAfterCommit.push(
          `${key} (${entry.state}): pid ${entry.pid} started it ${entry.t - commit.t} ms after pid ${commit.pid} committed it`,
        );
    } else if (entry.kind === 'commit') {
      if (committed.has(key)) duplicates.push(`${key} (${entry.state} ${entry.event ?? ''})`);
      else committed.set(key, entry);
    }
  }
  const count = (kind: LedgerEntry['kind']) => entries.filter((e) => e.kind === kind).length;
  return {
    starts: count('start'),
    commits: count('commit'),
    stepsRerun,
    duplicates,
    runsAfterCommit,
    unversioned,
  };
}
