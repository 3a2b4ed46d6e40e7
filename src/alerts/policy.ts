import { z } from 'zod';
import { parseDuration } from '../config/duration.js';

/**
 * The alert rules and their thresholds (issue 35, item 4; docs/engine.md, "Alerts"). Kept in
 * `/policies/alerts` (src/queue/policies/store.ts) like the other run-time policies: every serving
 * process watches it, and a change made through any API or CLI applies at its next evaluation.
 */

/** The rules, by the name `mrtq_alert_active{rule}`, `GET /alerts` and the policy's keys use. */
export const ALERT_RULES = [
  'queue_stopped',
  'batch_age',
  'collection_hold',
  'job_retries',
  'engine_gone',
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** A duration as stored: ms, or a string such as `90s`, `15m`, `24h`. */
const duration = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration; expected e.g. 90s, 15m, 24h` });
    return z.NEVER;
  }
  return ms;
});

/** `/policies/alerts` as stored (JSON, snake_case as the queue's other nodes; durations in ms once written). */
export const alertsPolicySchema = z
  .object({
    /** How long the ingest queue may go without a transition while work waits and nothing pauses it. */
    queue_stopped: duration.optional(),
    /** How old an unfinished batch may be (from its submission). */
    batch_age: duration.optional(),
    /** How long a collection may stay on hold. */
    collection_hold: duration.optional(),
    /** How many times a job may be retried (requeues and transient failures of its current step). */
    job_retries: z.number().int().min(0).max(10_000).optional(),
    /** How long an engine may be gone before it counts, and fewer than `min_engines` may be registered. */
    engine_gone: duration.optional(),
    /** The fewest engine processes that should be registered (0: no such check). */
    min_engines: z.number().int().min(0).max(10_000).optional(),
    /** Rules that are not evaluated (never firing). */
    off: z.array(z.enum(ALERT_RULES)).optional(),
  })
  .strict();
export type AlertsPolicy = z.infer<typeof alertsPolicySchema>;

export const EMPTY_ALERTS_POLICY: AlertsPolicy = {};

/** Every threshold, ms for durations. */
export interface AlertThresholds {
  queueStoppedMs: number;
  batchAgeMs: number;
  collectionHoldMs: number;
  jobRetries: number;
  engineGoneMs: number;
  minEngines: number;
  off: ReadonlySet<AlertRule>;
}

/**
 * The defaults: Merritt's "queue frozen" alert and its daily warning of batches older than 24 h,
 * a hold kept a day, a job retried more than 3 times, an engine gone 2 minutes.
 */
export const DEFAULT_ALERT_THRESHOLDS: AlertThresholds = {
  queueStoppedMs: 15 * 60_000,
  batchAgeMs: 24 * 3_600_000,
  collectionHoldMs: 24 * 3_600_000,
  jobRetries: 3,
  engineGoneMs: 2 * 60_000,
  minEngines: 0,
  off: new Set(),
};

/** The policy's thresholds over the defaults. */
export function thresholdsOf(policy: AlertsPolicy): AlertThresholds {
  const d = DEFAULT_ALERT_THRESHOLDS;
  return {
    queueStoppedMs: policy.queue_stopped ?? d.queueStoppedMs,
    batchAgeMs: policy.batch_age ?? d.batchAgeMs,
    collectionHoldMs: policy.collection_hold ?? d.collectionHoldMs,
    jobRetries: policy.job_retries ?? d.jobRetries,
    engineGoneMs: policy.engine_gone ?? d.engineGoneMs,
    minEngines: policy.min_engines ?? d.minEngines,
    off: new Set(policy.off ?? []),
  };
}

/** The defaults as the policy would store them (for `GET /policies/alerts`). */
export const ALERT_DEFAULTS: Required<Omit<AlertsPolicy, 'off'>> = {
  queue_stopped: DEFAULT_ALERT_THRESHOLDS.queueStoppedMs,
  batch_age: DEFAULT_ALERT_THRESHOLDS.batchAgeMs,
  collection_hold: DEFAULT_ALERT_THRESHOLDS.collectionHoldMs,
  job_retries: DEFAULT_ALERT_THRESHOLDS.jobRetries,
  engine_gone: DEFAULT_ALERT_THRESHOLDS.engineGoneMs,
  min_engines: DEFAULT_ALERT_THRESHOLDS.minEngines,
};
