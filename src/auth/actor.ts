/**
 * Who acts on the queue (issue 35): the name of a credential (a token, an HTTP basic user) or of
 * a person at a terminal, with what it may do. Shared by the API's guards (which set it on each
 * request), the audit log (which records it) and the CLI (which names its operator).
 */

/** Roles in increasing power; each may do what the ones before it may. */
export const ROLES = ['read', 'submit', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Where an action came from. */
export type Channel = 'api' | 'dashboard' | 'poster' | 'cli' | 'engine';

export interface Actor {
  /** The credential's name (`alice`, `ingest-ui`), `token` for MRTQ_API_TOKEN, `user@host` at the CLI. */
  name: string;
  /** Its role; undefined where none is checked (the CLI, which ZooKeeper's ACLs govern). */
  role?: Role;
  /** The collections (mnemonics) it is limited to; undefined: all. */
  collections?: readonly string[];
  via: Channel;
}

/** True when `role` may do what `needed` allows. */
export function allows(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
