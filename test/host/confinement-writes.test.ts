import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedDirectories, guardedDirectory, narrowWritable, planConfinement, protectedPlaces } from '../../src/host/confinement/index.js';
import { confinesWiderThanWritten } from '../../src/host/confinement/rule-paths.js';
import { Policy } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { widerConfinementReason } from '../../src/workflow/rule-warnings.js';
import { repoRoot } from '../support/cli.js';
import { docPage } from '../support/docs.js';

const root = '/work/project';

function plan(allow: string[], options: { homes?: string[]; granted?: string[]; deny?: string[] } = {}) {
  return planConfinement({
    policy: Policy.fromText({ allow, deny: options.deny ?? [] }),
    workspaceRoot: root,
    grantedRoots: options.granted ?? [],
    homeDirectories: options.homes ?? [],
  });
}

const paths = (directories: { path: string }[]) => directories.map((directory) => directory.path);

const protectedIn = (allow: string[], options: { homes?: string[]; granted?: string[] } = {}) => plan(allow, options).protected.map((place) => place.path);

describe('guarded directories', () => {
  it('guards the directory of each root inside the workspace, once, outermost first', () => {
    const granted = plan(['write(dist/**)', 'write(coverage.txt)', 'write(build/out/**)', 'write(build/app)']);
    expect(guardedDirectories(granted)).toEqual([
      { path: root, open: false },
      { path: `${root}/build`, open: false },
    ]);
  });

  it('mounts a root on itself where its directory is outside the accepted roots, hidden or read-only', () => {
    // The workspace root's own directory is outside the workspace.
    expect(paths(guardedDirectories(plan(['write(**)'])))).toEqual([]);
    // A granted root outside the workspace: its directory is not granted.
    const cache = plan(['write(/cache/npm/**)', 'outside'], { granted: ['/cache/npm'] });
    expect(cache.writable).toEqual([{ path: '/cache/npm', kind: 'tree' }]);
    expect(paths(guardedDirectories(cache))).toEqual([]);
    // Inside a granted root, its directory is guarded; inside a hidden home, it is not.
    expect(paths(guardedDirectories(plan(['write(/cache/npm/_cacache/**)', 'outside'], { granted: ['/cache/npm'] })))).toEqual(['/cache/npm']);
    // (A home that exists: a missing one is not hidden, there being nothing in it to hide.)
    const me = path.dirname(repoRoot);
    const home = plan([`write(${me}/.npm/_cacache/**)`, 'outside'], { granted: [`${me}/.npm`], homes: [me] });
    expect(home.hiddenHomes).toEqual([me]);
    expect(guardedDirectory(home, home.writable[0]!)).toBeUndefined();
    // A workspace inside a hidden home is exposed there, so its entries' directory is guarded.
    const inHome = planConfinement({ policy: Policy.fromText({ allow: ['write(dist/**)'] }), workspaceRoot: '/home/me/project', grantedRoots: [], homeDirectories: ['/home/me'] });
    expect(paths(guardedDirectories(inHome))).toEqual(['/home/me/project']);
    // A directory a deny write rule keeps read-only is never made writable.
    expect(paths(guardedDirectories(plan(['write(**)', 'write(vendor/app)'], { deny: ['write(vendor/**)'] })))).toEqual([]);
  });

  it('leaves open a directory a policy tree grants whole: a step narrowed under write(**) is checked for protected places only', () => {
    const policyPlan = plan(['write(**)', 'write(/cache/**)', 'outside'], { granted: ['/cache'] });
    expect(guardedDirectories(narrowWritable(policyPlan, ['first/**', '/cache/npm/**'], root))).toEqual([
      { path: '/cache', open: true },
      { path: root, open: true },
    ]);
    expect(guardedDirectories(narrowWritable(plan(['write(dist/**)', 'write(coverage/**)']), ['dist/**'], root))).toEqual([{ path: root, open: false }]);
  });
});

