/**
 * Imports an ES module by specifier or file URL. A module of its own: the CLI's bundle, which V8
 * compiles from its code cache and which cannot run `import()` itself, loads this file from
 * outside the bundle (scripts/bundle-cli.mjs).
 */
export function importModule(specifier: string): Promise<unknown> {
  return import(specifier);
}
