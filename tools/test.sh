#!/usr/bin/env bash
# CI stage "tools": tests of the zkl command against a real ZooKeeper.
#
# Env: ZKL_PREFIX    an install of libzkl that contains bin/zkl (else this
#                    script builds and installs one under build/tools)
#      ZKL_BUILD_DIR the core build dir (informational)
# Installs its pinned Python test dependencies into a venv under build/,
# starts its own ZooKeeper on a free loopback port, stops it on exit (the
# secured servers of test_secured.py: started and stopped by the tests).
# Extra arguments go to pytest (e.g. -k elect).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

if [ -z "${ZKL_PREFIX:-}" ]; then
  build=$root/build/tools
  echo "tools: ZKL_PREFIX not set: building into $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$build/prefix" >/dev/null
  cmake --build "$build" -j 2 >/dev/null
  cmake --install "$build" >/dev/null
  ZKL_PREFIX=$build/prefix
fi
ZKL_BIN=$ZKL_PREFIX/bin/zkl
[ -x "$ZKL_BIN" ] || { echo "tools: $ZKL_BIN is missing (was tools/ built and installed?)" >&2; exit 1; }

# Pinned test dependencies, in a venv of their own. Made under a lock:
# scripts/test runs the versions stage (which runs this suite too) beside
# the tools stage, and a half-made venv has python but no pip yet.
venv=$root/build/tools-venv
mkdir -p "$root/build"
exec 9>"$root/build/tools-venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    # Debian's python3 ships venv support separately.
    echo "tools: installing python3-venv" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
  fi
  python3 -m venv "$venv"
fi
if ! cmp -s "$here/tests/requirements.txt" "$venv/requirements.txt" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/tests/requirements.txt"
  cp "$here/tests/requirements.txt" "$venv/requirements.txt"
fi
flock -u 9
exec 9>&-

zkdir=$(mktemp -d /tmp/zkl-tools-zk.XXXXXX)
cleanup() {
  "$root/scripts/zk-server" stop "$zkdir" >/dev/null 2>&1 || true
  rm -rf "$zkdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$zkdir")
echo "tools: ZooKeeper at $servers; testing $ZKL_BIN" >&2

export ZKL_BIN ZKL_TEST_SERVERS=$servers ZKL_SOURCE_DIR=$root
rc=0
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rfE --timeout 120 \
  --junitxml="$zkdir/junit.xml" "$here/tests" "$@" || rc=$?
# Summary line from the JUnit report.
"$venv/bin/python" - "$zkdir/junit.xml" "$rc" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    s = ET.parse(sys.argv[1]).getroot()
    s = s if s.tag == "testsuite" else s.find("testsuite")
    n, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
    print(f"tools: {n - f - e - k} passed, {f + e} failed, {k} skipped")
except Exception as ex:  # no report: pytest itself failed
    print(f"tools: no test report ({ex}); pytest exit {sys.argv[2]}")
PY
exit $rc
