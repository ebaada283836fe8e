#!/usr/bin/env bash
# packaging/python/test.sh DIST: for each CPython 3.9 to 3.13 (ZKL_PY_VERSIONS;
# the interpreters as build.sh finds them), installs
# DIST/zkl-VERSION-cpXY-cpXY-manylinux_*_x86_64.whl into a fresh venv in a
# temp dir (pip --no-index: offline, the wheel has no dependencies), with
# LD_LIBRARY_PATH, PKG_CONFIG_PATH, PYTHONPATH, the packaging prefix and the
# source tree out of reach (it runs from the temp dir, so `import zkl` can
# only be the installed package), and runs a lock + election example on a
# real ZooKeeper (started on 127.0.0.1).
# Proves the self-containment: ldd of the installed extension resolves every
# library outside glibc and libstdc++ inside site-packages (zkl.libs/, where
# auditwheel put libzkl, abseil, OpenSSL and Cyrus SASL), the running process
# maps libzkl, abseil and libcrypto from there, and (root only: a private
# mount namespace) it still works with the system's abseil, libzkl,
# libzookeeper, OpenSSL and libsasl2 hidden. mypy (pinned, cached tool venv)
# type-checks a use of the installed package (py.typed + stubs), on the
# first version.
# The sdist (the newest version's interpreter): built (PEP 517) and
# installed into another fresh venv, from its own zkl-src/ (libzkl, the
# ZooKeeper client and abseil compiled; 2-4 min of CPU), as root in a clean
# environment: a private mount namespace where libabsl-dev (headers, cmake
# config, pkg-config files, libraries), the Cyrus SASL headers, swig and any
# installed libzkl are hidden, and a private network namespace (no network;
# pip --no-index with the pinned build requirements from a local
# wheelhouse). So a compiler, cmake and the OpenSSL headers are all it
# uses. Then the example runs with that build's libzkl.so.1 from inside the
# package (abseil linked into it). ZKL_PY_SDIST=prefix builds it against
# ZKL_PACKAGE_PREFIX instead (ZKL_PKG_CONFIG=1), =skip not at all.
# Ends with "packages-python: N passed, M failed"; non-zero on failure.
set -euo pipefail
dist=${1:?usage: packaging/python/test.sh DIST}
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
mypy_version=1.18.2

dist=$(cd "$dist" && pwd)
version=$("$root/scripts/version")
sdist=$dist/zkl-$version.tar.gz
py_versions=${ZKL_PY_VERSIONS:-3.9 3.10 3.11 3.12 3.13}
find_python() {  # X.Y: the interpreter's path (as build.sh finds it)
  local v=$1 p
  p=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1)
  [ -n "$p" ] || p=$(command -v "python$v" || true)
  [ -n "$p" ] || { echo "python test.sh: no CPython $v (pyenv install $v, or set ZKL_PY_VERSIONS)" >&2; exit 2; }
  echo "$p"
}
pythons=()
for v in $py_versions; do
  pythons+=("$(find_python "$v")")
  tag=cp${v/./}
  ls "$dist"/zkl-"$version"-"$tag"-"$tag"-manylinux_*_x86_64.whl >/dev/null 2>&1 ||
    { echo "python test.sh: no $dist/zkl-$version-$tag-$tag-manylinux_*_x86_64.whl (run packaging/python/build.sh first)" >&2; exit 2; }
done
# Kept only for the sdist build against it; everything else runs without it.
source_prefix=${ZKL_PACKAGE_PREFIX:-}
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PYTHONPATH PYTHONHOME ZKL_PACKAGE_PREFIX ZKL_PREFIX ZKL_RPATH ZKL_NO_RPATH ZKL_PKG_CONFIG

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-python-pkgtest.XXXXXX")
cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
ms()   { date +%s%3N; }
pipq() { "$1/bin/python" -m pip --disable-pip-version-check -q "${@:2}"; }
t_all=$(date +%s)

# --- the example: lock + election, then where each library was mapped from.
cat >"$work/example.py" <<'PY'
import os
import sys

import zkl

servers, mode, version = sys.argv[1:4]  # mode: wheel | sdist (built from its own zkl-src/)
pkg = os.path.dirname(zkl.__file__)
libs = os.path.join(os.path.dirname(pkg), "zkl.libs")  # auditwheel's grafted libraries
want = lambda cond, what: cond or sys.exit(f"example: {what}")
want(zkl.__version__ == version and zkl.library_version() == version,
     f"versions: package {zkl.__version__}, libzkl {zkl.library_version()}, want {version}")
