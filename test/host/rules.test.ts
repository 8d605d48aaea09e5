import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityRequest } from '../../src/host/capability.js';
import { ToolError } from '../../src/host/errors.js';
import { isUnrestricted, parseRule, ruleMatches } from '../../src/host/rules.js';
import { makeSandbox, networkRequest, processRequest, readRequest, shellRequest, writeRequest, type Sandbox } from './approval-fixtures.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

const matches = (rule: string, request: CapabilityRequest, view: 'written' | 'resolved' = 'resolved') => ruleMatches(parseRule(rule), request, box.root, view);

describe('parseRule', () => {
  it.each(['read', 'write', 'process', 'shell', 'network', 'network_tool', 'skill', 'instructions', 'outside'])('accepts the bare class %s as an unrestricted rule', (text) => {
    const rule = parseRule(text);
    expect(rule).toEqual({ class: text, text });
    expect(isUnrestricted(rule)).toBe(true);
  });

  it('parses arguments per class', () => {
    expect(parseRule('write(dist/**)')).toEqual({ class: 'write', text: 'write(dist/**)', glob: 'dist/**' });
    expect(parseRule('process(npm publish)')).toMatchObject({ executable: 'npm', args: ['publish'] });
    expect(parseRule('process( npm   run  build )')).toMatchObject({ executable: 'npm', args: ['run', 'build'] });
    expect(parseRule('skill(release-notes)')).toMatchObject({ class: 'skill', name: 'release-notes' });
    expect(parseRule('network_tool(gh)')).toMatchObject({ class: 'network_tool', name: 'gh' });
    for (const text of ['write(dist/**)', 'process(npm)', 'network(a.org)', 'skill(x)', 'network_tool(gh)']) {
      expect(isUnrestricted(parseRule(text)), text).toBe(false);
    }
  });

  it('reads double-quoted words as JSON strings, so any argument can be written', () => {
    expect(parseRule('process("my tool" "a b" "say \\"hi\\"" "tab\\there" "")')).toMatchObject({
      executable: 'my tool',
      args: ['a b', 'say "hi"', 'tab\there', ''],
    });
  });

  it('reads leading NAME=VALUE words of a process rule as environment assignments, as a shell would', () => {
    expect(parseRule('process(NODE_OPTIONS=--max-old-space-size=4096 GIT_DIR=* npm test)')).toMatchObject({
      executable: 'npm',
      args: ['test'],
      env: [
        { name: 'NODE_OPTIONS', value: '--max-old-space-size=4096' },
        { name: 'GIT_DIR', value: undefined },
      ],
    });
    expect(parseRule('process(GIT_SSH_COMMAND="ssh -i deploy key" git fetch)')).toMatchObject({
      executable: 'git',
      args: ['fetch'],
      env: [{ name: 'GIT_SSH_COMMAND', value: 'ssh -i deploy key' }],
    });
    expect(parseRule('process(A="*" B= env)')).toMatchObject({
      executable: 'env',
      env: [
        { name: 'A', value: '*' },
        { name: 'B', value: '' },
      ],
    });
    // Only leading words assign; later ones are arguments, and a quoted word is never an assignment.
    expect(parseRule('process(npm X=1)')).toMatchObject({ executable: 'npm', args: ['X=1'] });
    expect(parseRule('process("X=1" a)')).toMatchObject({ executable: 'X=1', args: ['a'] });
    expect(parseRule('process(npm)')).not.toHaveProperty('env');
  });

  it('normalizes network hosts (lower case, IDNA) and keeps a port only when one is written', () => {
    expect(parseRule('network(Example.ORG)')).toMatchObject({ host: { hostname: 'example.org', port: undefined } });
    expect(parseRule('network(bücher.de)')).toMatchObject({ host: { hostname: 'xn--bcher-kva.de' } });
    expect(parseRule('network(example.org:443)')).toMatchObject({ host: { hostname: 'example.org', port: 443 } });
    expect(parseRule('network(example.org:80)')).toMatchObject({ host: { hostname: 'example.org', port: 80 } });
    expect(parseRule('network([::1]:8080)')).toMatchObject({ host: { hostname: '[::1]', port: 8080 } });
    expect(parseRule('network([::1])')).toMatchObject({ host: { hostname: '[::1]', port: undefined } });
  });

  it('writes every spelling of a host one way: numeric IPv4, mapped IPv6, trailing dots', () => {
    for (const spelling of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '127.0.0.1.']) {
      expect(parseRule(`network(${spelling})`), spelling).toMatchObject({ host: { hostname: '127.0.0.1' } });
    }
    expect(parseRule('network(Example.ORG.:8080)')).toMatchObject({ host: { hostname: 'example.org', port: 8080 } });
    expect(parseRule('network([0:0::1])')).toMatchObject({ host: { hostname: '[::1]' } });
  });

  it('parses address ranges, with a port or without', () => {
    expect(parseRule('network(10.0.0.0/8)')).toMatchObject({ host: { hostname: '10.0.0.0/8', port: undefined, range: { address: '10.0.0.0', prefix: 8, family: 4 } } });
    expect(parseRule('network(10.0.0.0/8:5432)')).toMatchObject({ host: { hostname: '10.0.0.0/8', port: 5432 } });
    expect(parseRule('network([FC00::]/7)')).toMatchObject({ host: { hostname: '[fc00::]/7', range: { address: 'fc00::', prefix: 7, family: 6 } } });
    expect(() => parseRule('network(10.0.0.0/33)')).toThrow(/prefix length is 0 to 32/);
    expect(() => parseRule('network(example.org/8)')).toThrow(/a range is an IP address and a prefix length/);
    expect(() => parseRule('network(a..b)')).toThrow(/an empty label/);
  });

  it.each([
    ['reed', /unknown class "reed".*known: read, write/],
    ['READ', /expected CLASS or CLASS\(ARGUMENT\)/],
    ['read()', /empty parentheses/],
    ['shell(bash)', /"shell" takes no argument/],
    ['outside(/tmp)', /"outside" takes no argument/],
    ['read(../secrets/**)', /may not contain \.\./],
    ['process(echo "unterminated)', /unbalanced quote/],
    ['process("\\q")', /not a valid quoted word/],
    ['process(PATH=/bin)', /missing executable after the environment assignments/],
    ['process(A=1 A=2 x)', /A is assigned twice/],
    ['process(A="\\q" x)', /not a valid quoted word/],
    ['network(example.org/path)', /not a host name/],
    ['network(user@example.org)', /not a host name/],
    ['network(example.org:0)', /a port is 1 to 65535/],
    ['network(example.org:65536)', /a port is 1 to 65535/],
    ['network(example.org:http)', /not a host name/],
    ['network(::1)', /not a host name/],
    ['read(a\u0000b)', /NUL byte/],
    [`read(${'a'.repeat(5000)})`, /longer than 4096/],
  ])('rejects %j with a message that says why', (text, reason) => {
    let thrown: unknown;
    try {
      parseRule(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolError);
    expect((thrown as ToolError).kind).toBe('invalid_arguments');
    expect((thrown as ToolError).message).toMatch(reason);
  });
});

