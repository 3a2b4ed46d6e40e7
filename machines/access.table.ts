import type { AccessEventType } from './access.types.js';
import type { AccessState } from './states.js';
import type { TableEdge } from './table.js';

/** The access lifecycle's event names plus `access.created`, which only creates a request. */
export type AccessTableEvent = AccessEventType | 'access.created';
export type AccessEdge = TableEdge<AccessState, AccessTableEvent>;

/**
 * Every transition of the access request lifecycle and no other: mrt-zk's `access_states`, with
 * the operator actions as mrt-admin performs them (merritt-protocols.md §6; docs/machines.md 14).
 */
export const accessTable: readonly AccessEdge[] = [
  { from: null, event: 'access.created', to: 'pending', trigger: 'a user asked for an assembly' },
  { from: 'pending', event: 'access.acquired', to: 'processing', trigger: 'access consumer took it' },
  { from: 'processing', event: 'assemble.done', to: 'completed', trigger: 'assembled and delivered' },
  { from: 'processing', event: 'assemble.failed', to: 'failed', trigger: 'assembly failed' },
  {
    from: 'failed',
    event: 'admin.requeue',
    to: 'pending',
    trigger: "operator requeue (mrt-admin's: back to Pending, where any consumer takes it)",
  },
  { from: 'failed', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
  {
    from: 'completed',
    event: 'admin.delete',
    to: 'deleted',
    trigger: "operator delete (mrt-admin's Queue Del)",
  },
];
