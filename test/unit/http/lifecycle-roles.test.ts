import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { describeLifecycles } from '../../../src/http/lifecycles.js';

describe('GET /lifecycle gives each state its roles', () => {
  const described = describeLifecycles(merrittJobLifecycle);
  const roles = (list: readonly { state: string; final: boolean; category: string }[]) =>
    Object.fromEntries(list.map(({ state, final, category }) => [state, { final, category }]));

  it('job states: final where no edge leaves, coloured as the diagrams colour them', () => {
    const job = roles(described.job.states);
    expect(job.pending).toEqual({ final: false, category: 'wait' });
    expect(job.held).toEqual({ final: false, category: 'wait' });
    expect(job.downloading).toEqual({ final: false, category: 'work' });
    expect(job.completed).toEqual({ final: true, category: 'ok' });
    // A failed job can be requeued: not final.
    expect(job.failed).toEqual({ final: false, category: 'bad' });
    expect(job.deleted).toEqual({ final: true, category: 'gone' });
    expect(Object.keys(job)).toEqual([...merrittJobLifecycle.states]);
  });

  it('batch and access states, read off their own tables', () => {
    const batch = roles(described.batch.states);
    expect(batch.completed).toEqual({ final: true, category: 'ok' });
    expect(batch.reporting).toEqual({ final: false, category: 'work' });
    const access = roles(described.access.states);
    // An access request's completed is not final (Merritt's storage may delete it).
    expect(access.completed).toEqual({ final: false, category: 'ok' });
    expect(access.deleted).toEqual({ final: true, category: 'gone' });
  });
});
