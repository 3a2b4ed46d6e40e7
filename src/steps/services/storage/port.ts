import type { ManifestEntry } from '../../formats/storage-manifest.js';

/** One file to store: a downloaded file (`producer/…`) or a system file the engine wrote. */
export type StoreFile = ManifestEntry;

export interface StoreRequest {
  ark: string;
  /** The job's working directory; `files` paths are relative to it. */
  workDir: string;
  files: StoreFile[];
  signal: AbortSignal;
  /** The storage node the store node's `mode` names (an HTTP storage service's `add/{node}/…`). */
  node?: number;
  /** The job stored, sent to an HTTP storage service as mrt-store's legacy `JID` header. */
  jobId?: string;
}

/** An update (merritt-protocols.md §1): `files` added or replacing, `deletes` removed, the rest kept. */
export interface UpdateRequest extends StoreRequest {
  /** Paths of the latest version the new one leaves out (`producer/…`). */
  deletes: readonly string[];
}

export interface StoreResult {
  /** The object version that holds exactly these files (1 for a new object). */
  version: number;
  /** Where that version's storage manifest can be read. */
  manifestUrl: string;
}

/**
 * Keeps object versions. `store` is idempotent: when the object's latest version already holds
 * exactly these files (same storage manifest), it returns that version instead of adding one,
 * so a step re-run after a crash stores nothing twice. Callers hold `/locks/storage/<ark>`.
 */
export interface Storage {
  store(request: StoreRequest): Promise<StoreResult>;
  /** The object's latest version, when this storage can tell (the embedded one can); undefined when none. */
  latest?(ark: string): Promise<StoreResult | undefined>;
  /**
   * Adds the next version of an object that exists: the latest version's files without
   * `deletes`, with `files` added or replacing (mrt-store's update). OBJECT_NOT_FOUND when the
   * object is not stored. Idempotent like `store`: when the latest version already holds the
   * update's files and none of `deletes`, that version is returned. Absent when this storage
   * cannot apply updates.
   */
  update?(request: UpdateRequest): Promise<StoreResult>;
}
