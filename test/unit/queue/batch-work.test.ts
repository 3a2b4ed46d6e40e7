import { describe, expect, it } from 'vitest';
import { batchWorkFor } from '../../../src/queue/batches/acquire.js';

describe('the work a batch needs, said once', () => {
  it('follows the status, the expansion mark and the batch-processing folder', () => {
    const cases: [string, string | undefined, boolean, string | undefined][] = [
      ['pending', undefined, false, 'expand'],
      ['processing', 'started', false, 'expand'],
      ['processing', 'started', true, 'expand'],
      ['processing', 'done', false, undefined],
      ['processing', 'done', true, 'report'],
      ['processing', 'foreign', true, 'report'],
      ['reporting', 'done', false, 'report'],
      ['update-reporting', 'done', false, 'update-report'],
      ['held', undefined, true, undefined],
      ['completed', 'done', true, undefined],
      ['failed', 'done', true, undefined],
      ['deleted', 'done', true, undefined],
    ];
    for (const [status, expansion, empty, work] of cases)
      expect(batchWorkFor({ status, expansion }, empty), `${status} ${expansion} ${empty}`).toBe(work);
  });
});
