import type { AccessState } from './states.js';

/** Which access queue a request is in: `/access/small/...` or `/access/large/...` (seed 002). */
export type AccessQueue = 'small' | 'large';

/** What the access machine knows about an access (assembly) request. JSON only. */
export interface AccessContext {
  accessId: string;
  queue: AccessQueue;
  message: string | null;
}

export type AccessInput = Pick<AccessContext, 'accessId' | 'queue'> & Partial<Pick<AccessContext, 'message'>>;

export interface StoredAccess extends AccessContext {
  status: AccessState;
}

/** Events the access machine accepts, named `noun.verb`. */
export type AccessEvent =
  | { type: 'access.acquired' }
  | { type: 'assemble.done' }
  | { type: 'assemble.failed'; message: string }
  | { type: 'admin.requeue' }
  | { type: 'admin.delete' };

export type AccessEventType = AccessEvent['type'];

export type AccessStepInput = Readonly<AccessContext>;

/** An access request's context from its input. */
export function createAccessContext(input: AccessInput): AccessContext {
  return { accessId: input.accessId, queue: input.queue, message: input.message ?? null };
}
