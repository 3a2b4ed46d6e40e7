import type { IngestSettings } from './contracts.js';
import { createHttpInventory } from './inventory-http.js';
import { createLocalInventory } from './inventory-local.js';

export interface InventoryRecord {
  ark: string;
  version: number;
  manifestUrl: string;
  localId?: string;
  signal: AbortSignal;
}

/**
 * Records stored versions, and answers which ark a depositor's local id already names. Both
 * operations are idempotent; callers of `record` hold `/locks/inventory/<ark>`. A local id bound
 * to another ark is refused with IDENTIFIER_CONFLICT: one local id names one object.
 */
export interface Inventory {
  record(request: InventoryRecord): Promise<void>;
  lookupLocalId(localId: string, signal: AbortSignal): Promise<string | undefined>;
}

/** The inventory the settings select: local files under `dataDir`, or the HTTP endpoint. */
export function createInventory(settings: Pick<IngestSettings, 'dataDir' | 'inventory'>): Inventory {
  const endpoint = settings.inventory;
  return endpoint.kind === 'http' ? createHttpInventory(endpoint) : createLocalInventory(settings.dataDir);
}
