import { Cron } from 'croner';
import { z } from 'zod';
import { formatDuration, parseDuration } from '../../config/duration.js';
import { QUEUE_NAMES, collectionLockPath, queueLockPath, type QueueName } from '../tree/paths.js';
import { SAFE_ID_MAX, SAFE_ID_PATTERN } from '../tree/safe-id.js';

/**
 * A maintenance window (issue 34, docs/engine.md "Maintenance windows"): a recurring time, given
 * as a cron expression read in an explicit IANA time zone, during which a queue or a collection
 * is held. One JSON node per window, `/policies/windows/<name>` (src/queue/policies/store.ts).
 */

/** What a window holds: a queue (`/locks/queue/<queue>`) or a collection (`/locks/collections/<mnemonic>`). */
export type WindowTarget = { queue: QueueName } | { collection: string };

/** A window node as stored (snake-free JSON; `duration` a duration string such as `2h`, or ms). */
export interface WindowNode {
  cron: string;
  duration: string | number;
  timezone: string;
  target: WindowTarget;
  reason?: string;
  /** The start (ISO) of one occurrence that is skipped. */
  skip?: string;
  /** The start (ISO) of the last occurrence an engine applied (written by the engines). */
  applied?: string;
  /** The start (ISO) of an occurrence whose held items are being released (written by the engines). */
  releasing?: string;
}

/** A window as the schedule functions read it: its duration in ms. */
export interface MaintenanceWindow extends Omit<WindowNode, 'duration'> {
  durationMs: number;
}

/** A window's name, the node's name: letters, digits, `.`, `_`, `-`. */
export const WINDOW_NAME_PATTERN = SAFE_ID_PATTERN;
export const WINDOW_NAME_MAX = SAFE_ID_MAX;

/** The patterns accepted: 5 fields (minute first) or 6 (second first), standard cron meaning. */
const CRON_MODE = '5-or-6-parts';

/** The schedule of a cron expression in a time zone (throws croner's error when it cannot be read). */
export function cronOf(cron: string, timezone: string): Cron {
  return new Cron(cron, { timezone, mode: CRON_MODE });
}

/** True when Intl knows `timezone` as a time zone (IANA names such as `Europe/Berlin`, `UTC`). */
export function isTimeZone(timezone: string): boolean {
  if (timezone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds of a stored duration (ms, or a string such as `2h`); undefined when unreadable. */
export function durationMsOf(duration: string | number): number | undefined {
  return typeof duration === 'number' ? duration : parseDuration(duration);
}

const isoInstant = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)) && /^\d{4}-\d\d-\d\dT/.test(text), {
    message: 'must be an ISO 8601 instant, e.g. 2026-11-22T10:00:00.000Z',
  });

const target = z.union([
  z.object({ queue: z.enum(QUEUE_NAMES) }).strict(),
  z
    .object({ collection: z.string().regex(new RegExp(SAFE_ID_PATTERN), 'must be a collection mnemonic') })
    .strict(),
]);

/**
 * A window node, checked as far as is cheap (every engine decodes it at every change): the cron
 * expression and the time zone can be read, the duration is positive. That a duration fits
 * between two starts is checked when a window is written ({@link windowProblems}).
 */
export const windowNodeSchema = z
  .object({
    cron: z.string().min(1),
    duration: z.union([z.number().int(), z.string()]),
    timezone: z.string().min(1),
    target,
    reason: z.string().max(500).optional(),
    skip: isoInstant.optional(),
    applied: isoInstant.optional(),
    releasing: isoInstant.optional(),
  })
  .superRefine((node, ctx) => {
    for (const { field, message } of cheapProblems(node))
      ctx.addIssue({ code: 'custom', path: [field], message });
  });

/** One thing wrong with a window, naming its field. */
export interface WindowProblem {
  /** `cron`, `duration`, `timezone`, `skip`, `target.collection`… */
  field: string;
  message: string;
}

