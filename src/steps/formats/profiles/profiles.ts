import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import { parse as parseYaml } from 'yaml';
import type { Profile } from '../../ingest-contracts.js';
import { ProfileError, UnknownProfileError } from '../../intake-errors.js';
import { MERRITT_FIELDS, merrittFieldsOf } from './merritt-fields.js';
import {
  decodeProfileText,
  merrittProfileName,
  parseMerrittProfile,
  type ProfileFindings,
} from './properties.js';
import { DEFAULT_PROFILE_PRIORITY, isEmailAddress, isHttpUrl, RESPONSE_TYPES, SAFE_NAME } from './values.js';

/**
 * Depositor profiles: one file per profile in a directory, either `<name>.yaml`, `.yml` or
 * `.json`:
 *
 * ```yaml
 * collection: demo_collection   # required: the mnemonic collection holds apply to
 * priority: 5                   # 0..99, default 5
 * notifications: [ops@example.org]
 * callbackUrl: https://example.org/hook   # optional
 * responseType: json            # json | xml | turtle, default json
 * minterUrl: https://ezid.example/shoulder/ark:/99999/fk4   # optional, any MerrittProfileKeys field
 * ```
 *
 * or a Merritt profile as Merritt writes it, `<name>` or `<name>.txt` in Java-Properties format
 * (`profiles-properties.ts`).
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

/** The profiles of a directory, and what loaded with a warning (`<file>: <key>: <what>`). */
export interface ProfileSet {
  profiles: Map<string, Profile>;
  warnings: string[];
}

/** A ProfileStore over a directory; `warnings` are those of the last successful (re)load. */
export interface ProfileDirectory extends ProfileStore {
  warnings(): string[];
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const FIELDS = [
  ...['name', 'collection', 'priority', 'notifications', 'callbackUrl', 'responseType'],
  ...MERRITT_FIELDS,
];

type Problems = string[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validPriority(value: unknown, bad: (what: string) => void): number {
  if (value === undefined) return DEFAULT_PROFILE_PRIORITY;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 99) return value;
  bad(`must be an integer from 0 to 99, not ${JSON.stringify(value)}`);
  return 5;
}

function validNotifications(value: unknown, bad: (what: string) => void): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? (value as unknown[]) : [undefined];
  const invalid = list.filter((item) => typeof item !== 'string' || !isEmailAddress(item));
  if (invalid.length === 0) return list as string[];
  bad(`must be a list of e-mail addresses; ${JSON.stringify(Array.isArray(value) ? invalid : value)} is not`);
  return [];
}

function validCallback(value: unknown, bad: (what: string) => void): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && isHttpUrl(value)) return value;
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
    ...merrittFieldsOf(data, bad),
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

async function readYamlOrJson(path: string, file: string, problems: Problems): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return extname(file) === '.json' ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (err) {
    problems.push(`${file}: not valid ${extname(file).slice(1).toUpperCase()}: ${(err as Error).message}`);
    return undefined;
  }
}

/** The profile name of a directory entry and its format, or undefined when it is not a profile file. */
function profileFileOf(file: string): { name: string; format: 'yaml-json' | 'properties' } | undefined {
  if (EXTENSIONS.has(extname(file)) && !file.startsWith('.'))
    return { name: file.slice(0, -extname(file).length), format: 'yaml-json' };
  const name = merrittProfileName(file);
  return name === undefined ? undefined : { name, format: 'properties' };
}

async function readProfile(dir: string, file: string, name: string, findings: ProfileFindings) {
  const path = join(dir, file);
  if (profileFileOf(file)?.format === 'properties')
    return parseMerrittProfile(file, name, decodeProfileText(await readFile(path)), findings);
  const data = await readYamlOrJson(path, file, findings.problems);
  return data === undefined ? undefined : validateProfile(file, name, data, findings.problems);
}

/**
 * Reads every profile file of `dir` (YAML, JSON and Merritt's Java-Properties profiles; not
 * sub-directories, dot files or other extensions); throws ProfileError listing every problem of
 * every file.
 */
export async function readProfileSet(dir: string): Promise<ProfileSet> {
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => !entry.isDirectory());
  const findings: ProfileFindings = { problems: [], warnings: [] };
  const profiles = new Map<string, Profile>();
  const seen = new Set<string>();
  for (const file of entries.map((entry) => entry.name).sort()) {
    const name = profileFileOf(file)?.name;
    if (name === undefined) continue;
    if (!SAFE_NAME.test(name)) {
      findings.problems.push(`${file}: a profile name has only letters, digits, ".", "_" and "-"`);
      continue;
    }
    if (seen.has(name)) findings.problems.push(`${file}: a second file for profile "${name}"`);
    seen.add(name);
    const profile = await readProfile(dir, file, name, findings);
    if (profile) profiles.set(name, profile);
  }
  if (findings.problems.length > 0) throw new ProfileError(findings.problems);
  return { profiles, warnings: findings.warnings };
}

/** Reads every profile file of `dir`, as readProfileSet, without the warnings. */
export async function readProfiles(dir: string): Promise<Map<string, Profile>> {
  return (await readProfileSet(dir)).profiles;
}

/**
 * Loads the profiles of `dir` (ProfileError when any is invalid) into a store that reloads on
 * demand; each load's warnings (a Priority clamped to 99, an unknown NotificationFormat…) go to
 * `log` when given, and are kept for `warnings()`.
 */
export async function loadProfiles(dir: string, options: { log?: Logger } = {}): Promise<ProfileDirectory> {
  const read = async (): Promise<ProfileSet> => {
    const set = await readProfileSet(dir);
    for (const warning of set.warnings) options.log?.warn({ profilesDir: dir }, `profile: ${warning}`);
    return set;
  };
  let { profiles, warnings } = await read();
  const getProfile = (name: string): Profile => {
    const profile = profiles.get(name);
    if (!profile) throw new UnknownProfileError(name, [...profiles.keys()]);
    return profile;
  };
  const reload = async (): Promise<void> => {
    ({ profiles, warnings } = await read());
  };
  return {
    getProfile,
    async resolve(name) {
      if (!profiles.has(name)) await reload();
      return getProfile(name);
    },
    names: () => [...profiles.keys()],
    reload,
    warnings: () => [...warnings],
  };
}
