import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Policy } from '../policy.js';
import { isUnrestricted, readRuleCovers, type Rule } from '../rules.js';
import { isWithin } from '../workspace.js';
import { protectedPaths, type ProtectedPath } from './protected-paths.js';
import { grantedCaches, placedCaches, toolchainsFound, type FoundToolchain, type PlacedCache } from './home-grants.js';
import { literalPrefix, rulePaths } from './rule-paths.js';
import type { CacheName } from './toolchains.js';

export type { FoundToolchain } from './home-grants.js';

/**
 * How a confined process reaches the network:
 * - `none`: no network at all (its own empty network namespace);
 * - `host`: the host's network, for an unrestricted `network` rule that no deny or ask narrows;
 * - `proxy`: only the hosts the `network(HOST)` rules allow (or ask about), through the filtering
 *   proxy rho runs for the run, which puts each host through the authorization path; a host
 *   without a proxy (a library host that passes none) gives such a process no network at all.
 */
export type NetworkConfinement = { mode: 'none' } | { mode: 'host' } | { mode: 'proxy'; rules: readonly string[] };

/**
 * A place a confined process may write. `tree`: a directory a glob's literal prefix names
 * (`write(dist/**)` → `dist`), created empty before the process starts when it is missing.
 * `entry`: the one path a literal rule names (`write(.rho/notes.txt)`). Where its directory is
 * guarded (`guardedDirectory`), a root can be created, replaced by a rename and removed; where
 * not, it is mounted on itself: an entry is writable only if it exists when the process starts.
 */
export interface WritableRoot {
  path: string;
  kind: 'tree' | 'entry';
  /**
   * The cache (`policy.caches`) this tree is a directory of: shared by the steps that use it (the
   * tool locks it itself), and kept when a step narrows where it writes (`writes:`).
   */
  cache?: CacheName;
}

/**
 * What a resolved path is checked against before it reaches the sandbox (`resolve.ts`):
 * - `roots`: the canonical directories a writable root or a read grant may lie in (the workspace,
 *   and granted roots when `outside` is allowed), as for the file tools;
 * - `writable`: the policy's writable roots before a step narrows them: a root that resolves
 *   through a link must still land inside one;
 * - `places`: where some step may write, in this run or an earlier one (the workspace, granted
 *   roots a write rule reaches, every cache of `toolchains.ts`): a link found there may have been
 *   planted, so toolchains and caches are never resolved through one, and a program found there
 *   is matched only by a rule that names its path.
 */
export interface ConfinementScope {
  /** The canonical workspace root. */
  workspace: string;
  roots: readonly string[];
  writable: readonly string[];
  places: readonly string[];
  /** Every cache of `toolchains.ts` as this run places it, granted or not: what a failure's hint can name. */
  caches: readonly PlacedCache[];
}

/**
 * What every process a policy authorizes may touch, computed once per policy: where it may
 * write, what stays read-only inside those places, what it cannot see, what stays visible
 * inside hidden directories, and its network. Paths are absolute. Everything not named here is
 * visible and read-only.
 */
