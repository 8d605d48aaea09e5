import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../../src/host/workspace.js';
import { TreeWalk, type WalkedKind } from '../../../src/tools/files/walk.js';

interface Seen {
  relative: string;
  kind: WalkedKind;
  size?: number;
}

/** The walk's meaning with no shortcut: every entry described by its own lstat, directories read by path. */
function referenceWalk(root: string, withheld: (relative: string) => boolean): Seen[] {
  const seen: Seen[] = [];
  const visit = (relative: string) => {
    for (const name of readdirSync(path.join(root, relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (withheld(child)) continue;
      const info = lstatSync(path.join(root, child));
      const kind: WalkedKind = info.isSymbolicLink() ? 'symlink' : info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
      seen.push({ relative: child, kind, ...(kind === 'file' && { size: info.size }) });
      if (kind === 'directory' && name !== '.git' && name !== 'node_modules') visit(child);
    }
  };
  visit('');
  return seen;
}

async function walked(workspace: Workspace, root: string, withheld: (relative: string) => boolean, describeFiles: boolean): Promise<Seen[]> {
  const walk = new TreeWalk(await workspace.resolveForRead('.'), {
    recursive: true,
    signal: new AbortController().signal,
    withheld: (absolute) => withheld(path.relative(root, absolute).split(path.sep).join('/')),
    describeFiles,
  });
  const seen: Seen[] = [];
  for await (const entry of walk.entries()) {
    seen.push({ relative: entry.relative, kind: entry.kind, ...(entry.kind === 'file' && describeFiles && { size: entry.info?.size }) });
  }
  return seen;
}

type Node = { kind: 'file'; size: number } | { kind: 'directory'; children: [string, Node][] } | { kind: 'link'; to: 'file' | 'directory' | 'nothing' } | { kind: 'fifo' };

const name = fc.constantFrom('a', 'b', 'B', 'a.ts', '.env', 'node_modules', '.git', 'café', 'z-1', '_');
const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 40 }).map((size) => ({ kind: 'file' as const, size })),
    fc.uniqueArray(fc.tuple(name, tie('node')), { maxLength: 4, selector: ([key]) => key }).map((children) => ({ kind: 'directory' as const, children })),
    fc.constantFrom('file', 'directory', 'nothing').map((to) => ({ kind: 'link' as const, to: to as 'file' | 'directory' | 'nothing' })),
    fc.constant({ kind: 'fifo' as const }),
  ),
}));
const tree = fc.uniqueArray(fc.tuple(name, node), { minLength: 1, maxLength: 5, selector: ([key]) => key });

async function build(at: string, children: [string, Node][], targets: { file: string; directory: string }): Promise<void> {
  await mkdir(at, { recursive: true });
  for (const [child, entry] of children) {
    const where = path.join(at, child);
    if (entry.kind === 'file') await writeFile(where, 'x'.repeat(entry.size));
    else if (entry.kind === 'directory') await build(where, entry.children, targets);
    else if (entry.kind === 'fifo') execFileSync('mkfifo', [where]);
    else await symlink(entry.to === 'nothing' ? path.join(at, 'missing-target') : targets[entry.to], where);
  }
}

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-walk-property-')));
  await writeFile(path.join(base, 'target-file'), 'target');
  await mkdir(path.join(base, 'target-directory'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('a tree walk that takes kinds from the directory listing', () => {
  it('sees the entries, kinds and sizes an lstat of every entry sees, with and without describing files', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(tree, fc.array(fc.array(name, { minLength: 1, maxLength: 3 }), { maxLength: 3 }), async (children, withheldPaths) => {
        const root = path.join(base, `tree-${run++}`);
        await build(root, children, { file: path.join(base, 'target-file'), directory: path.join(base, 'target-directory') });
        const kept = new Set(withheldPaths.map((segments) => segments.join('/')));
        const withheld = (relative: string) => kept.has(relative);
        const expected = referenceWalk(root, withheld);
        const workspace = await Workspace.create(root);
        expect(await walked(workspace, root, withheld, true)).toEqual(expected);
        expect(await walked(workspace, root, withheld, false)).toEqual(expected.map(({ relative, kind }) => ({ relative, kind })));
        await rm(root, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
  });
});
