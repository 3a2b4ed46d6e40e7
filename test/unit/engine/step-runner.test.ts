import type { AnyStateMachine, InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  ActorNotProvidedError,
  restoreAccess,
  restoreBatch,
  restoreJob,
  jobStepOfState as stepOfState,
  merrittJobLifecycle,
  type JobWorkingState,
} from '../../../machines/index.js';
import { nextState } from '../../../machines/next-state.js';
import {
  runMachineStep,
  runMachineStepPlanned,
  StepAbortedError,
  type RunStepOptions,
} from '../../../src/engine/step-runner.js';
import { storedAccess, storedBatch, storedJob } from '../machines/fixtures.js';

/** What a step does in a case: resolve with an output, or reject with an error. */
type Outcome = { output: unknown } | { error: unknown };

interface Case {
  name: string;
  machine: AnyStateMachine;
  input: unknown;
  actorNames: readonly string[];
  actor: string;
  outcome: Outcome;
}

const JOB_ACTORS = merrittJobLifecycle.steps;
const failure = new Error('GET https://example.org/f returned 503');

/** Outputs and errors each job step may end with, including the odd ones (no output, a string thrown). */
const jobOutcomes: Record<JobWorkingState, Outcome[]> = {
  estimating: [
    { output: { spaceNeeded: 10 } },
    { output: { spaceNeeded: 2e12, priority: 9 } },
    { error: failure }, // estimating never fails: space needed 0
  ],
  provisioning: [
    { output: { hasSpace: true } },
    { output: { hasSpace: false, message: 'needs 1.2 GB, 0.8 GB free' } },
    { error: failure },
  ],
  downloading: [{ output: {} }, { output: { spaceNeeded: 11 } }, { error: failure }, { error: 'a string' }],
  processing: [{ output: undefined }, { output: { identifiers: { ark: 'ark:/1/x' } } }, { error: failure }],
  storing: [{ output: undefined }, { error: failure }],
  recording: [{ output: undefined }, { error: failure }],
  notify: [{ output: undefined }, { error: failure }],
};

const cases: Case[] = [
  ...Object.entries(jobOutcomes).flatMap(([state, outcomes]) =>
    outcomes.map((outcome) => ({
      name: `job ${state}, ${'output' in outcome ? 'done' : 'error'} ${JSON.stringify(outcome)}`,
      ...restoreJob(storedJob(state as JobWorkingState, { spaceNeeded: 5, retryCount: 1 })),
      actorNames: JOB_ACTORS,
      actor: stepOfState[state as JobWorkingState],
      outcome,
    })),
  ),
  ...(
    [
      ['processing', 'expand', { output: { jobCount: 3 } }],
      ['processing', 'expand', { error: new Error('manifest is not a checkm file') }],
      ['reporting', 'report', { output: { completedJobs: 2, failedJobs: 1 } }],
      ['reporting', 'report', { error: new Error('mail server refused') }],
      ['update-reporting', 'report', { output: { completedJobs: 3, failedJobs: 0 } }],
      ['update-reporting', 'report', { error: new Error('mail server refused') }],
    ] as const
  ).map(([state, actor, outcome]) => ({
    name: `batch ${state}, ${JSON.stringify(outcome)}`,
    ...restoreBatch(storedBatch(state, { jobCount: 3 })),
    actorNames: ['expand', 'report'],
    actor,
    outcome,
  })),
  ...([{ output: undefined }, { error: new Error('object too large') }] as const).map((outcome) => ({
    name: `access processing, ${JSON.stringify(outcome)}`,
    ...restoreAccess(storedAccess('processing')),
    actorNames: ['assemble'],
    actor: 'assemble',
    outcome,
  })),
];

interface StepRunOptions {
  inspect?: (event: InspectionEvent) => void;
  signal?: AbortSignal;
  step?: (signal: AbortSignal) => Promise<unknown>;
}

/** What the runner is given for the case's step; `step` replaces the case's outcome. */
function stepOptions(c: Case, options: StepRunOptions = {}): RunStepOptions {
  const { outcome } = c;
  return {
    machine: c.machine,
    input: c.input,
    actorNames: c.actorNames,
    actor: c.actor,
    signal: options.signal ?? new AbortController().signal,
    inspect: options.inspect && { next: options.inspect },
    run:
      options.step ??
      // A step may throw what is not an Error (a string): the machine must map that too.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      (() => ('output' in outcome ? Promise.resolve(outcome.output) : Promise.reject(outcome.error))),
  };
}

