import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  basicCredentials,
  basicCredentialsOf,
  hashPassword,
  parseCredentials,
} from '../../../src/http/merritt/basic-auth.js';

/** The one-liner of docs/http.md ("HTTP basic credentials"), the password on stdin. */
const ONE_LINER =
  'const c=require("node:crypto");const s=c.randomBytes(16);' +
  'const k=c.scryptSync(require("node:fs").readFileSync(0,"utf8").replace(/\\n$/,""),s,32,{N:16384,r:8,p:1});' +
  'console.log(process.argv[1]+":scrypt$16384$8$1$"+s.toString("base64")+"$"+k.toString("base64"))';

describe('HTTP basic credentials of the front door (MRTQ_BASIC_AUTH)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-basic-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies a password against its scrypt hash, refuses others and unknown users', async () => {
    const file = join(dir, 'users');
    writeFileSync(file, `# comment\n\nann:${await hashPassword('s3cret:with colon')}\n`);
    const credentials = basicCredentials(file);
    expect(await credentials.verify('ann', 's3cret:with colon')).toBe(true);
    expect(await credentials.verify('ann', 's3cret')).toBe(false);
    expect(await credentials.verify('bob', 's3cret:with colon')).toBe(false);
  });

  it("reads the file again when it changes, and the docs' one-liner makes a hash it takes", async () => {
    const file = join(dir, 'changing');
    writeFileSync(file, `ann:${await hashPassword('one')}\n`);
    const credentials = basicCredentials(file);
    expect(await credentials.verify('bob', 'two')).toBe(false);
    const line = execFileSync(process.execPath, ['-e', ONE_LINER, 'bob'], { input: 'two\n' })
      .toString()
      .trim();
    writeFileSync(file, `ann:${await hashPassword('one')}\n${line}\n`);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await credentials.verify('bob', 'two')).toBe(true);
  });

  it('refuses a malformed file naming the line, and a missing one at once', () => {
    expect(() => parseCredentials('ann:plaintext\n', 'users')).toThrow(/users line 1: expected user:scrypt/);
    expect(() =>
      parseCredentials('# ok\nann:scrypt$3$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==\n', 'users'),
    ).toThrow(/line 2/);
    expect(() => basicCredentials(join(dir, 'missing'))).toThrow(/ENOENT/);
  });

  it('reads user and password from an Authorization header, the password with its colons', () => {
    const header = `Basic ${Buffer.from('ann:a:b').toString('base64')}`;
    expect(basicCredentialsOf(header)).toEqual({ user: 'ann', password: 'a:b' });
    expect(basicCredentialsOf('Bearer x')).toBeUndefined();
    expect(basicCredentialsOf(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});
