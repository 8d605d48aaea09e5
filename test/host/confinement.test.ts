import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { narrowWritable, planConfinement } from '../../src/host/confinement/index.js';
import { hookConfinementPlan } from '../../src/host/confinement/hook-plan.js';
import { literalPrefix, rulePaths } from '../../src/host/confinement/rule-paths.js';
import { Policy } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { temporaryDirectories } from '../support/cli.js';

const temp = temporaryDirectories('rho-confinement-');
afterAll(() => temp.removeAll());

const root = '/work/project';

function plan(rules: { allow?: string[]; ask?: string[]; deny?: string[] }, options: { homes?: string[]; granted?: string[] } = {}) {
  return planConfinement({
    policy: Policy.fromText(rules),
    workspaceRoot: root,
    grantedRoots: options.granted ?? [],
    homeDirectories: options.homes ?? [],
  });
}

describe('confinement plan', () => {
  it('grants a glob its longest literal directory and a literal rule its one path', () => {
    expect(literalPrefix('dist/**', root)).toEqual({ path: '/work/project/dist', literal: false });
    expect(literalPrefix('out/*.txt', root)).toEqual({ path: '/work/project/out', literal: false });
    expect(literalPrefix('.rho/notes.txt', root)).toEqual({ path: '/work/project/.rho/notes.txt', literal: true });
    expect(literalPrefix('/tmp/cache/**', root)).toEqual({ path: '/tmp/cache', literal: false });
    expect(plan({ allow: ['write(dist/**)', 'write(dist/sub/**)', 'write(.rho/notes.txt)', 'write(src/*.gen.ts)'] }).writable).toEqual([
      { path: '/work/project/src', kind: 'tree' },
      { path: '/work/project/dist', kind: 'tree' },
      { path: '/work/project/.rho/notes.txt', kind: 'entry' },
    ]);
  });

  it('grants nothing outside the workspace unless the path is under a granted root and outside is allowed', () => {
    expect(plan({ allow: ['write(/etc/**)'] }).writable).toEqual([]);
    expect(plan({ allow: ['write(/cache/npm/**)'] }, { granted: ['/cache'] }).writable).toEqual([]);
    expect(plan({ allow: ['write(/cache/npm/**)', 'outside'] }, { granted: ['/cache'] }).writable).toEqual([{ path: '/cache/npm', kind: 'tree' }]);
    expect(plan({ allow: ['write(/cache/npm/**)', 'outside'], deny: ['outside'] }, { granted: ['/cache'] }).writable).toEqual([]);
  });

  it('keeps denied writes read-only inside writable roots and hides denied reads', () => {
    const result = plan({ allow: ['write'], deny: ['write(.git/**)', 'read(.env)'], ask: ['read(secrets/**)'] });
    expect(result.writable).toEqual([{ path: root, kind: 'tree' }]);
    expect(result.readOnly).toEqual(['/work/project/.git']);
    expect(result.hidden).toEqual(['/work/project/.env', '/work/project/secrets']);
  });

  it('opens unix sockets only for an allowed unix_socket rule that no deny or ask rule names', () => {
    expect(plan({ allow: ['process'] }).unixSockets).toBe(false);
    expect(plan({ allow: ['process', 'unix_socket'] }).unixSockets).toBe(true);
    expect(plan({ allow: ['unix_socket'], deny: ['unix_socket'] }).unixSockets).toBe(false);
    expect(plan({ allow: ['unix_socket'], ask: ['unix_socket'] }).unixSockets).toBe(false);
    // The unrestricted network rule is the host's network, not its unix sockets.
    expect(plan({ allow: ['network'] }).unixSockets).toBe(false);
  });

  it('finds the entries on disk that a wildcard deny names', async () => {
    const dir = await temp.make();
    await mkdir(path.join(dir, 'keys/nested'), { recursive: true });
    await writeFile(path.join(dir, 'keys/a.pem'), '');
    await writeFile(path.join(dir, 'keys/nested/b.pem'), '');
    await writeFile(path.join(dir, 'keys/readme.md'), '');
    const rule = parseRule('read(keys/**/*.pem)') as Extract<ReturnType<typeof parseRule>, { class: 'read' }>;
    expect(rulePaths(rule, dir).sort()).toEqual([path.join(dir, 'keys/a.pem'), path.join(dir, 'keys/nested/b.pem')]);
  });

  it('hides home directories except what the workspace and rules need inside them, and leaves a missing home alone', async () => {
    const base = await temp.make();
    const me = path.join(base, 'me');
    const other = path.join(base, 'other');
    await mkdir(path.join(me, 'project'), { recursive: true });
    await mkdir(other);
    const inside = planConfinement({ policy: Policy.fromText({}), workspaceRoot: path.join(me, 'project'), grantedRoots: [], homeDirectories: [me, other, '/nonexistent'] });
    expect(inside.hiddenHomes).toEqual([me, other]);
    expect(inside.exposed).toEqual([path.join(me, 'project')]);
    const granted = plan({ allow: [`read(${me}/**)`, 'outside'] }, { homes: [me], granted: [me] });
    expect(granted.hiddenHomes).toEqual([]);
    // A home that is the workspace cannot be hidden from itself.
    expect(planConfinement({ policy: Policy.fromText({}), workspaceRoot: me, grantedRoots: [], homeDirectories: [me] }).hiddenHomes).toEqual([]);
  });

  it('exposes a read grant outside the workspace only where the file tools would read it: in a granted root, with outside', () => {
    expect(plan({ allow: ['read(/srv/data/**)'] }, { granted: ['/srv'] }).scope.roots).toEqual([root]);
    const exposed = (rules: string[], granted: string[]) =>
      planConfinement({ policy: Policy.fromText({ allow: rules }), workspaceRoot: root, grantedRoots: granted, homeDirectories: [] }).exposed;
    expect(exposed(['read(/dev/shm/data/**)'], [])).toEqual([]);
    expect(exposed(['read(/dev/shm/data/**)', 'outside'], ['/dev/shm'])).toEqual(['/dev/shm/data']);
  });

  it('gives the private temp a directory of its own that hides no host file, so a workspace or script under /tmp stays visible', () => {
    expect(plan({}).privateTemp).toBe('/dev/shm');
    expect(planConfinement({ policy: Policy.fromText({}), workspaceRoot: '/tmp/ws', grantedRoots: [], homeDirectories: [] })).toMatchObject({
      privateTemp: '/dev/shm',
      exposed: [],
    });
  });

  it('keeps rho’s own directories out of every plan: a write rule naming them grants nothing, and hooks hide them too', () => {
    const own = '/work/project/.cache/rho';
    const withOwn = planConfinement({
      policy: Policy.fromText({ allow: ['write(**)', 'write(.cache/rho/**)', 'write(.cache/rho/x.txt)'] }),
      workspaceRoot: root,
      grantedRoots: [],
      homeDirectories: [],
      privatePaths: [own],
    });
    expect(withOwn.writable).toEqual([{ path: root, kind: 'tree' }]);
    expect(withOwn.privatePaths).toEqual([own]);
    expect(narrowWritable(withOwn, ['dist/**'], root).privatePaths).toEqual([own]);
    const hook = hookConfinementPlan({ baseDirectory: root, writes: ['.cache/rho', 'logs'], homeDirectories: [], privatePaths: [own] });
    expect(hook.writable).toEqual([{ path: path.join(root, 'logs'), kind: 'tree' }]);
    expect(hook.privatePaths).toEqual([own]);
  });

  it('gives no network without a rule, the host network for an unrestricted one, and the proxy for host rules', () => {
    expect(plan({}).network).toEqual({ mode: 'none' });
    expect(plan({ allow: ['network'] }).network).toEqual({ mode: 'host' });
    expect(plan({ allow: ['network(registry.npmjs.org)'] }).network).toEqual({ mode: 'proxy', rules: ['network(registry.npmjs.org)'] });
    // A deny the host network could not enforce sends everything through the proxy.
    expect(plan({ allow: ['network'], deny: ['network(evil.example)'] }).network).toEqual({ mode: 'proxy', rules: ['network'] });
  });

  it('narrows writable roots to what a step declares, never wider', () => {
    const policyPlan = plan({ allow: ['write(dist/**)', 'write(node_modules/**)', 'write(.rho/notes.txt)'] });
    expect(narrowWritable(policyPlan, [], root).writable).toEqual([]);
    expect(narrowWritable(policyPlan, ['dist/assets/**'], root).writable).toEqual([{ path: '/work/project/dist/assets', kind: 'tree' }]);
    expect(
      narrowWritable(policyPlan, ['**'], root)
        .writable.map((entry) => entry.path)
        .sort(),
    ).toEqual(['/work/project/.rho/notes.txt', '/work/project/dist', '/work/project/node_modules'].sort());
    expect(narrowWritable(policyPlan, ['.rho/notes.txt'], root).writable).toEqual([{ path: '/work/project/.rho/notes.txt', kind: 'entry' }]);
    expect(() => narrowWritable(policyPlan, ['src/**'], root)).toThrow(/is not inside what the policy's write rules grant/);
    // A declared tree keeps what the policy grants inside it.
    expect(narrowWritable(policyPlan, ['.rho/**'], root).writable).toEqual([{ path: '/work/project/.rho/notes.txt', kind: 'entry' }]);
  });
});
