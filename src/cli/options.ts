import { InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { createLogger } from '../logger.js';
import type { QueueContext } from '../queue/context.js';
import type { ZkClient } from '../zk/index.js';

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of a duration such as `7d`, `12h`, `30m`, `45s`, `500ms`, `1w`; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNITS[match[2]!.toLowerCase()] ?? Number.NaN));
}

/** A commander option parser for durations. */
export function durationOption(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError(`"${text}" is not a duration; expected e.g. 7d, 12h, 30m, 45s`);
  return ms;
}

/** A queue context for one command: logs go to stderr (stdout carries the output), warnings only. */
export function commandQueueContext(zk: ZkClient): QueueContext {
  return { zk, log: createLogger('warn', pino.destination({ fd: 2, sync: true })), now: () => new Date() };
}
