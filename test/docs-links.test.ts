import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.js';
import { docPages, headingAnchors, relativeLinks } from './support/docs.js';

describe('the documentation’s links', () => {
  it('each point at a file that exists and, into a page, at one of its headings', () => {
    const broken: string[] = [];
    for (const page of docPages()) {
      for (const { target, line } of relativeLinks(page.text)) {
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? path.join(repoRoot, page.file) : path.resolve(path.dirname(path.join(repoRoot, page.file)), file);
        const where = `${page.file}:${line}: ${target}`;
        if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only files of the repository that exist (`src/…`, `workflows/…` and the other top folders)', () => {
    const missing: string[] = [];
    for (const page of docPages()) {
      for (const match of page.text.matchAll(/`((?:bench|bin|commands|docs|schemas|scripts|src|test|workflows)\/[^`\s*]+)`/g)) {
        const file = match[1]!.split('#')[0]!;
        if (!existsSync(path.join(repoRoot, file))) missing.push(`${page.file}: ${file}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('lead from the README to every page under docs/', () => {
    const readme = docPages().find((page) => page.file === 'README.md')!;
    const linked = new Set(relativeLinks(readme.text).map((link) => link.target.split('#')[0]));
    for (const page of docPages().filter((page) => page.file !== 'README.md')) expect(linked, page.file).toContain(page.file);
  });

  it('are checked: a heading’s anchor is GitHub’s', () => {
    expect([...headingAnchors('# Serving tasks to AI agents: `rho mcp serve`\n## What `defineTool` checks\n## A\n## A\n```sh\n# not a heading\n```\n')]).toEqual([
      'serving-tasks-to-ai-agents-rho-mcp-serve',
      'what-definetool-checks',
      'a',
      'a-1',
    ]);
  });
});
