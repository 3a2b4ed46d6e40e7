import type { AnyStateMachine } from 'xstate';
import { pureInitialSnapshot, pureTransition } from './inert.js';
import { createJobContext } from './job.context.js';
import { jobMachineAt } from './job.machine.js';
import { byInitialState } from './machine-at.js';
import type { JobContext, JobInput, StoredJob } from './job.types.js';
import { nextState, type TransitionResult, type ValidTransition } from './next-state.js';
import { jobStateTable, type BatchFolder, type StateRow } from './states.js';
import {
  failureEvents,
  machineEdges,
  statesAccepting,
  statesThatStay,
  tableProblems,
  targetsByGuardValue,
} from './structure.js';
import { STEP_RETRY } from './step-actor.js';
import { wireParser } from './wire-names.js';

/** How a job comes into existence: normally pending; failed at once when it can never run (001). */
export type JobCreationEvent = { type: 'job.created' } | { type: 'job.rejected'; message: string };

/**
 * A job lifecycle as the engine runs it: a machine and the table of its states (wire name,
 * folder, step). Everything the runtime needs about states is derived here, once, so a lifecycle
 * with another state is a new machine and a new row, nothing else (DESIGN.md §7).
 */
export interface JobLifecycle {
  readonly table: readonly StateRow[];
  /** Every state, in table order. */
  readonly states: readonly string[];
  /** The state a job is created in (the machine's initial state). */
  readonly initial: string;
  /** States in which a step runs, in table order. */
  readonly workingStates: readonly string[];
  /** States a consumer takes jobs from: the initial state and every working state. */
  readonly servableStates: readonly string[];
  /**
   * Working states whose step may leave the job where it is (provisioning on `space.short`):
   * their jobs are evaluated again later, on a timer and when other jobs finish. A job waiting to
   * retry (`step.retry`) is not among them: it waits for its own time (src/engine/retry).
   */
  readonly staysStates: readonly string[];
  /**
   * Working states whose step's transient failure may keep the job waiting for its next attempt
   * (`step.retry`): the retry policy applies to the failures of their steps, and only theirs.
   */
  readonly retryStates: readonly string[];
  /** Every step (actor) the working states invoke. */
  readonly steps: readonly string[];
  /** The machine, starting at the initial state. */
  readonly machine: AnyStateMachine;
  /** The machine entered at `state`, so that state's step runs when an actor starts. */
  machineAt(state: string): AnyStateMachine;
  isState(name: string): boolean;
  isWorking(state: string): boolean;
  /** Whether `state` is final (completed, deleted): nothing moves a job out of it. */
  isFinal(state: string): boolean;
  /**
   * The state `event` leads to (`job.held`: held, `admin.delete`: deleted), for code that must
   * name a state: it names it by the edge that enters it. Undefined when the event leads to no
   * state or to several.
   */
  enteredBy(event: string): string | undefined;
  /** Whether a failure event leads to `state` (failed): a job there ended without success. */
  isFailed(state: string): boolean;
  /**
   * The folder under `/batches/BID/states` a job's ref sits in while the job is in `state`;
   * batch-processing for a state the lifecycle does not know (the job is not finished).
   */
  batchFolderOf(state: string): BatchFolder;
  /** The step `state` runs, or undefined when none does. */
  stepOf(state: string): string | undefined;
  /** The status name written for `state`. */
  wireName(state: string): string;
  /** The state a stored status names (any case, any separator), or undefined when unknown. */
  parse(wire: string): string | undefined;
  /** The folder under `/jobs/states` of `state`'s refs. */
  folderOf(state: string): string;
  /** Where a failed job with this last success resumes on requeue; undefined when it does not. */
  resumeAfter(lastSuccessfulStatus: string | null): string | undefined;
  /**
   * The event that fails a job in `state` with a message (`{ type, message }`): the state's
   * transition that records a failure (Merritt's `fail()` edge). Undefined where nothing fails a
   * job (held, and the final and failed states).
   */
  failureEvent(state: string): string | undefined;
  newState(input: JobInput, event?: JobCreationEvent): ValidTransition<string, JobContext>;
  /** Where `event` takes a stored job, or INVALID_TRANSITION. Pure: the machine decides. */
  next(stored: StoredJob, event: { type: string }): TransitionResult<string, JobContext>;
  /** The machine entered at the stored state, and the context to start it with. */
  restore(stored: StoredJob): { machine: AnyStateMachine; input: JobContext };
}

export interface JobLifecycleDefinition {
  /** One row per machine state; the first is where jobs are created. */
  table: readonly StateRow[];
  /** The machine with `initial` as its initial state (see machine-at.ts). */
  machineAt(initial: string): AnyStateMachine;
}

