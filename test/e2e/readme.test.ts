import { cp, mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeTempDir, repoRoot, runCli } from '../support/cli.js';

interface Block {
  lang: string;
  body: string;
  line: number;
}

function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  for (const match of markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ lang: match[1]!, body: match[2]!, line: markdown.slice(0, match.index).split('\n').length });
  }
  return blocks;
}

/** Splits a shell command line into words, honouring single and double quotes. */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

interface Command {
  args: string[];
  exitCode: number;
  source: string;
}

/** `npx rho ...` lines of a block; `npm ci &&` is the install step, `npm test` is this suite itself. */
function rhoCommands(lines: readonly string[], where: string): Command[] {
  const commands: Command[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line === 'npm test') continue;
    const [command, comment] = line.replace(/^npm ci && /, '').split(/\s+#\s*/);
    const parts = words(command!);
    if (parts[0] !== 'npx' || parts[1] !== 'rho') throw new Error(`${where}: not a rho command: ${line}`);
    const exit = /^exit (\d+)$/.exec(comment ?? '');
    commands.push({ args: parts.slice(2), exitCode: exit ? Number(exit[1]) : 0, source: line });
  }
  return commands;
}

let readme: string;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  ({ dir, cleanup } = await makeTempDir('rho-readme-'));
  await cp(path.join(repoRoot, 'workflows'), path.join(dir, 'workflows'), { recursive: true });
  await cp(path.join(repoRoot, 'README.md'), path.join(dir, 'README.md'));
  // What a project that installed rho has: the package itself, and what its example MCP server uses.
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(repoRoot, path.join(dir, 'node_modules', 'rho'));
  for (const dependency of ['@modelcontextprotocol', 'zod']) {
    await symlink(path.join(repoRoot, 'node_modules', dependency), path.join(dir, 'node_modules', dependency));
  }
});
afterAll(async () => {
  await cleanup();
  await rm('/tmp/rho-granted-root-example', { recursive: true, force: true });
});

describe('README examples', () => {
  it('shows the install-and-run command and the test command', () => {
    expect(readme).toContain('npm ci && npx rho run workflows/hello.yml');
    expect(readme).toMatch(/```sh\nnpm test\n```/);
  });

  it('quotes every workflow, hook and library excerpt from a file that tests run', async () => {
    const excerpts = codeBlocks(readme).filter((block) => ['yaml', 'js', 'toml'].includes(block.lang));
    expect(excerpts.length).toBeGreaterThan(5);
    for (const block of excerpts) {
      const [marker, ...rest] = block.body.split('\n');
      const file = /^(?:#|\/\/) (\S+)$/.exec(marker ?? '')?.[1];
      expect(file, `README.md:${block.line}: an excerpt starts with the file it comes from`).toBeDefined();
      if (file!.startsWith('.github/')) continue;
      const text = await readFile(path.join(repoRoot, file!), 'utf8');
      expect(text.includes(rest.join('\n')), `README.md:${block.line}: excerpt of ${file} is out of date`).toBe(true);
    }
  });

  it('runs every rho command, in order, with the exit code it shows', { timeout: 300_000 }, async () => {
    const commands: Command[] = [];
    for (const block of codeBlocks(readme)) {
      if (block.lang === 'sh') commands.push(...rhoCommands(block.body.split('\n'), `README.md:${block.line}`));
      if (block.lang === 'yaml' && block.body.startsWith('# .github/')) {
        const job = parse(block.body) as { jobs: Record<string, { steps: { run?: string }[] }> };
        const runs = Object.values(job.jobs).flatMap((entry) => entry.steps.flatMap((step) => (step.run ? [step.run] : [])));
        commands.push(...rhoCommands(runs.filter((run) => run !== 'npm ci'), `README.md:${block.line}`));
      }
    }
    expect(commands.length).toBeGreaterThan(10);
    for (const command of commands) {
      const result = await runCli(command.args, { cwd: dir, timeoutMs: 60_000 });
      expect(result.exitCode, `${command.source}\n${result.stdout}\n${result.stderr}`).toBe(command.exitCode);
    }
    // The CI job's reports exist where the README says.
    expect((await stat(path.join(dir, 'reports/rho.xml'))).isFile()).toBe(true);
    expect((await stat(path.join(dir, 'reports/events.ndjson'))).isFile()).toBe(true);
  });
});
