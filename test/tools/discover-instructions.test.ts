import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maxInstructionBytes } from '../../src/tools/discover-instructions.js';
import { dataOf, HostHarness } from './host-harness.js';

let harness: HostHarness | undefined;
const extraDirs: string[] = [];
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(extraDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspaceWith(allow: readonly string[], files: Record<string, string>): Promise<HostHarness> {
  harness = await HostHarness.create({ allow });
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(harness.root, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return harness;
}

interface Sources {
  sources: { path: string; content: string; truncated: boolean }[];
}

const tree = {
  'AGENTS.md': 'root agents',
  'CLAUDE.md': 'root claude',
  'README.md': 'not instructions',
  'packages/b/AGENTS.md': 'b agents',
  'packages/a/AGENTS.md': 'a agents',
  'docs/CLAUDE.md': 'docs claude',
  '.git/AGENTS.md': 'hidden',
  'node_modules/dep/AGENTS.md': 'dependency',
  'deep/er/still/deeper/AGENTS.md': 'too deep for the default',
};

describe('discover_instructions', () => {
  it('finds instruction files breadth-first from the root, skipping dot-directories and node_modules', async () => {
    await workspaceWith(['instructions'], tree);
    const result = await harness!.invoke('discover_instructions', {});
    expect(dataOf<Sources>(result).sources).toEqual([
      { path: 'AGENTS.md', content: 'root agents', truncated: false },
      { path: 'CLAUDE.md', content: 'root claude', truncated: false },
      { path: 'docs/CLAUDE.md', content: 'docs claude', truncated: false },
      { path: 'packages/a/AGENTS.md', content: 'a agents', truncated: false },
      { path: 'packages/b/AGENTS.md', content: 'b agents', truncated: false },
    ]);
    expect(result.output?.metadata).toMatchObject({
      sources: ['AGENTS.md', 'CLAUDE.md', 'docs/CLAUDE.md', 'packages/a/AGENTS.md', 'packages/b/AGENTS.md'],
      limited: true,
    });
    expect(result.output?.text).toBe('included: AGENTS.md, CLAUDE.md, docs/CLAUDE.md, packages/a/AGENTS.md, packages/b/AGENTS.md');
  });

  it('authorizes every file as instructions before reading it', async () => {
    await workspaceWith(['instructions'], tree);
    await harness!.invoke('discover_instructions', { max_depth: 0 });
    const decisions = harness!.events.filter((event) => event.type === 'approval_decided');
    expect(decisions.map((event) => event.type === 'approval_decided' && [event.class, event.result])).toEqual([
      ['instructions', 'allow'],
      ['instructions', 'allow'],
    ]);
  });

  it('is refused without the instructions class, whatever read allows', async () => {
    await workspaceWith(['read', 'skill'], tree);
    const result = await harness!.invoke('discover_instructions', {});
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toMatch(/--allow '?instructions/);
    expect(JSON.stringify(result)).not.toContain('root agents');
  });

  it('honours max_depth and max_files and says the walk was limited', async () => {
    await workspaceWith(['instructions'], tree);
    const shallow = await harness!.invoke('discover_instructions', { max_depth: 1 });
    expect(dataOf<Sources>(shallow).sources.map((source) => source.path)).toEqual(['AGENTS.md', 'CLAUDE.md', 'docs/CLAUDE.md']);
    const deep = await harness!.invoke('discover_instructions', { max_depth: 4 });
    expect(dataOf<Sources>(deep).sources.map((source) => source.path)).toContain('deep/er/still/deeper/AGENTS.md');
    const few = await harness!.invoke('discover_instructions', { max_files: 2 });
    expect(dataOf<Sources>(few).sources).toHaveLength(2);
    expect(few.output?.metadata?.['limited']).toBe(true);
  });

  it('leaves out instruction files that link outside the workspace, and lists them as skipped', async () => {
    await workspaceWith(['instructions', 'outside'], { 'AGENTS.md': 'inside' });
    const outside = await mkdtemp(path.join(os.tmpdir(), 'rho-outside-'));
    extraDirs.push(outside);
    await writeFile(path.join(outside, 'CLAUDE.md'), 'outside text');
    await symlink(path.join(outside, 'CLAUDE.md'), path.join(harness!.root, 'CLAUDE.md'));
    const result = await harness!.invoke('discover_instructions', {});
    expect(dataOf<Sources>(result).sources.map((source) => source.path)).toEqual(['AGENTS.md']);
    expect(JSON.stringify(result.output?.data)).not.toContain('outside text');
    expect(result.output?.metadata?.['skipped']).toEqual([{ path: 'CLAUDE.md', reason: expect.any(String) }]);
  });

  it('follows links only to other instruction files, and includes each file once', async () => {
    await workspaceWith(['instructions'], { 'AGENTS.md': 'shared rules', '.env': 'TOKEN=s3cret', 'sub/keep.txt': '' });
    await symlink(path.join(harness!.root, 'AGENTS.md'), path.join(harness!.root, 'CLAUDE.md'));
    await symlink(path.join(harness!.root, '.env'), path.join(harness!.root, 'sub/AGENTS.md'));
    const result = await harness!.invoke('discover_instructions', {});
    expect(dataOf<Sources>(result).sources.map((source) => source.path)).toEqual(['AGENTS.md']);
    expect(JSON.stringify(result.output)).not.toContain('s3cret');
    expect(result.output?.metadata?.['skipped']).toEqual([
      { path: 'CLAUDE.md', reason: 'it is the same file as AGENTS.md' },
      { path: 'sub/AGENTS.md', reason: 'it links to a file that is not an instruction file' },
    ]);
  });

  it('bounds each file and marks it truncated', async () => {
    await workspaceWith(['instructions'], { 'AGENTS.md': 'x'.repeat(maxInstructionBytes + 10) });
    const [source] = dataOf<Sources>(await harness!.invoke('discover_instructions', {})).sources;
    expect(source?.content).toHaveLength(maxInstructionBytes);
    expect(source?.truncated).toBe(true);
  });

  it('returns no sources (and asks for nothing) in a workspace without instruction files', async () => {
    await workspaceWith([], { 'README.md': 'hello' });
    const result = await harness!.invoke('discover_instructions', {});
    expect(dataOf<Sources>(result).sources).toEqual([]);
    expect(result.output?.text).toBe('no instruction files found');
  });
});
