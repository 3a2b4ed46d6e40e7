import { describe, expect, it } from 'vitest';
import { addCredential, listCredentials, removeCredential } from '../../../src/auth/credentials-edit.js';
import { parseBasicAuthFile, parseCredentialsFile } from '../../../src/auth/credentials-file.js';
import { hashToken } from '../../../src/auth/token-hash.js';

const TOKEN_HASH = hashToken('mrtq_example');
const SCRYPT = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

describe('the credentials file: name:kind:role:collections:hash', () => {
  it('reads tokens and basic users with their roles and collections, skipping comments and blanks', () => {
    const text = `# who\n\nalice:token:operator::${TOKEN_HASH}\nui:basic:submit:demo, other:${SCRYPT}\n`;
    const credentials = parseCredentialsFile(text, 'creds');
    expect(
      credentials.map(({ name, kind, role, collections }) => ({ name, kind, role, collections })),
    ).toEqual([
      { name: 'alice', kind: 'token', role: 'operator', collections: undefined },
      { name: 'ui', kind: 'basic', role: 'submit', collections: ['demo', 'other'] },
    ]);
    expect(listCredentials(text, 'creds')).toEqual([
      { name: 'alice', kind: 'token', role: 'operator' },
      { name: 'ui', kind: 'basic', role: 'submit', collections: ['demo', 'other'] },
    ]);
  });

  it('refuses a malformed line naming the line and what is wrong, without repeating the hash', () => {
    const cases: [string, RegExp][] = [
      ['alice:token:operator:' + TOKEN_HASH, /line 1: expected name:kind:role:collections:hash/],
      [`alice:token:boss::${TOKEN_HASH}`, /line 1: role "boss" is not one of read, submit, operator, admin/],
      [`alice:key:read::${TOKEN_HASH}`, /kind "key" is not one of token, basic/],
      ['alice:token:read::sha256$00', /a token's hash is "sha256\$<64 hex>"/],
      [`alice:basic:read::${TOKEN_HASH}`, /a basic user's hash is "scrypt/],
      [`al ice:token:read::${TOKEN_HASH}`, /is not a credential name/],
      [`token:token:admin::${TOKEN_HASH}`, /"token" is reserved/],
      [`alice:token:read:a b:${TOKEN_HASH}`, /"a b" is not a collection mnemonic/],
      [`a:token:read::${TOKEN_HASH}\na:token:read::${TOKEN_HASH}`, /line 2: "a" is named twice/],
    ];
    for (const [text, expected] of cases) {
      let message = '';
      try {
        parseCredentialsFile(text, 'creds');
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, text).toMatch(expected);
      expect(message).not.toContain(TOKEN_HASH.slice(7));
    }
  });

  it('reads an MRTQ_BASIC_AUTH file (user:hash, from before roles) as basic users with role submit', () => {
    expect(parseBasicAuthFile(`# old\nann:${SCRYPT}\n`, 'users')).toMatchObject([
      { name: 'ann', kind: 'basic', role: 'submit' },
    ]);
    expect(() => parseBasicAuthFile('ann:plaintext\n', 'users')).toThrow(
      /users line 1: expected user:scrypt/,
    );
  });

  it('adds and removes lines by name, keeping every other line, and refuses a taken or unknown name', () => {
    const first = addCredential('', 'creds', { name: 'alice', kind: 'token', role: 'admin' }, TOKEN_HASH);
    expect(first).toMatch(/^# mrtq credentials/);
    const commented = `${first}# the dashboard\n`;
    const both = addCredential(
      commented,
      'creds',
      { name: 'ui', kind: 'basic', role: 'submit', collections: ['demo'] },
      SCRYPT,
    );
    expect(both.endsWith(`# the dashboard\nui:basic:submit:demo:${SCRYPT}\n`)).toBe(true);
    expect(() =>
      addCredential(both, 'creds', { name: 'ui', kind: 'token', role: 'read' }, TOKEN_HASH),
    ).toThrow('creds already has a credential "ui": remove it first');
    const removed = removeCredential(both, 'creds', 'alice');
    expect(listCredentials(removed, 'creds').map((e) => e.name)).toEqual(['ui']);
    expect(removed).toContain('# the dashboard\n');
    expect(() => removeCredential(removed, 'creds', 'alice')).toThrow('creds has no credential "alice"');
  });
});
