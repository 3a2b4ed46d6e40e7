import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * The kinds of value a setting takes, as zod schemas of the environment's strings. Each says what
 * it expects ("must be a whole number of at least 1"); {@link ConfigError} names the setting and
 * the value it got. A blank value counts as unset, so `FOO=` gets FOO's default.
 */

/** Blank is unset; anything else is read without its surrounding spaces. */
function unsetWhenBlank(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const value = raw.trim();
  return value === '' ? undefined : value;
}

/** One environment variable read with `schema` (after blank → unset). */
export function setting<T extends z.ZodType>(schema: T) {
  return z.preprocess(unsetWhenBlank, schema);
}

/** A whole number within [min, max]. */
export function wholeNumber(min = 0, max?: number) {
  const error =
    max === undefined
      ? `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`;
  const number = z.coerce.number({ error }).int({ error }).min(min, { error });
  return max === undefined ? number : number.max(max, { error });
}

/** A duration in ms where `off` (or 0) switches the thing off: 0. */
export function durationOrOff() {
  return z.preprocess(
    (raw) => (typeof raw === 'string' && raw.toLowerCase() === 'off' ? 0 : raw),
    z.coerce.number({ error: 'must be a whole number of milliseconds, or off' }).int().min(0, {
      error: 'must be a whole number of milliseconds, or off',
    }),
  );
}

/** A port, 0 (a free one) to 65535. */
export function port() {
  const error = 'must be a port (0-65535)';
  return z.coerce.number({ error }).int({ error }).min(0, { error }).max(65_535, { error });
}

/** A number above 0 and at most 1. */
export function fraction() {
  const error = 'must be a number above 0 and at most 1';
  return z.coerce.number({ error }).gt(0, { error }).max(1, { error });
}

/** `true`/`1` or `false`/`0`, in any case. */
export function flag() {
  return z.stringbool({ truthy: ['true', '1'], falsy: ['false', '0'], error: 'must be true or false' });
}

/** One of `values`, in any case. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  error = `must be one of ${values.join(', ')}`,
) {
  return z.string().toLowerCase().pipe(z.enum(values, { error }));
}

/** An http(s) URL, without its trailing slashes. */
export function httpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/** A path, made absolute against the current directory. */
export function path() {
  return z.string().transform((value) => resolve(value));
}

/** `:`-separated paths, each made absolute. */
export function pathList() {
  return z.string().transform((value) =>
    value
      .split(':')
      .filter(Boolean)
      .map((item) => resolve(item)),
  );
}

/** Settings whose value is never repeated in an error message. */
const SECRET = /TOKEN|CREDENTIALS|PASSWORD/;

/** Every invalid setting, each named with what it expected and (unless secret) what it got. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';

  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `invalid settings:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }

  /** The problems of a failed parse of `env`; `origin` says where a setting came from when not the environment. */
  static of(
    error: z.ZodError,
    env: NodeJS.ProcessEnv,
    origin: (name: string) => string = () => '',
  ): ConfigError {
    return new ConfigError(
      error.issues.map((issue) => {
        const name = issue.path.join('.');
        const raw = env[name];
        const got = raw === undefined || raw.trim() === '' ? '' : SECRET.test(name) ? '' : `, got "${raw}"`;
        return `${name} ${issue.message}${got}${origin(name)}`;
      }),
    );
  }
}
