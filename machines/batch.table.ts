import type { BatchEventType } from './batch.types.js';
import type { BatchState } from './states.js';
import type { TableEdge } from './table.js';

/** The batch lifecycle's event names plus `batch.created`, which only creates a batch. */
export type BatchTableEvent = BatchEventType | 'batch.created';
export type BatchEdge = TableEdge<BatchState, BatchTableEvent>;

function reportEdges(from: 'reporting' | 'update-reporting'): BatchEdge[] {
  return [
    {
      from,
      event: 'report.done',
      to: 'failed',
      guard: { type: 'hasExpansionFailure' },
      trigger: 'report sent, saying why the batch could not be expanded',
    },
    {
      from,
      event: 'report.done',
      to: 'failed',
      guard: { type: 'hasFailedJobs' },
      trigger: 'report sent; some jobs failed',
    },
    { from, event: 'report.done', to: 'completed', trigger: 'report sent; no job failed' },
    { from, event: 'report.failed', to: 'failed', trigger: 'the report could not be sent' },
  ];
}

/** Every transition of the batch lifecycle (DESIGN.md §3) and no other. */
export const batchTable: readonly BatchEdge[] = [
  { from: null, event: 'batch.created', to: 'pending', trigger: 'a depositor submitted it' },
  { from: 'pending', event: 'batch.held', to: 'held', trigger: 'collection hold found' },
  { from: 'pending', event: 'admin.hold', to: 'held', trigger: 'operator hold' },
  { from: 'pending', event: 'batch.acquired', to: 'processing', trigger: 'batch consumer took it' },
  { from: 'held', event: 'admin.release', to: 'pending', trigger: 'operator release' },
  { from: 'held', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
  { from: 'processing', event: 'expand.done', to: 'processing', trigger: 'jobs created; stays' },
  {
    from: 'processing',
    event: 'expand.failed',
    to: 'reporting',
    trigger: 'could not be expanded into jobs; reported, then failed',
  },
  { from: 'processing', event: 'batch.jobs-done', to: 'reporting', trigger: 'batch-processing became empty' },
  ...reportEdges('reporting'),
  { from: 'failed', event: 'batch.job-requeued', to: 'processing', trigger: 'a failed job was requeued' },
  { from: 'failed', event: 'admin.update-report', to: 'update-reporting', trigger: 'operator update-report' },
  { from: 'failed', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
  ...reportEdges('update-reporting'),
];
