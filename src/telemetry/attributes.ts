/** Span attribute keys: one list, so traces from every module read alike. */
export const Attr = {
  batchId: 'mrtq.batch.id',
  batchUuid: 'mrtq.batch.uuid',
  jobId: 'mrtq.job.id',
  accessId: 'mrtq.access.id',
  profile: 'mrtq.profile',
  submitter: 'mrtq.submitter',
  state: 'mrtq.state',
  stateFrom: 'mrtq.state.from',
  stateTo: 'mrtq.state.to',
  event: 'mrtq.event',
  priority: 'mrtq.priority',
  retryCount: 'mrtq.retry_count',
  jobCount: 'mrtq.job_count',
  bytesDownloaded: 'mrtq.bytes_downloaded',
  zkPath: 'mrtq.zk.path',
  zkOperation: 'mrtq.zk.operation',
  zkOutcome: 'mrtq.zk.outcome',
  zkOps: 'mrtq.zk.ops',
  /** The first paths a multi touches. */
  zkPaths: 'mrtq.zk.paths',
  zkBytes: 'mrtq.zk.bytes',
  /** OpenTelemetry's HTTP client conventions. */
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  url: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** Span names: `<operation> <target>`, few enough to group by. */
export const SpanName = {
  step: (state: string): string => `step ${state}`,
  transition: (from: string): string => `transition ${from}`,
  submit: 'batch submit',
  expand: 'batch expand',
  report: 'batch report',
  zk: (operation: string): string => `zk ${operation}`,
  http: (method: string): string => method,
} as const;
