/** A guard as the machine names it: `hasFailedJobs`, or `isResumeAt` with `{ state: 'downloading' }`. */
export interface GuardRef {
  type: string;
  /** Static parameters; absent when the machine computes them from the event. */
  params?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/**
 * One allowed transition of a lifecycle. The tables are data the tests check the machines
 * against edge by edge in both directions; the machines stay the runtime source of truth.
 */
export interface TableEdge<S extends string, E extends string> {
  /** `null` for the creation of an item. */
  from: S | null;
  event: E;
  /** Equal to `from` for a transition that stays (provisioning on `space.short`). */
  to: S;
  /** Present when several edges share `from` and `event`; they are tried in table order. */
  guard?: GuardRef;
  /** What triggers it, in the words of the seeds or of the decision that added it. */
  trigger: string;
}
