#!/usr/bin/env bash
# packaging/python/test.sh DIST: installs DIST/zkl-VERSION-cpXY-cpXY-linux_x86_64.whl
# into a fresh venv in a temp dir (pip --no-index: offline, the wheel has no
# dependencies), with LD_LIBRARY_PATH, PKG_CONFIG_PATH, PYTHONPATH, the
# packaging prefix and the source tree out of reach (it runs from the temp
# dir, so `import zkl` can only be the installed package), starts a real
# ZooKeeper on 127.0.0.1 and runs a lock + election example on it.
# Proves the self-containment: ldd of the installed extension resolves libzkl
# and abseil inside site-packages/zkl, the running process maps libzkl and
# every libabsl from there and no libzookeeper, and it still works with the
# system's abseil, libzkl and libzookeeper hidden (root only: a private mount
# namespace). mypy (pinned, cached tool venv) type-checks a use of the
# installed package (py.typed + stubs). The sdist: built (PEP 517) and
# installed into another fresh venv, from its own zkl-src/ (libzkl and the
# ZooKeeper client compiled; 30-90 s on 2 cores), and the example run
# with that build's libzkl.so.1 from inside the package. ZKL_PY_SDIST=prefix
# builds it against ZKL_PACKAGE_PREFIX instead (ZKL_PKG_CONFIG=1), =skip not
# at all.
# Ends with "packages-python: N passed, M failed"; non-zero on failure.
set -euo pipefail
dist=${1:?usage: packaging/python/test.sh DIST}
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
python=${PYTHON:-python3}
mypy_version=1.18.2

dist=$(cd "$dist" && pwd)
version=$("$root/scripts/version")
tag=$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
whl=$dist/zkl-$version-$tag-$tag-linux_x86_64.whl
sdist=$dist/zkl-$version.tar.gz
[ -f "$whl" ] || { echo "python test.sh: no $whl (run packaging/python/build.sh first, with this $python)" >&2; exit 2; }
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

# --- the example: lock + election, then where each library was mapped from.
cat >"$work/example.py" <<'PY'
import os
import sys

import zkl

servers, mode, version = sys.argv[1:4]  # mode: wheel | sdist (built from its own zkl-src/)
pkg = os.path.dirname(zkl.__file__)
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
ours = sorted(p for p in mapped
              if os.path.basename(p).startswith(("libzkl.", "libabsl_", "libzookeeper", "_capi.")))
for p in ours:
    print(f"mapped {p}")
want(not any("libzookeeper" in p for p in ours), "a libzookeeper was loaded")
want(any(os.path.basename(p).startswith("_capi.") and os.path.dirname(p) == pkg for p in ours),
     "the installed extension is not the one loaded")
want(any(p == os.path.join(pkg, "libzkl.so.1") for p in ours), f"libzkl.so.1 is not mapped from {pkg}")
if mode == "wheel":
    outside = [p for p in ours if os.path.dirname(p) != pkg]
    want(not outside, f"loaded from outside the package: {outside}")
    n = sum(os.path.basename(p).startswith("libabsl_") for p in ours)
    print(f"self-contained: extension, libzkl and {n} abseil libraries from {pkg}")
else:
    want(not any(os.path.basename(p).startswith("libzkl.") and os.path.dirname(p) != pkg for p in ours),
         "a libzkl from outside the package was loaded")
    print(f"libzkl.so.1 from {pkg} (abseil: the system's, as for any source build)")
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

echo "artifact: $whl ($(stat -c %s "$whl") bytes)"
[ -f "$sdist" ] && echo "artifact: $sdist ($(stat -c %s "$sdist") bytes)"

# --- 1. a fresh venv; the wheel installed offline.
venv=$work/venv
"$python" -m venv "$venv"
t0=$(ms)
if pipq "$venv" install --no-index --no-deps "$whl" >"$work/install.log" 2>&1; then
  echo "install time: $(( $(ms) - t0 )) ms (pip install --no-index $(basename "$whl"))"
  ok "pip install --no-index $(basename "$whl") into a fresh venv"
else
  fail "pip install $whl"; cat "$work/install.log"
fi
pkg=$("$venv/bin/python" -c 'import os, zkl; print(os.path.dirname(zkl.__file__))' 2>"$work/import.log") || { cat "$work/import.log"; pkg=; }
echo "installed package: ${pkg:-none}"

# --- 2. ldd: libzkl and abseil resolve inside the installed package.
ext=$(ls "$pkg"/_capi.*.so 2>/dev/null || true)
if [ -n "$ext" ]; then
  ldd_out=$(ldd "$ext")
  bad=$(awk '/libzkl|libabsl_|libzookeeper|not found/' <<<"$ldd_out" | grep -vF "=> $pkg/" || true)
  nabsl=$(grep -c "libabsl_.* => $pkg/" <<<"$ldd_out" || true)
  if [ -z "$bad" ] && grep -qF "libzkl.so.1 => $pkg/libzkl.so.1" <<<"$ldd_out" && [ "$nabsl" -gt 0 ]; then
    ok "ldd: libzkl.so.1 and $nabsl abseil libraries resolve in site-packages/zkl (RUNPATH $(patchelf --print-rpath "$ext" 2>/dev/null || echo '$ORIGIN'))"
  else
    fail "ldd of the installed extension:"; echo "$ldd_out"
  fi
  echo "system libraries still needed: $(awk '$3 ~ /^\// && index($3, "'"$pkg"'/") != 1 {print $1}' <<<"$ldd_out" | sed 's/\.so.*//' | sort -u | tr '\n' ' ')"
