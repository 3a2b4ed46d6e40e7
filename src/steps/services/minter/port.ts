import type { Erc, Profile } from '../../ingest-contracts.js';

/** What a minter may tell EZID about the object (merritt-protocols.md §3). */
export interface MintRequest {
  /** The job's profile: `Identifier-scheme`, `ObjectMinterURL`, `Context`, `EZID_co-owner`, `Aggregate`. */
  profile?: Profile;
  erc: Erc;
  localIds: string[];
  /** The submission asked EZID to keep the object's target URL. */
  retainTargetUrl?: boolean;
}

/** Mints a new, never-used ark for an object. */
export interface Minter {
  mint(signal: AbortSignal, request?: MintRequest): Promise<string>;
  /**
   * Tells the minter the object's metadata once its ark is known (minted, given or found): EZID's
   * update call. Minters that keep no metadata (the local one) have none.
   */
  update?(ark: string, request: MintRequest, signal: AbortSignal): Promise<void>;
}
