import { createMachine, fromPromise, type AnyStateMachine, type EventObject } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  batchMachine,
  invokeFree,
  jobStepOfState,
  pureTransition,
  restoreJob,
  type JobWorkingState,
} from '../../../machines/index.js';
import { storedJob } from './fixtures.js';

/** Where `machine` goes from `from` (with `context`) on `event`, and the children it made on the way. */
function step(machine: AnyStateMachine, from: string, context: unknown, event: EventObject) {
  const next = pureTransition(machine, machine.resolveState({ value: from, context }), event);
  const children = next.children as Record<string, unknown>;
  return { value: next.value as unknown, context: next.context as unknown, children: Object.keys(children) };
}

const working = Object.keys(jobStepOfState) as JobWorkingState[];

describe('invokeFree: a machine without invokes, for pure evaluation', () => {
  it.each(working)(
    'the job machine at %s goes where it goes with its invokes, on the step done and error events, and spawns no actor',
    (state) => {
      const { machine, input } = restoreJob(storedJob(state, { spaceNeeded: 5, retryCount: 1 }));
      const src = jobStepOfState[state];
      const invoke = machine.root.states[state]!.invoke.find((i) => i.src === src)!;
      const outputs: Partial<Record<JobWorkingState, unknown>> = {
        estimating: { spaceNeeded: 10 },
        provisioning: { hasSpace: true },
        downloading: { spaceNeeded: 11 },
      };
      for (const event of [
        { type: `xstate.done.actor.${invoke.id}`, output: outputs[state] ?? {}, actorId: invoke.id },
        { type: `xstate.error.actor.${invoke.id}`, error: new Error('503'), actorId: invoke.id },
      ]) {
        const withInvokes = step(machine, state, input, event);
        const free = step(invokeFree(machine), state, input, event);
        expect(free.value).toEqual(withInvokes.value);
        expect(free.context).toEqual(withInvokes.context);
        expect(free.children).toEqual([]);
        // The point of it: the machine with invokes spawns the next working state's step.
        if (withInvokes.value !== state && working.includes(withInvokes.value as JobWorkingState))
          expect(withInvokes.children).not.toEqual([]);
      }
    },
  );

  it('keeps the invoke ids xstate gives by default (no id in the config)', () => {
    const machine = createMachine({
      initial: 'a',
      states: {
        a: { invoke: { src: fromPromise(() => Promise.resolve(1)), onDone: 'b', onError: 'c' } },
        b: {},
        c: {},
      },
    });
    const id = machine.root.states.a!.invoke[0]!.id;
    expect(step(invokeFree(machine), 'a', {}, { type: `xstate.done.actor.${id}` }).value).toBe('b');
    expect(step(invokeFree(machine), 'a', {}, { type: `xstate.error.actor.${id}` }).value).toBe('c');
  });

  it('leaves a machine it cannot rewrite as it is (an invoke with onSnapshot)', () => {
    const machine = createMachine({
      initial: 'a',
      states: {
        a: {
          invoke: { src: fromPromise(() => Promise.resolve(1)), onSnapshot: { actions: [] }, onDone: 'b' },
        },
        b: {},
      },
    });
    expect(invokeFree(machine)).toBe(machine);
  });

  it('is made once per machine', () => {
    expect(invokeFree(batchMachine)).toBe(invokeFree(batchMachine));
    expect(invokeFree(batchMachine)).not.toBe(batchMachine);
  });
});
