import { describe, expect, it } from 'vitest';
import { parseMintAnswer } from '../../../src/steps/services/minter/ezid.js';
import { assertArk, isBelow, objectDirName, resolveInside } from '../../../src/steps/workdir/files.js';

describe('arks and paths', () => {
  it('accepts arks and names their store directory with : and / as _', () => {
    expect(objectDirName('ark:/13030/m5abc')).toBe('ark__13030_m5abc');
    expect(objectDirName('ark:99999/fk4x/part')).toBe('ark_99999_fk4x_part');
  });

  it.each([
    '',
    'doi:10.1/x',
    'ark:/99999/../../etc',
    'ark:/99999/a b',
    'ark:/99999/',
    'ark:/99999/x\\y',
    'ark:/9/./x',
  ])('refuses %j as an ark', (value) => {
    expect(() => assertArk(value)).toThrow(/is not an ark/);
  });

  it('parses EZID answers', () => {
    expect(parseMintAnswer('success: ark:/99999/fk4q23x\n')).toBe('ark:/99999/fk4q23x');
    expect(parseMintAnswer('success: ark:/99999/fk4q23x | doi:10.5072/X')).toBe('ark:/99999/fk4q23x');
    expect(parseMintAnswer('error: bad request - no such shoulder')).toBeUndefined();
    expect(parseMintAnswer('success: not-an-ark')).toBeUndefined();
  });

  it('keeps relative paths inside their root', () => {
    expect(resolveInside('/w/j', 'producer/a.txt')).toBe('/w/j/producer/a.txt');
    expect(() => resolveInside('/w/j', '../k/x')).toThrow(/leaves/);
    expect(() => resolveInside('/w/j', '/etc/passwd')).toThrow(/leaves/);
    expect(isBelow('/w', '/w/..x')).toBe(true);
    expect(isBelow('/w', '/w')).toBe(false);
    expect(isBelow('/w', '/wx/y')).toBe(false);
    expect(isBelow('/w/', '/w/a')).toBe(true);
    expect(isBelow('/w', '/w/a/../..')).toBe(false);
    expect(isBelow('/w', '/w/a/..')).toBe(false);
    expect(isBelow('/w/./j', '/w/j//k')).toBe(true);
    expect(isBelow('/', '/a')).toBe(true);
    expect(isBelow('/', '/')).toBe(false);
    expect(isBelow('w', `${process.cwd()}/w/a`)).toBe(true);
  });
});