want(not pkg.startswith(os.environ.get("ZKL_SOURCE_DIR", "/nonexistent")), f"zkl imported from the source tree ({pkg})")

with zkl.Client.connect(servers, connect_timeout=20) as client:
    with client.lock("/zkl-pkg/python/lock", timeout=10) as lock:
        token = lock.fencing_token
        want(token > 0, f"fencing token {token}")
        print(f"lock held, fencing token {token}")
    election = client.election("/zkl-pkg/python/election", f"python {sys.version.split()[0]}")
    term = election.campaign(timeout=10)
    want(election.is_leader and term > 0, f"not elected (term {term})")
    print(f"elected, term {term}")
    election.resign()

mapped = set()
with open("/proc/self/maps") as f:
    for line in f:
        parts = line.split()
        if len(parts) >= 6 and parts[5].startswith("/"):
            mapped.add(parts[5])
name = os.path.basename
ours = sorted(p for p in mapped
              if name(p).startswith(("libzkl", "libabsl_", "libzookeeper", "_capi.", "libcrypto", "libssl", "libsasl2")))
for p in ours:
    print(f"mapped {p}")
want(not any("libzookeeper" in p for p in ours), "a libzookeeper was loaded")
want(any(name(p).startswith("_capi.") and os.path.dirname(p) == pkg for p in ours),
     "the installed extension is not the one loaded")
if mode == "wheel":
    zkl_libs = [p for p in ours if name(p).startswith(("libzkl", "libabsl_"))]
    outside = [p for p in zkl_libs if os.path.dirname(p) != libs]
    want(not outside, f"loaded from outside {libs}: {outside}")
    want(any(name(p).startswith("libzkl") for p in zkl_libs), "no libzkl mapped")
    want(any(name(p).startswith("libcrypto") and os.path.dirname(p) == libs for p in ours),
         f"the bundled libcrypto is not mapped from {libs}")
    n = sum(name(p).startswith("libabsl_") for p in zkl_libs)
    print(f"self-contained: libzkl, {n} abseil libraries, OpenSSL and libsasl2 from {libs}")
else:
    want(any(p == os.path.join(pkg, "libzkl.so.1") for p in ours), f"libzkl.so.1 is not mapped from {pkg}")
    want(not any(name(p).startswith("libzkl") and os.path.dirname(p) != pkg for p in ours),
         "a libzkl from outside the package was loaded")
    want(not any(name(p).startswith("libabsl_") for p in ours), "an abseil shared library was loaded")
    print(f"libzkl.so.1 from {pkg}, abseil inside it (built from the sdist's sources)")
PY

cat >"$work/typed.py" <<'PY'
import zkl

def main(servers: str) -> int:
    with zkl.Client.connect(servers, connect_timeout=20) as client:
        lock: zkl.Lock = client.lock("/zkl-pkg/python/lock")
        token: int = lock.acquire(10)
        lock.release()
        election: zkl.Election = client.election("/zkl-pkg/python/election", "typed")
        term: int = election.campaign(timeout=10)
        election.resign()
        return token + term + zkl.capi.ZKL_OK
PY

# --- hiding what a machine without our dependencies lacks: a private mount
# namespace (root and unshare -m only) where each listed file reads as
# /dev/null and each listed directory is an empty tmpfs.
can_hide=0
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then can_hide=1; fi
hidden() {  # FILES DIRS UNSHARE-FLAGS CMD...: CMD with FILES and DIRS hidden
  local files=$1 dirs=$2 flags=$3; shift 3
  HIDE_FILES=$files HIDE_DIRS=$dirs unshare $flags sh -c '
    for d in $HIDE_DIRS; do [ -d "$d" ] && { mount -t tmpfs none "$d" || exit 97; }; done
    for f in $HIDE_FILES; do mount --bind /dev/null "$f" || exit 97; done
    exec "$@"' sh "$@"
}
ld_files() {  # REGEX: the real files of the loader's libraries whose names match
  ldconfig -p | awk -v re="$1" '$1 ~ re {print $NF}' | xargs -r readlink -f | sort -u | tr '\n' ' '
}
# The wheels' run: no system abseil, libzkl, libzookeeper, OpenSSL, libsasl2.
hide_run=$(ld_files '^(libabsl_|libzkl|libzookeeper|libssl\\.so|libcrypto\\.so|libsasl2\\.so)')