describe('path rules', () => {
  it('match globs relative to the workspace root, ** crossing directories', async () => {
    const nested = await readRequest(box.workspace, 'src/lib/b.ts');
    expect(matches('read(src/**)', nested)).toBe(true);
    expect(matches('read(src/*)', nested)).toBe(false);
    expect(matches('read(**/*.ts)', nested)).toBe(true);
    expect(matches('read(docs/**)', nested)).toBe(false);
    expect(matches('read', nested)).toBe(true);
    expect(matches('write(src/**)', nested)).toBe(false);
  });

  it('cover a directory tree only when the glob covers everything inside it', async () => {
    const tree = await readRequest(box.workspace, 'src', 'tree');
    expect(matches('read(src/**)', tree)).toBe(true);
    expect(matches('read(src/*)', tree)).toBe(false);
    expect(matches('read(src)', tree)).toBe(false);
    expect(matches('read({src,src/*})', tree)).toBe(false);
    const rootTree = await readRequest(box.workspace, '.', 'tree');
    expect(matches('read(**)', rootTree)).toBe(true);
    expect(matches('read(*)', rootTree)).toBe(false);
    expect(matches('read(src/**)', rootTree)).toBe(false);
  });

  it('match a path as written or as resolved, depending on the view asked for', async () => {
    const link = await readRequest(box.workspace, 'docs/env-link');
    expect(matches('read(.env)', link, 'resolved')).toBe(true);
    expect(matches('read(.env)', link, 'written')).toBe(false);
    expect(matches('read(docs/**)', link, 'written')).toBe(true);
    expect(matches('read(docs/**)', link, 'resolved')).toBe(false);
  });

  it('match a missing write target by its canonical path', async () => {
    const fresh = await writeRequest(box.workspace, 'dist/new/app.js');
    expect(matches('write(dist/**)', fresh)).toBe(true);
    expect(matches('write(dist/*)', fresh)).toBe(false);
    expect(matches('read(dist/**)', fresh)).toBe(false);
  });

  it('match granted roots by absolute globs, and `outside` matches only paths outside the workspace', async () => {
    const cached = await readRequest(box.workspace, path.join(box.granted, 'c.txt'));
    expect(matches(`read(${box.granted}/**)`, cached)).toBe(true);
    expect(matches('outside', cached)).toBe(true);
    expect(matches('outside', await readRequest(box.workspace, 'src/a.ts'))).toBe(false);
    expect(matches('outside', processRequest())).toBe(false);
  });
});

