import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialStore } from '../../../src/auth/credential-store.js';
import { hashPassword } from '../../../src/auth/password-hash.js';
import { hashToken, newToken } from '../../../src/auth/token-hash.js';

/** Sets the file's modification time ahead, so a rewrite within the same millisecond is seen. */
function rewrite(file: string, text: string, ahead: number): void {
  writeFileSync(file, text);
  utimesSync(file, new Date(), new Date(Date.now() + ahead));
}

describe('the credentials the API takes (MRTQ_CREDENTIALS, MRTQ_API_TOKEN, MRTQ_BASIC_AUTH)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-credentials-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes MRTQ_API_TOKEN as an admin named token, and nothing else', async () => {
    const store = credentialStore({ apiToken: 'chosen-by-an-operator' });
    expect(store.configured).toBe(true);
    expect(await store.verifyToken('chosen-by-an-operator')).toMatchObject({ name: 'token', role: 'admin' });
    expect(await store.verifyToken('chosen-by-an-operato')).toBeUndefined();
    expect(await store.accepts()).toEqual({ token: true, basic: false });
    expect(credentialStore({}).configured).toBe(false);
  });

  it('finds a named token and a basic user by their secrets, and legacy basic users as submit', async () => {
    const token = newToken();
    const file = join(dir, 'named');
    writeFileSync(
      file,
      `alice:token:operator:demo:${hashToken(token)}\nui:basic:read::${await hashPassword('pw-ui')}\n`,
    );
    const legacy = join(dir, 'legacy');
    writeFileSync(legacy, `ann:${await hashPassword('pw-ann')}\n`);
    const store = credentialStore({ file, basicFile: legacy });
    expect(await store.verifyToken(token)).toMatchObject({
      name: 'alice',
      role: 'operator',
      collections: ['demo'],
    });
    expect(await store.verifyBasic('ui', 'pw-ui')).toMatchObject({ name: 'ui', role: 'read' });
    expect(await store.verifyBasic('ann', 'pw-ann')).toMatchObject({ name: 'ann', role: 'submit' });
    expect(await store.verifyBasic('ann', 'pw-ui')).toBeUndefined();
    expect(await store.verifyBasic('nobody', 'pw-ui')).toBeUndefined();
  });

  it('reads the file again when it changes; a malformed version is reported and the last good one kept', async () => {
    const [first, second] = [newToken(), newToken()];
    const file = join(dir, 'changing');
    writeFileSync(file, `a:token:read::${hashToken(first)}\n`);
    const errors: string[] = [];
    const log = { error: (fields: { err: Error }) => void errors.push(fields.err.message) };
    const store = credentialStore({ file, log });
    expect(await store.verifyToken(second)).toBeUndefined();
    rewrite(file, `a:token:read::${hashToken(first)}\nb:token:admin::${hashToken(second)}\n`, 5000);
    expect(await store.verifyToken(second)).toMatchObject({ name: 'b', role: 'admin' });
    rewrite(file, `b:token:admin::${hashToken(second)}\n`, 10_000);
    expect(await store.verifyToken(first)).toBeUndefined();
    rewrite(file, `b:token:admin::${hashToken(second)}\nbroken line\n`, 15_000);
    expect(await store.verifyToken(second)).toMatchObject({ name: 'b' });
    expect(errors).toEqual([
      `${file} line 2: expected name:kind:role:collections:hash (docs/http.md); its previous contents are still used`,
    ]);
    rmSync(file);
    expect(await store.verifyToken(second)).toBeUndefined();
    expect(errors[1]).toContain('cannot be read (ENOENT)');
  });

  it('refuses to start with a missing or malformed file, or a name in both files', async () => {
    expect(() => credentialStore({ file: join(dir, 'missing') })).toThrow(/ENOENT/);
    const bad = join(dir, 'bad');
    writeFileSync(bad, 'alice:plaintext-password\n');
    expect(() => credentialStore({ file: bad })).toThrow(/bad line 1/);
    const named = join(dir, 'twice-named');
    const legacy = join(dir, 'twice-legacy');
    const hash = await hashPassword('x');
    writeFileSync(named, `ann:basic:submit::${hash}\n`);
    writeFileSync(legacy, `ann:${hash}\n`);
    expect(() => credentialStore({ file: named, basicFile: legacy })).toThrow(/"ann" is named both/);
  });
});
