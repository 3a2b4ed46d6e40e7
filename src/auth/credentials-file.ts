import { ROLES, type Role } from './actor.js';
import { parsePasswordHash, type PasswordHash } from './password-hash.js';
import { parseTokenHash } from './token-hash.js';

/**
 * The credentials file (`MRTQ_CREDENTIALS`, edited by `mrtq credentials`): one credential a line,
 *
 *     name:kind:role:collections:hash
 *
 * `kind` is `token` (a bearer token, hash `sha256$<hex>`) or `basic` (an HTTP basic user of
 * Merritt's front door, hash `scrypt$N$r$p$<salt>$<key>`); `role` one of ROLES; `collections`
 * the mnemonics it is limited to, comma-separated, empty for all. `#` comments and blank lines
 * are ignored. Only hashes are stored; no field may hold a `:`, so the hash is always the fifth.
 */

export type CredentialKind = 'token' | 'basic';
export const CREDENTIAL_KINDS: readonly CredentialKind[] = ['token', 'basic'];

interface CredentialFields {
  name: string;
  role: Role;
  /** The collections (mnemonics) it is limited to; undefined: all. */
  collections?: readonly string[];
}

/** A credential as read: its name, role and collections, and its secret's hash (never the secret). */
export type Credential = CredentialFields &
  ({ kind: 'token'; digest: Buffer } | { kind: 'basic'; hash: PasswordHash });

/** A line's fields without its hash: what `mrtq credentials list` shows. */
export type CredentialEntry = CredentialFields & { kind: CredentialKind };

/** Names are what the audit log records: letters, digits and `. _ @ -`, up to 100. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/;
const MNEMONIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Names the API gives callers itself: `anonymous` (no credential), `token` (MRTQ_API_TOKEN). */
export const RESERVED_NAMES: readonly string[] = ['anonymous', 'token'];

/** Why `name` cannot name a credential, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return `"${name}" is not a credential name (letters, digits, . _ @ -, up to 100)`;
  if (RESERVED_NAMES.includes(name))
    return `"${name}" is reserved (anonymous: no credential; token: MRTQ_API_TOKEN)`;
  return undefined;
}

export function parseRole(value: string): Role | undefined {
  return (ROLES as readonly string[]).includes(value) ? (value as Role) : undefined;
}

/** `a,b` → `['a', 'b']`; empty → undefined (all collections); a bad mnemonic → a message. */
export function parseCollections(value: string): readonly string[] | undefined | string {
  const list = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const bad = list.find((item) => !MNEMONIC.test(item));
  if (bad !== undefined) return `"${bad}" is not a collection mnemonic`;
  return list.length > 0 ? [...new Set(list)] : undefined;
}

type Parsed = Credential | string;

/** One line's credential, or what is wrong with it (never repeating the hash). */
function parseLine(line: string): Parsed {
  const fields = line.split(':');
  if (fields.length !== 5) return 'expected name:kind:role:collections:hash';
  const [name, kind, roleText, collectionsText, hashText] = fields as [
    string,
    string,
    string,
    string,
    string,
  ];
  const problem = nameProblem(name);
  if (problem) return problem;
  const role = parseRole(roleText);
  if (!role) return `role "${roleText}" is not one of ${ROLES.join(', ')}`;
  const collections = parseCollections(collectionsText);
  if (typeof collections === 'string') return collections;
  const base = { name, role, ...(collections ? { collections } : {}) };
  if (kind === 'token') {
    const digest = parseTokenHash(hashText);
    return digest ? { ...base, kind, digest } : 'a token\'s hash is "sha256$<64 hex>"';
  }
  if (kind === 'basic') {
    const hash = parsePasswordHash(hashText);
    return hash ? { ...base, kind, hash } : 'a basic user\'s hash is "scrypt$N$r$p$<salt>$<key>"';
  }
  return `kind "${kind}" is not one of ${CREDENTIAL_KINDS.join(', ')}`;
}

/** The lines of `text` that are not comments or blank, with their line numbers. */
function contentLines(text: string): { line: string; number: number }[] {
  return text
    .split(/\r?\n/)
    .map((raw, index) => ({ line: raw.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'));
}

function parseWith(text: string, source: string, parse: (line: string) => Parsed): Credential[] {
  const seen = new Set<string>();
  return contentLines(text).map(({ line, number }) => {
    const parsed = parse(line);
    if (typeof parsed === 'string') throw new Error(`${source} line ${number}: ${parsed} (docs/http.md)`);
    if (seen.has(parsed.name))
      throw new Error(`${source} line ${number}: "${parsed.name}" is named twice (docs/http.md)`);
    seen.add(parsed.name);
    return parsed;
  });
}

/** The credentials of a credentials file's text; a malformed line is an error naming it. */
export function parseCredentialsFile(text: string, source: string): Credential[] {
  return parseWith(text, source, parseLine);
}

/**
 * The users of an `MRTQ_BASIC_AUTH` file (`user:scrypt$…` lines, from before roles): each a
 * basic user with role `submit`, for Merritt's front door.
 */
export function parseBasicAuthFile(text: string, source: string): Credential[] {
  return parseWith(text, source, (line) => {
    const colon = line.indexOf(':');
    const hash = colon > 0 ? parsePasswordHash(line.slice(colon + 1)) : undefined;
    if (!hash) return 'expected user:scrypt$N$r$p$<salt>$<key>';
    return { name: line.slice(0, colon), role: 'submit', kind: 'basic', hash };
  });
}

/** What `mrtq credentials list` shows of a credential: everything but its hash. */
export function entryOf(credential: Credential): CredentialEntry {
  const { name, kind, role, collections } = credential;
  return { name, kind, role, ...(collections ? { collections } : {}) };
}

/** The line of a credential whose secret is already hashed (`hashToken`, `hashPassword`). */
export function credentialLine(entry: CredentialEntry, hash: string): string {
  return [entry.name, entry.kind, entry.role, (entry.collections ?? []).join(','), hash].join(':');
}
