import type { Logger } from 'pino';
import { parseBasicAuthFile, parseCredentialsFile, type Credential } from './credentials-file.js';
import { verifyPassword } from './password-hash.js';
import { hashToken, matchToken, parseTokenHash } from './token-hash.js';
import { WatchedFile } from './watched-file.js';

/** Where credentials come from (the settings of the same names). */
export interface CredentialSources {
  /** `MRTQ_CREDENTIALS`: named tokens and basic users with roles (credentials-file.ts). */
  file?: string;
  /** `MRTQ_BASIC_AUTH`: `user:<scrypt hash>` lines from before roles: basic users with role submit. */
  basicFile?: string;
  /** `MRTQ_API_TOKEN`: one token with role admin, named `token`. */
  apiToken?: string;
  /** Where a credentials file that stopped being readable is reported (never with a secret). */
  log?: Pick<Logger, 'error'>;
}

/** Which credentials the store holds now: what a refusal tells the caller to send. */
export interface Accepted {
  token: boolean;
  basic: boolean;
}

/** Checks presented secrets against the configured credentials. */
export interface CredentialStore {
  /** Whether any source is configured; without one the API changes nothing (read-only). */
  readonly configured: boolean;
  accepts(): Promise<Accepted>;
  /** The credential of a bearer token, or undefined. */
  verifyToken(token: string): Promise<Credential | undefined>;
  /** The credential of a basic user and password, or undefined (an unknown user costs the same). */
  verifyBasic(user: string, password: string): Promise<Credential | undefined>;
}

type TokenCredential = Extract<Credential, { kind: 'token' }>;
const isToken = (credential: Credential): credential is TokenCredential => credential.kind === 'token';

/** MRTQ_API_TOKEN as a credential: its digest is kept, not the token. */
function apiTokenCredential(token: string): Credential {
  return { name: 'token', role: 'admin', kind: 'token', digest: parseTokenHash(hashToken(token))! };
}

/** A name used by two sources would make the audit log ambiguous: refused at start. */
function checkNames(lists: readonly (readonly Credential[])[]): void {
  const seen = new Set<string>();
  for (const credential of lists.flat()) {
    if (seen.has(credential.name))
      throw new Error(
        `credential "${credential.name}" is named both in MRTQ_CREDENTIALS and MRTQ_BASIC_AUTH`,
      );
    seen.add(credential.name);
  }
}

/**
 * The credentials of `sources`, files read now (a missing or malformed one throws, so the service
 * refuses to start) and again whenever they change. Secrets are only ever compared: tokens by
 * their SHA-256 digests, passwords through scrypt (token-hash.ts, password-hash.ts).
 */
export function credentialStore(sources: CredentialSources): CredentialStore {
  const report = (err: Error): void => sources.log?.error({ err }, 'credentials file not taken');
  const fixed = sources.apiToken === undefined ? [] : [apiTokenCredential(sources.apiToken)];
  const files = [
    ...(sources.file === undefined ? [] : [new WatchedFile(sources.file, parseCredentialsFile, [], report)]),
    ...(sources.basicFile === undefined
      ? []
      : [new WatchedFile(sources.basicFile, parseBasicAuthFile, [], report)]),
  ];
  checkNames([fixed, ...files.map((file) => file.last)]);
  // Credentials file first: its basic user is found before an MRTQ_BASIC_AUTH one of the same name.
  const all = async (): Promise<Credential[]> => [
    ...fixed,
    ...(await Promise.all(files.map((file) => file.current()))).flat(),
  ];
  return {
    configured: fixed.length > 0 || files.length > 0,
    async accepts() {
      const credentials = await all();
      return {
        token: credentials.some((c) => c.kind === 'token'),
        basic: credentials.some((c) => c.kind === 'basic'),
      };
    },
    async verifyToken(token) {
      const tokens = (await all()).filter(isToken);
      const index = matchToken(
        token,
        tokens.map((c) => c.digest),
      );
      return index < 0 ? undefined : tokens[index];
    },
    async verifyBasic(user, password) {
      const known = (await all()).find((c) => c.kind === 'basic' && c.name === user);
      const hash = known?.kind === 'basic' ? known.hash : undefined;
      return (await verifyPassword(password, hash)) ? known : undefined;
    },
  };
}
