import { assign, raise, setup } from 'xstate';
import {
  createAccessContext,
  type AccessContext,
  type AccessEvent,
  type AccessInput,
  type AccessStepInput,
} from './access.types.js';
import { byInitialState } from './machine-at.js';
import type { AccessState } from './states.js';
import { failureMessage, notProvided } from './step-actor.js';

const accessSetup = setup({
  types: {
    context: {} as AccessContext,
    input: {} as AccessInput,
    events: {} as AccessEvent,
  },
  actors: {
    assemble: notProvided<void, AccessStepInput>('assemble'),
  },
  actions: {
    recordFailure: assign((_, params: { message: string }) => ({ message: params.message })),
    clearMessage: assign({ message: null }),
  },
});

/**
 * The access (assembly) request lifecycle. Seed 002 gives only its data (a status with
 * message); the transitions are Merritt's as DESIGN.md §3 summarises them. Decisions:
 * - A requeue (`admin.requeue`) puts a failed request back to pending, as mrt-admin's Requeue
 *   does, so whichever consumer serves the queue (this engine, or Merritt's storage service,
 *   which takes only Pending requests) runs the whole assembly again. states.yml's
 *   Failed → Processing is not used: no Merritt code writes it.
 * - An operator may delete a failed or a completed request (`admin.delete`, mrt-admin's Queue
 *   Del), so completed is not final here; cleanup removes completed and deleted requests.
 * - Holds apply to a whole access queue (`/locks/queue/accessSmall|accessLarge`), not to a
 *   request, so there is no held state: the consumer simply does not acquire while held.
 */
function buildAccessMachine(initial: AccessState) {
  return accessSetup.createMachine({
    id: 'access',
    initial,
    context: ({ input }) => createAccessContext(input),
    states: {
      pending: {
        description: 'Waiting for the access consumer to take it',
        on: { 'access.acquired': { target: 'processing' } },
      },
      processing: {
        invoke: {
          id: 'assemble',
          src: 'assemble',
          input: ({ context }) => ({ ...context }),
          onDone: { actions: raise({ type: 'assemble.done' }) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'assemble.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'assemble.done': { target: 'completed', actions: 'clearMessage' },
          'assemble.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
        },
      },
      completed: {
        description: 'Kept until an operator deletes it or cleanup removes it',
        on: { 'admin.delete': { target: 'deleted' } },
      },
      failed: {
        description: 'Kept until an operator requeues or deletes it',
        on: {
          'admin.requeue': { target: 'pending', actions: 'clearMessage' },
          'admin.delete': { target: 'deleted' },
        },
      },
      deleted: { type: 'final' },
    },
  });
}

export type AccessMachine = ReturnType<typeof buildAccessMachine>;

/** The access machine entered at `state`, so that state's step runs when an actor starts. */
export const accessMachineAt: (state: AccessState) => AccessMachine = byInitialState(buildAccessMachine);

/** The access request lifecycle, starting at pending. */
export const accessMachine: AccessMachine = accessMachineAt('pending');
