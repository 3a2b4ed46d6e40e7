import { describe, expect, it } from 'vitest';
import {
  accessStateTable,
  batchStateTable,
  cleanedUpStates,
  jobStateTable,
} from '../../../machines/index.js';

describe('the states cleanup removes items in, a column of the tables', () => {
  it('batches and access requests: completed and deleted; jobs go with their batch', () => {
    expect([...cleanedUpStates(batchStateTable)]).toEqual(['completed', 'deleted']);
    expect([...cleanedUpStates(accessStateTable)]).toEqual(['completed', 'deleted']);
    expect([...cleanedUpStates(jobStateTable)]).toEqual([]);
  });
});
