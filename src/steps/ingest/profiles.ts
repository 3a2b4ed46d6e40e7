import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Profile } from './contracts.js';
import { ProfileError, UnknownProfileError } from './errors.js';

/**
 * Depositor profiles: one file per profile in a directory, `<name>.yaml`, `.yml` or `.json`.
 *
 * ```yaml
 * collection: demo_collection   # required: the mnemonic collection holds apply to
 * priority: 5                   # 0..99, default 5
 * notifications: [ops@example.org]
 * callbackUrl: https://example.org/hook   # optional
 * responseType: json            # json | xml | turtle, default json
 * ```
 */
export interface ProfileStore {
  /** The profile, or UnknownProfileError listing the known ones. */
  getProfile(name: string): Profile;
  /** Like getProfile, but reloads the directory once when the name is unknown (a profile added since). */
  resolve(name: string): Promise<Profile>;
  names(): string[];
  /** Reads the directory again; on error the profiles loaded before stay in use. */
  reload(): Promise<void>;
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const FIELDS = ['name', 'collection', 'priority', 'notifications', 'callbackUrl', 'responseType'];
const RESPONSE_TYPES: ReadonlyArray<Profile['responseType']> = ['json', 'xml', 'turtle'];
const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

type Problems = string[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validPriority(value: unknown, bad: (what: string) => void): number {
  if (value === undefined) return 5;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 99) return value;
  bad(`must be an integer from 0 to 99, not ${JSON.stringify(value)}`);
  return 5;
}

function validNotifications(value: unknown, bad: (what: string) => void): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? (value as unknown[]) : [undefined];
  const invalid = list.filter((item) => typeof item !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(item));
  if (invalid.length === 0) return list as string[];
  bad(`must be a list of e-mail addresses; ${JSON.stringify(Array.isArray(value) ? invalid : value)} is not`);
  return [];
}

function validCallback(value: unknown, bad: (what: string) => void): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol))
    return value;
  bad(`must be an http(s) URL, not ${JSON.stringify(value)}`);
  return undefined;
}

function validResponseType(value: unknown, bad: (what: string) => void): Profile['responseType'] {
  if (value === undefined) return 'json';
  const found = RESPONSE_TYPES.find((type) => type === value);
  if (found) return found;
  bad(`must be one of ${RESPONSE_TYPES.join(', ')}, not ${JSON.stringify(value)}`);
  return 'json';
}

/** Checks one profile's data field by field; each problem names the file and the field. */
export function validateProfile(
  file: string,
  name: string,
  data: unknown,
  problems: Problems,
): Profile | undefined {
  const before = problems.length;
  const bad = (field: string) => (what: string) => void problems.push(`${file}: ${field}: ${what}`);
  if (!isRecord(data)) {
    problems.push(`${file}: the file must hold a mapping of fields`);
    return undefined;
  }
  for (const key of Object.keys(data).filter((key) => !FIELDS.includes(key))) {
    bad(key)(`unknown field (known: ${FIELDS.join(', ')})`);
  }
  if (data.name !== undefined && data.name !== name)
    bad('name')(`${JSON.stringify(data.name)} differs from the file name "${name}"`);
  if (typeof data.collection !== 'string' || !SAFE_NAME.test(data.collection)) {
    bad('collection')(
      `required: a mnemonic of letters, digits, ".", "_" or "-", not ${JSON.stringify(data.collection)}`,
    );
  }
  const profile: Profile = {
    name,
    collection: String(data.collection),
    priority: validPriority(data.priority, bad('priority')),
    notifications: validNotifications(data.notifications, bad('notifications')),
    responseType: validResponseType(data.responseType, bad('responseType')),
  };
  const callbackUrl = validCallback(data.callbackUrl, bad('callbackUrl'));
  if (callbackUrl) profile.callbackUrl = callbackUrl;
  return problems.length === before ? profile : undefined;
}

async function readProfileFile(dir: string, file: string, problems: Problems): Promise<unknown> {
  const text = await readFile(join(dir, file), 'utf8');
  try {
    return extname(file) === '.json' ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (err) {
    problems.push(`${file}: not valid ${extname(file).slice(1).toUpperCase()}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Reads every profile file of `dir`; throws ProfileError listing every problem of every file. */
export async function readProfiles(dir: string): Promise<Map<string, Profile>> {
  const files = (await readdir(dir)).filter((file) => EXTENSIONS.has(extname(file))).sort();
  const problems: Problems = [];
  const profiles = new Map<string, Profile>();
  for (const file of files) {
    const name = file.slice(0, -extname(file).length);
    if (!SAFE_NAME.test(name)) {
      problems.push(`${file}: a profile name has only letters, digits, ".", "_" and "-"`);
      continue;
    }
    if (profiles.has(name)) problems.push(`${file}: a second file for profile "${name}"`);
    const data = await readProfileFile(dir, file, problems);
    if (data === undefined) continue;
    const profile = validateProfile(file, name, data, problems);
    if (profile) profiles.set(name, profile);
  }
  if (problems.length > 0) throw new ProfileError(problems);
  return profiles;
}

/** Loads the profiles of `dir` (ProfileError when any is invalid) into a store that reloads on demand. */
export async function loadProfiles(dir: string): Promise<ProfileStore> {
  let profiles = await readProfiles(dir);
  const getProfile = (name: string): Profile => {
    const profile = profiles.get(name);
    if (!profile) throw new UnknownProfileError(name, [...profiles.keys()]);
    return profile;
  };
  const reload = async (): Promise<void> => {
    profiles = await readProfiles(dir);
  };
  return {
    getProfile,
    async resolve(name) {
      if (!profiles.has(name)) await reload();
      return getProfile(name);
    },
    names: () => [...profiles.keys()],
    reload,
  };
}
