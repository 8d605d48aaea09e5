/**
 * The host variables a process inherits by default (`policy.process_env: inherit`): what
 * programs need to find themselves and their toolchains, who the user is, the terminal, the
 * locale and time zone, and the CI run's own non-secret facts. Anything else in rho's
 * environment (a `MYSQL_PWD`, an `ID_RSA`, a `KUBE_CONFIG_DATA`, whatever its name) stays
 * behind unless the workflow passes it (`host_env:`, `secrets:`) or chooses another mode.
 * Adding a variable here is a one-line change; each is harmless for a program to see.
 */
const inheritedNames: ReadonlySet<string> = new Set([
  // Finding programs, the user and the machine's conventions.
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
  'TZ',
  // The terminal and how output looks.
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'COLUMNS',
  'LINES',
  // How this machine reaches the network: its proxy (one with credentials in its URL is removed as a credential) and extra CA certificates.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  // Where tools keep their files (XDG base directories).
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  // Toolchains and version managers: where each is installed and which version is active.
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'GOPATH',
  'GOROOT',
  'GOBIN',
  'GOCACHE',
  'GOMODCACHE',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'NVM_DIR',
  'NVM_BIN',
  'FNM_DIR',
  'FNM_MULTISHELL_PATH',
  'VOLTA_HOME',
  'MISE_DATA_DIR',
  'ASDF_DIR',
  'ASDF_DATA_DIR',
  'SDKMAN_DIR',
  'JAVA_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  'DENO_INSTALL',
  'PNPM_HOME',
  'HOMEBREW_PREFIX',
  'HOMEBREW_CELLAR',
  'HOMEBREW_REPOSITORY',
  // The CI run: what it builds, where, and on what (never its tokens, nor the files through which a step talks to the runner).
  'CI',
  'GITHUB_ACTIONS',
  'GITHUB_WORKSPACE',
  'GITHUB_SHA',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  'GITHUB_REF_TYPE',
  'GITHUB_HEAD_REF',
  'GITHUB_BASE_REF',
  'GITHUB_REPOSITORY',
  'GITHUB_REPOSITORY_OWNER',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_NUMBER',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_WORKFLOW',
  'GITHUB_JOB',
  'GITHUB_ACTOR',
  'GITHUB_EVENT_NAME',
  'GITHUB_SERVER_URL',
  'GITHUB_API_URL',
  'RUNNER_OS',
  'RUNNER_ARCH',
  'RUNNER_TEMP',
  'GITLAB_CI',
  'CI_COMMIT_SHA',
  'CI_COMMIT_REF_NAME',
  'CI_PIPELINE_ID',
  'CI_JOB_ID',
  'CI_PROJECT_DIR',
]);

/** The locale categories (`LC_ALL`, `LC_CTYPE`, …). */
const localeCategory = /^LC_[A-Z]+$/;

/** Whether a host variable is one a process inherits by default. */
export function isInheritedByDefault(name: string): boolean {
  return inheritedNames.has(name) || localeCategory.test(name);
}
