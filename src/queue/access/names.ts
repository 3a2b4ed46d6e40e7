import type { AccessQueue } from '../../../machines/access.types.js';
import { accessStates } from '../../../machines/states.js';

/** The access queues, in the order they are listed. */
export const ACCESS_QUEUE_NAMES: readonly AccessQueue[] = ['small', 'large'];

/** The access states and `invalid`: what a status filter accepts. */
export const accessStatusFilterValues: readonly string[] = [...accessStates, 'invalid'];
