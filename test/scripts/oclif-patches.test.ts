import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types.
import { applyPatch, patches } from '../../scripts/oclif-patches.mjs';

interface Patch {
  file: string;
  replacements: { from: string; to: string }[];
}

const oclifCore = path.dirname(createRequire(import.meta.url).resolve('@oclif/core/package.json'));
const installed = (patch: Patch) => readFile(path.join(oclifCore, patch.file), 'utf8');

describe('the bundle-time patches of oclif', () => {
  it.each((patches as Patch[]).map((patch) => [patch.file, patch] as const))('apply to the installed @oclif/core/%s', async (_file, patch) => {
    const patched = applyPatch(patch, await installed(patch));
    for (const { from, to } of patch.replacements) {
      expect(patched).toContain(to);
      // A replacement that wraps its line keeps it; every other one removes it.
      if (!to.includes(from)) expect(patched).not.toContain(from);
    }
  });

  it('fail naming the file and the line when oclif no longer has it', async () => {
    const patch = (patches as Patch[]).find((each) => each.file === 'lib/help/util.js')!;
    const changed = (await installed(patch)).replace('return ejs_1.default.render(t, context);', 'return renderTemplate(t, context);');
    expect(() => applyPatch(patch, changed)).toThrow('@oclif/core/lib/help/util.js: expected one "return ejs_1.default.render(t, context);" to replace');
  });
});
