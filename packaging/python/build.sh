#!/usr/bin/env bash
# packaging/python/build.sh DIST: the Python distributions of zkl into DIST:
#
#   zkl-VERSION-cpXY-cpXY-linux_x86_64.whl   the SWIG extension zkl._capi and,
#       next to it in the package dir, libzkl.so.1 and the abseil libraries it
#       needs (scripts/bundle-libzkl), each with the RUNPATH $ORIGIN: the
#       auditwheel way. OpenSSL 3, Cyrus SASL, libstdc++ and glibc stay system
#       libraries (present on any Debian/Ubuntu).
#   zkl-VERSION.tar.gz                       the sdist: the package plus
#       zkl-src/, libzkl's own sources with the ZooKeeper C client prepared
#       from the vendored copy (third_party/zookeeper: patched, with its
#       generated jute files; no download, no Java). Its setup.py builds
#       them with cmake into a shared libzkl.so.1 installed next to the
#       extension (RUNPATH $ORIGIN), with the system's shared abseil (needs
#       swig, cmake, a C/C++ compiler, libabsl-dev, libssl-dev, libsasl2-dev);
#       ZKL_PREFIX or ZKL_PKG_CONFIG=1 use an installed libzkl instead.
#
# Both are PEP 517 builds (pypa/build, pinned, in a cached tool venv under
# ~/.cache/zkl-packaging; setuptools and wheel, pinned in pyproject.toml,
# come from PyPI or pip's cache into build's isolated environment).
# Everything is staged in a temp dir from ZKL_PACKAGE_SRC, never from the
# working tree.
#
# Env (set by scripts/package): ZKL_PACKAGE_PREFIX, an installed libzkl
# (include/zkl.h, lib/libzkl.so.1); ZKL_PACKAGE_SRC, the clean source tree.
# PYTHON: the interpreter the wheel is for (default python3). Prints the
# artifact paths.
set -euo pipefail
dist=${1:?usage: packaging/python/build.sh DIST}
if [ -z "${ZKL_PACKAGE_PREFIX:-}" ] || [ -z "${ZKL_PACKAGE_SRC:-}" ]; then
  echo "python build.sh: set ZKL_PACKAGE_PREFIX (an installed libzkl) and ZKL_PACKAGE_SRC (a clean zkl tree, e.g. git archive HEAD); scripts/package does" >&2
  exit 2
fi
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
prefix=$(cd "$ZKL_PACKAGE_PREFIX" && pwd)
for f in "$prefix/include/zkl.h" "$prefix/lib/libzkl.so.1" "$src/bindings/python/pyproject.toml" "$src/scripts/bundle-libzkl"; do
  [ -e "$f" ] || { echo "python build.sh: missing $f" >&2; exit 2; }
done
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "python build.sh: the wheel is linux_x86_64 only (this is $(uname -s)-$(uname -m))" >&2; exit 2; }
python=${PYTHON:-python3}
for t in "$python" swig patchelf strip; do
  command -v "$t" >/dev/null || { echo "python build.sh: $t is missing" >&2; exit 2; }
done
build_version=1.3.0  # pypa/build

# One version: zkl.h, pyproject.toml and zkl.__version__ must agree.
version=$("$src/scripts/version")
pyver=$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/bindings/python/pyproject.toml" | head -1)
initver=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$src/bindings/python/src/zkl/__init__.py")
if [ "$pyver" != "$version" ] || [ "$initver" != "$version" ]; then
  echo "python build.sh: pyproject.toml says $pyver, zkl/__init__.py says $initver, zkl.h says $version" >&2
  exit 1
fi
# (setup.py also checks that the zkl.h it builds against is this version.)

# The frontend: pypa/build in a cached venv (made once).
tools=${XDG_CACHE_HOME:-$HOME/.cache}/zkl-packaging/python-build-$build_version-$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
if ! "$tools/bin/python" -c 'import build' >/dev/null 2>&1; then
  rm -rf "$tools"
  "$python" -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check "build==$build_version" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-python-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset PKG_CONFIG_PATH LD_LIBRARY_PATH ZKL_PREFIX ZKL_RPATH ZKL_NO_RPATH ZKL_PKG_CONFIG

