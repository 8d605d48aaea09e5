import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pick, seededRandom } from './random.js';

export interface GeneratedTree {
  root: string;
  files: number;
  directories: number;
  /** Lines holding `needle`. */
  matchingLines: number;
}

/** The word some lines hold, and nothing else in the tree does. */
export const needle = 'needle_7f3a';

const words = ['const', 'return', 'import', 'export', 'function', 'value', 'alpha', 'beta', 'gamma', 'delta', '{', '}', '=>'];

/**
 * A seeded tree of `entries` entries (files and directories): three levels of 8 directories
 * each below the root, files spread over every level, sizes from one line to a few hundred
 * (most small, as in a source tree), and one line in 500 holding `needle`.
 */
export async function writeTree(root: string, entries: number): Promise<GeneratedTree> {
  const random = seededRandom(7);
  const directories: string[] = [root];
  for (let level = 0; level < 3; level++) {
    for (const parent of directories.filter((directory) => path.relative(root, directory).split(path.sep).filter(Boolean).length === level)) {
      for (let index = 0; index < 8 && directories.length - 1 < entries / 16; index++) directories.push(path.join(parent, `dir${index}`));
    }
  }
  for (const directory of directories) await mkdir(directory, { recursive: true });
  const files = entries - (directories.length - 1);
  let matchingLines = 0;
  for (let index = 0; index < files; index++) {
    const directory = directories[index % directories.length]!;
    const lines = 1 + Math.floor(random() ** 3 * 400);
    let text = '';
    for (let line = 0; line < lines; line++) {
      const matching = random() < 0.002;
      if (matching) matchingLines += 1;
      text += `${pick(random, words)} ${pick(random, words)} ${line}${matching ? ` ${needle}` : ''} ${pick(random, words)}\n`;
    }
    await writeFile(path.join(directory, `file${index}.${pick(random, ['ts', 'js', 'md', 'json'])}`), text);
  }
  return { root, files, directories: directories.length - 1, matchingLines };
}
