import { describe, expect, it } from 'vitest';
import { basicCredentialsOf } from '../../../src/http/merritt/basic-auth.js';

describe("HTTP basic credentials of Merritt's front door", () => {
  it('reads user and password from an Authorization header, the password with its colons', () => {
    const header = `Basic ${Buffer.from('ann:a:b').toString('base64')}`;
    expect(basicCredentialsOf(header)).toEqual({ user: 'ann', password: 'a:b' });
    expect(basicCredentialsOf('Bearer x')).toBeUndefined();
    expect(basicCredentialsOf(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});
