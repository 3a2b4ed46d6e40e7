import { merrittJobLifecycle } from '../../machines/index.js';

/**
 * A job's states on the way to completed when every step succeeds, from Merritt's lifecycle table
 * (its rows are in that order): tests that expect the whole path read it here instead of spelling
 * the states out again.
 */
export const MERRITT_WORKING_STATES: readonly string[] = merrittJobLifecycle.workingStates;
export const MERRITT_HAPPY_PATH: readonly string[] = [
  merrittJobLifecycle.initial,
  ...MERRITT_WORKING_STATES,
  'completed',
];

/** The commits a job makes on that path, one a move (the ledger's `commit` entries of one job). */
export const MERRITT_HAPPY_PATH_COMMITS = MERRITT_HAPPY_PATH.length - 1;
