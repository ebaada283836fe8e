#!/usr/bin/env bash
# CI entry of the Go binding (the "go" stage of scripts/test).
#
# Environment (set by scripts/test; all optional when run by hand):
#   ZKL_PREFIX       an install of libzkl; unset: this script builds and
#                    installs libzkl from ZKL_SOURCE_DIR into a temp prefix
#   ZKL_SOURCE_DIR   the repository root (default: two levels up)
#   PKG_CONFIG_PATH / LD_LIBRARY_PATH   extended with ZKL_PREFIX here too
#
# Runs `go vet` and `go test -race -count=1 ./...`. The tests start their own
# ZooKeeper servers on loopback with scripts/zk-server (TestMain stops them;
# zk-server's owner watch kills them should the test binary die) and build
# tests/tools/zkl_hold.c for the cross-language test. No Go module is
# downloaded (the module has no dependencies). Exits non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-go-test.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '\n--- go: %s\n' "$*" >&2; }

# The Go toolchain: the machine's (/usr/local/go on this project's machines).
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v go >/dev/null; then
  echo "go: no Go toolchain found (need Go >= 1.22 on PATH)" >&2
  exit 1
fi
export GOTOOLCHAIN=local GOFLAGS=${GOFLAGS:--mod=mod} CGO_ENABLED=1
[ -n "${HOME:-}" ] || export GOCACHE=$work/gocache GOPATH=$work/gopath
go_minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$go_minor" ] || [ "$go_minor" -lt 22 ]; then
  echo "go: $(go env GOVERSION) is too old (need Go >= 1.22)" >&2
  exit 1
fi

if [ -z "${ZKL_PREFIX:-}" ]; then
  log "ZKL_PREFIX is unset: building libzkl into $work/prefix"
  cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DZKL_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --build "$work/build" -j 2 >/dev/null
  cmake --install "$work/build" >/dev/null
  ZKL_PREFIX=$work/prefix
fi
export ZKL_PREFIX ZKL_SOURCE_DIR=$root
export PKG_CONFIG_PATH=$ZKL_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$ZKL_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

cd "$here"
log "$(go version), libzkl $(pkg-config --modversion zkl) from $ZKL_PREFIX"
log "go vet"
go vet ./...
log "go test -race"
go test -race -count=1 -timeout 6m ./...
