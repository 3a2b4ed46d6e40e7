import { z } from 'zod';
import type { JobConfiguration } from '../../queue/tree/records.js';

/**
 * Fair shares (issue 34, item 2): jobs are taken fairly across keys (collections by default), each
 * key by its weight, none beyond its cap of jobs at work; priorities order work inside a key. Kept
 * in `/policies/shares` (src/queue/policies/store.ts), watched by every engine.
 */
export const SHARE_KEYS = ['collection', 'profile', 'submitter'] as const;
export type ShareKey = (typeof SHARE_KEYS)[number];

const weight = z.number().positive().max(1000);
const cap = z.number().int().min(0).max(1_000_000);

/** `/policies/shares` as stored (JSON). */
export const sharesPolicySchema = z
  .object({
    /** What a job's share is keyed by (default `collection`: the profile's collection mnemonic, else the profile). */
    key: z.enum(SHARE_KEYS).optional(),
    /** Weight of a key without its own (default 1). */
    default_weight: weight.optional(),
    weights: z.record(z.string(), weight).optional(),
    /** Jobs at work at most per key without its own cap (default: none). */
    default_cap: cap.optional(),
    caps: z.record(z.string(), cap).optional(),
  })
  .strict();
export type SharesPolicy = z.infer<typeof sharesPolicySchema>;

export const DEFAULT_SHARES_POLICY: SharesPolicy = {};

/** What a job's key is read from: the few fields of its configuration that can key it. */
export interface KeyFields {
  collection?: string;
  profile?: string;
  submitter?: string;
}

export function keyFieldsOf(configuration: Partial<JobConfiguration>): KeyFields {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return {
    collection: text(configuration.collection),
    profile: text(configuration.profile_name),
    submitter: text(configuration.submitter),
  };
}

/** A job's share key under `policy`: a job without one shares the key `(none)`. */
export function shareKeyOf(policy: SharesPolicy, fields: KeyFields): string {
  const by = policy.key ?? 'collection';
  const key = by === 'collection' ? (fields.collection ?? fields.profile) : fields[by];
  return key ?? '(none)';
}

export const weightOf = (policy: SharesPolicy, key: string): number =>
  policy.weights?.[key] ?? policy.default_weight ?? 1;

/** The most jobs of `key` at work at once, or undefined: no cap. */
export const capOf = (policy: SharesPolicy, key: string): number | undefined =>
  policy.caps?.[key] ?? policy.default_cap;

/** Whether any cap applies (jobs at work are then counted, across every working state). */
export const hasCaps = (policy: SharesPolicy): boolean =>
  policy.default_cap !== undefined || Object.keys(policy.caps ?? {}).length > 0;
