import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

const secret = 'first-line-Canary\nsecond-line-Canary';
const forms = [secret, 'first-line-Canary', 'second-line-Canary', Buffer.from(secret).toString('base64'), encodeURIComponent(secret)];
const hooks = path.join(repoRoot, 'test/fixtures/hooks');
const node = JSON.stringify(process.execPath);

/** A workflow that pushes the secret, and its encodings, through every channel rho writes to. */
const flow = `version: 1
name: masking
secrets: [CANARY]
policy:
  allow: [process, "read(**)"]
hooks:
  pre_tool_use:
    - { command: [${node}, ${JSON.stringify(path.join(hooks, 'continue.mjs'))}] }
  observer:
    - { command: [${node}, ${JSON.stringify(path.join(hooks, 'append-envelope.mjs'))}, ${JSON.stringify(path.join('{DIR}', 'hook-out', 'observed.ndjson'))}], writes: [hook-out] }
steps:
  - id: shown
    tool: echo
    with: { value: "secret: \${{ secrets.CANARY }}" }
  - id: printed
    tool: exec
    with:
      command: ${node}
      args: ["-e", "const s = process.env.CANARY; console.log(s); console.log(Buffer.from(s).toString('base64')); console.log(encodeURIComponent(s)); console.error(s)"]
      env: { CANARY: "\${{ secrets.CANARY }}" }
  - id: argument
    tool: exec
    continue_on_error: true
    with: { command: ${node}, args: ["-e", "process.exit(0)", "\${{ secrets.CANARY }}"] }
  - id: failing
    tool: read_file
    with: { path: "missing-\${{ secrets.CANARY }}.txt" }
`;

