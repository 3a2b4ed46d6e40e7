import { InvalidArgumentError, Option } from 'commander';
import { CliError, ExitCode } from './exit-codes.js';
import { formatDuration, parseDuration } from '../config/duration.js';

export { formatDuration, parseDuration };

/** A commander option parser for durations. */
export function durationOption(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError(`"${text}" is not a duration; expected e.g. 7d, 12h, 30m, 45s`);
  return ms;
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
