#!/usr/bin/env bash
# packaging/rust/test.sh DIST: builds the .crate files of DIST in a fresh
# cargo project, as a user of the published crates would (zkl = "=VERSION",
# the two crates taken from DIST through [patch.crates-io], everything else
# pinned by the lock file packaged in the zkl crate, vendored with `cargo
# vendor`), built --offline with RUSTFLAGS=-Dwarnings (in a network
# namespace of its own when unshare -n works), with no libzkl, pkg-config
# path or build tree in reach, and checked to write nothing into the
# unpacked crates (what cargo publish's verification build checks besides
# warnings: with this, scripts/package --test skips that build); builds the docs as docs.rs would (DOCS_RS=1,
# the crates' docs.rs metadata, offline); then runs a lock + election (and a
# tokio lock) program against a real
# ZooKeeper on 127.0.0.1 and checks that the binary carries libzkl itself:
# no libzkl and no abseil among the shared objects it loads.
#
# Environment: ZKL_SOURCE_DIR (the repository, for scripts/zk-server;
# default: this script's checkout); ZKL_RUST_KEEP=1 keeps the temp dir.
set -euo pipefail
dist=${1:?usage: packaging/rust/test.sh DIST}
dist=$(cd "$dist" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -d "$HOME/.cargo/bin" ] && PATH=$HOME/.cargo/bin:$PATH
unset LD_LIBRARY_PATH PKG_CONFIG_PATH ZKL_PACKAGE_PREFIX ZKL_PACKAGE_SRC ZKL_PREFIX CARGO_TARGET_DIR
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*" >&2; failed=$((failed + 1)); }
finish() { echo "packages-rust: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-rust-pkgtest.XXXXXX")
cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  if [ "${ZKL_RUST_KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

sys_crate=$(ls "$dist"/zkl-sys-*.crate 2>/dev/null | head -1)
zkl_crate=$(ls "$dist"/zkl-[0-9]*.crate 2>/dev/null | head -1)
if [ -z "$sys_crate" ] || [ -z "$zkl_crate" ]; then
  bad "no zkl-sys-*.crate and zkl-*.crate in $dist"; finish; exit 1
fi
version=$(basename "$zkl_crate" .crate); version=${version#zkl-}
echo "artifacts: $(basename "$sys_crate") $(stat -c %s "$sys_crate") bytes, $(basename "$zkl_crate") $(stat -c %s "$zkl_crate") bytes"

# The crates as a registry would hand them out: unpacked .crate files.
mkdir -p "$work/crates" "$work/app/src"
tar -xzf "$sys_crate" -C "$work/crates"
tar -xzf "$zkl_crate" -C "$work/crates"

cd "$work/app"
cat > Cargo.toml <<TOML
[package]
name = "zkl-pkgtest"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
zkl = { version = "=$version", features = ["tokio"] }
tokio = { version = "1.53.3", default-features = false, features = ["rt"] }

[patch.crates-io]
zkl = { path = "../crates/zkl-$version" }
zkl-sys = { path = "../crates/zkl-sys-$version" }
TOML
# The versions of log, cmake, cc, ... that the zkl crate was tested with.
cp "$work/crates/zkl-$version/Cargo.lock" Cargo.lock
cat > src/main.rs <<'RS'
use std::time::Duration;

fn main() -> Result<(), zkl::Error> {
    let servers = std::env::args().nth(1).expect("usage: zkl-pkgtest HOST:PORT");
    println!("zkl {}", zkl::version());
    let client = zkl::Client::connect(&servers, Duration::from_secs(10))?;
    let lock = client.lock("/pkgtest/lock")?;
    let guard = lock.acquire_blocking(Duration::from_secs(10))?;
    println!("lock fencing token {}", guard.fencing_token());
    drop(guard);
    let election = client.election("/pkgtest/leader", "rust-pkgtest")?;
    let term = election.campaign_blocking(Duration::from_secs(10))?;
    if election.is_leader() {
        println!("elected term {term}");
    }
    election.resign()?;
    // The tokio API: the event fd registered with the runtime's reactor.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    rt.block_on(async {
        let lock = client.lock("/pkgtest/async-lock")?;
        let guard = lock.acquire().timeout(Duration::from_secs(10)).await?;
        println!("async lock fencing token {}", guard.fencing_token());
        Ok::<(), zkl::Error>(())
    })?;
    Ok(())
}
RS

# Every dependency vendored first (from cargo's cache, else crates.io; the
# lock file pins them); then the build is offline: --offline, the vendored
# sources only, and, where possible, in a network namespace of its own
# (unshare -n) so that nothing of the bundled build (cmake, the ZooKeeper
# client) can reach the network either. Warnings are errors (RUSTFLAGS).
cargo vendor -q --versioned-dirs "$work/vendor" >"$work/vendor-config.toml" 2>"$work/vendor.log" ||
  { cat "$work/vendor.log" >&2; bad "cargo vendor of the pinned dependencies"; finish; exit 1; }
