import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../../src/auth/password-hash.js';

/** The one-liner of docs/http.md ("HTTP basic credentials"), the password on stdin. */
const ONE_LINER =
  'const c=require("node:crypto");const s=c.randomBytes(16);' +
  'const k=c.scryptSync(require("node:fs").readFileSync(0,"utf8").replace(/\\n$/,""),s,32,{N:16384,r:8,p:1});' +
  'console.log(process.argv[1]+":scrypt$16384$8$1$"+s.toString("base64")+"$"+k.toString("base64"))';

describe('password hashes (scrypt) of basic users', () => {
  it('verifies a password against its hash and refuses another, an unknown user (no hash) too', async () => {
    const stored = await hashPassword('s3cret:with colon');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('s3cret');
    const hash = parsePasswordHash(stored);
    expect(await verifyPassword('s3cret:with colon', hash)).toBe(true);
    expect(await verifyPassword('s3cret', hash)).toBe(false);
    expect(await verifyPassword('s3cret:with colon', undefined)).toBe(false);
  });

  it("takes the hash the docs' one-liner makes", async () => {
    const line = execFileSync(process.execPath, ['-e', ONE_LINER, 'bob'], { input: 'two\n' })
      .toString()
      .trim();
    expect(await verifyPassword('two', parsePasswordHash(line.slice('bob:'.length)))).toBe(true);
  });

  it('refuses what is not a hash, or asks for an unreasonable cost', () => {
    expect(parsePasswordHash('plaintext')).toBeUndefined();
    expect(parsePasswordHash('scrypt$3$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==')).toBeUndefined();
    expect(parsePasswordHash(`scrypt$${2 ** 21}$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==`)).toBeUndefined();
  });
});
