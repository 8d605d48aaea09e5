import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const dotenv = `# settings for the build
export GREETING="hello # not a comment"
SINGLE='kept $AS written'
PLAIN=plain value   # trailing comment
MULTI="line one
line two"
API_TOKEN=s3cr3t-token-value
`;

function flow(allow: string): string {
  return `version: 1
name: env-files
env_file: [.env, local.env]
env:
  FROM_FILE: "\${{ env.PLAIN }}!"
secrets: [API_TOKEN]
policy:
  allow: ${allow}
steps:
  - id: show
    tool: shell
    with: { script: 'printf "%s|%s|%s|%s|%s\\n" "$GREETING" "$SINGLE" "$FROM_FILE" "$OVERRIDE" "$MULTI" > out.txt; echo "token=$API_TOKEN"' }
`;
}

describe.concurrent('env files (end to end)', () => {
  it('loads dotenv files (quotes, comments, export, multi-line) into env.*, later files winning, and masks secrets from them', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': flow('["read(*.env)", "read(.env)", "write(out.txt)", "shell"]'), '.env': `${dotenv}OVERRIDE=first\n`, 'local.env': 'OVERRIDE=second\n' });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'out.txt'), 'utf8')).toBe('hello # not a comment|kept $AS written|plain value!|second|line one\nline two\n');
    expect(result.stdout).toMatch(/token=\*\*\*/);
    expect(result.stdout).not.toContain('s3cr3t-token-value');
    expect(await readFile(path.join(dir, 'events.ndjson'), 'utf8')).not.toContain('s3cr3t-token-value');
  });

  it('reading an env file is a read request: denied by default, with the rule that grants it', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': flow('["shell"]'), '.env': dotenv, 'local.env': '' });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/env_file \.env: .*read\(\.env\)/);
  });

  it('a missing env file or a bad variable name is a usage error', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': flow('["read(*.env)", "read(.env)", "write(out.txt)", "shell"]'), '.env': 'OK=1\n' });
    const missing = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/env_file local\.env: /);
    await writeFile(path.join(dir, 'local.env'), 'BAD-NAME=1\n');
    const bad = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/"BAD-NAME" is not a variable name/);
  });

  it('a step with sources runs again when a variable from an env file changes', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: env-change
env_file: .env
policy:
  allow: ["read(.env)", "read(src/**)", "read(.rho/**)", "write(.rho/**)", "shell"]
steps:
  - id: build
    tool: shell
    with: { script: 'echo "$MODE"' }
    sources: ["src/**"]
`,
      '.env': 'MODE=debug\n',
      'src/a.txt': 'a',
    });
    const status = async () => {
      const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
      return /build {2}(\w+)/.exec(result.stdout)?.[1] + (/\(([^)]*)\)\n/.exec(result.stdout.split('Summary:')[1] ?? '')?.[1] ?? '');
    };
    expect(await status()).toBe('successno successful run is recorded');
    expect(await status()).toMatch(/^up_to_date/);
    await writeFile(path.join(dir, '.env'), 'MODE=release\n');
    expect(await status()).toBe('successvariable MODE changed');
  });
});
