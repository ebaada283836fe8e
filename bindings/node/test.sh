#!/usr/bin/env bash
# CI entry of the Node binding (called by scripts/test with ZKL_PREFIX,
# ZKL_SOURCE_DIR, PKG_CONFIG_PATH and LD_LIBRARY_PATH set; also runnable
# alone: without ZKL_PREFIX it builds and installs libzkl into a temp dir).
#
# npm ci (pinned lock file), builds the addon against the installed Node
# headers (nothing downloaded), type-checks index.d.ts, starts a ZooKeeper
# server (stopped on exit) and runs `node --test`. Non-zero on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ZKL_SOURCE_DIR=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkl-node-test.XXXXXX")
zkdir=$tmp/zk
cleanup() {
  "$ZKL_SOURCE_DIR/scripts/zk-server" stop "$zkdir" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
log() { printf '\n--- node: %s\n' "$*" >&2; }

# Node, npm and the headers. Debian's own nodejs package comes without npm
# and headers: add them (a NodeSource nodejs has both).
if ! command -v npm >/dev/null || ! node -e "process.exit(require('fs').existsSync(require('path').resolve(process.execPath, '../../include/node/node_api.h')) ? 0 : 1)"; then
  if dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep -qv nodesource; then
    log "installing npm and libnode-dev for Debian's nodejs"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm libnode-dev >/dev/null
  else
    echo "node: npm or the Node headers are missing (need nodejs with npm and include/node)" >&2
    exit 1
  fi
fi

if [ -z "${ZKL_PREFIX:-}" ]; then
  log "building libzkl into $tmp/prefix"
  cmake -S "$ZKL_SOURCE_DIR" -B "$tmp/core" -G Ninja -DZKL_BUILD_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX="$tmp/prefix" >/dev/null
  cmake --build "$tmp/core" -j "$(nproc)"
  cmake --install "$tmp/core" >/dev/null
  export ZKL_PREFIX=$tmp/prefix
fi
export PKG_CONFIG_PATH=$ZKL_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$ZKL_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

cd "$here"
log "node $(node --version), npm $(npm --version); libzkl $(pkg-config --modversion zkl) from $ZKL_PREFIX"
log "npm ci"
npm ci --ignore-scripts --no-audit --no-fund

log "build the addon"
rm -f build/CMakeCache.txt  # re-detect libzkl (ZKL_PREFIX may differ between runs)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build

log "type-check index.d.ts"
npm run --silent typecheck

log "build the C contender (tests/tools/zkl_hold.c)"
cc "$ZKL_SOURCE_DIR/tests/tools/zkl_hold.c" $(pkg-config --cflags --libs zkl) \
   -Wl,-rpath,"$(pkg-config --variable=libdir zkl)" -o "$tmp/zkl-hold"
export ZKL_HOLD=$tmp/zkl-hold

log "start ZooKeeper"
ZKL_TEST_SERVERS=$(ZK_OWNER_PID=$$ "$ZKL_SOURCE_DIR/scripts/zk-server" start "$zkdir")
export ZKL_TEST_SERVERS
echo "ZooKeeper at $ZKL_TEST_SERVERS" >&2

log "node --test"
# Every wait in the tests is bounded; this bounds the whole run as well.
timeout 600 node --test --test-reporter=spec test/*.test.js
