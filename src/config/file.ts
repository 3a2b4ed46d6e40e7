import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PATH_SETTINGS, SETTING_NAMES } from './settings.js';

export { SETTING_NAMES } from './settings.js';

const scalar = z.union([z.string(), z.number(), z.boolean()], { error: 'expected a single value' });

/** A file is a mapping of known setting names to single values; anything else is named. */
const fileSchema = z.strictObject(
  Object.fromEntries(SETTING_NAMES.map((name) => [name, scalar.optional()])),
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? undefined : 'expected a mapping of settings (NAME: value)',
  },
);

/** Relative paths in a file are relative to the file, wherever the command runs. */
function resolvePaths(name: string, value: string, base: string): string {
  if (!PATH_SETTINGS.has(name)) return value;
  const one = (p: string): string => (isAbsolute(p) || p === '' ? p : resolve(base, p));
  return name === 'MRTQ_FILE_ROOTS' ? value.split(':').map(one).join(':') : one(value);
}

/**
 * Reads a YAML or JSON config file of settings named like the environment variables
 * (`MRTQ_HTTP_PORT: 8470`). Unknown names and non-scalar values are errors, each named; the
 * environment overrides the file. Relative paths (`MRTQ_DATA_DIR: data`) are made absolute
 * against the file's directory.
 */
export function readConfigFile(path: string): Record<string, string> {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`config file ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (data === null || data === undefined) return {};
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue): [string, string][] =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => [key, `${key}: unknown setting`])
        : [
            [
              issue.path.join('.'),
              issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
            ],
          ],
    );
    // In the file's order, as a reader goes through it.
    const order = typeof data === 'object' ? Object.keys(data) : [];
    problems.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
    throw new Error(`config file ${path}:\n  ${problems.map(([, text]) => text).join('\n  ')}`);
  }
  const base = dirname(resolve(path));
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.data)) {
    if (value !== undefined) settings[name] = resolvePaths(name, String(value), base);
  }
  return settings;
}
