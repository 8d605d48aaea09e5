import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './cli.js';

/** A fenced code block of a page: its language, its text and the line its fence opens on. */
export interface CodeBlock {
  lang: string;
  body: string;
  line: number;
}

/** A page of the user documentation: its path relative to the repository, and its text. */
export interface DocPage {
  file: string;
  text: string;
}

/** The user documentation: the README (the front page) and every page under docs/. */
export function docPages(): DocPage[] {
  const pages = readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages].map((file) => ({ file, text: readFileSync(path.join(repoRoot, file), 'utf8') }));
}

/** The page `file` (relative to the repository). */
export function docPage(file: string): string {
  return readFileSync(path.join(repoRoot, file), 'utf8');
}

export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ lang: match[1]!, body: match[2]!, line: markdown.slice(0, match.index).split('\n').length });
  }
  return blocks;
}

/** The text outside fenced code blocks, line by line (`null` for a line inside one). */
function proseLines(markdown: string): (string | null)[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return null;
    }
    return fenced ? null : line;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, blanks as hyphens, a repeat numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = line === null ? undefined : /^#{1,6} (.+)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every `[text](target)` link of the prose whose target is not a URL, with its line. */
export function relativeLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  proseLines(markdown).forEach((line, index) => {
    if (line === null) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/.test(match[1]!)) links.push({ target: match[1]!, line: index + 1 });
    }
  });
  return links;
}
