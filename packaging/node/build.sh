#!/usr/bin/env bash
# packaging/node/build.sh DIST: the npm package of zkl, `npm pack`ed into
# DIST/zkl-VERSION.tgz, with the prebuilt Node-API addon for linux-x64:
#
#   prebuilds/linux-x64/zkl.napi.node   the addon (Release, stripped)
#   prebuilds/linux-x64/libzkl.so.1     libzkl with its ZooKeeper C client
#   prebuilds/linux-x64/libabsl_*.so.*  the abseil libraries libzkl needs
#
# each with the RUNPATH $ORIGIN (scripts/bundle-libzkl), loaded by
# lib/load.js (node-gyp-build's layout). OpenSSL 3, Cyrus SASL, libstdc++
# and glibc stay system libraries. src/ and CMakeLists.txt travel too: the
# install script builds from source when no prebuild fits (lib/install.js),
# against an installed libzkl, else against libzkl/: libzkl's own sources
# (src/, include/, CMake files, LICENSE) and the ZooKeeper C client prepared
# by scripts/fetch-zookeeper --prepare from the vendored copy (patched, with
# its generated jute files: no download, no Java, no patch tool), the same
# tree the Rust crate zkl-sys carries.
#
# Env (set by scripts/package): ZKL_PACKAGE_PREFIX, an installed libzkl
# (include/zkl.h, lib/libzkl.so.1, lib/pkgconfig/zkl.pc); ZKL_PACKAGE_SRC, the
# clean source tree the package is made from. Prints the artifact path.
set -euo pipefail
dist=${1:?usage: packaging/node/build.sh DIST}
if [ -z "${ZKL_PACKAGE_PREFIX:-}" ] || [ -z "${ZKL_PACKAGE_SRC:-}" ]; then
  echo "node build.sh: set ZKL_PACKAGE_PREFIX (an installed libzkl) and ZKL_PACKAGE_SRC (a clean zkl tree); scripts/package does" >&2
  exit 2
fi
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
prefix=$(cd "$ZKL_PACKAGE_PREFIX" && pwd)
for f in "$prefix/lib/libzkl.so.1" "$prefix/lib/pkgconfig/zkl.pc" "$src/bindings/node/package.json"; do
  [ -e "$f" ] || { echo "node build.sh: missing $f" >&2; exit 2; }
done
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "node build.sh: the prebuild is linux-x64 only (this is $(uname -s)-$(uname -m))" >&2; exit 2; }
for t in node npm cmake patchelf strip; do
  command -v "$t" >/dev/null || { echo "node build.sh: $t is missing" >&2; exit 2; }
done

version=$("$src/scripts/version")
pkgver=$(node -p 'require(process.argv[1]).version' "$src/bindings/node/package.json")
if [ "$pkgver" != "$version" ]; then
  echo "node build.sh: bindings/node/package.json says $pkgver, zkl.h says $version" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-node-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
pkg=$work/zkl
cp -r "$src/bindings/node" "$pkg"
rm -rf "$pkg/build" "$pkg/node_modules" "$pkg/prebuilds"
cp "$src/LICENSE" "$pkg/LICENSE"

# libzkl/: what the source-build fallback needs to build libzkl itself.
zs=$pkg/libzkl
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

# The addon, against the packaging libzkl only (no system zkl.pc).
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
PKG_CONFIG_PATH=$prefix/lib/pkgconfig PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig \
  cmake -S "$pkg" -B "$work/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }

# The prebuild: addon + libzkl + abseil, each finding the others by $ORIGIN.
pre=$pkg/prebuilds/linux-x64
mkdir -p "$pre" "$work/lib"
cp -L "$prefix/lib/libzkl.so.1" "$work/lib/libzkl.so.1"
strip --strip-unneeded "$work/lib/libzkl.so.1"
"$src/scripts/bundle-libzkl" "$work/lib/libzkl.so.1" "$pre" >/dev/null
cp "$work/build/zkl.node" "$pre/zkl.napi.node"
strip --strip-unneeded "$pre/zkl.napi.node"
patchelf --set-rpath '$ORIGIN' "$pre/zkl.napi.node"
# Nothing in the prebuild may point back at the build prefix.
if grep -rlF "$prefix" "$pre" >/dev/null; then
  echo "node build.sh: a prebuilt file still names $prefix:" >&2
  grep -rlF "$prefix" "$pre" >&2
  exit 1
fi

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
rm -f "$dist/zkl-$version.tgz"
(cd "$pkg" && npm pack --silent --ignore-scripts --pack-destination "$dist" >/dev/null)
[ -f "$dist/zkl-$version.tgz" ] || { echo "node build.sh: npm pack made no $dist/zkl-$version.tgz" >&2; exit 1; }
echo "$dist/zkl-$version.tgz"