echo "artifacts: $(cd "$dist" && ls zkl-"$version"* | tr '\n' ' ')"
for f in "$dist"/zkl-"$version"*; do echo "  $(basename "$f"): $(stat -c %s "$f") bytes"; done
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
echo "ZooKeeper at $servers"
run_example() {  # LABEL VENV MODE [HIDE-FILES]
  local out
  local cmd=(env ZKL_SOURCE_DIR="$root" timeout 60 "$2/bin/python" "$work/example.py" "$servers" "$3" "$version")
  if out=$(if [ -n "${4:-}" ]; then hidden "$4" "" -m "${cmd[@]}"; else "${cmd[@]}"; fi 2>&1); then
    ok "$1: lock + election ($(grep -E '^(lock held|elected)' <<<"$out" | tr '\n' ';' | sed 's/;$//'))"
    grep -E '^(self-contained|libzkl.so.1 from)' <<<"$out" || true
  else
    fail "$1"; echo "$out"
  fi
}

# --- 1. each version: a fresh venv, its wheel installed offline, ldd, the
# example (and again with the system libraries hidden).
first_venv=
for i in "${!pythons[@]}"; do
  py=${pythons[$i]}
  pyv=$("$py" -c 'import platform; print(platform.python_version())')
  tag=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  whl=$(ls "$dist"/zkl-"$version"-"$tag"-"$tag"-manylinux_*_x86_64.whl)
  venv=$work/venv-$tag
  [ -n "$first_venv" ] || first_venv=$venv
  "$py" -m venv "$venv"
  t0=$(ms)
  if pipq "$venv" install --no-index --no-deps "$whl" >"$work/install.log" 2>&1; then
    ok "python $pyv: pip install --no-index $(basename "$whl") into a fresh venv ($(( $(ms) - t0 )) ms)"
  else
    fail "python $pyv: pip install $whl"; cat "$work/install.log"; continue
  fi
  pkg=$("$venv/bin/python" -c 'import os, zkl; print(os.path.dirname(zkl.__file__))' 2>"$work/import.log") || { cat "$work/import.log"; pkg=; }
  ext=$(ls "$pkg"/_capi.*.so 2>/dev/null || true)
  if [ -n "$ext" ]; then
    site=$(dirname "$pkg")
    ldd_out=$(ldd "$ext" | sed 's|/zkl/\.\./zkl\.libs/|/zkl.libs/|')  # RUNPATH $ORIGIN/../zkl.libs
    # Everything but glibc and the C++ runtime must resolve inside site-packages.
    bad=$(awk '$2 == "=>"' <<<"$ldd_out" | grep -vE '^\s*(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' | grep -vF "=> $site/zkl" || true)
    ngraft=$(grep -cF "=> $site/zkl.libs/" <<<"$ldd_out" || true)
    if [ -z "$bad" ] && grep -q "libzkl-.* => $site/zkl.libs/" <<<"$ldd_out" && grep -q "libcrypto-.* => $site/zkl.libs/" <<<"$ldd_out"; then
      ok "python $pyv: ldd: $ngraft libraries (libzkl, abseil, OpenSSL, libsasl2) resolve in site-packages/zkl.libs; from the system only $(awk '$3 ~ /^\// && index($3, "'"$site"'/") != 1 {print $1}' <<<"$ldd_out" | sed 's/\.so.*//' | sort -u | tr '\n' ' ')"
    else
      fail "python $pyv: ldd of the installed extension:"; echo "$ldd_out"
    fi
  else
    fail "python $pyv: no installed extension zkl/_capi.*.so"; continue
  fi
  run_example "python $pyv (wheel)" "$venv" wheel
  if [ $can_hide -eq 1 ]; then
    run_example "python $pyv (wheel), $(wc -w <<<"$hide_run") system abseil/libzkl/libzookeeper/OpenSSL/libsasl2 files hidden" "$venv" wheel "$hide_run"
  elif [ "$i" -eq 0 ]; then
    echo "hidden system libraries: not tried (needs root and unshare -m)"
  fi
done