else
  fail "no installed extension zkl/_capi.*.so"
fi

# --- 3. a real ZooKeeper, and the example from the fresh venv.
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
echo "ZooKeeper at $servers"
run_example() {  # LABEL VENV MODE
  if out=$(ZKL_SOURCE_DIR=$root timeout 60 "$2/bin/python" "$work/example.py" "$servers" "$3" "$version" 2>&1); then
    ok "$1: lock + election ($(grep -E '^(lock held|elected)' <<<"$out" | tr '\n' ';' | sed 's/;$//'))"
    grep -E '^(self-contained|libzkl.so.1 from)' <<<"$out" || true
  else
    fail "$1"; echo "$out"
  fi
}
run_example "python $("$venv/bin/python" -c 'import platform; print(platform.python_version())') (wheel)" "$venv" wheel

# --- 3b. again with every system abseil, libzkl and libzookeeper made
# unreadable (/dev/null bound over them in a private mount namespace): what
# a machine without them sees. Needs root and unshare; else not tried.
hide=$(ldconfig -p | awk '$1 ~ /^(libabsl_|libzkl|libzookeeper)/ {print $NF}' | xargs -r readlink -f | sort -u | tr '\n' ' ')
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  if out=$(HIDE=$hide ZKL_SOURCE_DIR=$root timeout 60 unshare -m sh -c \
        'for f in $HIDE; do mount --bind /dev/null "$f" || exit 1; done; exec "$0" "$@"' \
        "$venv/bin/python" "$work/example.py" "$servers" wheel "$version" 2>&1); then
    ok "with $(wc -w <<<"$hide") system abseil/libzkl/libzookeeper files hidden: lock + election"
  else
    fail "with the system abseil hidden"; echo "$out"
  fi
else
  echo "hidden system libraries: not tried (needs root and unshare -m)"
fi

# --- 4. typing: mypy (pinned, cached tool venv) on a use of the installed package.
tools=${XDG_CACHE_HOME:-$HOME/.cache}/zkl-packaging/python-mypy-$mypy_version-$tag
if ! "$tools/bin/python" -c 'import mypy' >/dev/null 2>&1; then
  rm -rf "$tools"
  "$python" -m venv "$tools" && pipq "$tools" install "mypy==$mypy_version" >"$work/mypy-install.log" 2>&1 || true
fi
if [ -x "$tools/bin/mypy" ]; then
  if out=$("$tools/bin/mypy" --python-executable "$venv/bin/python" --strict --no-incremental \
             --cache-dir "$work/mypy-cache" "$work/typed.py" 2>&1); then
    ok "mypy --strict: the installed package is typed (py.typed, capi.pyi): $out"
  else
    fail "mypy on the installed package"; echo "$out"
  fi
else
  fail "mypy $mypy_version could not be installed"; cat "$work/mypy-install.log" 2>/dev/null || true
fi

# --- 5. the sdist, built (PEP 517, isolated: setuptools/wheel pinned, from
# PyPI or pip's cache) and installed into another fresh venv.
if [ -f "$sdist" ]; then
  sd_mode=
  case ${ZKL_PY_SDIST:-source} in
    source) sd_mode="from its own zkl-src/ (libzkl + ZooKeeper client compiled)"; sd_env=(); sd_example=sdist ;;
    prefix) [ -n "$source_prefix" ] || { echo "python test.sh: ZKL_PY_SDIST=prefix needs ZKL_PACKAGE_PREFIX" >&2; exit 2; } ;;
    skip) ;;
    *) echo "python test.sh: ZKL_PY_SDIST is source, prefix or skip" >&2; exit 2 ;;
  esac
  if [ "${ZKL_PY_SDIST:-source}" = prefix ]; then
    sd_mode="against the packaging libzkl (ZKL_PKG_CONFIG=1)"
    sd_env=(ZKL_PKG_CONFIG=1 PKG_CONFIG_PATH=$source_prefix/lib/pkgconfig); sd_example=
  fi
  if [ -n "$sd_mode" ]; then
    svenv=$work/sdist-venv
    "$python" -m venv "$svenv"
    t0=$(ms)
    if env "${sd_env[@]}" "$svenv/bin/python" -m pip --disable-pip-version-check install --no-deps \
          --no-binary zkl "$sdist" >"$work/sdist.log" 2>&1; then
      ok "sdist built and installed $sd_mode in $(( ($(ms) - t0) / 1000 )) s"
      if [ -n "$sd_example" ]; then
        run_example "sdist build" "$svenv" "$sd_example"
      elif out=$(timeout 60 "$svenv/bin/python" -c 'import sys, zkl; assert zkl.library_version() == sys.argv[1]' "$version" 2>&1); then
        ok "sdist build: import zkl, libzkl $version"
      else
        fail "sdist build: import zkl"; echo "$out"
      fi
    else
      fail "sdist build $sd_mode"; tail -40 "$work/sdist.log"
    fi
  else
    echo "sdist: not built (ZKL_PY_SDIST=skip)"
  fi
fi

echo "packages-python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
