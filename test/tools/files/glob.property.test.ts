import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/tools/files/glob.js';

/** Path segments, with the characters a glob's regular expression treats specially. */
const segment = fc.constantFrom('a', 'b', 'ab', '.env', 'a.ts', 'b.md', '.', '..', '', 'a\nb', 'x\r', '\u2028', 'é', 'a b', '[a]', '{a,b}', '*', '!a', '(a)', '\\');
const relativePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));
const globSegment = fc.oneof(
  segment.filter((text) => text !== ''),
  fc.constantFrom('*', '**', '?', '[ab]', '[!a]', '{a,b}', 'a*', '*.ts', '*.{ts,md}', '@(a|b)', '!(a)', '+(a)', '\\*'),
);
const glob = fc.oneof(
  fc.array(globSegment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/')),
  globSegment.map((text) => `!${text}`),
  relativePath.filter((text) => text !== ''),
);

describe('compileGlob', () => {
  it("answers as picomatch's own matcher with the same options, for any glob and path", () => {
    fc.assert(
      fc.property(glob, fc.array(relativePath, { minLength: 1, maxLength: 8 }), (pattern, paths) => {
        const reference = picomatch(pattern, { dot: true, noextglob: true });
        const compiled = compileGlob(pattern);
        for (const candidate of paths) expect(compiled(candidate), `${JSON.stringify(pattern)} on ${JSON.stringify(candidate)}`).toBe(reference(candidate));
      }),
      { numRuns: 5000 },
    );
  });
});
