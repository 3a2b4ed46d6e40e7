import { getAdjacencyMap, getShortestPaths, type StatePath } from '@xstate/graph';
import {
  createActor,
  initialTransition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  accessMachine,
  accessStates,
  accessTable,
  batchMachine,
  batchStates,
  batchTable,
  createJobContext,
  jobMachine,
  jobStates,
  jobTable,
  type AccessStepInput,
  type BatchStepInput,
  type DownloadOutput,
  type EstimateOutput,
  type ExpandOutput,
  type JobStepInput,
  type ProvisionOutput,
  type ReportInput,
  type ReportOutput,
  type TableEdge,
} from '../../../machines/index.js';
import { allAccessEvents, allBatchEvents, allJobEvents, pendingStep } from './fixtures.js';

// Model-based tests with @xstate/graph: traverse each machine with every sample event, check
// that the traversal reaches every state and takes every table edge, then replay the shortest
// path to each state and to each edge on a live actor (steps that never settle, so only the
// path's events move it) and compare each step's state with the model's.

type Snapshot = AnyMachineSnapshot;
interface Model {
  machine: AnyStateMachine;
  events: EventObject[];
  /** States the traversal starts from: the initial one, plus stored data the machine cannot produce. */
  starts: Snapshot[];
  /** What makes two snapshots the same state for the traversal (bounded, unlike retry_count). */
  serialize: (snapshot: Snapshot) => string;
}

const quietJobMachine = jobMachine.provide({
  actors: {
    estimate: pendingStep<EstimateOutput, JobStepInput>(),
    provision: pendingStep<ProvisionOutput, JobStepInput>(),
    download: pendingStep<DownloadOutput, JobStepInput>(),
    process: pendingStep<void, JobStepInput>(),
    record: pendingStep<void, JobStepInput>(),
    notify: pendingStep<void, JobStepInput>(),
  },
});
const quietBatchMachine = batchMachine.provide({
  actors: {
    expand: pendingStep<ExpandOutput, BatchStepInput>(),
    report: pendingStep<ReportOutput, ReportInput>(),
  },
});
const quietAccessMachine = accessMachine.provide({
  actors: { assemble: pendingStep<void, AccessStepInput>() },
});

function initial(machine: AnyStateMachine, input: unknown): Snapshot {
  return initialTransition(machine, input)[0] as Snapshot;
}

const jobInput = { jobId: 'jid0000000001', batchId: 'bid0000000001' };
const models: Record<
  string,
  Model & { states: readonly string[]; table: readonly TableEdge<string, string>[] }
> = {
  job: {
    machine: quietJobMachine,
    events: allJobEvents,
    // A failed job whose last success is estimating resumes at provisioning (seed 001): the
    // machine writes that record when provisioning gives up; other tools can write it too.
    starts: [
      initial(quietJobMachine, jobInput),
      quietJobMachine.resolveState({
        value: 'failed',
        context: { ...createJobContext(jobInput), lastSuccessfulStatus: 'estimating' },
      }),
    ],
    serialize: (s) =>
      JSON.stringify([s.value, (s.context as { lastSuccessfulStatus: unknown }).lastSuccessfulStatus]),
    states: jobStates,
    table: jobTable,
  },
  batch: {
    machine: quietBatchMachine,
    events: allBatchEvents,
    starts: [initial(quietBatchMachine, { batchId: 'bid0000000001' })],
    // A batch reported after a failed expansion ends failed whatever the report counted.
    serialize: (s) => JSON.stringify([s.value, (s.context as { expansionFailed: boolean }).expansionFailed]),
    states: batchStates,
    table: batchTable,
  },
  access: {
    machine: quietAccessMachine,
    events: allAccessEvents,
    starts: [initial(quietAccessMachine, { accessId: 'qid0000000001', queue: 'small' })],
    serialize: (s) => JSON.stringify(s.value),
    states: accessStates,
    table: accessTable,
  },
};

/** The shape getAdjacencyMap returns (its declared type does not resolve under NodeNext). */
type Adjacency = Record<
  string,
  { state: Snapshot; transitions: Record<string, { event: EventObject; state: Snapshot }> }
>;

interface Edge {
  from: Snapshot;
  event: EventObject;
  to: Snapshot;
}

/** Every (state, event) pair the machine accepts, over everything reachable from `start`. */
function acceptedEdges(model: Model, start: Snapshot): Edge[] {
  const adjacency = getAdjacencyMap(model.machine, {
    events: model.events,
    fromState: start,
    serializeState: (s) => model.serialize(s as Snapshot),
  }) as Adjacency;
  return Object.values(adjacency).flatMap(({ state, transitions }) =>
    Object.values(transitions)
      .filter(({ event }) => state.can(event))
      .map(({ event, state: to }) => ({ from: state, event, to })),
  );
}

function shortestPaths(model: Model, start: Snapshot): StatePath<Snapshot, EventObject>[] {
  return getShortestPaths(model.machine, {
    events: model.events,
    fromState: start,
    serializeState: (s) => model.serialize(s as Snapshot),
  }) as StatePath<Snapshot, EventObject>[];
}

/** Sends the path's events to a live actor started at `start` and checks every step. */
function replay(model: Model, start: Snapshot, events: EventObject[], expected: Snapshot[]): void {
  const actor = createActor(model.machine, { snapshot: start }).start();
  events.forEach((event, i) => {
    actor.send(event);
    // The model identifies states by `serialize` (value, plus the context the guards read).
    expect(model.serialize(actor.getSnapshot())).toBe(model.serialize(expected[i]!));
  });
  actor.stop();
}

const edgeName = (from: string, event: string, to: string) => `${from} --${event}--> ${to}`;

describe.each(Object.entries(models))('%s machine, model-based', (_name, model) => {
  const paths = model.starts.map((start) => ({ start, paths: shortestPaths(model, start) }));
  const edges = model.starts.map((start) => ({ start, edges: acceptedEdges(model, start) }));

  it('the traversal reaches every state', () => {
    const reached = new Set(paths.flatMap(({ paths }) => paths.map((p) => String(p.state.value))));
    expect([...reached].sort()).toEqual([...model.states].sort());
  });

  it('the traversal takes every table edge and no other', () => {
    const taken = new Set(
      edges.flatMap(({ edges }) =>
        edges.map((e) => edgeName(String(e.from.value), e.event.type, String(e.to.value))),
      ),
    );
    const listed = new Set(
      model.table.filter((e) => e.from !== null).map((e) => edgeName(e.from!, e.event, e.to)),
    );
    expect([...taken].sort()).toEqual([...listed].sort());
  });

  it('a live actor follows the shortest path to every state', () => {
    for (const { start, paths: toStates } of paths) {
      for (const path of toStates) {
        const steps = path.steps.slice(1); // the first step is the start itself (xstate.init)
        replay(
          model,
          start,
          steps.map((s) => s.event),
          steps.map((s) => s.state),
        );
      }
    }
  });

  it('a live actor takes every transition at the end of the shortest path to its source', () => {
    for (const { start, edges: accepted } of edges) {
      const toStates = shortestPaths(model, start);
      for (const edge of accepted) {
        const path = toStates.find((p) => model.serialize(p.state) === model.serialize(edge.from));
        expect(path, `a path to ${model.serialize(edge.from)}`).toBeDefined();
        const steps = path!.steps.slice(1);
        replay(
          model,
          start,
          [...steps.map((s) => s.event), edge.event],
          [...steps.map((s) => s.state), edge.to],
        );
      }
    }
  });
});
