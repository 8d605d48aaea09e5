/*
 * Where the tools people install under their home keep their programs and their caches: the
 * data confinement reads to keep toolchains readable without any rule and to grant caches by
 * name (`caches: [npm, cargo]`). A place is written as a shell would: `${VAR:-default}` is the
 * variable when the run sets it (rho's environment and the workflow's `env:`), else the default;
 * `${VAR}` alone is a place only when VAR is set; `~` is the running user's home. Adding a
 * layout or a cache is one line here (and one in the lists of docs/confinement.md).
 */

/** Programs installed under the home, readable (never writable) to every confined process. */
export interface ToolchainLayout {
  name: string;
  /** The installation's trees (or files). */
  reads: readonly string[];
  /** Credential files inside them: hidden unless a read rule grants them. `*` stands for any one name. */
  hides?: readonly string[];
}

export const toolchainLayouts: readonly ToolchainLayout[] = [
  {
    name: 'rustup',
    reads: ['${CARGO_HOME:-~/.cargo}', '${RUSTUP_HOME:-~/.rustup}'],
    hides: ['${CARGO_HOME:-~/.cargo}/credentials.toml', '${CARGO_HOME:-~/.cargo}/credentials'],
  },
  { name: 'pyenv', reads: ['${PYENV_ROOT:-~/.pyenv}'], hides: ['${PYENV_ROOT:-~/.pyenv}/versions/*/pip.conf'] },
  { name: 'nvm', reads: ['${NVM_DIR:-~/.nvm}'], hides: ['${NVM_DIR:-~/.nvm}/versions/node/*/etc/npmrc'] },
  {
    name: 'fnm',
    reads: ['${FNM_DIR:-${XDG_DATA_HOME:-~/.local/share}/fnm}', '~/.fnm', '${XDG_STATE_HOME:-~/.local/state}/fnm_multishells'],
    hides: ['${FNM_DIR:-${XDG_DATA_HOME:-~/.local/share}/fnm}/node-versions/*/installation/etc/npmrc'],
  },
  { name: 'volta', reads: ['${VOLTA_HOME:-~/.volta}'], hides: ['${VOLTA_HOME:-~/.volta}/tools/image/node/*/etc/npmrc'] },
  {
    name: 'mise',
    reads: ['${MISE_DATA_DIR:-${XDG_DATA_HOME:-~/.local/share}/mise}', '${MISE_STATE_DIR:-${XDG_STATE_HOME:-~/.local/state}/mise}'],
    hides: ['${MISE_DATA_DIR:-${XDG_DATA_HOME:-~/.local/share}/mise}/installs/node/*/etc/npmrc'],
  },
  { name: 'asdf', reads: ['${ASDF_DATA_DIR:-~/.asdf}', '~/.tool-versions', '${ASDF_CONFIG_FILE:-~/.asdfrc}'], hides: ['${ASDF_DATA_DIR:-~/.asdf}/installs/nodejs/*/etc/npmrc'] },
  { name: 'sdkman', reads: ['${SDKMAN_DIR:-~/.sdkman}'], hides: ['${SDKMAN_DIR:-~/.sdkman}/candidates/maven/*/conf/settings.xml'] },
  { name: 'go', reads: ['${GOROOT}', '${GOBIN:-${GOPATH:-~/go}/bin}', '~/sdk', '${GOMODCACHE:-${GOPATH:-~/go}/pkg/mod}/golang.org'] },
  { name: 'bun', reads: ['${BUN_INSTALL:-~/.bun}'] },
  { name: 'deno', reads: ['${DENO_INSTALL:-~/.deno}'] },
  {
    name: 'pipx',
    reads: ['${PIPX_HOME:-${XDG_DATA_HOME:-~/.local/share}/pipx}', '${PIPX_BIN_DIR:-~/.local/bin}'],
    hides: ['${PIPX_HOME:-${XDG_DATA_HOME:-~/.local/share}/pipx}/venvs/*/pip.conf'],
  },
  {
    name: 'uv',
    reads: ['${XDG_DATA_HOME:-~/.local/share}/uv', '${UV_TOOL_DIR}', '${UV_PYTHON_INSTALL_DIR}', '${UV_TOOL_BIN_DIR:-~/.local/bin}'],
    hides: ['${XDG_DATA_HOME:-~/.local/share}/uv/credentials'],
  },
  { name: 'pip --user', reads: ['${PYTHONUSERBASE:-~/.local}/bin', '${PYTHONUSERBASE:-~/.local}/lib'] },
  { name: 'pnpm', reads: ['${PNPM_HOME:-${XDG_DATA_HOME:-~/.local/share}/pnpm}'] },
  { name: 'corepack', reads: ['${COREPACK_HOME:-${XDG_CACHE_HOME:-~/.cache}/node/corepack}'] },
  { name: 'rbenv', reads: ['${RBENV_ROOT:-~/.rbenv}'] },
  { name: 'conda', reads: ['~/miniconda3', '~/miniforge3', '~/anaconda3'], hides: ['~/miniconda3/.condarc', '~/miniforge3/.condarc', '~/anaconda3/.condarc'] },
  { name: 'homebrew', reads: ['${HOMEBREW_PREFIX:-/home/linuxbrew/.linuxbrew}', '~/.linuxbrew'], hides: ['${HOMEBREW_PREFIX:-/home/linuxbrew/.linuxbrew}/etc/npmrc'] },
];