describe('process and shell rules', () => {
  const npm = (...argv: string[]) => processRequest({ argv });

  it('process(EXE) matches any argv of that program; process(EXE ARG...) matches argv that starts with the words', () => {
    expect(matches('process(npm)', npm())).toBe(true);
    expect(matches('process(npm)', npm('install'))).toBe(true);
    expect(matches('process(npm publish)', npm('publish'))).toBe(true);
    expect(matches('process(npm publish)', npm('publish', '--tag', 'next'))).toBe(true);
    expect(matches('process(npm publish)', npm('install'))).toBe(false);
    expect(matches('process(npm publish)', npm())).toBe(false);
    expect(matches('process(npm publish)', npm('publish-preview'))).toBe(false);
    expect(matches('process(npm publish)', npm('--dry-run', 'publish'))).toBe(false);
    expect(matches('process(npx)', npm('publish'))).toBe(false);
  });

  it('a bare name matches only a program found on PATH under that name; a path names one resolved file', () => {
    const script = processRequest({ executable: { requested: './bin/tool', resolved: path.join(box.root, 'bin/tool'), lookup: 'exact' } });
    const fakeNpm = processRequest({ executable: { requested: './npm', resolved: path.join(box.root, 'npm'), lookup: 'exact' } });
    expect(matches('process(npm)', fakeNpm)).toBe(false);
    expect(matches('process(tool)', script)).toBe(false);
    expect(matches('process(./bin/tool)', script)).toBe(true);
    expect(matches('process(bin/tool)', script)).toBe(true);
    expect(matches(`process(${path.join(box.root, 'bin/tool')})`, script)).toBe(true);
    expect(matches('process(/usr/bin/npm)', npm('publish'))).toBe(true);
    expect(matches('process(/usr/local/bin/npm)', npm('publish'))).toBe(false);
  });

  it('process rules never match shell execution; shell needs `shell`', () => {
    expect(matches('process', shellRequest())).toBe(false);
    expect(matches('process(sh)', shellRequest())).toBe(false);
    expect(matches('shell', shellRequest())).toBe(true);
    expect(matches('shell', processRequest())).toBe(false);
  });
});

