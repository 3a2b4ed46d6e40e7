import { cronOf, type MaintenanceWindow } from './window.js';

/**
 * When a maintenance window is in force: pure functions of a window and an instant. The cron
 * expression is read by croner in the window's time zone, daylight-saving changes included (a
 * start that falls in the hour clocks skip runs at the first valid time after it; one that falls
 * in the hour clocks repeat runs once). An occurrence runs from its start (included) to start +
 * duration (excluded).
 */

/** One occurrence of a window: its start and end. */
export interface Occurrence {
  start: Date;
  end: Date;
}

type Schedule = Pick<MaintenanceWindow, 'cron' | 'timezone' | 'durationMs'>;

function occurrenceFrom(window: Schedule, start: Date): Occurrence {
  return { start, end: new Date(start.getTime() + window.durationMs) };
}

/**
 * The occurrence in force at `at` (a start within the last `durationMs`, at included), skipped
 * or not; undefined when none is.
 */
export function occurrenceAt(window: Schedule, at: Date): Occurrence | undefined {
  // The first start after (at - duration): in force when it is not after `at`.
  const start = cronOf(window.cron, window.timezone).nextRun(new Date(at.getTime() - window.durationMs));
  return start && start.getTime() <= at.getTime() ? occurrenceFrom(window, start) : undefined;
}

/** True when `occurrence` is the one the window skips. */
export function isSkipped(window: Pick<MaintenanceWindow, 'skip'>, occurrence: Occurrence): boolean {
  return window.skip !== undefined && Date.parse(window.skip) === occurrence.start.getTime();
}

/** The occurrence in force at `at` unless it is skipped: the one that holds its target now. */
export function activeOccurrence(window: MaintenanceWindow, at: Date): Occurrence | undefined {
  const occurrence = occurrenceAt(window, at);
  return occurrence && !isSkipped(window, occurrence) ? occurrence : undefined;
}

/** The first occurrence starting after `after` that is not skipped; undefined when the cron never fires again. */
export function nextOccurrence(window: MaintenanceWindow, after: Date): Occurrence | undefined {
  const schedule = cronOf(window.cron, window.timezone);
  let start = schedule.nextRun(after);
  if (start && isSkipped(window, occurrenceFrom(window, start))) start = schedule.nextRun(start);
  return start ? occurrenceFrom(window, start) : undefined;
}

/**
 * The first instant after `at` when the window's state changes: the end of the occurrence in force
 * (skipped or not), else the next start that is not skipped.
 */
export function nextBoundary(window: MaintenanceWindow, at: Date): Date | undefined {
  const current = occurrenceAt(window, at);
  if (current && current.end.getTime() > at.getTime()) return current.end;
  return nextOccurrence(window, at)?.start;
}

/** A window's state at `at`, as the API and the dashboard show it. */
export interface WindowState {
  /** An occurrence holds its target now (in force, not skipped). */
  active: boolean;
  /** The occurrence in force now, skipped or not. */
  current?: Occurrence & { skipped: boolean };
  /** The next occurrence that is not skipped. */
  next?: Occurrence;
}

/** Whether the window holds its target at `at`, the occurrence in force and the next one. */
export function windowState(window: MaintenanceWindow, at: Date): WindowState {
  const current = occurrenceAt(window, at);
  const next = nextOccurrence(window, at);
  const skipped = current !== undefined && isSkipped(window, current);
  return {
    active: current !== undefined && !skipped,
    ...(current ? { current: { ...current, skipped } } : {}),
    ...(next ? { next } : {}),
  };
}

/**
 * The occurrence `POST /windows/:name/skip` skips at `at`: the one in force (unless skipped
 * already), else the next. Undefined when the cron never fires again.
 */
export function occurrenceToSkip(window: MaintenanceWindow, at: Date): Occurrence | undefined {
  return activeOccurrence(window, at) ?? nextOccurrence(window, at);
}
