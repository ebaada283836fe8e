#!/usr/bin/env bash
# CI entry of the Java binding (run by scripts/test as the "java" stage).
#
# Environment (set by scripts/test; all optional when run by hand):
#   ZKL_PREFIX       an install of libzkl; unset: this script builds and
#                    installs libzkl from ZKL_SOURCE_DIR into a temp prefix
#   ZKL_SOURCE_DIR   the repository root (default: two levels up)
#   PKG_CONFIG_PATH / LD_LIBRARY_PATH   extended with ZKL_PREFIX here too
#
# Builds the JNI library (SWIG + cc, through Maven: native/build.sh), starts
# a ZooKeeper server of its own on loopback (scripts/zk-server; stopped on
# exit), and runs `mvn -B test` against it. Exits non-zero on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-java-test.XXXXXX")

cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${ZKL_PREFIX:-}" ]; then
  echo "java/test.sh: ZKL_PREFIX is unset: building libzkl into $work/prefix" >&2
  cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --build "$work/build" -j 2 >/dev/null
  cmake --install "$work/build" >/dev/null
  ZKL_PREFIX=$work/prefix
fi
export ZKL_PREFIX ZKL_SOURCE_DIR=$root
export PKG_CONFIG_PATH=$ZKL_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$ZKL_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  export JAVA_HOME
fi

# The server is killed by zk-server's watcher should this script die uncleanly.
connect=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk" | tail -n 1)
echo "java/test.sh: ZooKeeper at $connect" >&2

cd "$here"
mvn -B -ntp test -Dzkl.test.connect="$connect" -Dzkl.source.dir="$root" \
    -Dzkl.test.workdir="$work/tests"
