import { DEFAULT_SHARES_POLICY, sharesPolicySchema, type SharesPolicy } from '../engine/shares/policy.js';
import { readPolicy, SHARES_POLICY, writePolicy, type StoredPolicy } from '../queue/policies/store.js';
import type { QueueContext } from '../queue/tree/context.js';

/** One key's change: its weight, its cap (null removes the key's own cap). */
export interface ShareChange {
  weight?: number;
  cap?: number | null;
}

/** `policy` with one key's weight and cap changed. */
function withShare(policy: SharesPolicy, key: string, change: ShareChange): SharesPolicy {
  const weights = { ...policy.weights };
  const caps = { ...policy.caps };
  if (change.weight !== undefined) weights[key] = change.weight;
  if (change.cap === null) delete caps[key];
  else if (change.cap !== undefined) caps[key] = change.cap;
  return { ...policy, weights, caps };
}

/**
 * Changes one key's fair share (`POST /policies/shares/:key`, `mrtq share`): read, change, written
 * over the version read, so a concurrent change is a CONFLICT, never lost.
 */
export async function changeShare(
  ctx: QueueContext,
  key: string,
  change: ShareChange,
): Promise<StoredPolicy<SharesPolicy>> {
  const stored = await readPolicy(ctx, SHARES_POLICY, sharesPolicySchema, DEFAULT_SHARES_POLICY);
  const changed = withShare(stored.value, key, change);
  return writePolicy(ctx, SHARES_POLICY, sharesPolicySchema, changed, stored.version);
}