function cheapProblems(node: Pick<WindowNode, 'cron' | 'duration' | 'timezone'>): WindowProblem[] {
  const problems: WindowProblem[] = [];
  const timezoneOk = isTimeZone(node.timezone);
  if (!timezoneOk)
    problems.push({
      field: 'timezone',
      message: `"${node.timezone}" is not an IANA time zone (e.g. America/Los_Angeles, Europe/Berlin, UTC)`,
    });
  try {
    const schedule = cronOf(node.cron, timezoneOk ? node.timezone : 'UTC');
    if (schedule.nextRun(new Date()) === null)
      problems.push({ field: 'cron', message: `"${node.cron}" never fires` });
  } catch (err) {
    problems.push({
      field: 'cron',
      message: `"${node.cron}" is not a cron expression of 5 fields (minute hour day month weekday) or 6 (second first): ${(err as Error).message}`,
    });
  }
  const ms = durationMsOf(node.duration);
  if (ms === undefined)
    problems.push({
      field: 'duration',
      message: `"${node.duration}" is not a duration; expected e.g. 30m, 2h, 1d`,
    });
  else if (ms <= 0) problems.push({ field: 'duration', message: 'must be longer than 0' });
  return problems;
}

/** How far ahead, and over how many starts, a duration is checked against the gaps between starts. */
const GAP_HORIZON_MS = 366 * 86_400_000;
const GAP_STARTS = 400;

/**
 * The shortest time between two starts of `cron` in `timezone` over the next year (at most
 * {@link GAP_STARTS} starts), daylight-saving changes included: a daily 02:00 has a 23-hour gap
 * on the day clocks go forward.
 */
export function shortestGapMs(cron: string, timezone: string, from: Date): number | undefined {
  const starts = cronOf(cron, timezone).nextRuns(GAP_STARTS, from);
  let shortest: number | undefined;
  for (let i = 1; i < starts.length; i++) {
    const [a, b] = [starts[i - 1]!.getTime(), starts[i]!.getTime()];
    if (b - from.getTime() > GAP_HORIZON_MS) break;
    shortest = Math.min(shortest ?? Number.POSITIVE_INFINITY, b - a);
  }
  return shortest;
}

/**
 * Everything wrong with a window about to be written, each naming its field: a cron expression
 * that cannot be read or never fires, an unknown time zone, a duration that is not positive or is
 * longer than the shortest gap between two starts (a window would open before the last closed),
 * a skip that is not one of its starts.
 */
export function windowProblems(node: WindowNode, now: Date): WindowProblem[] {
  const problems = cheapProblems(node);
  if (problems.length > 0) return problems;
  const ms = durationMsOf(node.duration)!;
  const gap = shortestGapMs(node.cron, node.timezone, now);
  if (gap !== undefined && ms > gap)
    problems.push({
      field: 'duration',
      message:
        `${formatDuration(ms)} is longer than the ${formatDuration(gap)} between two starts of "${node.cron}" ` +
        `in ${node.timezone} (the shortest gap in the next year, daylight-saving changes included): ` +
        'a window would open before the last one closed',
    });
  if (node.skip !== undefined && !isStart(node, new Date(node.skip)))
    problems.push({ field: 'skip', message: `${node.skip} is not a start of this window` });
  return problems;
}

/**
 * True when `at` is a start of the window: one its schedule gives (so a daily 02:00 that clocks
 * skip on the day they go forward starts at 03:00 that day, as croner runs it).
 */
function isStart(node: Pick<WindowNode, 'cron' | 'timezone'>, at: Date): boolean {
  const run = cronOf(node.cron, node.timezone).nextRun(new Date(at.getTime() - 1000));
  return run?.getTime() === at.getTime();
}

/** A decoded node as the schedule functions read it. */
export function toWindow(node: WindowNode): MaintenanceWindow {
  const { duration, ...rest } = node;
  return { ...rest, durationMs: durationMsOf(duration) ?? 0 };
}

/** The node as written: fields in one order, the duration as its shortest duration string. */
export function toNode(window: MaintenanceWindow): WindowNode {
  const node: WindowNode = {
    cron: window.cron,
    duration: formatDuration(window.durationMs),
    timezone: window.timezone,
    target:
      'queue' in window.target ? { queue: window.target.queue } : { collection: window.target.collection },
  };
  if (window.reason !== undefined) node.reason = window.reason;
  if (window.skip !== undefined) node.skip = window.skip;
  if (window.applied !== undefined) node.applied = window.applied;
  if (window.releasing !== undefined) node.releasing = window.releasing;
  return node;
}

/** The hold node a window creates: `/locks/queue/<queue>` or `/locks/collections/<mnemonic>`. */
export function holdPathOf(target: WindowTarget): string {
  return 'queue' in target ? queueLockPath(target.queue) : collectionLockPath(target.collection);
}

/** `queue ingest` or `collection demo`, for messages. */
export function describeTarget(target: WindowTarget): string {
  return 'queue' in target ? `queue ${target.queue}` : `collection ${target.collection}`;
}