/** Runs the case's step through `runMachineStep`. */
function runStep(c: Case, options: StepRunOptions = {}): Promise<unknown> {
  return runMachineStep(stepOptions(c, options));
}

/** Both ways a step runs: purely, and as a live actor (an inspector attached). */
const modes = [
  ['pure', undefined],
  ['live', () => undefined],
] as const;

function run(c: Case, inspect?: (event: InspectionEvent) => void): Promise<unknown> {
  return runStep(c, { inspect });
}

describe('a step run without an inspector (a pure transition) and as a live actor', () => {
  it.each(cases.map((c) => [c.name, c] as const))('derive the same event: %s', async (_name, c) => {
    const inspected: string[] = [];
    const live = await run(c, (e) => inspected.push(e.type));
    const pure = await run(c);
    expect(pure).toEqual(live);
    expect((pure as { type: string }).type).not.toMatch(/^xstate\./);
    // The live run is the one the Stately inspector sees.
    expect(inspected).toContain('@xstate.microstep');
  });

  it.each(cases.map((c) => [c.name, c] as const))(
    'plan where the stored state goes on that event, as a pure transition does: %s',
    async (_name, c) => {
      const { event, next } = await runMachineStepPlanned(stepOptions(c));
      const from = c.machine.config.initial as string;
      const expected = nextState('item', c.machine, from, c.input, event);
      expect(expected.ok).toBe(true);
      if (!expected.ok) return;
      expect(next).toEqual({ value: expected.to, context: expected.context });
    },
  );

  it('plans nothing with an inspector: the live actor only derives the event', async () => {
    const c = cases[0]!;
    const { next } = await runMachineStepPlanned(stepOptions(c, { inspect: () => undefined }));
    expect(next).toBeUndefined();
  });

  it('covers every job state that runs a step', () => {
    const states = new Set(
      cases.filter((c) => c.name.startsWith('job ')).map((c) => c.name.split(/[ ,]/)[1]),
    );
    expect([...states].sort()).toEqual(Object.keys(stepOfState).sort());
  });

  it.each(modes)(
    '%s: a missing step implementation is a wiring error, never a failed job',
    async (_name, inspect) => {
      const c = cases.find((x) => x.name.startsWith('job downloading'))!;
      const err = new ActorNotProvidedError('download');
      await expect(run({ ...c, outcome: { error: err } }, inspect)).rejects.toBe(err);
    },
  );

  it.each(modes)(
    '%s: an abort ends the run at once, though the step ignores its signal',
    async (_name, inspect) => {
      const c = cases[0]!;
      const controller = new AbortController();
      let stepSignal: AbortSignal | undefined;
      const running = runStep(c, {
        signal: controller.signal,
        inspect,
        step: (signal) => {
          stepSignal = signal;
          return new Promise(() => undefined);
        },
      });
      await new Promise((r) => setTimeout(r, 5));
      controller.abort(new Error('session lost'));
      await expect(running).rejects.toThrow(StepAbortedError);
      await expect(running).rejects.toThrow('step aborted: session lost');
      expect(stepSignal?.aborted).toBe(true);
    },
  );

  it('a step that fails because it was aborted is an abort, not a failed step', async () => {
    const c = cases.find((x) => x.name.startsWith('job downloading'))!;
    const controller = new AbortController();
    const running = runStep(c, {
      signal: controller.signal,
      step: (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('fetch aborted'))),
        ),
    });
    controller.abort(new Error('shutting down'));
    await expect(running).rejects.toThrow(StepAbortedError);
  });

  it('a signal aborted before the start runs nothing', async () => {
    const c = cases[0]!;
    let ran = false;
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const running = runStep(c, {
      signal: controller.signal,
      step: () => {
        ran = true;
        return Promise.resolve({ spaceNeeded: 1 });
      },
    });
    await expect(running).rejects.toThrow(StepAbortedError);
    expect(ran).toBe(false);
  });
});
