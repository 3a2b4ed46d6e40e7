import { InvalidArgumentError, Option } from 'commander';
import { CliError, ExitCode } from './exit-codes.js';

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

/** `ms` as the shortest duration `parseDuration` reads back exactly: 604800000 → `1w`, 600000 → `10m`. */
export function formatDuration(ms: number): string {
  const units = Object.entries(UNITS).sort(([, a], [, b]) => b - a);
  for (const [unit, size] of units) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/**
 * A duration option whose help shows its default as a duration (`default: 7d`): a value the
 * same option accepts, where the milliseconds it holds (`604800000`) would be refused.
 */
export function durationFlag(flags: string, description: string, defaultMs: number): Option {
  return new Option(flags, description)
    .argParser(durationOption)
    .default(defaultMs, formatDuration(defaultMs));
}

/** A commander option parser for whole numbers of 0 or more, naming the option when refused. */
export function nonNegative(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new CliError(`${name} must be a whole number of 0 or more, got "${value}"`, ExitCode.usage);
    return n;
  };
}
