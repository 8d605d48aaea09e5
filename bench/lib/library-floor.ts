import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './environment.js';
import { runtimeBundleOptions } from '../../scripts/runtime-bundle.mjs';

/**
 * What `rho run` cannot start faster than with its pinned libraries: a script that loads
 * oclif's entry, zod and yaml and uses each once (a schema parses a parsed YAML document),
 * bundled exactly as the CLI is and loaded the same way, through the compile cache (kept in
 * `dir`, filled by the first run). Returns the path of the script to run with node.
 */
export async function writeLibraryFloor(dir: string): Promise<string> {
  const entry = path.join(dir, 'library-floor-entry.mjs');
  const bundle = path.join(dir, 'library-floor.cjs');
  const launcher = path.join(dir, 'library-floor-launcher.cjs');
  await writeFile(
    entry,
    [
      "import { execute } from '@oclif/core';",
      "import { z } from 'zod';",
      "import { parse } from 'yaml';",
      "if (typeof execute !== 'function') throw new Error('oclif has no execute');",
      "z.strictObject({ version: z.literal(1), name: z.string() }).parse(parse('version: 1\\nname: floor\\n'));",
      '',
    ].join('\n'),
  );
  await build(runtimeBundleOptions(repoRoot, { entryPoints: [entry], outfile: bundle, legalComments: 'none' }));
  const loader = path.join(repoRoot, 'dist', 'cli', 'compile-cache.cjs');
  await writeFile(
    launcher,
    `const { requireWithCompileCache } = require(${JSON.stringify(loader)});\nrequireWithCompileCache(${JSON.stringify(bundle)}, ${JSON.stringify(path.join(dir, 'compile-cache'))});\n`,
  );
  return launcher;
}
