import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cacheLayouts,
  narrowWritable,
  planConfinement,
  resolveConfinementPlan,
  toolchainLayouts,
  toolchainVariables,
  type ConfinementPlan,
} from '../../src/host/confinement/index.js';
import { existingMatches, placeOf } from '../../src/host/confinement/places.js';
import { Policy } from '../../src/host/policy.js';
import { temporaryDirectories, writeFiles } from '../support/cli.js';

const temp = temporaryDirectories('rho-confinement-homes-');
afterAll(() => temp.removeAll());

/** A home beside a workspace, both canonical, with these files in the home. */
async function setUp(files: Record<string, string> = {}): Promise<{ home: string; workspace: string }> {
  const base = await realpath(await temp.make());
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'work');
  await mkdir(home);
  await mkdir(workspace);
  await writeFiles(home, files);
  return { home, workspace };
}

function planFor(
  where: { home: string; workspace: string },
  options: { allow?: string[]; deny?: string[]; caches?: ConfinementPlan['writable'][number]['cache'][]; variables?: Record<string, string>; granted?: string[] } = {},
): ConfinementPlan {
  return planConfinement({
    policy: Policy.fromText({ allow: options.allow ?? [], deny: options.deny ?? [] }, where.home),
    workspaceRoot: where.workspace,
    grantedRoots: options.granted ?? [],
    homeDirectories: [where.home],
    home: where.home,
    variables: options.variables ?? {},
    caches: (options.caches ?? []).filter((name) => name !== undefined),
  });
}

