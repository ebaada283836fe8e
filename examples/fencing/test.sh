#!/usr/bin/env bash
# The fencing patterns of docs/FENCING.md, run end to end: the `fencing`
# stage of scripts/test-extra.
#
# Starts a standalone ZooKeeper (scripts/zk-server) and a throw-away
# PostgreSQL (scripts/pg-server: Debian's postgresql-15, loopback only, as
# the postgres user when root), builds the C examples against ZKL_PREFIX
# (pkg-config zkl libpq), a venv with the Python binding and pg8000 (pinned
# in python/requirements.txt), and the Go example (pgx, pinned in go/go.sum;
# the binding through a replace directive). For each pattern and language:
# one holder writes through the fence (accepted, and the row or file shows
# it), then the stale-holder demo: A acquires (token tA) and loses the lock
# (its client closed: session and node gone), B acquires (tB > tA) and
# writes, A's write with tA must be refused and B's value must stay.
# Stops both servers by pid on exit. Last line: "fencing: N passed, M failed".
#
# Environment (set by scripts/test; all optional by hand):
#   ZKL_PREFIX      an install of libzkl (unset: built from the tree into a
#                   temporary prefix)
#   PYTHON          the interpreter for the venv (default python3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-fencing-test.XXXXXX")
started=$(date +%s)
passed=0
failed=0
failures=()

log() { printf '\n--- fencing: %s\n' "$*" >&2; }

cleanup() {
  local rc=$?
  "$root/scripts/pg-server" stop "$work/pg" >/dev/null 2>&1 || true
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  rm -rf "$work"
  echo "fencing: finished in $(($(date +%s) - started))s" >&2
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the stage needs from Debian (scripts/apt-packages lists them too).
need=()
for p in postgresql-15 postgresql-client-15 libpq-dev zookeeper swig python3-dev python3-venv pkg-config; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  "$root/scripts/install-deps"
fi

if [ -z "${ZKL_PREFIX:-}" ]; then
  log "ZKL_PREFIX is unset: building libzkl into $work/prefix"
  cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DZKL_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --build "$work/build" -j 2 >/dev/null
  cmake --install "$work/build" >/dev/null
  ZKL_PREFIX=$work/prefix
fi
libdir=$(dirname "$(find "$ZKL_PREFIX" -name zkl.pc -print -quit)")/..
libdir=$(cd "$libdir" && pwd)
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

log "servers"
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
conninfo=$(PG_OWNER_PID=$$ "$root/scripts/pg-server" start "$work/pg")
url=$("$root/scripts/pg-server" url "$work/pg")
echo "ZooKeeper $servers; PostgreSQL $conninfo"
sql() { "$root/scripts/pg-server" psql "$work/pg" -At -c "$1"; }

log "building the C examples"
for ex in pg_fenced file_fenced; do
  libs=zkl
  [ $ex = pg_fenced ] && libs="zkl libpq"
  # shellcheck disable=SC2046,SC2086
  cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$work/$ex" "$here/$ex.c" $(pkg-config --cflags --libs $libs)
done

log "Python: venv with the binding and pg8000"
python=${PYTHON:-python3}
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r "$here/python/requirements.txt"
# The binding is built from a copy: building writes next to its sources.
cp -r "$root/bindings/python" "$work/pysrc"
rm -rf "$work/pysrc/.venv" "$work/pysrc/build"
"${pip[@]}" install --no-deps "$work/pysrc"
py=("$work/venv/bin/python")

log "Go: the pgx example"
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; fi
[ -n "${HOME:-}" ] || export GOCACHE=$work/gocache GOPATH=$work/gopath
(cd "$here/go" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=1 \
   go build -tags=dynamic -o "$work/pg_fenced_go" .)

# check NAME CMD...: one case; its output goes to $work/NAME.out.
check() {
  local name=$1
  shift
  if "$@" >"$work/$name.out" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "FAIL $name (exit $?):"
    sed 's/^/     /' "$work/$name.out"
  fi
}
# expect_row KEY VALUE: the row holds VALUE.
expect_row() { [ "$(sql "SELECT value FROM fenced WHERE key = '$1'")" = "$2" ]; }
# expect_file FILE CONTENT
expect_file() { [ "$(cat "$1")" = "$2" ]; }

log "patterns"
# A holder writes through the fence; the row/file shows it. Then the stale
# holder is refused.
check c-sql-write          "$work/pg_fenced" "$servers" "$conninfo" c-key from-c
check c-sql-row            expect_row c-key from-c
check c-sql-stale-holder   "$work/pg_fenced" "$servers" "$conninfo" --stale-demo c-stale
check c-file-write         "$work/file_fenced" "$servers" "$work/c-file" "from-c"
check c-file-content       expect_file "$work/c-file" from-c
check c-file-stale-holder  "$work/file_fenced" "$servers" "$work/c-file-stale" --stale-demo
check py-sql-write         "${py[@]}" "$here/python/pg_fenced.py" "$servers" "$url" py-key from-py
check py-sql-row           expect_row py-key from-py
check py-sql-stale-holder  "${py[@]}" "$here/python/pg_fenced.py" "$servers" "$url" --stale-demo py-stale
check py-file-write        "${py[@]}" "$here/python/file_fenced.py" "$servers" "$work/py-file" "from-py"
check py-file-content      expect_file "$work/py-file" from-py
check py-file-stale-holder "${py[@]}" "$here/python/file_fenced.py" "$servers" "$work/py-file-stale" --stale-demo
check go-sql-write         "$work/pg_fenced_go" "$servers" "$url" go-key from-go
check go-sql-row           expect_row go-key from-go
check go-sql-stale-holder  "$work/pg_fenced_go" "$servers" "$url" --stale-demo go-stale
# Across languages on one row: each new holder's token is above the last
# one's, so C, then Python, then Go all write; the row ends with Go's value
# and the highest token.
check mixed-c              "$work/pg_fenced" "$servers" "$conninfo" mixed c
check mixed-py             "${py[@]}" "$here/python/pg_fenced.py" "$servers" "$url" mixed py
check mixed-go             "$work/pg_fenced_go" "$servers" "$url" mixed go
check mixed-row            expect_row mixed go
# A stale token is refused whatever wrote the newer one: the C holder's
# token of mixed-c (first line of its output) is now older than the row's.
tok_c=$(sed -n 's/^acquired .*fencing token \([0-9]*\)$/\1/p' "$work/mixed-c.out")
stale_write() {
  local n
  n=$(sql "INSERT INTO fenced AS f (key, value, fence) VALUES ('mixed', 'stale', $tok_c)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence
           WHERE f.fence <= excluded.fence RETURNING 1" | wc -l)
  [ -n "$tok_c" ] && [ "$n" = 0 ] && expect_row mixed go
}
check mixed-stale-token    stale_write
# The control: the same statement without the fence clause would have let
# the stale token through (the test above can fail).
unfenced_control() {
  sql "INSERT INTO fenced AS f (key, value, fence) VALUES ('control', 'new', 20) ON CONFLICT (key) DO NOTHING" >/dev/null
  sql "INSERT INTO fenced AS f (key, value, fence) VALUES ('control', 'stale', 10)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence" >/dev/null
  expect_row control stale
}
check unfenced-control     unfenced_control

echo
if [ "$failed" -gt 0 ]; then echo "fencing: failed cases: ${failures[*]}"; fi
echo "fencing: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
