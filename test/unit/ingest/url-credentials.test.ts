import { describe, expect, it } from 'vitest';
import { redactUrl, splitCredentials } from '../../../src/steps/formats/url-credentials.js';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

describe('credentials in a URL', () => {
  it('become a Basic authorization and leave the URL that is requested', () => {
    expect(splitCredentials('https://alice:secret@example.org/obj/a.bin?x=1')).toEqual({
      url: 'https://example.org/obj/a.bin?x=1',
      authorization: basic('alice:secret'),
    });
  });

  it('are percent-decoded before they are sent', () => {
    const { authorization } = splitCredentials('http://al%20ice:p%40ss%3Aw%25rd@example.org/f');
    expect(authorization).toBe(basic('al ice:p@ss:w%rd'));
  });

  it('a stray percent sign in a password is sent as it is', () => {
    expect(splitCredentials('http://bob:50%zz@example.org/f').authorization).toBe(basic('bob:50%zz'));
  });

  it('a user name alone is sent with an empty password', () => {
    expect(splitCredentials('https://token123@example.org/f')).toEqual({
      url: 'https://example.org/f',
      authorization: basic('token123:'),
    });
  });

  it('a URL without credentials, or no URL at all, is requested exactly as given', () => {
    expect(splitCredentials('http://example.org')).toEqual({ url: 'http://example.org' });
    expect(splitCredentials('not a url')).toEqual({ url: 'not a url' });
  });
});

describe('a URL shown in messages and logs', () => {
  it('keeps the user name and hides the password', () => {
    expect(redactUrl('https://alice:secret@example.org/obj/a.bin')).toBe(
      'https://alice:***@example.org/obj/a.bin',
    );
  });

  it('hides a user name given alone, which is often a token', () => {
    expect(redactUrl('https://ghp_token@example.org/f')).toBe('https://***@example.org/f');
  });

  it('hides all of a password that contains an unencoded at sign', () => {
    expect(redactUrl('http://alice:p@ss@example.org/f')).toBe('http://alice:***@example.org/f');
    expect(splitCredentials('http://alice:p@ss@example.org/f').authorization).toBe(basic('alice:p@ss'));
  });

  it('is unchanged without credentials', () => {
    expect(redactUrl('http://example.org')).toBe('http://example.org');
    expect(redactUrl('file:///data/a.txt')).toBe('file:///data/a.txt');
  });

  it('hides the userinfo of something the URL parser refuses', () => {
    expect(redactUrl('http://alice:secret@exa mple.org/f')).toBe('http://***@exa mple.org/f');
    expect(redactUrl('no url here')).toBe('no url here');
  });
});
