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
