import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIntakeError } from '../../../src/steps/intake-errors.js';
import { isInside, joinInside, safeRelativePath } from '../../../src/steps/workdir/safe-path.js';

describe('safe relative paths', () => {
  it.each([
    ['a.txt', 'a.txt'],
    ['dir/sub/a.txt', 'dir/sub/a.txt'],
    ['./dir//a.txt', 'dir/a.txt'],
    ['dir/./a..b', 'dir/a..b'],
    ['..hidden', '..hidden'],
  ])('keeps %j as %j', (name, expected) => {
    expect(safeRelativePath(name)).toBe(expected);
  });

  it.each([
    ['/etc/passwd', 'absolute'],
    ['\\windows\\x', 'absolute'],
    ['C:/x', 'absolute'],
    ['../x', '".." segment'],
    ['a/../../x', '".." segment'],
    ['a\\..\\..\\x', '".." segment'],
    ['..', '".." segment'],
    ['', 'names no file'],
    ['./', 'names no file'],
    ['a\0b', 'NUL'],
  ])('refuses %j (%s)', (name, why) => {
    let caught: unknown;
    try {
      safeRelativePath(name, 'nfo:fileName');
    } catch (err) {
      caught = err;
    }
    expect(isIntakeError(caught, 'PATH_UNSAFE')).toBe(true);
    expect((caught as Error).message).toContain(`nfo:fileName "${name}" is not allowed`);
    expect((caught as Error).message).toContain(why);
  });

  it('anything it accepts stays inside the directory it is joined to', () => {
    const segment = fc.oneof(
      fc.constantFrom('..', '.', '', 'a', '/', '\\', 'C:'),
      fc.string({ maxLength: 6 }),
    );
    const name = fc.array(segment, { maxLength: 6 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(name, (candidate) => {
        let safe: string;
        try {
          safe = safeRelativePath(candidate);
        } catch (err) {
          return isIntakeError(err, 'PATH_UNSAFE');
        }
        const target = joinInside('/work/dir', safe);
        return isInside('/work/dir', target) && target !== '/work/dir';
      }),
      { numRuns: 2000 },
    );
  });

  it('isInside tells a subdirectory from a sibling with the same prefix', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
    expect(isInside('/a/b', '/a/b/..x')).toBe(true);
  });

  it('joinInside refuses a path that resolves outside or onto the directory', () => {
    expect(() => joinInside('/a/b', '../c')).toThrow(/outside/);
    expect(() => joinInside('/a/b', '.')).toThrow(/outside/);
    expect(joinInside('/a/b', 'c/d')).toBe('/a/b/c/d');
  });
});
