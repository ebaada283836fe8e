# Shared preamble of the binding test scripts (bindings/<lang>/test.sh):
#   . "$(dirname "$0")/../lib/test-preamble.sh" <lang>
# Sets: here (the binding dir), root (the repository), work (a temp dir
# removed on exit, with every ZooKeeper started under it stopped), log().
# Makes sure ZKL_PREFIX is an install of libzkl (builds one into $work when
# unset) and points pkg-config at it. zkl_start_zookeeper DIR starts a
# standalone server under $work/DIR and prints its connect string.
# zkl_start_tls_zookeeper DIR starts one with a mutual-TLS port (client
# certificate required) and exports, for the suites' "tls" scenarios,
# ZKL_TEST_TLS_SERVERS (its TLS connect string) and ZKL_TEST_TLS_DIR (the
# scripts/test-certs files: ca.pem, client.crt, client.key, client-enc.key
# with client-key.pass, other-ca.pem).
# On exit it prints "<lang> binding: passed|FAILED in Ns".
set -euo pipefail
zkl_lang=${1:?usage: . test-preamble.sh LANG}
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
export ZKL_SOURCE_DIR=$root
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-$zkl_lang-test.XXXXXX")
zkl_started=$(date +%s)

log() { printf '\n--- %s: %s\n' "$zkl_lang" "$*" >&2; }

zkl_cleanup() {
  local rc=$?
  # Stop every server started under $work (the tests stop theirs; this
  # catches a crashed run).
  while IFS= read -r -d '' pidfile; do
    "$root/scripts/zk-server" stop "$(dirname "$pidfile")" >/dev/null 2>&1 || true
  done < <(find "$work" -name pid -type f -print0 2>/dev/null)
  rm -rf "$work"
  echo "$zkl_lang binding: $( ((rc == 0)) && echo passed || echo FAILED) in $(($(date +%s) - zkl_started))s" >&2
  exit $rc
}
trap zkl_cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${ZKL_PREFIX:-}" ]; then
  log "ZKL_PREFIX is unset: building libzkl into $work/prefix"
  cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DZKL_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --build "$work/build" -j 2 >/dev/null
  cmake --install "$work/build" >/dev/null
  ZKL_PREFIX=$work/prefix
fi
export ZKL_PREFIX
zkl_libdir=$(dirname "$(find "$ZKL_PREFIX" -name zkl.pc -print -quit)")/..
zkl_libdir=$(cd "$zkl_libdir" && pwd)
export PKG_CONFIG_PATH=$zkl_libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pkg-config --exists zkl || { echo "$zkl_lang: pkg-config cannot find zkl under $ZKL_PREFIX" >&2; exit 1; }

zkl_start_zookeeper() {  # DIR -> prints host:port
  ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/$1"
}

zkl_start_tls_zookeeper() {  # DIR -> exports ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR
  local dir=$work/$1
  "$root/scripts/test-certs" "$dir/certs" >/dev/null
  ZK_OWNER_PID=$$ ZK_TLS_DIR=$dir/certs ZK_TLS_CLIENT_AUTH=need \
    "$root/scripts/zk-server" start "$dir" >/dev/null
  ZKL_TEST_TLS_SERVERS=$(cat "$dir/secure_connect")
  ZKL_TEST_TLS_DIR=$dir/certs
  export ZKL_TEST_TLS_SERVERS ZKL_TEST_TLS_DIR
  log "TLS ZooKeeper at $ZKL_TEST_TLS_SERVERS (certificates in $ZKL_TEST_TLS_DIR)"
}