mkdir -p .cargo
cp "$work/vendor-config.toml" .cargo/config.toml
ok "cargo vendor: $(ls "$work/vendor" | wc -l) crates ($(ls "$work/vendor" | tr '\n' ' '))"
nonet=()
if unshare -n true 2>/dev/null; then nonet=(unshare -n); how="offline, vendored, no network (unshare -n)"; else how="offline, vendored"; fi
# What cargo publish's verification build checks beside the warnings: the
# build scripts write nothing into the unpacked crates (only into OUT_DIR).
# (A checksum list, not read-only files: CI runs as root.)
crates_sum() { (cd "$work/crates" && find . -printf '%y %p\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
crates_before=$(crates_sum)
start=$(date +%s)
"${nonet[@]}" env RUSTFLAGS=-Dwarnings cargo build --release --offline --locked -q -j 2 >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; bad "fresh cargo project does not build ($how)"; finish; exit 1; }
ok "fresh cargo project builds zkl $version from the .crate files ($how)"
echo "install time: $(( $(date +%s) - start ))s (cargo build --release, libzkl built from zkl-sys's sources)"
if [ "$(crates_sum)" = "$crates_before" ]; then
  ok "the build wrote nothing into the unpacked crates (as cargo publish's verification requires)"
else
  bad "the build changed the unpacked crates: $(diff <(echo "$crates_before") <(crates_sum) | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
bin=$work/app/target/release/zkl-pkgtest
[ -f "$work/crates/zkl-sys-$version/zkl-src/third_party/zookeeper/src/zookeeper-client-c/generated/zookeeper.jute.c" ] && ok "zkl-sys carries libzkl's sources (zkl-src/)" || bad "zkl-sys has no zkl-src/"
echo "binary: $(stat -c %s "$bin") bytes"
# The ZooKeeper client came prepared inside the crate (no fetch, no Java).
cache=$(ls "$work"/app/target/release/build/zkl-sys-*/out/build/CMakeCache.txt 2>/dev/null | head -1)
if grep -qx "ZKL_ZOOKEEPER_SOURCE_DIR:PATH=$work/crates/zkl-sys-$version/zkl-src/third_party/zookeeper/src" "${cache:-/dev/null}"; then
  ok "the ZooKeeper C client was built from the crate's prepared sources"
else
  bad "the bundled build did not take the ZooKeeper client from the crate ($cache)"
fi
# docs.rs: DOCS_RS set, no network, nothing native built, rustdoc warnings
# are errors; the features are the app's (zkl with `tokio`: what zkl's
# [package.metadata.docs.rs] asks for; the build script ignores the rest).
if "${nonet[@]}" env DOCS_RS=1 RUSTDOCFLAGS=-Dwarnings CARGO_TARGET_DIR="$work/doc-target" \
     cargo doc --no-deps --offline --locked -q -j 2 -p zkl-sys -p zkl >"$work/doc.log" 2>&1 &&
   [ -f "$work/doc-target/doc/zkl_sys/index.html" ] && [ -f "$work/doc-target/doc/zkl/index.html" ] &&
   ! ls -d "$work"/doc-target/debug/build/zkl-sys-*/out/build >/dev/null 2>&1; then
  ok "docs.rs-like build of zkl-sys and zkl (DOCS_RS=1, offline, no native build, rustdoc -D warnings)"
else
  cat "$work/doc.log" >&2; bad "docs.rs-like build of zkl-sys and zkl"
fi

# Nothing of the build is needed at run time: the binary alone, elsewhere.
mkdir -p "$work/run"
cp "$bin" "$work/run/"
bin=$work/run/zkl-pkgtest
rm -rf "$work/crates" "$work/app/target"

# Self-contained: libzkl is linked in; no libzkl or abseil shared object.
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "needed: $needed"
if ldd "$bin" | grep -E 'libzkl|libabsl|libzookeeper' >/dev/null; then
  bad "the binary loads a shared libzkl, abseil or ZooKeeper client: $(ldd "$bin" | grep -E 'libzkl|libabsl|libzookeeper' | tr -s ' \n' ' ')"
elif ! nm "$bin" | grep ' T zkl_client_create' >/dev/null; then
  bad "zkl_client_create (what the binding calls) is not defined in the binary"
elif readelf -d "$bin" | grep -E 'R(UN)?PATH' >/dev/null; then
  bad "the binary has a run path: $(readelf -d "$bin" | grep -E 'R(UN)?PATH')"
else
  ok "libzkl, its ZooKeeper client and abseil are linked into the binary (ldd: no libzkl, no libabsl)"
fi

servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
echo "zookeeper $servers"
if out=$(cd / && LD_DEBUG=libs "$bin" "$servers" 2>"$work/ld.log"); then
  echo "$out"
  token=$(sed -n 's/^lock fencing token //p' <<<"$out")
  [ "${token:-0}" -gt 0 ] && ok "lock acquired, fencing token $token" || bad "no fencing token > 0"
  grep -q '^elected term [0-9]' <<<"$out" && ok "elected" || bad "not elected"
  grep -q '^async lock fencing token [1-9]' <<<"$out" && ok "tokio: lock.acquire().await (AsyncFd::register_with_interest)" || bad "tokio: no async lock"
  grep -q "^zkl $version" <<<"$out" && ok "zkl_version() says $version" || bad "zkl::version() is not $version"
  if grep -E 'calling init: .*(libzkl|libabsl)' "$work/ld.log" >/dev/null; then
    bad "a shared libzkl or abseil was loaded: $(grep -E 'calling init: .*(libzkl|libabsl)' "$work/ld.log" | head -3)"
  else
    ok "LD_DEBUG: no libzkl or libabsl loaded at run time"
  fi
else
  echo "$out"; cat "$work/ld.log" | grep -v '^ *[0-9]*:' >&2 || true
  bad "the example failed"
fi
finish
