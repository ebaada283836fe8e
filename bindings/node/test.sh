#!/usr/bin/env bash
# CI entry of the Node binding (called by scripts/test with ZKL_PREFIX,
# ZKL_SOURCE_DIR, PKG_CONFIG_PATH and LD_LIBRARY_PATH set; also runnable
# alone: without ZKL_PREFIX the shared preamble builds libzkl into a temp dir).
#
# npm ci (pinned lock file), builds the addon against the installed Node
# headers (nothing downloaded), type-checks index.d.ts, checks that the
# generated constants are current, starts a ZooKeeper server and a
# mutual-TLS one (stopped on exit) and runs `node --test`. Non-zero on any
# failure.
. "$(dirname "$0")/../lib/test-preamble.sh" node
export LD_LIBRARY_PATH=$zkl_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

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

cd "$here"
log "node $(node --version), npm $(npm --version); libzkl $(pkg-config --modversion zkl) from $ZKL_PREFIX"
log "generated constants (scripts/gen-constants --check)"
"$root/scripts/gen-constants" --check

log "npm ci"
npm ci --ignore-scripts --no-audit --no-fund

log "build the addon"
rm -f build/CMakeCache.txt  # re-detect libzkl (ZKL_PREFIX may differ between runs)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build

log "type-check index.d.ts"
npm run --silent typecheck

log "build the C contender (tests/tools/zkl_hold.c)"
cc "$root/tests/tools/zkl_hold.c" $(pkg-config --cflags --libs zkl) \
   -Wl,-rpath,"$(pkg-config --variable=libdir zkl)" -o "$work/zkl-hold"
export ZKL_HOLD=$work/zkl-hold

log "start ZooKeeper"
ZKL_TEST_SERVERS=$(zkl_start_zookeeper zk)
export ZKL_TEST_SERVERS
echo "ZooKeeper at $ZKL_TEST_SERVERS" >&2
zkl_start_tls_zookeeper zk-tls  # for test/tls.test.js

log "node --test"
# Every wait in the tests is bounded; this bounds the whole run as well.
timeout 600 node --test --test-reporter=spec test/*.test.js