describe('toolchain and cache places', () => {
  const context = { home: '/home/me', variables: {}, base: '/work/project' };

  it('reads a variable when the run sets it, else its default, nested as a shell would', () => {
    expect(placeOf('${CARGO_HOME:-~/.cargo}/registry', context)).toBe('/home/me/.cargo/registry');
    expect(placeOf('${CARGO_HOME:-~/.cargo}/registry', { ...context, variables: { CARGO_HOME: '/opt/cargo' } })).toBe('/opt/cargo/registry');
    const pip = '${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pip}';
    expect(placeOf(pip, context)).toBe('/home/me/.cache/pip');
    expect(placeOf(pip, { ...context, variables: { XDG_CACHE_HOME: '/var/cache/me' } })).toBe('/var/cache/me/pip');
    expect(placeOf(pip, { ...context, variables: { XDG_CACHE_HOME: '/var/cache/me', PIP_CACHE_DIR: '~/pip' } })).toBe('/home/me/pip');
    // An empty value is unset; a relative one is the workspace's; a list counts by its first entry.
    expect(placeOf('${npm_config_cache:-~/.npm}', { ...context, variables: { npm_config_cache: '' } })).toBe('/home/me/.npm');
    expect(placeOf('${npm_config_cache:-~/.npm}', { ...context, variables: { npm_config_cache: '.npm-cache' } })).toBe('/work/project/.npm-cache');
    expect(placeOf('${GOPATH:-~/go}/bin', { ...context, variables: { GOPATH: '/a/go:/b/go' } })).toBe('/a/go/bin');
    // Without a default, unset is no place; without a home, nothing under it.
    expect(placeOf('${GOROOT}', context)).toBeUndefined();
    expect(placeOf('~/.npm', { ...context, home: undefined })).toBeUndefined();
  });

  it('evaluates every place of the table, and names the variables a process must keep to find them', () => {
    const places = [...toolchainLayouts.flatMap((layout) => [...layout.reads, ...(layout.hides ?? [])]), ...cacheLayouts.flatMap((layout) => layout.writes)];
    const full = { ...context, variables: Object.fromEntries(toolchainVariables.map((name) => [name, `/set/${name}`])) };
    for (const place of places) {
      if (place.startsWith('${')) expect(placeOf(place, full), place).toMatch(/^\/set\//);
      const fallback = placeOf(place, context);
      if (fallback !== undefined) expect(path.isAbsolute(fallback), place).toBe(true);
    }
    expect(toolchainVariables).toEqual(
      expect.arrayContaining(['CARGO_HOME', 'RUSTUP_HOME', 'GOPATH', 'GOROOT', 'PYENV_ROOT', 'NVM_DIR', 'VOLTA_HOME', 'npm_config_cache', 'XDG_CACHE_HOME']),
    );
  });

  it('finds the files a wildcard place matches', async () => {
    const { home } = await setUp({ '.nvm/versions/node/v20/etc/npmrc': 't', '.nvm/versions/node/v22/etc/npmrc': 't', '.nvm/versions/node/v18/bin/node': '' });
    expect(existingMatches(path.join(home, '.nvm/versions/node/*/etc/npmrc')).sort()).toEqual([
      path.join(home, '.nvm/versions/node/v20/etc/npmrc'),
      path.join(home, '.nvm/versions/node/v22/etc/npmrc'),
    ]);
  });
});

describe('toolchains and caches in a confinement plan', () => {
  it('keeps the toolchains found under the home readable and their credential files hidden, unless a read rule grants one', async () => {
    const where = await setUp({
      '.cargo/bin/cargo': '',
      '.cargo/credentials.toml': 'token',
      '.rustup/settings.toml': '',
      '.pyenv/shims/python3': '',
      '.pyenv/libexec/pyenv': '',
    });
    const { home } = where;
    const plan = planFor(where);
    expect(plan.toolchains).toEqual([
      { name: 'rustup', paths: [path.join(home, '.cargo'), path.join(home, '.rustup')] },
      { name: 'pyenv', paths: [path.join(home, '.pyenv')] },
    ]);
    expect(plan.hidden).toEqual([path.join(home, '.cargo/credentials.toml')]);
    expect(resolveConfinementPlan(plan).exposed).toEqual([path.join(home, '.cargo'), path.join(home, '.rustup'), path.join(home, '.pyenv')]);
    expect(planFor(where, { allow: ['read(~/.cargo/credentials.toml)'] }).hidden).toEqual([]);
  });

  it('grants the caches a policy names, where the run’s variables put them, shared and kept when a step narrows its writes', async () => {
    const where = await setUp();
    const { home, workspace } = where;
    const plan = planFor(where, { caches: ['npm', 'go', 'cargo'], variables: { GOCACHE: '/var/cache/go-build', XDG_CACHE_HOME: '/unused' }, allow: ['write(dist/**)'] });
    expect(plan.writable).toEqual([
      { path: path.join(workspace, 'dist'), kind: 'tree' },
      { path: path.join(home, '.npm'), kind: 'tree', cache: 'npm' },
      { path: path.join(home, '.cargo/registry'), kind: 'tree', cache: 'cargo' },
      { path: path.join(home, '.cargo/git'), kind: 'tree', cache: 'cargo' },
      { path: path.join(home, 'go/pkg/mod'), kind: 'tree', cache: 'go' },
      { path: '/var/cache/go-build', kind: 'tree', cache: 'go' },
    ]);
    // Only the policy's own roots count as what a writable root must resolve into.
    expect(plan.scope.writable).toEqual([path.join(workspace, 'dist')]);
    expect(narrowWritable(plan, [], workspace).writable.map((root) => root.cache)).toEqual(['npm', 'cargo', 'cargo', 'go', 'go']);
    // A cache is not the step's own: writes: can neither name it nor take it away.
    expect(() => narrowWritable(plan, ['~/.npm/**'], workspace, home)).toThrow(/writes: "~\/.npm\/\*\*" is not inside what the policy's write rules grant/);
    expect(narrowWritable(plan, ['dist/js/**'], workspace, home).writable[0]).toEqual({ path: path.join(workspace, 'dist/js'), kind: 'tree' });
    // A cache of the table is where steps write whichever caches this policy grants.
    expect(planFor(where).scope.places).toEqual(expect.arrayContaining([workspace, path.join(home, '.npm'), path.join(home, '.cache/pip')]));
  });

  it('leaves out the caches of a home that does not exist: rho creates a cache directory, never a home', async () => {
    const where = await setUp();
    const missing = path.join(where.home, 'nobody');
    const plan = planConfinement({
      policy: new Policy(),
      workspaceRoot: where.workspace,
      grantedRoots: [],
      homeDirectories: [missing],
      home: missing,
      caches: ['npm'],
    });
    expect(plan.writable).toEqual([]);
    expect(plan.hiddenHomes).toEqual([]);
  });
});

describe('resolving a plan on disk', () => {
  it('refuses a writable root that a link moves out of the workspace, and follows one that stays inside what is granted', async () => {
    const where = await setUp();
    const { workspace } = where;
    await mkdir(path.join(workspace, '../victim'));
    await symlink('../victim', path.join(workspace, 'out'));
    expect(() => resolveConfinementPlan(planFor(where, { allow: ['write(out/**)'] }))).toThrow(
      /writable root out resolves to .*\/victim \(through a symbolic link\), outside the workspace and every granted root/,
    );
    await mkdir(path.join(workspace, 'build'));
    await symlink('build', path.join(workspace, 'dist'));
    expect(() => resolveConfinementPlan(planFor(where, { allow: ['write(dist/**)'] }))).toThrow(
      /writable root dist resolves to .*\/build \(through a symbolic link\), outside what the write rules grant/,
    );
    expect(resolveConfinementPlan(planFor(where, { allow: ['write(dist/**)', 'write(build/**)'] })).writable).toEqual([{ path: path.join(workspace, 'build'), kind: 'tree' }]);
  });

  it('follows no link a step could have planted to a cache, and lets no cache hold the home or the workspace', async () => {
    const where = await setUp();
    const { home, workspace } = where;
    await mkdir(path.join(home, '.ssh'));
    await symlink(path.join(home, '.ssh'), path.join(workspace, '.npm-cache'));
    const planted = planFor(where, { caches: ['npm'], variables: { npm_config_cache: '.npm-cache' } });
    expect(() => resolveConfinementPlan(planted)).toThrow(/cache npm: .npm-cache leads through .*\/work\/.npm-cache, a symbolic link to .*\/home\/.ssh in a place steps write/);
    const wide = planFor(where, { caches: ['npm'], variables: { npm_config_cache: path.dirname(workspace) } });
    expect(() => resolveConfinementPlan(wide)).toThrow(/which holds .*: a cache cannot make that writable/);
  });

  it('exposes no toolchain through a link in a cache, and recreates a trusted link inside the hidden home', async () => {
    const where = await setUp({ '.ssh/id_ed25519': 'KEY', 'tools/cargo/bin/cargo': '', 'go/pkg/mod/cache/x': '' });
    const { home } = where;
    // An earlier run with the go cache granted planted this.
    await symlink(path.join(home, '.ssh'), path.join(home, 'go/pkg/mod/golang.org'));
    await symlink(path.join(home, 'tools/cargo'), path.join(home, '.cargo'));
    const plan = resolveConfinementPlan(planFor(where));
    expect(plan.exposed).toEqual([path.join(home, 'tools/cargo')]);
    expect(plan.links).toEqual([{ path: path.join(home, '.cargo'), target: path.join(home, 'tools/cargo') }]);
  });

  it('hides a denied name under every spelling on disk, composed or not', async () => {
    const where = await setUp();
    const decomposed = 'cafe\u0301';
    await writeFiles(where.workspace, { [`${decomposed}/secret`]: 'x', 'café/secret': 'y' });
    const plan = resolveConfinementPlan(planFor(where, { deny: ['read(café/**)'] }));
    expect([...plan.hidden].sort()).toEqual([path.join(where.workspace, 'café'), path.join(where.workspace, decomposed)].sort());
  });
});
