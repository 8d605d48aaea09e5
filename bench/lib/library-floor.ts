import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './environment.js';
import { runtimeBundleOptions } from '../../scripts/runtime-bundle.mjs';

/**
 * What `rho run` cannot start faster than with its pinned libraries: a script that loads
 * oclif's entry, zod and yaml and uses each once (a schema parses a parsed YAML document),
 * bundled and minified exactly as the CLI is. Returns the script's path.
 */
export async function writeLibraryFloor(dir: string): Promise<string> {
  const entry = path.join(dir, 'library-floor-entry.mjs');
  const outfile = path.join(dir, 'library-floor.mjs');
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
  await build(runtimeBundleOptions(repoRoot, { entryPoints: [entry], outfile, legalComments: 'none' }));
  return outfile;
}
