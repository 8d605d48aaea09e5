import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.js';

/** The folder of the bubblewrap backend: the only place in src/ that knows bubblewrap. */
const bubblewrapFolder = 'src/tools/process/sandbox/bubblewrap/';

/** The one file that imports the backend: its registration. */
const registration = 'src/tools/process/sandbox/backends.ts';

/** Files outside the folder that may name bubblewrap, and why: text a person reads, not code that depends on it. */
const mayNameBubblewrap: Readonly<Record<string, string>> = {
  [registration]: 'registers the backend',
  'src/cli/run-flags.ts': "--sandbox's help names the backend rho confines with",
  'src/workflow/schema.ts': "policy.sandbox's description names the backend rho confines with",
};

async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(path.join(repoRoot, 'src'), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
}

/** Relative specifiers of static imports and re-exports (type-only included) and of `import()` of a literal. */
function relativeImports(text: string): string[] {
  const statics = [...text.matchAll(/^(?:import|export)[^'"`]*?from\s+['"](\.[^'"]+)['"]/gm)];
  const dynamics = [...text.matchAll(/\bimport\(\s*['"`](\.[^'"`$]+)['"`]\s*\)/g)];
  return [...statics, ...dynamics].map((match) => match[1]!);
}

describe('the confinement backend seam', () => {
  it('keeps bubblewrap in its folder: outside it only the registration imports it, and only text a person reads names it', async () => {
    const offenders: string[] = [];
    const named = new Set<string>();
    for (const file of await sourceFiles()) {
      if (file.startsWith(bubblewrapFolder)) continue;
      const text = await readFile(path.join(repoRoot, file), 'utf8');
      for (const specifier of relativeImports(text)) {
        const target = path.relative(repoRoot, path.resolve(repoRoot, path.dirname(file), specifier));
        if (`${target}/`.startsWith(bubblewrapFolder) && file !== registration) offenders.push(`${file} imports ${specifier}`);
      }
      if (/bwrap|bubblewrap/i.test(text)) {
        if (file in mayNameBubblewrap) named.add(file);
        else offenders.push(`${file} names bubblewrap`);
      }
    }
    expect(offenders).toEqual([]);
    // Each exception is still needed: one that no longer names bubblewrap comes off the list.
    expect([...named].sort()).toEqual(Object.keys(mayNameBubblewrap).sort());
  });
});
