import type { AccessEventType } from './access.types.js';
import type { AccessState } from './states.js';
import type { TableEdge } from './table.js';

/** The access lifecycle's event names plus `access.created`, which only creates a request. */
export type AccessTableEvent = AccessEventType | 'access.created';
export type AccessEdge = TableEdge<AccessState, AccessTableEvent>;

/** Every transition of the access request lifecycle (DESIGN.md §3) and no other. */
export const accessTable: readonly AccessEdge[] = [
  { from: null, event: 'access.created', to: 'pending', trigger: 'a user asked for an assembly' },
  { from: 'pending', event: 'access.acquired', to: 'processing', trigger: 'access consumer took it' },
  { from: 'processing', event: 'assemble.done', to: 'completed', trigger: 'assembled and delivered' },
  { from: 'processing', event: 'assemble.failed', to: 'failed', trigger: 'assembly failed' },
  { from: 'failed', event: 'admin.requeue', to: 'processing', trigger: 'operator requeue' },
  { from: 'failed', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
];
