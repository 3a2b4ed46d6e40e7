import { allows, type Actor, type Role } from './actor.js';

/**
 * Whether an actor may take an action: its role, then the collections it is limited to. Each
 * refusal is a sentence naming what would be needed, for the caller to act on (a 403's message).
 */

/** Why `actor` may not take `action`, which needs `needed`; undefined when it may. */
export function roleRefusal(actor: Actor, needed: Role, action: string): string | undefined {
  if (allows(actor.role, needed)) return undefined;
  return `${action} needs role ${needed}; credential '${actor.name}' has role ${actor.role ?? 'none'}`;
}

/**
 * What an action acts on, as far as collections go: items of one collection (a job, a batch, a
 * submission, a collection's hold), an item whose collection could not be read, or the whole
 * queue (a queue's pause, a window, a policy).
 */
export type Reach = { collection: string } | { unknown: string } | { everything: true; hint?: string };

function limitOf(actor: Actor, collections: readonly string[]): string {
  const list =
    collections.length === 1 ? `collection ${collections[0]}` : `collections ${collections.join(', ')}`;
  return `credential '${actor.name}' is limited to ${list}`;
}

/** Why `actor`, limited to collections, may not take `action` on `reach`; undefined when it may. */
export function collectionRefusal(actor: Actor, action: string, reach: Reach): string | undefined {
  const limited = actor.collections;
  if (limited === undefined) return undefined;
  if ('collection' in reach)
    return limited.includes(reach.collection)
      ? undefined
      : `${action} on collection ${reach.collection}: ${limitOf(actor, limited)}`;
  if ('unknown' in reach)
    return `${action}: the collection of ${reach.unknown} is not known; ${limitOf(actor, limited)}`;
  return `${action} acts on every collection${reach.hint ? ` (${reach.hint})` : ''}; ${limitOf(actor, limited)}`;
}
