import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { writeFiles } from './cli.js';

/*
 * A home directory laid out as real installs lay it out, with stub programs where the real
 * ones would be:
 * - pyenv: `~/.pyenv/shims/python3` is the shim pyenv writes (it execs `~/.pyenv/libexec/pyenv
 *   exec python3`), which picks the version in `~/.pyenv/version` and execs
 *   `~/.pyenv/versions/3.12.1/bin/python3`; that python3 answers `--version` and `-m pip
 *   download NAME` (into pip's cache, `~/.cache/pip/http`).
 * - rustup: `~/.cargo/bin/cargo` is a proxy that reads the default toolchain from
 *   `~/.rustup/settings.toml` and execs `~/.rustup/toolchains/TOOLCHAIN/bin/cargo`; that cargo
 *   writes its registry cache (`~/.cargo/registry/cache`) and `target/` as `cargo build`, `test`
 *   and `clippy` do (failing as cargo fails when it cannot), reads the sources for `fmt`, and
 *   says whether `~/.cargo/credentials.toml` (a registry token) was readable.
 * - Go installed with golang.org/dl: `~/sdk/go1.22.1/bin/go`, whose `build` writes the module
 *   cache (`~/go/pkg/mod`) and the build cache (`~/.cache/go-build`) and then its `-o` output;
 *   `~/go/bin/golangci-lint`, installed with `go install`.
 * - `~/.ssh/id_ed25519`, a key no confined process may read.
 */

const toolchain = 'stable-x86_64-unknown-linux-gnu';

const files: Record<string, string> = {
  '.pyenv/shims/python3': `#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="\${0##*/}"

export PYENV_ROOT="\${PYENV_ROOT:-$HOME/.pyenv}"
exec "$PYENV_ROOT/libexec/pyenv" exec "$program" "$@"
`,
  '.pyenv/libexec/pyenv': `#!/bin/sh
[ "$1" = exec ] || { echo "pyenv: no such command '$1'" >&2; exit 1; }
program="$2"
shift 2
version=$(cat "$PYENV_ROOT/version")
exec "$PYENV_ROOT/versions/$version/bin/$program" "$@"
`,
  '.pyenv/version': '3.12.1\n',
  '.pyenv/versions/3.12.1/bin/python3': `#!/bin/sh
echo "Python 3.12.1: $*"
if [ "$1 $2 $3" = "-m pip download" ]; then
  cache="\${PIP_CACHE_DIR:-\${XDG_CACHE_HOME:-$HOME/.cache}/pip}"
  mkdir -p "$cache/http" && echo wheel > "$cache/http/$4" || exit 1
fi
`,
  '.cargo/bin/cargo': `#!/bin/sh
rustup_home="\${RUSTUP_HOME:-$HOME/.rustup}"
toolchain=$(sed -n 's/^default_toolchain = "\\(.*\\)"$/\\1/p' "$rustup_home/settings.toml") || exit 1
RUSTUP_TOOLCHAIN="$toolchain" exec "$rustup_home/toolchains/$toolchain/bin/cargo" "$@"
`,
  '.cargo/credentials.toml': '[registry]\ntoken = "cargo-registry-token"\n',
  '.rustup/settings.toml': `default_toolchain = "${toolchain}"\nprofile = "minimal"\n`,
  [`.rustup/toolchains/${toolchain}/bin/cargo`]: `#!/bin/sh
cargo_home="\${CARGO_HOME:-$HOME/.cargo}"
echo "cargo 1.80.0 ($RUSTUP_TOOLCHAIN): $*"
token=$(cat "$cargo_home/credentials.toml" 2>/dev/null)
[ -n "$token" ] && echo "credentials: $token" || echo "credentials: unreadable"
case "$1" in
  fmt)
    for source in src/*.rs; do cat "$source" > /dev/null || exit 1; done
    echo "checked $(ls src/*.rs | wc -l) file(s)" ;;
  build|test|clippy)
    if ! { mkdir -p "$cargo_home/registry/cache" && echo crate > "$cargo_home/registry/cache/serde-1.0.crate"; } 2>/dev/null; then
      printf 'error: failed to create directory \`%s\`\n\nCaused by:\n  Read-only file system (os error 30)\n' "$cargo_home/registry/cache" >&2
      exit 101
    fi
    profile=debug
    for argument in "$@"; do [ "$argument" = --release ] && profile=release; done
    mkdir -p "target/$profile" && echo binary > "target/$profile/app" || exit 101
    if [ "$1" = test ]; then echo "test tests::greets ... ok"; fi ;;
esac
`,
  'sdk/go1.22.1/bin/go': `#!/bin/sh
modules="\${GOMODCACHE:-\${GOPATH:-$HOME/go}/pkg/mod}"
builds="\${GOCACHE:-\${XDG_CACHE_HOME:-$HOME/.cache}/go-build}"
echo "go1.22.1: $*"
[ "$1" = build ] || exit 0
for cache in "$modules/cache/download" "$builds/00"; do
  mkdir -p "$cache" 2>/dev/null && echo cached > "$cache/entry" || { echo "go: creating work dir: mkdir $cache: read-only file system" >&2; exit 1; }
done
while [ "$#" -gt 0 ]; do [ "$1" = -o ] && output="$2"; shift; done
mkdir -p "$(dirname "$output")" && echo binary > "$output"
`,
  'go/bin/golangci-lint': '#!/bin/sh\necho "golangci-lint: $* (0 issues)"\n',
  '.ssh/id_ed25519': 'PRIVATE KEY\n',
};

const programs = [
  '.pyenv/shims/python3',
  '.pyenv/libexec/pyenv',
  '.pyenv/versions/3.12.1/bin/python3',
  '.cargo/bin/cargo',
  `.rustup/toolchains/${toolchain}/bin/cargo`,
  'sdk/go1.22.1/bin/go',
  'go/bin/golangci-lint',
];

/** Lays out the home at `home`; returns it. */
export async function fakeHome(home: string): Promise<string> {
  await writeFiles(home, files);
  for (const program of programs) await chmod(path.join(home, program), 0o755);
  return home;
}

/**
 * The environment of a user of that home: its toolchains first on PATH, then the system's; the
 * variables that move toolchains and caches cleared, whatever the machine running the tests sets.
 */
export function homeEnvironment(home: string): Record<string, string> {
  const cleared = [
    'PYENV_ROOT',
    'CARGO_HOME',
    'RUSTUP_HOME',
    'XDG_CACHE_HOME',
    'XDG_DATA_HOME',
    'XDG_STATE_HOME',
    'PIP_CACHE_DIR',
    'npm_config_cache',
    'GOPATH',
    'GOROOT',
    'GOMODCACHE',
    'GOCACHE',
    'GOBIN',
  ];
  return {
    ...Object.fromEntries(cleared.map((name) => [name, ''])),
    HOME: home,
    PATH: [
      path.join(home, '.cargo/bin'),
      path.join(home, '.pyenv/shims'),
      path.join(home, 'sdk/go1.22.1/bin'),
      path.join(home, 'go/bin'),
      '/usr/local/bin',
      '/usr/bin',
      '/bin',
    ].join(path.delimiter),
  };
}
