import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, temporaryDirectories } from '../support/cli.js';
import { codeBlocks, docPage } from '../support/docs.js';

/** One example of the guide: its program, and what the guide says it prints. */
interface Example {
  name: string;
  line: number;
  program: string;
  prints: string;
}

const guide = docPage('docs/embedding.md');

/** Every ```ts block that starts with `// example: NAME`, each followed by the ```text block of its output. */
function examples(markdown: string): Example[] {
  const blocks = codeBlocks(markdown);
  return blocks.flatMap((block, index) => {
    const name = /^\/\/ example: ([\w-]+)\n/.exec(block.body)?.[1];
    if (block.lang !== 'ts' || name === undefined) return [];
    const output = blocks[index + 1];
    if (output?.lang !== 'text') throw new Error(`docs/embedding.md:${block.line}: example ${name} is not followed by the text block of its output`);
    return [{ name, line: block.line, program: block.body, prints: output.body }];
  });
}

const temp = temporaryDirectories('rho-guide-');
let project = '';
let compiled: { exitCode: number | undefined; output: string };

/** A project that installed rho: the examples, compiled together by tsc against the built package's types. */
beforeAll(async () => {
  project = await temp.make();
  await mkdir(path.join(project, 'node_modules', '@types'), { recursive: true });
  await symlink(repoRoot, path.join(project, 'node_modules', 'rho-cli'));
  await symlink(path.join(repoRoot, 'node_modules', '@types', 'node'), path.join(project, 'node_modules', '@types', 'node'));
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, outDir: 'out', types: ['node'], skipLibCheck: true },
      include: ['*.ts'],
    }),
  );
  for (const example of examples(guide)) await writeFile(path.join(project, `${example.name}.ts`), example.program);
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await execa('node', [tsc, '-p', project], { reject: false });
  compiled = { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}` };
}, 120_000);
afterAll(() => temp.removeAll());

describe('the embedding guide (docs/embedding.md)', () => {
  it('is linked from the README', () => {
    expect(docPage('README.md')).toContain('(docs/embedding.md)');
  });

  it('has an example for every concept it explains, each with a name of its own', () => {
    const names = examples(guide).map((example) => example.name);
    expect(new Set(names).size).toBe(names.length);
    for (const concept of [
      'first-host',
      'exclusive-tool',
      'resource-aware-tool',
      'async-tool',
      'approver',
      'scripted-approvals',
      'gates',
      'questions',
      'events',
      'observers',
      'start-respond-cancel',
      'reserve-submit',
      'result-rewriter',
      'confinement',
    ]) {
      expect(names).toContain(concept);
    }
  });

  it('hosts a tool with a policy and an approver in at most 20 lines', () => {
    const first = examples(guide).find((example) => example.name === 'first-host')!;
    const lines = first.program.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('//'));
    expect(lines.length).toBeLessThanOrEqual(20);
  });

  it('compiles every example against the built package, strictly', () => {
    expect(compiled.exitCode, compiled.output).toBe(0);
  });

  // Each example runs in a workspace of its own and prints what the guide shows.
  it.concurrent.each(examples(guide))('runs the example $name (line $line) and prints what the guide shows', { timeout: 120_000 }, async ({ name }) => {
    const program = path.join(project, 'out', `${name}.js`);
    const workspace = await temp.make();
    const ran = await execa('node', [program], { cwd: workspace, reject: false, timeout: 60_000, env: { NO_COLOR: '1' } });
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(`${ran.stdout}\n`).toBe(examples(guide).find((example) => example.name === name)!.prints);
  });
});