# --- 2. typing: mypy (pinned, cached tool venv) on a use of the installed package.
tag=$("${pythons[0]}" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
tools=${XDG_CACHE_HOME:-$HOME/.cache}/zkl-packaging/python-mypy-$mypy_version-$tag
if ! "$tools/bin/python" -c 'import mypy' >/dev/null 2>&1; then
  rm -rf "$tools"
  "${pythons[0]}" -m venv "$tools" && pipq "$tools" install "mypy==$mypy_version" >"$work/mypy-install.log" 2>&1 || true
fi
if [ -x "$tools/bin/mypy" ]; then
  if out=$("$tools/bin/mypy" --python-executable "$first_venv/bin/python" --strict --no-incremental \
             --cache-dir "$work/mypy-cache" "$work/typed.py" 2>&1); then
    ok "mypy --strict: the installed package is typed (py.typed, capi.pyi): $out"
  else
    fail "mypy on the installed package"; echo "$out"
  fi
else
  fail "mypy $mypy_version could not be installed"; cat "$work/mypy-install.log" 2>/dev/null || true
fi

# --- 3. the sdist, built (PEP 517, isolated: setuptools/wheel pinned) and
# installed into another fresh venv of the newest version.
if [ ! -f "$sdist" ]; then
  fail "no $sdist"
elif [ "${ZKL_PY_SDIST:-source}" = skip ]; then
  echo "sdist: not built (ZKL_PY_SDIST=skip)"
else
  py=${pythons[$((${#pythons[@]} - 1))]}
  pyv=$("$py" -c 'import platform; print(platform.python_version())')
  svenv=$work/sdist-venv
  "$py" -m venv "$svenv"
  # The build requirements, pinned in the sdist's pyproject.toml, into a
  # local wheelhouse (from PyPI or pip's cache): the build itself is offline.
  reqs=$(tar -xzOf "$sdist" "zkl-$version/pyproject.toml" | sed -n 's/^requires = \[\(.*\)\]/\1/p' | tr -d '",')
  pipq "$svenv" download --only-binary :all: -d "$work/wheelhouse" $reqs >"$work/wheelhouse.log" 2>&1 ||
    { cat "$work/wheelhouse.log"; fail "pip download $reqs"; }
  sd_env=(CMAKE_BUILD_PARALLEL_LEVEL=${ZKL_JOBS:-$(nproc)})
  sd_hide_files=
  sd_hide_dirs=
  case ${ZKL_PY_SDIST:-source} in
    source)
      sd_mode="from its own zkl-src/ (libzkl, ZooKeeper client, abseil compiled)"; sd_example=sdist
      if [ $can_hide -eq 1 ]; then
        multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
        sd_hide_dirs="/usr/include/absl /usr/lib/$multiarch/cmake/absl /usr/include/sasl /usr/share/swig4.0 /usr/local/include/absl /usr/local/lib/cmake/absl"
        sd_hide_files="$(ls /usr/lib/"$multiarch"/libabsl_* /usr/lib/"$multiarch"/pkgconfig/absl_*.pc /usr/bin/swig /usr/bin/swig4.0 2>/dev/null | xargs -r readlink -f | sort -u | tr '\n' ' ') $(ld_files '^(libzkl|libzookeeper)')"
        sd_mode="$sd_mode, libabsl-dev, SASL headers, swig hidden, no network"
      fi
      ;;
    prefix)
      [ -n "$source_prefix" ] || { echo "python test.sh: ZKL_PY_SDIST=prefix needs ZKL_PACKAGE_PREFIX" >&2; exit 2; }
      sd_mode="against the packaging libzkl (ZKL_PKG_CONFIG=1)"; sd_example=
      sd_env+=(ZKL_PKG_CONFIG=1 PKG_CONFIG_PATH=$source_prefix/lib/pkgconfig)
      ;;
    *) echo "python test.sh: ZKL_PY_SDIST is source, prefix or skip" >&2; exit 2 ;;
  esac
  sd_cmd=(env "${sd_env[@]}" "$svenv/bin/python" -m pip --disable-pip-version-check install --no-deps
          --no-index --find-links "$work/wheelhouse" --no-binary zkl "$sdist")
  t0=$(ms)
  if if [ -n "$sd_hide_files$sd_hide_dirs" ]; then hidden "$sd_hide_files" "$sd_hide_dirs" "-m -n" "${sd_cmd[@]}"; else "${sd_cmd[@]}"; fi >"$work/sdist.log" 2>&1; then
    ok "python $pyv: sdist built and installed $sd_mode in $(( ($(ms) - t0) / 1000 )) s"
    if [ -n "$sd_example" ]; then
      run_example "python $pyv (sdist build)" "$svenv" "$sd_example" "$sd_hide_files"
    elif out=$(timeout 60 "$svenv/bin/python" -c 'import sys, zkl; assert zkl.library_version() == sys.argv[1]' "$version" 2>&1); then
      ok "sdist build: import zkl, libzkl $version"
    else
      fail "sdist build: import zkl"; echo "$out"
    fi
  else
    fail "python $pyv: sdist build $sd_mode"; tail -40 "$work/sdist.log"
  fi
fi

echo "python test.sh: done in $(( $(date +%s) - t_all )) s"
echo "packages-python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
