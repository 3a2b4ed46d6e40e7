import { describe, expect, it } from 'vitest';
import {
  BATCH_FOLDERS,
  lifecycleNames,
  lifecycles,
  merrittJobLifecycle,
  statesAccepting,
  statesThatStay,
  tableProblems,
  targetsByGuardValue,
  type StateRow,
} from '../../../machines/index.js';

describe('the state tables describe their machines', () => {
  it.each(lifecycleNames)(
    '%s: every state one row, its step and finality as the machine has them',
    (name) => {
      const { machine, rows } = lifecycles[name];
      expect(tableProblems(machine, rows)).toEqual([]);
    },
  );

  it.each(lifecycleNames)('%s: no edge of the table leaves a final state', (name) => {
    const { table, rows } = lifecycles[name];
    const finals = new Set(rows.filter((row: StateRow) => row.final).map((row: StateRow) => row.state));
    expect(table.filter((edge) => edge.from !== null && finals.has(edge.from))).toEqual([]);
  });

  it('names what is wrong when a table does not fit its machine', () => {
    const { machine, rows } = lifecycles.batch;
    const wrong: StateRow[] = rows.map((row: StateRow) =>
      row.state === 'reporting'
        ? { ...row, step: 'send' }
        : row.state === 'completed'
          ? { ...row, final: undefined }
          : row,
    );
    expect(tableProblems(machine, [...wrong, { state: 'lost', wire: 'Lost', category: 'bad' }])).toEqual([
      'state reporting invokes [report], its row says [send]',
      'state completed is final, its row says otherwise',
      'row lost names no state of the machine',
    ]);
    expect(tableProblems(machine, wrong.slice(1))).toContain('state pending has no row');
  });
});

describe('what the job lifecycle reads off its machine and table', () => {
  const job = merrittJobLifecycle;

  it('puts every job ref in the batch folder its row names, and an unknown state in batch-processing', () => {
    for (const row of job.table) expect(BATCH_FOLDERS).toContain(job.batchFolderOf(row.state));
    expect(job.states.filter((state) => job.batchFolderOf(state) !== 'batch-processing')).toEqual([
      'completed',
      'failed',
      'deleted',
    ]);
    expect(job.batchFolderOf('scanning')).toBe('batch-processing');
  });

  it('finds the requeue table, the states that stay and the states an event leaves', () => {
    const resume = targetsByGuardValue(job.machine, 'failed', 'admin.requeue', 'statuses');
    expect(resume.get('')).toBe('estimating');
    expect(resume.get('recording')).toBe('notify');
    expect(statesThatStay(job.machine, job.workingStates, ['step.retry'])).toEqual(['provisioning']);
    expect(job.staysStates).toEqual(['provisioning']);
    // Each step whose error fails its job may also wait to retry (estimate and provision never fail by it).
    expect(statesThatStay(job.machine, job.workingStates)).toEqual([
      'provisioning',
      'downloading',
      'processing',
      'storing',
      'recording',
      'notify',
    ]);
    expect(statesAccepting(job.machine, 'admin.release')).toEqual(['held']);
  });

  it("colours each state as its role in the machine says: a step's work, a failure bad, an end ok or gone", () => {
    const categoryOf = (state: string) => job.table.find((row) => row.state === state)?.category;
    expect(job.workingStates.map(categoryOf)).toEqual(job.workingStates.map(() => 'work'));
    expect(job.states.filter((state) => job.isFailed(state)).map(categoryOf)).toEqual(['bad']);
    for (const state of job.states.filter((s) => job.isFinal(s)))
      expect(['ok', 'gone']).toContain(categoryOf(state));
  });
});
