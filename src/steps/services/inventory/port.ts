export interface InventoryRecord {
  ark: string;
  version: number;
  manifestUrl: string;
  localId?: string;
  signal: AbortSignal;
}

/** A depositor's local id for an object, scoped by the profile's owner (merritt-protocols.md §3). */
export interface LocalIdPair {
  ark: string;
  /** The profile's `Owner` ark; absent for profiles that name none. */
  owner?: string;
  localId: string;
  signal: AbortSignal;
}

/**
 * Records stored versions, and answers which ark a depositor's local id already names (within
 * an owner's local ids, as Merritt's inventory does). The operations are idempotent; callers of
 * `record` hold `/locks/inventory/<ark>`, callers of `bindLocalId` the local id's
 * `/locks/localid/…`. A local id bound to another ark is refused with IDENTIFIER_CONFLICT: one
 * local id names one object of an owner.
 */
export interface Inventory {
  record(request: InventoryRecord): Promise<void>;
  /** The ark `localId` names for `owner` (no owner: the local ids recorded without one). */
  lookupLocalId(localId: string, signal: AbortSignal, owner?: string): Promise<string | undefined>;
  /** Records the pair as processing does, before the hand-off to storage (Merritt's HandlerTransfer). */
  bindLocalId?(pair: LocalIdPair): Promise<void>;
}
