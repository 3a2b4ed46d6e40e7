/**
 * The table beside the machines (DESIGN.md §7): one row per state of each lifecycle, in the
 * order mrt-zk's `states.yml` lists them, with the status name ZooKeeper stores (its wire name),
 * the folder a job's ref sits in under `/jobs/states`, the step (machine actor) a working state
 * invokes, whether it is final, its colour, and (jobs) its batch folder. Everything else — paths, consumers, CLI and API options, metric labels, the
 * dashboard's lists — derives from these rows and the machines, which are checked against them
 * (`defineJobLifecycle`, and the machine tests).
 */
export interface StateRow<S extends string = string> {
  readonly state: S;
  /** The status name as mrt-zk writes it (`Pending`, `UpdateReporting`). */
  readonly wire: string;
  /** The folder of the state's refs under `/jobs/states` (jobs only). */
  readonly folder?: string;
  /** The actor a working state invokes; absent for states in which no step runs. */
  readonly step?: string;
  /**
   * The Merritt service that consumes the state in a Merritt deployment (merritt-protocols.md,
   * "The big picture"): there the engine leaves it to that service. Absent: ingest's own state,
   * which the engine serves in every deployment.
   */
  readonly merritt?: MerrittService;
  /**
   * The step needs the job's payload or its working directory on the host that ingests it
   * (estimate, provision, download, process; and the move out of pending, where Merritt's ingest
   * creates that directory). A job whose payload is on another ingest service's
   * disk (Merritt's ingest writes `filename`, no `payload_url`) is left to that service in such a
   * state (src/queue/jobs/payload.ts); the other states (notify, and storing and recording, which
   * read the hand-off nodes) run it anywhere.
   */
  readonly needsPayload?: true;
  /**
   * Cleanup removes an item in this state once it is older than the retention period (batches
   * and access requests: completed and deleted; an access request's completed is no final state,
   * Merritt's storage may still delete it, but it is done with).
   */
  readonly cleanedUp?: true;
  /** Nothing leaves it (completed, deleted): the machine's final states, checked against it. */
  readonly final?: true;
  /** How the dashboard colours it: waiting, working, done, failed or gone. */
  readonly category: StateCategory;
  /** The folder under `/batches/BID/states` a job's ref sits in while the job is in it (jobs only). */
  readonly batchFolder?: BatchFolder;
}

/** How a state is coloured, in the diagrams and in the browser's badges. */
export type StateCategory = 'wait' | 'work' | 'ok' | 'bad' | 'gone';

/**
 * The folders under `/batches/BID/states` a job ref can sit in (mrt-zk's names): jobs still at
 * work in the first, finished jobs by outcome in the others.
 */
export const BATCH_FOLDERS = [
  'batch-processing',
  'batch-completed',
  'batch-failed',
  'batch-deleted',
] as const;
export type BatchFolder = (typeof BATCH_FOLDERS)[number];

/** The states of `table` cleanup removes items in (its `cleanedUp` rows). */
export function cleanedUpStates(table: readonly StateRow[]): ReadonlySet<string> {
  return new Set(table.filter((row) => row.cleanedUp).map((row) => row.state));
}

/** A Merritt service beside ingest that takes jobs from a state of its own. */
export type MerrittService = 'storage' | 'inventory';

