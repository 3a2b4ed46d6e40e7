import { invokeFree, pureMacrostep } from '../../machines/index.js';
import { isZkError } from '../zk/index.js';
import {
  createActor,
  fromPromise,
  type AnyActorLogic,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  type InspectionEvent,
  type Observer,
} from 'xstate';

/** A step implementation: what the state's actor does, given an AbortSignal. */
export type StepFn<T> = (signal: AbortSignal) => Promise<T>;

export interface RunStepOptions {
  /** The machine entered at the stored state (`restoreJob(...).machine`). */
  machine: AnyStateMachine;
  input: unknown;
  /** Names of every actor the machine declares. */
  actorNames: readonly string[];
  /** The one actor that really runs; every other is idle, so entering the next state does nothing. */
  actor: string;
  run: StepFn<unknown>;
  signal: AbortSignal;
  inspect?: Observer<InspectionEvent>;
}

export class StepAbortedError extends Error {
  readonly code = 'STEP_ABORTED';
  constructor(reason: unknown) {
    super(`step aborted: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
    this.name = 'StepAbortedError';
  }
}

/** Causes followed at most (an error wrapped in a step's own error, wrapped again…). */
const CAUSE_DEPTH = 8;

/**
 * The ZooKeeper error behind a step's failure that says nothing about the item: the server did
 * not answer (connection loss, timeout: a write's outcome unknown), the session moved or
 * expired, or the client was closed (shutting down). A new session may well succeed, so such a
 * step is handed back unchanged, never failed (issue 32: a ZooKeeper restart once failed jobs in
 * recording for good with `multi: CONNECTION_LOSS`). Undefined for any other failure.
 */
export function zooKeeperUnavailable(err: unknown): Error | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < CAUSE_DEPTH && current instanceof Error; depth++) {
    if (isZkError(current) && (current.retryable || current.kind === 'CLOSED')) return current;
    current = current.cause;
  }
  return undefined;
}

/** `run`, with a failure for want of ZooKeeper turned into a hand-back (see zooKeeperUnavailable). */
function handingBack<T>(run: StepFn<T>): StepFn<T> {
  return async (signal) => {
    try {
      return await run(signal);
    } catch (err) {
      const unavailable = zooKeeperUnavailable(err);
      throw unavailable && !(err instanceof StepAbortedError) ? new StepAbortedError(err) : err;
    }
  };
}

/** An actor that never settles until stopped: the steps of states the engine does not run here. */
const idle = fromPromise<never>(
  ({ signal }) =>
    new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(toError(signal.reason)))),
);

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function isDomainEvent(event: EventObject): boolean {
  return !event.type.startsWith('xstate.');
}

/** The step each running actor system runs (one root actor per step run). */
const runs = new WeakMap<object, (signal: AbortSignal) => Promise<unknown>>();

/** Looks up the step of the actor system it runs in: one logic serves every run of a machine. */
const dispatch = fromPromise(({ system, signal }) => {
  const run = runs.get(system);
  if (!run) return Promise.reject(new Error('no step registered for this actor system'));
  return run(signal);
});

/**
 * `machine.provide` rebuilds the whole machine (every state node and transition), which costs
 * more than running a step: provide once per machine and real actor, and dispatch at run time.
 */
const provided = new WeakMap<AnyStateMachine, Map<string, AnyStateMachine>>();

function machineRunning(
  machine: AnyStateMachine,
  actorNames: readonly string[],
  actor: string,
): AnyStateMachine {
  let byActor = provided.get(machine);
  if (!byActor) {
    byActor = new Map<string, AnyStateMachine>();
    provided.set(machine, byActor);
  }
  let ready = byActor.get(actor);
  if (!ready) {
    const actors: Record<string, AnyActorLogic> = {};
    for (const name of actorNames) actors[name] = idle;
    actors[actor] = dispatch;
    ready = machine.provide({ actors }) as AnyStateMachine;
    byActor.set(actor, ready);
  }
  return ready;
}

/**
 * Runs the step of the stored state and returns the event the machine derived from the step's
 * result (`download.done`, `download.failed`, `space.short`…): the machine maps outputs and
 * errors to events, the caller commits that event through the store.
 *
 * With an inspector attached, the step runs as the invoked actor of a live actor of the machine,
 * so the Stately inspector shows it. Without one, the step function runs on its own and its
 * outcome is given to the machine as the invoke's done or error event in a pure transition: the
 * same event, from the same machine definition, for a fraction of the cost of an actor (an
 * actor system, child actors and their abort signals, for every step of every job).
 */
export async function runMachineStep<E extends EventObject>(options: RunStepOptions): Promise<E> {
  return (await runMachineStepPlanned<E>(options)).event;
}

/** Where the machine went on the step's event, and its context there (the record to commit). */
export interface PlannedNext {
  value: string;
  context: unknown;
}

/**
 * Like {@link runMachineStep}, and also where the machine went on the derived event when the
 * step was evaluated purely (no inspector): the same snapshot a pure transition of the stored
 * state on that event gives, so the commit need not evaluate the machine again.
 */
export function runMachineStepPlanned<E extends EventObject>(
  given: RunStepOptions,
): Promise<{ event: E; next?: PlannedNext }> {
  const options = { ...given, run: handingBack(given.run) };
  return options.inspect ? runInActor<E>(options).then((event) => ({ event })) : runPure<E>(options);
}

async function runPure<E extends EventObject>(
  options: RunStepOptions,
): Promise<{ event: E; next?: PlannedNext }> {
  const { actor, signal } = options;
  if (signal.aborted) throw new StepAbortedError(signal.reason);
  const invokeId = invokeIdOf(options.machine, actor);
  // The machine without invokes: the next state is entered without spawning its step's actor,
  // which nothing here would start (see invokeFree).
  const machine = invokeFree(options.machine);
  // The stored state with its context (options.input is the restored context), without
  // entering it: entering would create the invoked step's actor, which nothing here starts.
  const start = machine.resolveState({ value: machine.config.initial as string, context: options.input });
  let outcome: EventObject;
  try {
    const output = await untilAborted(options.run(signal), signal);
    outcome = { type: `xstate.done.actor.${invokeId}`, output, actorId: invokeId } as EventObject;
  } catch (err) {
    if (err instanceof StepAbortedError) throw err;
    outcome = { type: `xstate.error.actor.${invokeId}`, error: err, actorId: invokeId } as EventObject;
  }
  const { snapshot, events } = pureMacrostep(machine, start, outcome);
  if (snapshot.status === 'error') throw toError(snapshot.error);
  const domain = events.find(isDomainEvent);
  if (!domain) throw new Error(`the machine derived no event from the result of step ${actor}`);
  // An event the stored state does not accept leaves the snapshot where it was: no plan then,
  // the commit asks the machine and refuses it with INVALID_TRANSITION.
  const next: PlannedNext | undefined = start.can(domain)
    ? { value: snapshot.value as string, context: snapshot.context as unknown }
    : undefined;
  return { event: domain as E, next };
}

/** Per machine (one per stored state, see machine-at.ts): the invoke id of each step its initial state invokes. */
const invokeIds = new WeakMap<AnyStateMachine, Map<string, string>>();

/** The id the stored state invokes `src` under: the suffix of its done and error events. */
function invokeIdOf(machine: AnyStateMachine, src: string): string {
  let ids = invokeIds.get(machine);
  if (!ids) {
    ids = new Map<string, string>();
    invokeIds.set(machine, ids);
  }
  let id = ids.get(src);
  if (id === undefined) {
    const initial = machine.config.initial as string;
    id = invokeIdIn(machine.resolveState({ value: initial, context: {} }), src);
    ids.set(src, id);
  }
  return id;
}

function invokeIdIn(snapshot: AnyMachineSnapshot, src: string): string {
  for (const node of snapshot._nodes)
    for (const invoke of node.invoke) if (invoke.src === src) return invoke.id;
  throw new Error(`state ${JSON.stringify(snapshot.value)} does not invoke step ${src}`);
}

/** The step's outcome, or StepAbortedError as soon as the signal aborts (a step may not honour it at once). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new StepAbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function runInActor<E extends EventObject>(options: RunStepOptions): Promise<E> {
  return new Promise<E>((resolve, reject) => {
    if (options.signal.aborted) return reject(new StepAbortedError(options.signal.reason));
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', onAbort);
      outcome();
      actor.stop();
    };
    const actor = createActor(machineRunning(options.machine, options.actorNames, options.actor), {
      input: options.input,
      inspect: (event) => {
        options.inspect?.next?.(event);
        // The machine raises the domain event from the step's output; it shows as a microstep.
        if (event.type === '@xstate.microstep' && event.actorRef === actor && isDomainEvent(event.event)) {
          const domain = event.event as E;
          queueMicrotask(() => finish(() => resolve(domain)));
        }
      },
    });
    const onAbort = (): void => finish(() => reject(new StepAbortedError(options.signal.reason)));
    options.signal.addEventListener('abort', onAbort);
    actor.subscribe({
      next: (snapshot) => {
        if (snapshot.status === 'error') finish(() => reject(toError(snapshot.error)));
      },
      error: (err: unknown) => finish(() => reject(toError(err))),
    });
    runs.set(actor.system, (signal) =>
      options.run(AbortSignal.any([signal, options.signal])).catch((err: unknown) => {
        // Handed back: not an outcome the machine maps to an event (it would fail the item).
        if (err instanceof StepAbortedError) {
          finish(() => reject(err));
          return new Promise<never>(() => undefined);
        }
        throw err;
      }),
    );
    actor.start();
  });
}
