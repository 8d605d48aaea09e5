import picomatch from 'picomatch';

/** Compiles a glob argument the same way for every file tool (dotfiles included, no extglobs). */
export function compileGlob(glob: string): (relative: string) => boolean {
  return picomatch(glob, { dot: true, noextglob: true });
}
