import { describe, expect, it } from 'vitest';
import {
  accessStates,
  accessWireNames,
  batchStates,
  batchWireNames,
  jobStates,
  jobWireNames,
  parseAccessState,
  parseBatchState,
  parseJobState,
} from '../../../machines/index.js';

describe('ZooKeeper status names', () => {
  it('writers use the capitalised names of Merritt’s mrt-zk', () => {
    expect(Object.values(jobWireNames)).toEqual([
      'Pending',
      'Held',
      'Estimating',
      'Provisioning',
      'Downloading',
      'Processing',
      'Storing',
      'Recording',
      'Notify',
      'Completed',
      'Failed',
      'Deleted',
    ]);
    expect(Object.values(batchWireNames)).toEqual([
      'Pending',
      'Held',
      'Processing',
      'Reporting',
      'Completed',
      'Failed',
      'UpdateReporting',
      'Deleted',
    ]);
    expect(Object.values(accessWireNames)).toEqual([
      'Pending',
      'Processing',
      'Completed',
      'Failed',
      'Deleted',
    ]);
  });

  it('every state reads back from its wire name', () => {
    for (const state of jobStates) expect(parseJobState(jobWireNames[state])).toBe(state);
    for (const state of batchStates) expect(parseBatchState(batchWireNames[state])).toBe(state);
    for (const state of accessStates) expect(parseAccessState(accessWireNames[state])).toBe(state);
  });

  it('readers ignore case and separators, as the seeds spell states several ways', () => {
    expect(parseJobState('estimating')).toBe('estimating');
    expect(parseJobState('NOTIFY')).toBe('notify');
    expect(parseBatchState('update-reporting')).toBe('update-reporting');
    expect(parseBatchState('UpdateReporting')).toBe('update-reporting');
    expect(parseBatchState('update_reporting')).toBe('update-reporting');
  });

  it('an unknown name reads as undefined, for the caller to report', () => {
    expect(parseJobState('Reporting')).toBeUndefined();
    expect(parseBatchState('Estimating')).toBeUndefined();
    expect(parseAccessState('')).toBeUndefined();
  });
});
