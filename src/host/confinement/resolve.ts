import path from 'node:path';
import { locateOnDisk, locateThroughTrustedLinks, spellingsOnDisk, UntrustedLink, type LinkMet } from '../disk-paths.js';
import { ToolError } from '../errors.js';
import { showHomePath } from '../home-path.js';
import { isWithin } from '../workspace.js';
import { outermost, outsidePrivate, type ConfinementPlan, type WritableRoot } from './plan.js';

declare const resolvedOnDisk: unique symbol;

/**
 * A plan as it stands on disk right before a process starts: every path canonical (links
 * followed, every NFC spelling of a hidden or protected name found) and checked, plus the links
 * to recreate inside hidden directories. Only `resolveConfinementPlan` makes one, and only such a
 * plan reaches the sandbox.
 */
export type ResolvedPlan = ConfinementPlan & {
  /** Links inside hidden directories that lead to what stays visible (`~/.cargo` → `/opt/cargo`): recreated as they are. */
  readonly links: readonly LinkMet[];
  readonly [resolvedOnDisk]: true;
};

function canonicalOf(lexical: string): string {
  try {
    return locateOnDisk(lexical).canonical;
  } catch {
    // Unplaceable (a loop, no permission): the process meets the same failure.
    return lexical;
  }
}

/** Every canonical path a hidden or protected path stands for: each of its spellings on disk, links followed. */
function canonicalSpellings(lexical: string): string[] {
  return spellingsOnDisk(lexical).map(canonicalOf);
}

/** A path as a message shows it: relative inside the workspace, `~/…` in the home, else absolute. */
function shownPath(target: string, plan: ConfinementPlan, home: string | undefined): string {
  if (isWithin(plan.scope.workspace, target)) return path.relative(plan.scope.workspace, target).split(path.sep).join('/') || '.';
  return showHomePath(target, home);
}

function refused(message: string): ToolError {
  return new ToolError('policy_denied', message, { details: { reason: 'confinement_path' } });
}

/**
 * Where a writable root really is, checked like a file-tool path: a rule's root must resolve
 * inside the workspace or a granted root (with `outside`), and inside what the policy's write
 * rules grant; a cache's is followed through no link a step could have planted, and may not hold
 * a home or the workspace.
 */
function resolveWritable(root: WritableRoot, plan: ConfinementPlan, home: string | undefined): { root: WritableRoot; links: LinkMet[] } {
  const shown = shownPath(root.path, plan, home);
  if (root.cache) {
    let located: ReturnType<typeof locateThroughTrustedLinks>;
    try {
      located = locateThroughTrustedLinks(root.path, plan.scope.places);
    } catch (cause) {
      if (cause instanceof UntrustedLink) {
        throw refused(`cache ${root.cache}: ${shown} leads through ${cause.link}, a symbolic link to ${cause.target} in a place steps write; rho follows no such link: remove it`);
      }
      throw refused(`cache ${root.cache}: ${shown} cannot be resolved (${(cause as Error).message})`);
    }
    const held = [...plan.scope.roots, ...plan.hiddenHomes].find((kept) => isWithin(located.canonical, kept));
    if (located.canonical === path.sep || held) {
      throw refused(
        `cache ${root.cache}: ${shown} resolves to ${located.canonical}, which holds ${held ?? 'everything'}: a cache cannot make that writable; point the tool's cache elsewhere`,
      );
    }
    return { root: { ...root, path: located.canonical }, links: located.links };
  }
  let canonical: string;
  try {
    canonical = locateOnDisk(root.path).canonical;
  } catch (cause) {
    throw refused(`writable root ${shown} cannot be resolved (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`);
  }
  const inScope = plan.scope.roots.some((scopeRoot) => isWithin(scopeRoot, canonical));
  const granted = plan.scope.writable.some((grant) => isWithin(grant, canonical));
  if (!inScope || !granted) {
    const where = inScope ? 'outside what the write rules grant' : 'outside the workspace and every granted root';
    throw refused(
      `writable root ${shown} resolves to ${canonical} (through a symbolic link), ${where}: confined processes get no writable root through a link that leaves it; remove the link, or grant its target`,
    );
  }
  return { root: { ...root, path: canonical }, links: [] };
}

/**
 * Resolves a plan on disk, right before the process starts (an earlier step may have planted a
 * link since the plan was made): writable roots as `resolveWritable` says (refused with a
 * `policy_denied` error), hidden and protected paths under every spelling and through their
 * links (hiding more is always safe), read grants inside their roots, toolchains through no
 * planted link. `home` is only for messages.
 */
export function resolveConfinementPlan(plan: ConfinementPlan, home?: string): ResolvedPlan {
  const emptied = [...(plan.privateTemp ? [plan.privateTemp] : []), ...plan.hiddenHomes];
  const inEmptied = (candidate: string) => emptied.some((directory) => isWithin(directory, candidate));
  const links: LinkMet[] = [];
  const resolved = plan.writable.map((root) => {
    const placed = resolveWritable(root, plan, home);
    links.push(...placed.links);
    return placed.root;
  });
  // The policy's own roots, outermost; then the caches in the order of the table. None inside rho's own directories, wherever a link led.
  const kept = outsidePrivate(resolved, plan.privatePaths);
  const granted = outermost(kept.filter((root) => root.cache === undefined));
  const writable = [...granted, ...kept.filter((root) => root.cache !== undefined && !granted.some((other) => other.kind === 'tree' && isWithin(other.path, root.path)))];
  const readOnly = unique(plan.readOnly.flatMap(canonicalSpellings)).filter((kept) => writable.some((root) => isWithin(root.path, kept)));
  const hidden = unique(plan.hidden.flatMap(canonicalSpellings));
  const readable = plan.exposed.flatMap(canonicalSpellings).filter((exposed) => plan.scope.roots.some((root) => isWithin(root, exposed)));
  const installed = plan.toolchains.flatMap((toolchain) =>
    toolchain.paths.flatMap((place) => {
      try {
        const located = locateThroughTrustedLinks(place, plan.scope.places);
        links.push(...located.links);
        return [located.canonical];
      } catch {
        // Through a link a step may have planted, or not placeable: it stays hidden.
        return [];
      }
    }),
  );
  const exposed = unique([...readable, ...installed]).filter(inEmptied);
  const mounted = [...exposed, ...writable.map((root) => root.path)];
  const recreated = links.filter(
    (link, index) => inEmptied(link.path) && !mounted.some((mount) => isWithin(mount, link.path)) && links.findIndex((other) => other.path === link.path) === index,
  );
  return { ...plan, writable, readOnly, hidden, exposed, links: recreated } as unknown as ResolvedPlan;
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