describe('network rules', () => {
  it('match the normalized host exactly on any port: case and IDNA, no suffix matching', () => {
    expect(matches('network(example.org)', networkRequest('https://example.org/a'))).toBe(true);
    expect(matches('network(example.org)', networkRequest('http://EXAMPLE.org:80/'))).toBe(true);
    expect(matches('network(EXAMPLE.ORG)', networkRequest('https://example.org:443/'))).toBe(true);
    expect(matches('network(example.org)', networkRequest('https://example.org:8443/'))).toBe(true);
    expect(matches('network(example.org)', networkRequest('http://example.org:3000/'))).toBe(true);
    expect(matches('network([::1])', networkRequest('http://[::1]:3000/'))).toBe(true);
    expect(matches('network(example.org)', networkRequest('https://api.example.org/'))).toBe(false);
    expect(matches('network(example.org)', networkRequest('https://example.org./'))).toBe(true);
    expect(matches('network(127.0.0.1)', networkRequest('http://[::ffff:7f00:1]:8080/'))).toBe(true);
    expect(matches('network(10.0.0.0/8)', networkRequest('http://10.200.3.4/'))).toBe(true);
    expect(matches('network(10.0.0.0/8)', networkRequest('http://11.0.0.1/'))).toBe(false);
    expect(matches('network(10.0.0.0/8:5432)', networkRequest('http://10.0.0.1:5433/'))).toBe(false);
    expect(matches('network([fc00::]/7)', networkRequest('http://[fd00:ec2::254]/'))).toBe(true);
    // localhost is this machine by any address.
    expect(matches('network(localhost)', networkRequest('http://127.0.0.2/'))).toBe(true);
    expect(matches('network(localhost:3000)', networkRequest('http://[::1]:3000/'))).toBe(true);
    expect(matches('network(localhost)', networkRequest('http://10.0.0.1/'))).toBe(false);
    expect(matches('network(example.org)', networkRequest('https://example.org.evil.test/'))).toBe(false);
    expect(matches('network(bücher.de)', networkRequest('https://xn--bcher-kva.de/'))).toBe(true);
    expect(matches('network(xn--bcher-kva.de)', networkRequest('https://BÜCHER.de/'))).toBe(true);
  });

  it('an explicit port means that port whatever the scheme', () => {
    expect(matches('network(example.org:8443)', networkRequest('https://example.org:8443/'))).toBe(true);
    expect(matches('network(example.org:443)', networkRequest('https://example.org/'))).toBe(true);
    expect(matches('network(example.org:443)', networkRequest('http://example.org:443/'))).toBe(true);
    expect(matches('network(example.org:443)', networkRequest('http://example.org/'))).toBe(false);
    expect(matches('network(example.org:80)', networkRequest('http://example.org/'))).toBe(true);
    expect(matches('network(example.org:80)', networkRequest('https://example.org/'))).toBe(false);
    expect(matches('network(127.0.0.1:8080)', networkRequest('http://127.0.0.1:8080/x'))).toBe(true);
    expect(matches('network(127.0.0.1:8080)', networkRequest('http://127.0.0.1:8081/x'))).toBe(false);
    expect(matches('network(example.org:8443)', networkRequest('https://example.org/'))).toBe(false);
  });

  it('network_tool(SERVER.*) grants every tool of a server, SERVER.PREFIX* a family, and only a trailing * is allowed', () => {
    expect(matches('network_tool(ev.*)', { class: 'network_tool', tool: 'ev.get-sum' })).toBe(true);
    expect(matches('network_tool(ev.*)', { class: 'network_tool', tool: 'evil.get-sum' })).toBe(false);
    expect(matches('network_tool(ev.get-*)', { class: 'network_tool', tool: 'ev.get-sum' })).toBe(true);
    expect(matches('network_tool(ev.get-*)', { class: 'network_tool', tool: 'ev.echo' })).toBe(false);
    expect(matches('network_tool(ev.get-sum)', { class: 'network_tool', tool: 'ev.get-sum-all' })).toBe(false);
    expect(parseRule('network_tool(*)')).toEqual({ class: 'network_tool', text: 'network_tool(*)' });
    expect(() => parseRule('network_tool(ev.*.x)')).toThrow(/only a trailing \* is allowed/);
    expect(() => parseRule('network_tool(*.echo)')).toThrow(/only a trailing \* is allowed/);
  });

  it('network_tool, skill and instructions rules match their own class and name', async () => {
    expect(matches('network_tool(gh)', { class: 'network_tool', tool: 'gh' })).toBe(true);
    expect(matches('network_tool(gh)', { class: 'network_tool', tool: 'gitlab' })).toBe(false);
    expect(matches('network', { class: 'network_tool', tool: 'gh' })).toBe(false);
    const skillPath = await box.workspace.resolveForRead('docs/readme.md');
    expect(matches('skill(notes)', { class: 'skill', name: 'notes', path: skillPath })).toBe(true);
    expect(matches('skill(notes)', { class: 'skill', name: 'other', path: skillPath })).toBe(false);
    expect(matches('instructions', { class: 'instructions', path: skillPath })).toBe(true);
    expect(matches('read', { class: 'instructions', path: skillPath })).toBe(false);
  });
});

describe('home-relative paths in rules', () => {
  it('expands ~ and ~/… in path rules and program paths to the running user’s home', () => {
    expect(parseRule('read(~/.config/gh/**)', '/home/me')).toMatchObject({ glob: '/home/me/.config/gh/**', text: 'read(~/.config/gh/**)' });
    expect(parseRule('write(~)', '/home/me')).toMatchObject({ glob: '/home/me' });
    expect(parseRule('process(~/.cargo/bin/cargo build)', '/home/me')).toMatchObject({ executable: '/home/me/.cargo/bin/cargo', args: ['build'] });
    // A word that is not the program is never a path to expand.
    expect(parseRule('process(echo ~/x)', '/home/me')).toMatchObject({ executable: 'echo', args: ['~/x'] });
  });

  it('refuses a ~ that cannot be expanded: another user’s home, no home at all, a home a glob would misread', () => {
    expect(() => parseRule('read(~bob/.ssh/**)', '/home/me')).toThrow(/"~bob" names another user's home: only ~ \(yours\) is expanded/);
    expect(() => parseRule('read(~/.npm/**)')).toThrow(/~ cannot be expanded: this user has no home directory/);
    expect(() => parseRule('write(~/x/**)', '/home/a[1]')).toThrow(/holds glob characters/);
    expect(() => parseRule('process(~/bin/tool)', '/home/a[1]')).not.toThrow();
  });
});