export interface ConfinementPlan {
  /** Outermost first; none lies inside another. */
  writable: readonly WritableRoot[];
  /** Paths inside writable roots that deny or ask `write` rules keep read-only. */
  readOnly: readonly string[];
  /**
   * Places inside the policy's writable roots from which a written file would later run code
   * outside the sandbox, and that no rule names; a step narrowed by `writes:` keeps them all, and
   * its sandbox keeps those its process could write.
   */
  protected: readonly ProtectedPath[];
  /**
   * The roots rho's tools accept paths in (the workspace; granted roots when `outside` is
   * allowed): a writable root whose directory lies inside them may have that directory guarded.
   */
  acceptedRoots: readonly string[];
  /** The directory trees the policy's write rules grant, as they are before a step narrows `writable` (`writes:`). */
  grantedTrees: readonly string[];
  /** Home directories: replaced by an empty read-only directory, with what is exposed inside mounted back. */
  hiddenHomes: readonly string[];
  /**
   * Where the process's private temporary directory is mounted (`/dev/shm`, its TMPDIR): an empty
   * in-memory file system that disappears with the process, so nothing is left behind even
   * when rho is killed. What it covers stays hidden except what is exposed. Undefined when the
   * workspace itself contains every candidate.
   */
  privateTemp: string | undefined;
  /** Paths under deny or ask `read` rules: not readable at all (an empty directory or file stands in). */
  hidden: readonly string[];
  /** Paths inside hidden homes or the private temp that stay readable: the workspace and what read rules grant there. */
  exposed: readonly string[];
  /** Toolchains found under the home: readable (their `paths` are exposed), their credential files hidden. */
  toolchains: readonly FoundToolchain[];
  /**
   * rho's own directories (its state, key and caches): hidden whatever the rules, even inside a
   * writable root, and kept where they are (a process cannot move them, or a directory above
   * them, aside and put its own in their place).
   */
  privatePaths: readonly string[];
  network: NetworkConfinement;
  /** Whether the process may create unix sockets (`unixSocketConfinement`); otherwise its seccomp filter refuses them. */
  unixSockets: boolean;
  scope: ConfinementScope;
}

export interface ConfinementInput {
  policy: Policy;
  workspaceRoot: string;
  grantedRoots: readonly string[];
  /** The user's home directories (`$HOME` and the account's), hidden unless a rule grants them; one that does not exist is left alone. */
  homeDirectories: readonly string[];
  /** What `~` stands for in toolchain and cache places: the running user's home. */
  home?: string | undefined;
  /** The run's variables that move toolchains and caches (`CARGO_HOME`, `npm_config_cache`): rho's environment, the workflow's `env:` over it. */
  variables?: Readonly<Record<string, string | undefined>>;
  /** The caches `policy.caches` names: writable to processes. */
  caches?: readonly CacheName[];
  /** rho's own directories, absolute and canonical (`ConfinementPlan.privatePaths`). */
  privatePaths?: readonly string[];
}

type PathRule = Extract<Rule, { class: 'read' | 'write' }>;

function rulesOf(rules: readonly Rule[], ruleClass: 'read' | 'write'): PathRule[] {
  return rules.filter((rule): rule is PathRule => rule.class === ruleClass);
}

/** Keeps the outermost of nested paths, in order of depth. */
export function outermost<T extends { path: string }>(entries: readonly T[]): T[] {
  const sorted = [...entries].sort((a, b) => a.path.length - b.path.length);
  const kept: T[] = [];
  for (const entry of sorted) if (!kept.some((held) => isWithin(held.path, entry.path))) kept.push(entry);
  return kept;
}

