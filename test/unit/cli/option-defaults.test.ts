import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { formatDuration, parseDuration } from '../../../src/cli/options.js';

const options = {
  version: '0.0.0',
  loadConfig: () => Promise.reject(new Error('no configuration for help')),
};

/** Every option of every command (serve registered in full), with the command it belongs to. */
function optionsOf(command: Command, path: string[] = []): { path: string; option: Option }[] {
  const here = [...path, command.name()];
  return [
    ...command.options.map((option) => ({ path: here.join(' '), option })),
    ...command.commands.flatMap((sub) => optionsOf(sub, here)),
  ];
}

/** What the option holds after parsing `text` as a user would type it. */
function parsed(option: Option, text: string): unknown {
  const parse = (option as Option & { parseArg?: (value: string, previous: unknown) => unknown }).parseArg;
  return parse ? parse(text, undefined) : text;
}

describe('every default the command line prints', () => {
  it('is a value the same option accepts, and means the default it holds', async () => {
    const commands = [await buildProgram([], options), await buildProgram(['serve', '--help'], options)];
    const shown: string[] = [];
    for (const program of commands)
      for (const { path, option } of optionsOf(program)) {
        if (option.defaultValue === undefined || option.negate || !option.required) continue;
        const printed = option.defaultValueDescription ?? String(option.defaultValue);
        shown.push(`${path} ${option.long} ${printed}`);
        const value = (() => {
          try {
            return parsed(option, printed);
          } catch (err) {
            return `refused: ${(err as Error).message}`;
          }
        })();
        expect(value, `${path} ${option.long}: printed default "${printed}"`).toEqual(option.defaultValue);
      }
    // The duration options that printed milliseconds before: now each prints a duration.
    expect(shown).toEqual(
      expect.arrayContaining(['mrtq cleanup --retention 1w', 'mrtq doctor --orphan-grace 10m']),
    );
    // Loading serve's options imports the whole service: more than a unit test's 5 s on a busy machine.
  }, 60_000);

  it('writes durations as parseDuration reads them back', () => {
    for (const ms of [1, 500, 1000, 45_000, 600_000, 3_600_000, 86_400_000, 604_800_000, 90_061_001])
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    expect(formatDuration(7 * 86_400_000)).toBe('1w');
    expect(formatDuration(10 * 60_000)).toBe('10m');
  });
});
