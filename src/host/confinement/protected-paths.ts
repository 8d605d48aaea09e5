import path from 'node:path';
import { isWithin } from '../workspace.js';

/**
 * Places, relative to the workspace root and to each home directory, from which a file a
 * confined process writes would later run code outside the sandbox, without anyone choosing
 * to run it: at the next git command, shell, editor window, `cd` or package install. Each
 * names what runs it. Not listed, because nothing runs them unasked: `.gitattributes` and
 * `.git/info/attributes` (they pick filter and diff drivers, which only `.git/config` or the
 * global config can define), `.gitmodules` (git never takes a command from it, and refuses the
 * `ext::` transport), version pins (`.nvmrc`, `.python-version`, `.tool-versions`), and project
 * files that run only when someone runs the project (`Makefile`, `package.json` scripts, `build.rs`).
 */
export const protectedPlaces: readonly ProtectedPlace[] = [
  { path: '.git/hooks', runs: 'git runs the hooks in it on commit, merge, checkout and push' },
  { path: '.git/config', runs: 'git runs the programs it names (core.fsmonitor, core.hooksPath, core.sshCommand, filters, aliases)' },
  { path: '.git/config.worktree', runs: 'git reads it as .git/config for a worktree' },
  { path: '.git/modules', runs: 'it holds the hooks and config of submodules, which git runs as its own' },
  { path: '.git', unlessDirectory: true, runs: 'a new .git, or a .git file pointing elsewhere, makes git use hooks and config the process chose' },
  { path: '.husky', runs: 'husky points git at it: its scripts are the repository’s git hooks' },
  { path: '.pre-commit-config.yaml', runs: 'pre-commit’s git hook runs the commands it lists on every commit' },
  { path: 'lefthook.yml', runs: 'lefthook’s git hooks run the commands it lists' },
  { path: '.lefthook.yml', runs: 'lefthook’s git hooks run the commands it lists' },
  { path: '.vscode', runs: 'VS Code runs its tasks on opening the folder and the programs its settings name' },
  { path: '.idea', runs: 'JetBrains IDEs run the run configurations, tools and start-up tasks kept in it' },
  { path: '.devcontainer', runs: 'editors run its initializeCommand on the host when the container opens' },
  { path: '.devcontainer.json', runs: 'editors run its initializeCommand on the host when the container opens' },
  { path: '.envrc', runs: 'direnv runs it on entering the directory' },
  { path: 'mise.toml', runs: 'mise runs its hooks and env scripts on entering the directory' },
  { path: '.mise.toml', runs: 'mise runs its hooks and env scripts on entering the directory' },
  { path: '.npmrc', runs: 'npm and pnpm run what it sets (node-options, script-shell) on the next install' },
  { path: '.yarnrc.yml', runs: 'Yarn runs the file its yarnPath names, and its plugins, as Yarn itself' },
  { path: '.yarnrc', runs: 'Yarn 1 runs the file its yarn-path names as Yarn itself' },
  { path: '.pnpmfile.cjs', runs: 'pnpm runs its hooks on every install' },
  { path: '.cargo/config.toml', runs: 'cargo runs the wrappers, runners and aliases it sets' },
  { path: '.cargo/config', runs: 'cargo runs the wrappers, runners and aliases it sets' },
  { path: '.bashrc', runs: 'bash runs it when a shell starts' },
  { path: '.bash_profile', runs: 'bash runs it when a login shell starts' },
  { path: '.bash_login', runs: 'bash runs it when a login shell starts' },
  { path: '.bash_logout', runs: 'bash runs it when a login shell ends' },
  { path: '.profile', runs: 'sh, dash and bash run it when a login shell starts' },
  { path: '.zshenv', runs: 'zsh runs it when any zsh starts' },
  { path: '.zprofile', runs: 'zsh runs it when a login shell starts' },
  { path: '.zshrc', runs: 'zsh runs it when a shell starts' },
  { path: '.zlogin', runs: 'zsh runs it when a login shell starts' },
  { path: '.zlogout', runs: 'zsh runs it when a login shell ends' },
  { path: '.config/fish', runs: 'fish runs config.fish and conf.d/ when a shell starts' },
  { path: '.gitconfig', runs: 'git runs the programs the global config names' },
  { path: '.config/git', runs: 'git runs the programs the global config names, and hooks from a global hooks path' },
  { path: '.ssh', runs: 'ssh runs ProxyCommand and LocalCommand from its config, and authorized_keys lets a key log in' },
  { path: '.config/autostart', runs: 'the desktop session starts what it lists' },
  { path: '.config/systemd/user', runs: 'systemd starts the user services in it' },
  { path: '.config/Code/User', runs: 'VS Code runs the tasks and programs its user settings name' },
];

export interface ProtectedPlace {
  /** Relative to the workspace root and to each home directory. */
  path: string;
  /** What later runs a file written there. */
  runs: string;
  /** Protected only when it is not a directory: missing (it may not be created) or a file. */
  unlessDirectory?: true;
}

/** A protected place inside a writable root, as an absolute path. */
export interface ProtectedPath {
  path: string;
  runs: string;
  unlessDirectory: boolean;
}

/**
 * The protected places that lie inside the writable roots, below `bases` (the workspace root and
 * the home directories), except those a write rule names explicitly: `named` are the literal
 * paths of the allow write rules (`write(.vscode/**)` names `.vscode`), and a rule naming the
 * place or a path inside it lifts its protection. A wildcard that merely covers a place does not.
 */
export function protectedPaths(writable: readonly { path: string }[], bases: readonly string[], named: readonly string[]): ProtectedPath[] {
  const found = new Map<string, ProtectedPath>();
  for (const base of bases) {
    for (const place of protectedPlaces) {
      const absolute = path.join(base, place.path);
      if (found.has(absolute) || !writable.some((root) => isWithin(root.path, absolute))) continue;
      if (named.some((literal) => isWithin(absolute, literal))) continue;
      found.set(absolute, { path: absolute, runs: place.runs, unlessDirectory: place.unlessDirectory === true });
    }
  }
  return [...found.values()];
}
