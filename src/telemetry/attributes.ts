/** Span attribute keys: one list, so traces from every module read alike. */
export const Attr = {
  batchId: 'mrtq.batch.id',
  jobId: 'mrtq.job.id',
  accessId: 'mrtq.access.id',
  profile: 'mrtq.profile',
  state: 'mrtq.state',
  stateFrom: 'mrtq.state.from',
  stateTo: 'mrtq.state.to',
  event: 'mrtq.event',
  priority: 'mrtq.priority',
  retryCount: 'mrtq.retry_count',
  zkPath: 'mrtq.zk.path',
} as const;

/** Span names: `<operation> <target>`. */
export const SpanName = {
  step: (state: string): string => `step ${state}`,
  transition: (from: string): string => `transition ${from}`,
} as const;
