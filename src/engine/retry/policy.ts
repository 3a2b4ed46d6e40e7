import { z } from 'zod';
import { parseDuration } from '../../config/duration.js';

/**
 * How often and how soon a step's transient failure is tried again (issue 34; docs/engine.md,
 * "Retry policies"). Kept in `/policies/retry` (src/queue/policies/store.ts), so every engine
 * applies the same one and a change applies at once; the defaults below apply where it says
 * nothing. A rule is chosen per step and per profile: the profile's rule for that step, else the
 * profile's own, else the step's, else the default, each over the next (field by field).
 */
export interface RetryRule {
  /** Attempts of the step in all, the first included: after this many transient failures the job fails. */
  attempts: number;
  /** Wait before the second attempt, ms. */
  firstDelayMs: number;
  /** Longest wait between attempts, ms. */
  maxDelayMs: number;
  /** Each wait is this many times the one before. */
  multiplier: number;
  /** Each wait is moved by up to this fraction of itself, either way (0.2: ±20 %), so jobs failed together do not return together. */
  jitter: number;
}

/** Merritt's sensible defaults: 5 attempts, 30 s doubling up to 30 min (30 s, 1 min, 2 min, 4 min), ±20 %. */
export const DEFAULT_RETRY_RULE: RetryRule = {
  attempts: 5,
  firstDelayMs: 30_000,
  maxDelayMs: 30 * 60_000,
  multiplier: 2,
  jitter: 0.2,
};

/** A duration as stored: ms, or a string such as `30s`, `30m`. */
const duration = z.union([z.number().int().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration; expected e.g. 30s, 30m, 2h` });
    return z.NEVER;
  }
  return ms;
});

const ruleFields = {
  attempts: z.number().int().min(1).max(100).optional(),
  first_delay: duration.optional(),
  max_delay: duration.optional(),
  multiplier: z.number().min(1).max(10).optional(),
  jitter: z.number().min(0).max(1).optional(),
};
const partialRule = z.object(ruleFields).strict();
const profileRule = z.object({ ...ruleFields, steps: z.record(z.string(), partialRule).optional() }).strict();

/** `/policies/retry` as stored (JSON, snake_case as the queue's other nodes). */
export const retryPolicySchema = z
  .object({
    default: partialRule.optional(),
    steps: z.record(z.string(), partialRule).optional(),
    profiles: z.record(z.string(), profileRule).optional(),
  })
  .strict();
export type RetryPolicy = z.infer<typeof retryPolicySchema>;
type PartialRule = z.infer<typeof partialRule>;

export const EMPTY_RETRY_POLICY: RetryPolicy = {};

function over(rule: RetryRule, partial: PartialRule | undefined): RetryRule {
  if (!partial) return rule;
  return {
    attempts: partial.attempts ?? rule.attempts,
    firstDelayMs: partial.first_delay ?? rule.firstDelayMs,
    maxDelayMs: partial.max_delay ?? rule.maxDelayMs,
    multiplier: partial.multiplier ?? rule.multiplier,
    jitter: partial.jitter ?? rule.jitter,
  };
}

/** The rule for `step` of a job of `profile`: default, then step, then profile, then the profile's step. */
export function ruleFor(policy: RetryPolicy, step: string, profile: string | undefined): RetryRule {
  const byProfile = profile === undefined ? undefined : policy.profiles?.[profile];
  let rule = over(DEFAULT_RETRY_RULE, policy.default);
  rule = over(rule, policy.steps?.[step]);
  rule = over(rule, byProfile);
  return over(rule, byProfile?.steps?.[step]);
}

/**
 * The wait after the `failures`-th transient failure (1: before the second attempt):
 * `firstDelay × multiplier^(failures-1)`, at most `maxDelay`, moved by the jitter (`random` in [0, 1)).
 */
export function delayAfter(rule: RetryRule, failures: number, random: number): number {
  const base = Math.min(rule.maxDelayMs, rule.firstDelayMs * rule.multiplier ** Math.max(0, failures - 1));
  const moved = base * (1 + rule.jitter * (2 * random - 1));
  return Math.max(0, Math.round(Math.min(moved, rule.maxDelayMs * (1 + rule.jitter))));
}