/** Refuses a table that does not describe its machine (structure.ts), or puts refs in other folders than mrt-zk's. */
function checkTable(machine: AnyStateMachine, table: readonly StateRow[]): void {
  const problems = tableProblems(machine, table);
  for (const row of table) {
    // Refs sit in /jobs/states/<state lowercased>, as mrt-zk names the folders.
    if (row.folder !== row.state.toLowerCase())
      problems.push(`state ${row.state}'s folder must be "${row.state.toLowerCase()}", not "${row.folder}"`);
  }
  if (problems.length > 0)
    throw new Error(`job lifecycle table and machine disagree: ${problems.join('; ')}`);
}

/** Per event, the one state it leads to; events that lead to several states are left out. */
function uniqueTargets(machine: AnyStateMachine): Map<string, string> {
  const targets = new Map<string, Set<string>>();
  for (const { event, to } of machineEdges(machine))
    targets.set(event, (targets.get(event) ?? new Set()).add(to));
  return new Map(
    [...targets].flatMap(([event, to]) => (to.size === 1 ? [[event, [...to][0] as string]] : [])),
  );
}

function contextOf(stored: StoredJob): JobContext {
  const { status: _status, ...context } = stored;
  return createJobContext(context);
}

/** Builds the runtime description of a job lifecycle, refusing a table that does not fit its machine. */
export function defineJobLifecycle(definition: JobLifecycleDefinition): JobLifecycle {
  const { table } = definition;
  const initial = table[0]?.state;
  if (initial === undefined) throw new Error('a job lifecycle needs at least one state');
  const machineAt = byInitialState((state: string) => definition.machineAt(state));
  const machine = machineAt(initial);
  checkTable(machine, table);
  const byState = new Map(table.map((row) => [row.state, row]));
  const working = table.filter((row) => row.step !== undefined).map((row) => row.state);
  const final = new Set(table.filter((row) => row.final).map((row) => row.state));
  // The requeue edges of the failed state: each resumes at its target for the
  // last_successful_status values its `hasLastSuccessIn` guard names.
  const resume = targetsByGuardValue(machine, 'failed', 'admin.requeue', 'statuses');
  const failing = failureEvents(machine);
  const entered = uniqueTargets(machine);
  const failedStates = new Set(
    machineEdges(machine).flatMap(({ from, event, to }) =>
      from !== null && failing.get(from) === event ? [to] : [],
    ),
  );
  const parse = wireParser(table);
  const rowOf = (state: string): StateRow => {
    const row = byState.get(state);
    if (!row) throw new Error(`"${state}" is not a state of this job lifecycle`);
    return row;
  };
  return {
    table,
    states: table.map((row) => row.state),
    initial,
    workingStates: working,
    servableStates: [initial, ...working],
    staysStates: statesThatStay(machine, working, [STEP_RETRY]),
    retryStates: statesAccepting(machine, STEP_RETRY),
    steps: [...new Set(table.flatMap((row) => (row.step ? [row.step] : [])))],
    machine,
    machineAt,
    isState: (name) => byState.has(name),
    isWorking: (state) => byState.get(state)?.step !== undefined,
    isFinal: (state) => final.has(state),
    enteredBy: (event) => entered.get(event),
    isFailed: (state) => failedStates.has(state),
    batchFolderOf: (state) => byState.get(state)?.batchFolder ?? 'batch-processing',
    stepOf: (state) => byState.get(state)?.step,
    wireName: (state) => rowOf(state).wire,
    parse,
    folderOf: (state) => rowOf(state).folder ?? state.toLowerCase(),
    resumeAfter: (last) => resume.get(last ?? ''),
    failureEvent: (state) => failing.get(state),
    newState(input, event = { type: 'job.created' }) {
      let snapshot = pureInitialSnapshot(machine, input);
      if (event.type === 'job.rejected') snapshot = pureTransition(machine, snapshot, event);
      return { ok: true, from: null, to: snapshot.value as string, context: snapshot.context as JobContext };
    },
    next: (stored, event) => nextState('job', machine, stored.status, contextOf(stored), event),
    restore: (stored) => ({ machine: machineAt(stored.status), input: contextOf(stored) }),
  };
}

/** Merritt's job lifecycle today: mrt-zk's `states.yml`, with Storing (October 2025). */
export const merrittJobLifecycle: JobLifecycle = defineJobLifecycle({
  table: jobStateTable,
  machineAt: (state) => jobMachineAt(state as (typeof jobStateTable)[number]['state']),
});