/** A tool's cache, granted writable to confined processes by naming it in `policy.caches`. */
export interface CacheLayout {
  name: string;
  /** Its directories. */
  writes: readonly string[];
}

export const cacheLayouts = [
  { name: 'npm', writes: ['${npm_config_cache:-${NPM_CONFIG_CACHE:-~/.npm}}'] },
  { name: 'pnpm', writes: ['${npm_config_store_dir:-${XDG_DATA_HOME:-~/.local/share}/pnpm/store}', '${XDG_CACHE_HOME:-~/.cache}/pnpm', '${XDG_STATE_HOME:-~/.local/state}/pnpm'] },
  { name: 'yarn', writes: ['${YARN_CACHE_FOLDER:-${XDG_CACHE_HOME:-~/.cache}/yarn}', '${YARN_GLOBAL_FOLDER:-~/.yarn/berry}/cache'] },
  { name: 'bun', writes: ['${BUN_INSTALL_CACHE_DIR:-${BUN_INSTALL:-~/.bun}/install/cache}'] },
  { name: 'deno', writes: ['${DENO_DIR:-${XDG_CACHE_HOME:-~/.cache}/deno}'] },
  { name: 'cargo', writes: ['${CARGO_HOME:-~/.cargo}/registry', '${CARGO_HOME:-~/.cargo}/git'] },
  { name: 'go', writes: ['${GOMODCACHE:-${GOPATH:-~/go}/pkg/mod}', '${GOCACHE:-${XDG_CACHE_HOME:-~/.cache}/go-build}'] },
  { name: 'pip', writes: ['${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pip}'] },
  { name: 'uv', writes: ['${UV_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/uv}'] },
  { name: 'pdm', writes: ['${PDM_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pdm}'] },
  { name: 'poetry', writes: ['${POETRY_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pypoetry}'] },
  { name: 'pre-commit', writes: ['${PRE_COMMIT_HOME:-${XDG_CACHE_HOME:-~/.cache}/pre-commit}'] },
  {
    name: 'gradle',
    writes: ['${GRADLE_USER_HOME:-~/.gradle}/caches', '${GRADLE_USER_HOME:-~/.gradle}/wrapper', '${GRADLE_USER_HOME:-~/.gradle}/daemon', '${GRADLE_USER_HOME:-~/.gradle}/native'],
  },
  { name: 'maven', writes: ['~/.m2/repository'] },
  { name: 'composer', writes: ['${COMPOSER_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/composer}'] },
  { name: 'ccache', writes: ['${CCACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/ccache}'] },
  { name: 'sccache', writes: ['${SCCACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/sccache}'] },
  { name: 'node-gyp', writes: ['${XDG_CACHE_HOME:-~/.cache}/node-gyp'] },
  { name: 'nuget', writes: ['${NUGET_PACKAGES:-~/.nuget/packages}'] },
] as const satisfies readonly CacheLayout[];

export type CacheName = (typeof cacheLayouts)[number]['name'];

export const cacheNames = cacheLayouts.map((layout) => layout.name) as [CacheName, ...CacheName[]];

/** Every variable a toolchain or cache place reads: what a process's inherited environment must keep for these tools to find their homes. */
export const toolchainVariables: readonly string[] = [
  ...new Set(
    [...toolchainLayouts.flatMap((layout) => [...layout.reads, ...(layout.hides ?? [])]), ...cacheLayouts.flatMap((layout) => layout.writes)].flatMap((place) =>
      [...place.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!),
    ),
  ),
];
