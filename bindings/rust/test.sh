#!/usr/bin/env bash
# CI entry of the Rust binding: clippy (when installed) and every test of
# the workspace (zkl-sys header drift, blocking, tokio, lost-lock,
# conformance scenarios, Rust/C interop, doc tests) against a ZooKeeper
# server of its own, and the tls scenarios against a mutual-TLS one
# (zkl_start_tls_zookeeper), stopped on exit.
#
# Environment: ZKL_PREFIX (installed libzkl; built into a temporary prefix
# when unset), ZKL_SOURCE_DIR (repository root). CARGO_TARGET_DIR defaults
# to bindings/rust/target. The test binaries carry a run path to libzkl
# (build.rs), so LD_LIBRARY_PATH is not needed.
. "$(dirname "$0")/../lib/test-preamble.sh" rust
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
jobs=2
[ -d "$HOME/.cargo/bin" ] && PATH=$HOME/.cargo/bin:$PATH

cd "$here"
if cargo clippy --version >/dev/null 2>&1; then
  log "clippy"
  cargo clippy --locked -j "$jobs" --all-targets --all-features -- -D warnings
  cargo clippy --locked -j "$jobs" --all-targets -- -D warnings
else
  log "clippy is not installed: skipped"
fi

log "zookeeper"
export ZKL_TEST_SERVERS
ZKL_TEST_SERVERS=$(zkl_start_zookeeper zk)
echo "server $ZKL_TEST_SERVERS" >&2
zkl_start_tls_zookeeper zk-tls  # for zkl/tests/tls.rs

log "cargo test"
cargo test --locked -j "$jobs" --workspace --all-features
