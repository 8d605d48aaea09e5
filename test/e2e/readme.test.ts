import { cp, mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeTempDir, repoRoot, runCli } from '../support/cli.js';
import { codeBlocks, docPages } from '../support/docs.js';

/** Splits a shell command line into words, honouring single and double quotes; `${{ … }}` stays inside its word. */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|((?:\$\{\{[^}]*\}\}|\S)+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
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
    // A CI step may capture a command's output: echo "name=$(npx rho ...)" >> "$GITHUB_OUTPUT".
    const captured = /\$\((npx rho [^)]*)\)/.exec(line)?.[1];
    const [command, comment] = (captured ?? line).replace(/^npm ci && /, '').split(/\s+#\s*/);
    const parts = words(command!);
    if (parts[0] !== 'npx' || parts[1] !== 'rho') throw new Error(`${where}: not a rho command: ${line}`);
    const exit = /^exit (\d+)$/.exec(comment ?? '');
    commands.push({ args: parts.slice(2), exitCode: exit ? Number(exit[1]) : 0, source: line });
  }
  return commands;
}

const pages = docPages();
const readme = pages.find((page) => page.file === 'README.md')!.text;
/** Every code block of the README and of the pages under docs/, each named by its page and line. */
const blocks = pages.flatMap((page) => codeBlocks(page.text).map((block) => ({ ...block, where: `${page.file}:${block.line}` })));
const cleanups: (() => Promise<void>)[] = [];

/** A directory laid out like a project that installed rho: the example workflows, the README, the package. */
async function projectDirectory(): Promise<string> {
  const { dir, cleanup } = await makeTempDir('rho-readme-');
  cleanups.push(cleanup);
  await cp(path.join(repoRoot, 'workflows'), path.join(dir, 'workflows'), { recursive: true });
  await cp(path.join(repoRoot, 'README.md'), path.join(dir, 'README.md'));
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(repoRoot, path.join(dir, 'node_modules', 'rho-cli'));
  // What the example MCP server imports, as a project using the MCP SDK has it.
  for (const dependency of ['@modelcontextprotocol', 'zod']) {
    await symlink(path.join(repoRoot, 'node_modules', dependency), path.join(dir, 'node_modules', dependency));
  }
  return dir;
}

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await rm('/tmp/rho-granted-root-example', { recursive: true, force: true });
});

/** Each runnable block of the documentation, with its commands in order. */
function runnableBlocks(): { name: string; commands: Command[] }[] {
  const runnable: { name: string; commands: Command[] }[] = [];
  for (const { where, ...block } of blocks) {
    if (block.lang === 'sh') {
      const commands = rhoCommands(block.body.split('\n'), where);
      if (commands.length > 0) runnable.push({ name: where, commands });
    }
    if (block.lang === 'yaml' && block.body.startsWith('# .github/')) {
      const job = parse(block.body) as { jobs: Record<string, { steps: { run?: string }[] }> };
      const runs = Object.values(job.jobs).flatMap((entry) => entry.steps.flatMap((step) => (step.run ? [step.run] : [])));
      runnable.push({
        name: `${where} (CI job)`,
        commands: rhoCommands(
          runs.filter((run) => run !== 'npm ci'),
          where,
        ),
      });
    }
  }
  return runnable;
}

describe('the examples of the README and docs/', () => {
  it('shows the install-and-run command and the test command', () => {
    expect(readme).toContain('npm ci && npx rho run workflows/hello.yml');
    expect(readme).toMatch(/```sh\nnpm test\n```/);
  });

  it('quotes every workflow, hook and library excerpt from a file that tests run', async () => {
    const excerpts = blocks.filter((block) => ['yaml', 'js', 'toml'].includes(block.lang));
    expect(excerpts.length).toBeGreaterThan(5);
    for (const block of excerpts) {
      const [marker, ...rest] = block.body.split('\n');
      const file = /^(?:#|\/\/) (\S+)$/.exec(marker ?? '')?.[1];
      expect(file, `${block.where}: an excerpt starts with the file it comes from`).toBeDefined();
      if (file!.startsWith('.github/')) continue;
      const text = await readFile(path.join(repoRoot, file!), 'utf8');
      expect(text.includes(rest.join('\n')), `${block.where}: excerpt of ${file} is out of date`).toBe(true);
    }
  });

  it('has rho commands to run', () => {
    expect(runnableBlocks().flatMap((block) => block.commands).length).toBeGreaterThan(10);
  });

  // Each block runs in a project of its own, its commands in order, with the exit code it shows.
  it.concurrent.each(runnableBlocks())('runs the commands of $name', { timeout: 180_000 }, async ({ name, commands }) => {
    const dir = await projectDirectory();
    // A CI job's `${{ matrix.NAME }}` is the first cell an earlier `rho matrix` printed, as on the machine that runs it.
    let cell: Record<string, unknown> = {};
    for (const command of commands) {
      const args = command.args.map((arg) => arg.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, name: string) => String(cell[name])));
      const result = await runCli(args, { cwd: dir, timeoutMs: 90_000 });
      if (args[0] === 'matrix') cell = (JSON.parse(result.stdout) as { include: Record<string, unknown>[] }).include[0]!;
      expect(result.exitCode, `${command.source}\n${result.stdout}\n${result.stderr}`).toBe(command.exitCode);
    }
    if (name.endsWith('(CI job)')) {
      // The CI job's reports exist where the README says.
      expect((await stat(path.join(dir, 'reports/rho.xml'))).isFile()).toBe(true);
      expect((await stat(path.join(dir, 'reports/events.ndjson'))).isFile()).toBe(true);
    }
  });
});