# The package as in the repository, without build products.
stage=$work/zkl
mkdir -p "$stage"
tar -C "$src/bindings/python" --exclude=./.venv --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude=./.pytest_cache -cf - . | tar -C "$stage" -xf -
rm -f "$stage/src/zkl/capi.py" "$stage/src/zkl/capi_wrap.c" "$stage"/src/zkl/*.so "$stage"/src/zkl/*.so.*
cp "$src/LICENSE" "$stage/LICENSE"

pybuild() {  # DIR ARGS...: a quiet PEP 517 build; the log on failure
  local dir=$1; shift
  "$tools/bin/python" -m build "$@" --outdir "$work/out" "$dir" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; echo "python build.sh: python -m build $* failed" >&2; exit 1; }
}

# --- the wheel: linked against the packaging libzkl, which then travels
# inside the package with abseil, all finding each other by $ORIGIN.
wstage=$work/wheel
cp -r "$stage" "$wstage"
cp -L "$prefix/lib/libzkl.so.1" "$work/libzkl.so.1"
strip --strip-unneeded "$work/libzkl.so.1"
"$src/scripts/bundle-libzkl" "$work/libzkl.so.1" "$wstage/src/zkl" >"$work/bundled.txt"
ZKL_PREFIX=$prefix ZKL_RPATH='$ORIGIN' LDFLAGS="-Wl,--strip-all" pybuild "$wstage" --wheel
whl=$(ls "$work"/out/zkl-"$version"-*.whl)
# The wheel's shared objects: RUNPATH $ORIGIN, nothing naming the prefix.
mkdir "$work/check"
(cd "$work/check" && "$python" -m zipfile -e "$whl" .)
ext=$(ls "$work"/check/zkl/_capi*.so)
[ "$(patchelf --print-rpath "$ext")" = '$ORIGIN' ] || { echo "python build.sh: $ext has RUNPATH $(patchelf --print-rpath "$ext")" >&2; exit 1; }
while read -r lib; do
  [ -f "$work/check/zkl/$lib" ] || { echo "python build.sh: the wheel lacks zkl/$lib" >&2; exit 1; }
done <"$work/bundled.txt"
if grep -rlF "$prefix" "$work/check" >/dev/null; then
  echo "python build.sh: a file in the wheel still names $prefix:" >&2
  grep -rlF "$prefix" "$work/check" >&2
  exit 1
fi

# --- the sdist: the package plus zkl-src/ (what the from-source build needs):
# the ZooKeeper client already patched (setup.py passes it as
# ZKL_ZOOKEEPER_SOURCE_DIR), made from the vendored tree offline.
zs=$stage/zkl-src
mkdir -p "$zs/third_party/zookeeper/src"
cp -r "$src/CMakeLists.txt" "$src/LICENSE" "$src/include" "$src/src" "$src/cmake" "$src/pkgconfig" "$zs/"
cp -r "$src/third_party/zookeeper/CMakeLists.txt" "$src/third_party/zookeeper/config.h.in" \
      "$src/third_party/zookeeper/pin.txt" "$src/third_party/zookeeper/patches" "$zs/third_party/zookeeper/"
"$src/scripts/fetch-zookeeper" --prepare "$work/zk" >"$work/fetch.log" 2>&1 || { cat "$work/fetch.log" >&2; exit 1; }
zkc=$zs/third_party/zookeeper/src/zookeeper-client-c
mkdir -p "$zkc"
for f in include src generated LICENSE.txt NOTICE.txt; do
  cp -r "$work/zk/zookeeper-client-c/$f" "$zkc/"
done
pybuild "$stage" --sdist
sdist=$work/out/zkl-$version.tar.gz
[ -f "$sdist" ] || { echo "python build.sh: python -m build made no $sdist" >&2; exit 1; }

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
rm -f "$dist"/zkl-*.whl "$dist"/zkl-*.tar.gz
cp "$whl" "$sdist" "$dist/"
echo "$dist/$(basename "$whl")"
echo "$dist/$(basename "$sdist")"
