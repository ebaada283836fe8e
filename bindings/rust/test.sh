#!/usr/bin/env bash
# CI entry of the Rust binding: clippy (when installed) and every test of
# the workspace (blocking, tokio, lost-lock, Rust/C interop, doc tests)
# against a ZooKeeper server of its own, stopped on exit.
#
# Environment (set by scripts/test): ZKL_PREFIX (installed libzkl),
# ZKL_SOURCE_DIR (repository root), PKG_CONFIG_PATH / LD_LIBRARY_PATH into
# ZKL_PREFIX. Without ZKL_PREFIX, libzkl is built and installed into a
# temporary prefix first. CARGO_TARGET_DIR defaults to bindings/rust/target.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ZKL_SOURCE_DIR=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
jobs=2
[ -d "$HOME/.cargo/bin" ] && PATH=$HOME/.cargo/bin:$PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkl-rust-ci.XXXXXX")
cleanup() {
  "$ZKL_SOURCE_DIR/scripts/zk-server" stop "$tmp/zk" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '\n--- rust: %s\n' "$*" >&2; }

if [ -z "${ZKL_PREFIX:-}" ]; then
  log "building libzkl into $tmp/prefix"
  cmake -S "$ZKL_SOURCE_DIR" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$tmp/prefix" >/dev/null
  cmake --build "$tmp/build" -j "$jobs" >/dev/null
  cmake --install "$tmp/build" >/dev/null
  export ZKL_PREFIX=$tmp/prefix
fi
libdir=$ZKL_PREFIX/lib
[ -d "$libdir/pkgconfig" ] || libdir=$(dirname "$(find "$ZKL_PREFIX" -name zkl.pc -print -quit)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
pkg-config --exists zkl || { echo "rust: pkg-config cannot find zkl under $ZKL_PREFIX" >&2; exit 1; }

cd "$here"
if cargo clippy --version >/dev/null 2>&1; then
  log "clippy"
  cargo clippy --locked -j "$jobs" --all-targets --all-features -- -D warnings
  cargo clippy --locked -j "$jobs" --all-targets -- -D warnings
else
  log "clippy is not installed: skipped"
fi

log "zookeeper"
ZK_OWNER_PID=$$ "$ZKL_SOURCE_DIR/scripts/zk-server" start "$tmp/zk" >"$tmp/connect"
export ZKL_TEST_SERVERS
ZKL_TEST_SERVERS=$(cat "$tmp/connect")
echo "server $ZKL_TEST_SERVERS" >&2

log "cargo test"
cargo test --locked -j "$jobs" --workspace --all-features