describe('protected places', () => {
  it('keeps the places inside a writable root protected, at the workspace root and in a writable home', () => {
    const inWorkspace = protectedIn(['write(**/*.go)']);
    for (const place of ['.git/hooks', '.git/config', '.git', '.vscode', '.idea', '.envrc', '.npmrc', '.yarnrc.yml', '.pnpmfile.cjs', '.husky']) {
      expect(inWorkspace).toContain(`${root}/${place}`);
    }
    // Only places inside a writable root: dist/ holds none of them.
    expect(protectedIn(['write(dist/**)'])).toEqual([]);
    const home = protectedIn(['write(/home/me/**)', 'outside'], { homes: ['/home/me'], granted: ['/home/me'] }).filter((place) => place.startsWith('/home/me/'));
    for (const place of ['.bashrc', '.profile', '.zshrc', '.ssh', '.gitconfig', '.config/fish']) expect(home).toContain(`/home/me/${place}`);
    expect(home).toHaveLength(protectedPlaces.length);
  });

  it('lifts a protection only for a rule whose literal text names the place or a path inside it', () => {
    expect(protectedIn(['write(**)', 'write(.vscode/**)'])).not.toContain(`${root}/.vscode`);
    expect(protectedIn(['write(**)', 'write(.git/hooks/pre-commit)'])).not.toContain(`${root}/.git/hooks`);
    // A rule naming the directory above, or a wildcard that happens to cover the place, does not.
    expect(protectedIn(['write(**)', 'write(.git/**)'])).toContain(`${root}/.git/hooks`);
    expect(protectedIn(['write(**)', 'write(.*/**)'])).toContain(`${root}/.vscode`);
    expect(protectedIn(['write(**)', 'write(**/.envrc)'])).toContain(`${root}/.envrc`);
  });

  it('keeps .git itself protected only where it is not a directory', () => {
    const git = plan(['write(**)']).protected.find((place) => place.path === `${root}/.git`);
    expect(git).toMatchObject({ unlessDirectory: true });
    expect(plan(['write(**)']).protected.find((place) => place.path === `${root}/.git/hooks`)).toMatchObject({ unlessDirectory: false });
  });

  it('are each named in the table of docs/confinement.md', () => {
    const page = docPage('docs/confinement.md');
    const section = page.slice(page.indexOf('## Protected places'), page.indexOf('Not protected, because'));
    for (const place of protectedPlaces) expect(section, place.path).toContain(`\`${place.path}\``);
  });

  it('stay with a step narrowed by writes: (its sandbox keeps those its process could write)', () => {
    const policyPlan = plan(['write(**)']);
    expect(narrowWritable(policyPlan, ['dist/**'], root).protected).toEqual(policyPlan.protected);
  });
});

describe('rules whose confinement is wider than their text', () => {
  it('tells a glob that picks names from one that covers a whole directory', () => {
    for (const glob of ['**/*.go', 'src/**/*.ts', '*.log', 'build-*/**', '{a,b}/**', '/opt/x/*.log']) expect(confinesWiderThanWritten(glob), glob).toBe(true);
    for (const glob of ['dist/**', 'dist/*', 'dist/**/*', '**', 'app', '.rho/notes.txt']) expect(confinesWiderThanWritten(glob), glob).toBe(false);
  });

  it('names the root processes get and how to narrow it', () => {
    expect(widerConfinementReason(parseRule('write(**/*.go)'))).toMatch(
      /^processes get more than it names: a confined process may write anything in the whole workspace \(\.git included\).*write\(DIR\/\*\*\), write\(FILE\)/,
    );
    expect(widerConfinementReason(parseRule('write(src/**/*.ts)'))).toContain('may write anything in src/,');
    expect(widerConfinementReason(parseRule('write(/opt/x/*.log)'))).toContain('may write anything in /opt/x,');
    expect(widerConfinementReason(parseRule('write(dist/**)'))).toBeUndefined();
    expect(widerConfinementReason(parseRule('read(**/*.go)'))).toBeUndefined();
  });
});