export const jobStateTable = [
  // Merritt's ingest creates a job's working directory on the move out of pending (its
  // InitializeConsumer): its own jobs are left to it here too.
  {
    state: 'pending',
    wire: 'Pending',
    folder: 'pending',
    needsPayload: true,
    category: 'wait',
    batchFolder: 'batch-processing',
  },
  { state: 'held', wire: 'Held', folder: 'held', category: 'wait', batchFolder: 'batch-processing' },
  {
    state: 'estimating',
    wire: 'Estimating',
    folder: 'estimating',
    step: 'estimate',
    needsPayload: true,
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'provisioning',
    wire: 'Provisioning',
    folder: 'provisioning',
    step: 'provision',
    needsPayload: true,
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'downloading',
    wire: 'Downloading',
    folder: 'downloading',
    step: 'download',
    needsPayload: true,
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'processing',
    wire: 'Processing',
    folder: 'processing',
    step: 'process',
    needsPayload: true,
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'storing',
    wire: 'Storing',
    folder: 'storing',
    step: 'store',
    merritt: 'storage',
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'recording',
    wire: 'Recording',
    folder: 'recording',
    step: 'record',
    merritt: 'inventory',
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'notify',
    wire: 'Notify',
    folder: 'notify',
    step: 'notify',
    category: 'work',
    batchFolder: 'batch-processing',
  },
  {
    state: 'completed',
    wire: 'Completed',
    folder: 'completed',
    final: true,
    category: 'ok',
    batchFolder: 'batch-completed',
  },
  { state: 'failed', wire: 'Failed', folder: 'failed', category: 'bad', batchFolder: 'batch-failed' },
  {
    state: 'deleted',
    wire: 'Deleted',
    folder: 'deleted',
    final: true,
    category: 'gone',
    batchFolder: 'batch-deleted',
  },
] as const satisfies readonly StateRow[];

export const batchStateTable = [
  { state: 'pending', wire: 'Pending', category: 'wait' },
  { state: 'held', wire: 'Held', category: 'wait' },
  { state: 'processing', wire: 'Processing', step: 'expand', category: 'work' },
  { state: 'reporting', wire: 'Reporting', step: 'report', category: 'work' },
  { state: 'completed', wire: 'Completed', final: true, category: 'ok', cleanedUp: true },
  { state: 'failed', wire: 'Failed', category: 'bad' },
  { state: 'update-reporting', wire: 'UpdateReporting', step: 'report', category: 'work' },
  { state: 'deleted', wire: 'Deleted', final: true, category: 'gone', cleanedUp: true },
] as const satisfies readonly StateRow[];

/**
 * In a Merritt deployment the access queues are mrt-store's: its `Consumer` takes their pending
 * requests (merritt-protocols.md §7), so the engine leaves them to Merritt's storage service.
 */
export const accessStateTable = [
  { state: 'pending', wire: 'Pending', merritt: 'storage', category: 'wait' },
  { state: 'processing', wire: 'Processing', step: 'assemble', category: 'work' },
  { state: 'completed', wire: 'Completed', category: 'ok', cleanedUp: true },
  { state: 'failed', wire: 'Failed', category: 'bad' },
  { state: 'deleted', wire: 'Deleted', final: true, category: 'gone', cleanedUp: true },
] as const satisfies readonly StateRow[];

type JobRow = (typeof jobStateTable)[number];
export type JobState = JobRow['state'];
/** The job states in which a step runs; a requeued job resumes at one of them. */
export type JobWorkingState = Extract<JobRow, { step: string }>['state'];
export type BatchState = (typeof batchStateTable)[number]['state'];
export type AccessState = (typeof accessStateTable)[number]['state'];

export const jobStates: readonly JobState[] = jobStateTable.map((row) => row.state);
export const batchStates: readonly BatchState[] = batchStateTable.map((row) => row.state);
export const accessStates: readonly AccessState[] = accessStateTable.map((row) => row.state);

export const jobWorkingStates: readonly JobWorkingState[] = jobStateTable
  .filter((row): row is Extract<JobRow, { step: string }> => 'step' in row)
  .map((row) => row.state);

/** The step (machine actor) each working job state runs. */
export const jobStepOfState = Object.fromEntries(
  jobStateTable.flatMap((row) => ('step' in row ? [[row.state, row.step]] : [])),
) as Readonly<Record<JobWorkingState, string>>;

const WORKING: ReadonlySet<string> = new Set(jobWorkingStates);

/** Whether a step runs in `state` of Merritt's job lifecycle. */
export function isJobWorkingState(state: string): state is JobWorkingState {
  return WORKING.has(state);
}