describe('secret masking', () => {
  it('masks multi-line secrets and their base64 and URL-encoded forms in every output', { timeout: 120_000 }, async () => {
    await writeFiles(dir, { 'flow.yml': flow.replace('{DIR}', dir) });
    const [plain, json, fancy] = await Promise.all([
      runCli(['run', 'flow.yml', '--events', 'events.ndjson', '--junit', 'junit.xml'], {
        cwd: dir,
        env: { CANARY: secret, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') },
      }),
      runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: { CANARY: secret } }),
      runCli(['run', 'flow.yml', '--output', 'fancy'], { cwd: dir, env: { CANARY: secret } }),
    ]);
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout).toContain('[shown] secret: ***');
    expect(plain.stdout).toContain('[printed] ***');
    const channels: Record<string, string> = {
      'plain stdout': plain.stdout,
      'plain stderr': plain.stderr,
      'json stdout': json.stdout,
      'json stderr': json.stderr,
      'fancy stdout': fancy.stdout + fancy.stderr,
      'events file': await readFile(path.join(dir, 'events.ndjson'), 'utf8'),
      junit: await readFile(path.join(dir, 'junit.xml'), 'utf8'),
      'step summary': await readFile(path.join(dir, 'summary.md'), 'utf8'),
      'hook payloads': await readFile(path.join(dir, 'hook-out', 'observed.ndjson'), 'utf8'),
    };
    for (const [channel, text] of Object.entries(channels)) {
      expect(text.length, channel).toBeGreaterThan(0);
      for (const form of forms) expect(text.includes(form), `${channel} leaks ${JSON.stringify(form)}`).toBe(false);
    }
    // Failure messages still say what failed, with the secret masked.
    expect(plain.stdout).toMatch(/\[argument\] ✖ failure .*argument args\.2 holds a secret; secrets reach processes only through the environment/);
    expect(channels['junit']).toContain('missing-***');
  });

  it('masks the lines rho writes itself: scripted approvals of a request whose path and URL hold a secret', { timeout: 120_000 }, async () => {
    const token = 'file-name-Canary-77';
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: scripted
secrets: [TOKEN]
policy:
  ask: [write, "network(127.0.0.1:9)"]
steps:
  - { id: named, tool: write_file, with: { path: "out-\${{ secrets.TOKEN }}.txt", content: hi } }
  - id: fetched
    tool: http_request
    continue_on_error: true
    with: { url: "http://127.0.0.1:9/\${{ secrets.TOKEN }}/x", timeout: 2000 }
`,
    });
    const env = { TOKEN: token };
    const runs = {
      'plain --yes': await runCli(['run', 'flow.yml', '--yes', '--events', 'yes.ndjson'], { cwd: dir, env }),
      'json --approve': await runCli(['run', 'flow.yml', '--approve', 'write', '--approve', 'network(127.0.0.1:9)', '--output', 'json', '--events', 'approve.ndjson'], {
        cwd: dir,
        env,
      }),
    };
    const channels: Record<string, string> = {
      'plain --yes output': runs['plain --yes'].stdout + runs['plain --yes'].stderr,
      'json --approve output': runs['json --approve'].stdout + runs['json --approve'].stderr,
      'events of --yes': await readFile(path.join(dir, 'yes.ndjson'), 'utf8'),
      'events of --approve': await readFile(path.join(dir, 'approve.ndjson'), 'utf8'),
    };
    for (const [channel, text] of Object.entries(channels)) {
      // JSON escapes the quotes around the request.
      expect(text, channel).toMatch(/approved by --.+?: write request \\?"write out-\*\*\*\.txt/);
      expect(text, channel).toMatch(/approved by --.+?: network request \\?"GET http:\/\/127\.0\.0\.1:9\/\*\*\*\/x/);
      expect(text.includes(token), `${channel} leaks the secret`).toBe(false);
    }
  });

  it('masks a secret cut by a progress line, an output limit or a read slice, and base64 at every alignment', { timeout: 60_000 }, async () => {
    const token = 'tok-9f8e7d6c5b4a3928';
    const cutFlow = `version: 1
name: cuts
secrets: [TOKEN]
policy:
  allow: [process, shell, "write(out/**)"]
steps:
  - id: long-line
    tool: exec
    with:
      command: ${node}
      args: ["-e", "process.stdout.write('a'.repeat(990) + process.env.TOKEN + String.fromCharCode(10))"]
      env: { TOKEN: "\${{ secrets.TOKEN }}" }
  - id: limit
    tool: exec
    with:
      command: ${node}
      args: ["-e", "process.stdout.write('b'.repeat(990) + process.env.TOKEN)"]
      env: { TOKEN: "\${{ secrets.TOKEN }}" }
      max_output_bytes: 1000
  - id: encoded
    tool: shell
    with:
      script: |
        for prefix in '' x xy user:; do printf '%s%s' "$prefix" "$TOKEN" | base64; done
      env: { TOKEN: "\${{ secrets.TOKEN }}" }
  - id: background
    tool: process_start
    with:
      name: printer
      command: ${node}
      args: ["-e", "process.stdout.write('c'.repeat(4) + process.env.TOKEN + 'done')"]
      env: { TOKEN: "\${{ secrets.TOKEN }}" }
  - id: slice
    tool: process_output
    with: { process_id: printer, wait_for: done, max_bytes: 12 }
  - id: kept
    tool: write_file
    with: { path: out/kept.txt, create_dirs: true, content: "\${{ steps.limit.data.stdout }} \${{ steps.slice.data.content }}" }
`;
    await writeFiles(dir, { 'flow.yml': cutFlow });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, env: { TOKEN: token } });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const kept = await readFile(path.join(dir, 'out', 'kept.txt'), 'utf8');
    expect(result.stdout).toMatch(/\[long-line\] a{990}\*\*\*$/m);
    expect(result.stdout).toMatch(/\[encoded\] eHRv\*\*\*$/m);
    expect(kept).toBe(`${'b'.repeat(990)}*** cccc***done`);
    // No part of the token long enough to matter, nor any base64 of it, appears anywhere.
    const encodedAt = (prefix: string) => Buffer.from(prefix + token).toString('base64');
    for (const leak of [token.slice(0, 8), token.slice(-8), ...['', 'x', 'xy', 'user:'].map((prefix) => encodedAt(prefix).slice(8, 20))]) {
      expect(result.stdout.includes(leak), `output leaks ${leak}`).toBe(false);
      expect(kept.includes(leak), `kept output leaks ${leak}`).toBe(false);
    }
  });

  it('refuses a secret too short to mask, before running anything', async () => {
    await writeFiles(dir, { 'flow.yml': 'version: 1\nname: short\nsecrets: [PIN]\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n' });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, env: { PIN: '123' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('secret PIN is shorter than 4 characters');
  });

  it('masks a secret holding a backslash, a quote and an umlaut wherever rho quotes it and however a program encodes it', { timeout: 120_000 }, async () => {
    const tricky = 'pa\\ss "wörd-1234';
    const printer = [
      'const s = process.env.TOK;',
      'const quotePlus = encodeURIComponent(s).replace(/[!\'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16)).replace(/%20/g, "+");',
      'console.log(JSON.stringify({ s }));',
      'console.log(quotePlus);',
      'console.log(quotePlus.toLowerCase());',
      'console.log(s.normalize("NFD"));',
      'console.log(Buffer.from("x".repeat(45) + s).toString("base64").replace(/(.{76})/g, "$1\\n"));',
    ].join(' ');
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: quoted
secrets: [TOK]
policy:
  allow: [process, "write(out/**)", "network(127.0.0.1:9)"]
steps:
  - id: printed
    tool: exec
    with:
      command: ${node}
      args: ["-e", ${JSON.stringify(printer)}]
      env: { TOK: "\${{ secrets.TOK }}" }
  - id: missing
    tool: read_file
    continue_on_error: true
    with: { path: "missing-\${{ secrets.TOK }}.txt" }
  - id: fetched
    tool: http_request
    continue_on_error: true
    with: { url: "http://127.0.0.1:9/\${{ secrets.TOK }}/x", timeout: 2 }
  - id: written
    tool: write_file
    with: { path: "out/\${{ secrets.TOK }}.txt", content: hi, create_dirs: true }
`,
    });
    const env = { TOK: tricky, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') };
    const run = await runCli(['run', 'flow.yml', '--events', 'events.ndjson', '--junit', 'junit.xml'], { cwd: dir, env });
    const plan = await runCli(['plan', 'flow.yml', '--json'], { cwd: dir, env: { TOK: tricky } });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const wrapped = Buffer.from('x'.repeat(45) + tricky)
      .toString('base64')
      .match(/.{1,76}/g)!;
    const channels: Record<string, string> = {
      'run output': run.stdout + run.stderr,
      'events file': await readFile(path.join(dir, 'events.ndjson'), 'utf8'),
      junit: await readFile(path.join(dir, 'junit.xml'), 'utf8'),
      'step summary': await readFile(path.join(dir, 'summary.md'), 'utf8'),
      'plan --json': plan.stdout,
    };
    for (const [channel, text] of Object.entries(channels)) {
      expect(text, channel).toContain('***');
      for (const leak of ['rd-1234', 'pa\\ss', 'pa\\\\ss', 'pa%5Css', 'pa%5css', 'pa/ss', ...wrapped]) {
        expect(text.includes(leak), `${channel} leaks ${JSON.stringify(leak)}`).toBe(false);
      }
    }
    expect(JSON.parse(plan.stdout)).toMatchObject({ steps: expect.arrayContaining([expect.objectContaining({ id: 'written' })]) });
  });
});