/** Of `entries`, those outside rho's own directories: a rule naming them grants nothing there. */
export function outsidePrivate<T extends { path: string }>(entries: readonly T[], privatePaths: readonly string[]): T[] {
  return entries.filter((entry) => !privatePaths.some((dir) => isWithin(dir, entry.path)));
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** Whether the policy lets paths outside the workspace be used at all (an allowed, not narrowed, `outside`). */
function allowsOutside(policy: Policy): boolean {
  const outside = (rules: readonly Rule[]) => rules.some((rule) => rule.class === 'outside');
  return outside(policy.rules.allow) && !outside(policy.rules.deny) && !outside(policy.rules.ask) && !outside(policy.rules.askIfAllowed);
}

/** The roots rho's own tools would accept a path in: the workspace, and granted roots when `outside` is allowed. */
function scopeRoots(input: ConfinementInput): string[] {
  return [input.workspaceRoot, ...(allowsOutside(input.policy) ? input.grantedRoots : [])];
}

/** The writable roots `allow` write rules grant, limited to the roots rho's own tools would accept. */
function writableRoots(input: ConfinementInput, roots: readonly string[]): WritableRoot[] {
  const inRoots = (candidate: string) => roots.some((root) => isWithin(root, candidate));
  const granted: WritableRoot[] = [];
  for (const rule of rulesOf(input.policy.rules.allow, 'write')) {
    if (rule.glob === undefined) {
      granted.push(...roots.map((root) => ({ path: root, kind: 'tree' as const })));
      continue;
    }
    const prefix = literalPrefix(rule.glob, input.workspaceRoot);
    if (inRoots(prefix.path)) granted.push({ path: prefix.path, kind: prefix.literal ? 'entry' : 'tree' });
  }
  return outermost(granted);
}

/**
 * Where some step may write, in this run or an earlier one: the workspace, granted roots that an
 * allow or ask write rule reaches (a file tool may write there once approved), the writable roots
 * and every cache the table names.
 */
function writablePlaces(input: ConfinementInput, writable: readonly WritableRoot[], caches: readonly PlacedCache[]): string[] {
  const { policy } = input;
  const writeRules = [...rulesOf(policy.rules.allow, 'write'), ...rulesOf(policy.rules.ask, 'write')];
  const outsideRule = [...policy.rules.allow, ...policy.rules.ask].some((rule) => rule.class === 'outside');
  const reached = (root: string) =>
    writeRules.some((rule) => {
      if (rule.glob === undefined) return true;
      const prefix = literalPrefix(rule.glob, input.workspaceRoot).path;
      return isWithin(root, prefix) || isWithin(prefix, root);
    });
  const granted = outsideRule ? input.grantedRoots.filter(reached) : [];
  return unique([input.workspaceRoot, ...granted, ...writable.map((root) => root.path), ...caches.map((cache) => cache.path)]);
}

/** The homes worth hiding: each that exists, as it really is (a missing one holds nothing and cannot be mounted over). */
export function existingHomes(homes: readonly string[]): string[] {
  return unique(
    homes.flatMap((home) => {
      try {
        return [realpathSync.native(path.resolve(home))];
      } catch {
        return [];
      }
    }),
  );
}

/**
 * The network of a confined process: none unless a `network` rule allows it; the host's for an
 * unrestricted rule that no deny or ask rule narrows (a namespace cannot tell hosts apart);
 * otherwise only through the proxy that checks each host.
 */
export function networkConfinement(policy: Policy): NetworkConfinement {
  const network = (rules: readonly Rule[]) => rules.filter((rule) => rule.class === 'network');
  const allowed = network(policy.rules.allow);
  const asked = network(policy.rules.ask);
  if (allowed.length === 0 && asked.length === 0) return { mode: 'none' };
  const narrowed = network(policy.rules.deny).length > 0 || asked.length > 0 || network(policy.rules.askIfAllowed).length > 0;
  if (allowed.some(isUnrestricted) && !narrowed) return { mode: 'host' };
  return { mode: 'proxy', rules: [...allowed, ...asked].map((rule) => rule.text) };
}

/**
 * Whether confined processes may create unix sockets: an allowed `unix_socket` rule that no
 * deny or ask rule names. Such a process reaches every unix socket it can see (the ssh agent,
 * Docker, D-Bus, tmux): a connect(2) cannot be decided socket by socket, so there is nothing to
 * ask about one at a time, and an ask rule keeps them closed as a deny does.
 */
export function unixSocketConfinement(policy: Policy): boolean {
  const named = (rules: readonly Rule[]) => rules.some((rule) => rule.class === 'unix_socket');
  return named(policy.rules.allow) && !named(policy.rules.deny) && !named(policy.rules.ask) && !named(policy.rules.askIfAllowed);
}

/**
 * Where a private temporary file system is mounted: the sandbox's own /dev, which holds no host
 * file. Mounting it over the host's /tmp would hide whatever a step reads there (a checkout, a
 * script a command names), so the host's /tmp stays visible read-only like the rest.
 */
const privateTempCandidates = ['/dev/shm'];

/** The first candidate that lies inside none of the paths that must stay visible (it may contain them). */
export function choosePrivateTemp(visible: readonly string[]): string | undefined {
  return privateTempCandidates.find((candidate) => !visible.some((root) => isWithin(root, candidate)));
}

/** Of `paths`, those an emptied directory covers (they are mounted back over it). */
export function exposedWithin(emptied: readonly string[], paths: readonly string[]): string[] {
  return unique(paths).filter((candidate) => emptied.some((directory) => isWithin(directory, candidate) && directory !== candidate));
}

/** Computes a policy's confinement plan (once per policy: process launches resolve it on disk, `resolve.ts`). */
export function planConfinement(input: ConfinementInput): ConfinementPlan {
  const { policy, workspaceRoot } = input;
  const context = { home: input.home, variables: input.variables ?? {}, base: workspaceRoot };
  const withheld = [...policy.rules.deny, ...policy.rules.ask, ...policy.rules.askIfAllowed];
  const privatePaths = unique(input.privatePaths ?? []);
  const roots = scopeRoots(input);
  const ruleRoots = outsidePrivate(writableRoots(input, roots), privatePaths);
  const caches = placedCaches(context);
  const cacheRoots = outsidePrivate(grantedCaches(caches, input.caches ?? [], input.homeDirectories), privatePaths)
    .filter((cache) => !ruleRoots.some((root) => root.kind === 'tree' && isWithin(root.path, cache.path)))
    .map((cache): WritableRoot => ({ path: cache.path, kind: 'tree', cache: cache.name }));
  const writable = [...ruleRoots, ...cacheRoots];
  const readOnly = rulesOf(withheld, 'write')
    .flatMap((rule) => rulePaths(rule, workspaceRoot))
    .filter((target) => writable.some((root) => isWithin(root.path, target)));
  const readGranted = (file: string) => rulesOf(policy.rules.allow, 'read').some((rule) => readRuleCovers(rule, file, workspaceRoot));
  const toolchains = toolchainsFound(context, readGranted);
  const hidden = [...rulesOf(withheld, 'read').flatMap((rule) => rulePaths(rule, workspaceRoot)), ...toolchains.credentials];
  // A read grant outside the workspace reaches processes as it reaches the file tools: in a granted root, with `outside`.
  const readGrants = rulesOf(policy.rules.allow, 'read')
    .filter((rule) => rule.glob !== undefined && path.isAbsolute(rule.glob))
    .map((rule) => literalPrefix(rule.glob!, workspaceRoot).path)
    .filter((grant) => roots.some((root) => isWithin(root, grant)));
  const granted = [workspaceRoot, ...readGrants, ...ruleRoots.map((root) => root.path)];
  // A home that a rule grants as a whole (or that is the workspace, or inside it) is not hidden.
  const hiddenHomes = existingHomes(input.homeDirectories).filter((home) => home !== path.sep && !granted.some((grant) => isWithin(grant, home)));
  const privateTemp = choosePrivateTemp(granted);
  const exposed = exposedWithin([...hiddenHomes, ...(privateTemp ? [privateTemp] : [])], [workspaceRoot, ...readGrants]);
  const named = rulesOf(policy.rules.allow, 'write').flatMap((rule) => (rule.glob === undefined ? [] : [literalPrefix(rule.glob, workspaceRoot).path]));
  return {
    writable,
    readOnly: unique(readOnly),
    protected: protectedPaths(writable, unique([workspaceRoot, ...input.homeDirectories.map((home) => path.resolve(home))]), named),
    acceptedRoots: roots,
    grantedTrees: writable.filter((root) => root.kind === 'tree').map((root) => root.path),
    hiddenHomes,
    privateTemp,
    hidden: unique(hidden),
    exposed,
    toolchains: toolchains.found,
    privatePaths,
    network: networkConfinement(policy),
    unixSockets: unixSocketConfinement(policy),
    scope: { workspace: workspaceRoot, roots, writable: ruleRoots.map((root) => root.path), places: writablePlaces(input, writable, caches), caches },
  };
}
