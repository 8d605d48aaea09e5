import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globBase } from '../../src/workflow/up-to-date/file-set.js';

/** What globBase answered before it skipped picomatch's scanner for literal paths. */
function scannedBase(glob: string): { base: string; literal: boolean } {
  const scanned = picomatch.scan(glob);
  return { base: scanned.isGlob ? scanned.base || '.' : glob, literal: !scanned.isGlob };
}

describe('globBase', () => {
  it('reads literal paths and globs as picomatch scans them', () => {
    for (const glob of [
      'src/1.txt',
      'out/',
      'a b/c.txt',
      'x,y',
      '#a',
      'é/ü.txt',
      'src/*.ts',
      'src/**',
      'a/{b,c}/d',
      'a/[ab].txt',
      'a/?.txt',
      '!x',
      'a/@(b|c)',
      'a/+(b)',
      'a\\*b',
      'a(b)',
    ]) {
      expect(globBase(glob), glob).toEqual(scannedBase(glob));
    }
    expect(globBase('src/1.txt')).toEqual({ base: 'src/1.txt', literal: true });
    expect(globBase('src/**/*.ts')).toEqual({ base: 'src', literal: false });
  });

  it('agrees with picomatch on any pattern made of path and glob characters', () => {
    const character = fc.constantFrom(...'ab/.-_ ,#~é*?[]{}()!+@|\\'.split(''));
    fc.assert(
      fc.property(
        fc.array(character, { maxLength: 16 }).map((chars) => chars.join('')),
        (glob) => {
          expect(globBase(glob)).toEqual(scannedBase(glob));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
