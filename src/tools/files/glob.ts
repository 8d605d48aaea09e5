import picomatch from 'picomatch';

/** Dotfiles included, no extglobs: the same for every file tool. */
const globOptions: picomatch.PicomatchOptions = { dot: true, noextglob: true };

/**
 * Compiles a glob argument the same way for every file tool. The test is the one picomatch's
 * own matcher makes (an empty path never matches, the glob's own text always does, otherwise
 * its regular expression decides), without the result object that matcher builds for every
 * path it is given: a walk tests every entry of a tree.
 */
export function compileGlob(glob: string): (relative: string) => boolean {
  const regex = picomatch.makeRe(glob, globOptions);
  return (relative) => relative !== '' && (relative === glob || regex.test(relative));
}
