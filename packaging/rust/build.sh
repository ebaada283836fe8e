#!/usr/bin/env bash
# packaging/rust/build.sh DIST: the crates zkl-sys-VERSION.crate and
# zkl-VERSION.crate (what `cargo publish` would upload) into DIST, made by
# `cargo publish --workspace --dry-run` (fails on any warning of it).
#
# zkl-sys carries libzkl's own sources (zkl-src/: src/, include/, the CMake
# files and the ZooKeeper C client prepared by scripts/fetch-zookeeper
# --prepare from the vendored copy in third_party/zookeeper, i.e. patched and
# with its generated jute files: no download, no Java, no patch tool at cargo
# build time; build.rs passes it as ZKL_ZOOKEEPER_SOURCE_DIR).
# Its default feature `bundled` builds them with the cmake crate into
# libzkl_bundle.a and links that statically. The sources are staged into a
# temporary copy of the crates, never into bindings/rust.
#
# Environment (set by scripts/package): ZKL_PACKAGE_SRC, the clean source
# tree everything is taken from; ZKL_PACKAGE_PREFIX, the libzkl install
# (required by the contract; the crate builds its own libzkl).
# ZKL_RUST_VERIFY=0 skips cargo's own verification build (test.sh builds
# the .crate files in a fresh project anyway).
set -euo pipefail
dist=${1:?usage: packaging/rust/build.sh DIST}
: "${ZKL_PACKAGE_SRC:?is unset: run scripts/package, or set it to a clean zkl source tree (git archive HEAD)}"
: "${ZKL_PACKAGE_PREFIX:?is unset: run scripts/package, or set it to a libzkl install prefix}"
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
[ -f "$src/include/zkl.h" ] && [ -d "$src/bindings/rust/zkl-sys" ] || { echo "rust: $src is not a zkl source tree" >&2; exit 1; }
[ -d "$HOME/.cargo/bin" ] && PATH=$HOME/.cargo/bin:$PATH
version=$("$src/scripts/version")
"$src/scripts/version" --check >/dev/null || { echo "rust: the crates' version differs from zkl.h ($version)" >&2; exit 1; }

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-rust-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The workspace, without build products.
stage=$work/rust
mkdir -p "$stage"
tar -C "$src/bindings/rust" --exclude=./target -cf - . | tar -C "$stage" -xf -

# zkl-sys/zkl-src: exactly what the bundled build needs.
zs=$stage/zkl-sys/zkl-src
mkdir -p "$zs/third_party/zookeeper/src"
cp -r "$src/CMakeLists.txt" "$src/LICENSE" "$src/include" "$src/src" "$src/cmake" "$src/pkgconfig" "$zs/"
cp -r "$src/third_party/zookeeper/CMakeLists.txt" "$src/third_party/zookeeper/config.h.in" \
      "$src/third_party/zookeeper/pin.txt" "$src/third_party/zookeeper/patches" "$zs/third_party/zookeeper/"
"$src/scripts/fetch-zookeeper" --prepare "$work/zk" 2>"$work/fetch.log" || { cat "$work/fetch.log" >&2; exit 1; }
zkc=$zs/third_party/zookeeper/src/zookeeper-client-c
mkdir -p "$zkc"
for f in include src generated LICENSE.txt NOTICE.txt; do
  cp -r "$work/zk/zookeeper-client-c/$f" "$zkc/"
done
for crate in zkl-sys zkl; do cp "$src/LICENSE" "$stage/$crate/"; done

verify=()
[ "${ZKL_RUST_VERIFY:-1}" = 0 ] && verify=(--no-verify)
export CARGO_TARGET_DIR=$work/target
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
# What `cargo publish` would do, up to the upload: both crates packaged in
# dependency order (zkl depends on the unpublished zkl-sys of the same
# version: --workspace lets the verification build of zkl use the
# zkl-sys .crate just made), each verified by a build of the unpacked .crate
# with warnings as errors. Clean means no warning but the dry run's own.
(cd "$stage" && RUSTFLAGS=-Dwarnings cargo publish --workspace --dry-run --locked --allow-dirty -j 2 "${verify[@]}") \
  >"$work/package.log" 2>&1 ||
  { cat "$work/package.log" >&2; echo "rust: cargo publish --workspace --dry-run failed" >&2; exit 1; }
warnings=$(grep -E '^warning' "$work/package.log" | grep -v 'aborting upload due to dry run' || true)
if [ -n "$warnings" ]; then
  cat "$work/package.log" >&2
  echo "rust: cargo publish --dry-run is not clean:" >&2; echo "$warnings" >&2; exit 1
fi
grep -E '^ *(Packaged|Verifying|Uploading)' "$work/package.log" | sed 's/^ */rust: cargo publish --dry-run: /' >&2

rm -f "$dist"/zkl-sys-*.crate "$dist"/zkl-*.crate
for crate in zkl-sys zkl; do
  # cargo publish leaves the .crate files in target/package/tmp-crate/
  # (cargo package: target/package/).
  f=$(find "$CARGO_TARGET_DIR/package" -maxdepth 2 -name "$crate-$version.crate" -print -quit)
  [ -n "$f" ] || { echo "rust: cargo publish --dry-run made no $crate-$version.crate under $CARGO_TARGET_DIR/package" >&2; exit 1; }
  cp "$f" "$dist/"
  echo "$dist/$crate-$version.crate"
done
