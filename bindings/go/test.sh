#!/usr/bin/env bash
# CI entry of the Go binding (the "go" stage of scripts/test).
#
# Environment (set by scripts/test; all optional when run by hand):
#   ZKL_PREFIX       an install of libzkl; unset: the preamble builds one
#   ZKL_SOURCE_DIR   the repository root (default: two levels up)
#
# Runs `go vet` and `go test -race -count=1 ./...`. This script starts the
# mutual-TLS ZooKeeper of tls_test.go (zkl_start_tls_zookeeper); the other
# tests start their own ZooKeeper servers on loopback with scripts/zk-server (TestMain stops them;
# zk-server's owner watch kills them should the test binary die) and build
# tests/tools/zkl_hold.c for the cross-language test. No Go module is
# downloaded (the module has no dependencies). LD_LIBRARY_PATH is not set:
# zkl.pc carries an rpath, and a test checks that a built program finds
# libzkl without it. Exits non-zero on failure.
. "$(dirname "$0")/../lib/test-preamble.sh" go

# The Go toolchain: the machine's (/usr/local/go on this project's machines).
if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
if ! command -v go >/dev/null; then
  echo "go: no Go toolchain found (need Go >= 1.22 on PATH)" >&2
  exit 1
fi
# -tags=dynamic: link the libzkl of ZKL_PREFIX through pkg-config (the
# default, link_static.go, needs the archive that only the released module
# carries; see internal/lib/README.md). Exported, so the go builds the tests
# run inherit it.
export GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:--mod=mod} -tags=dynamic" CGO_ENABLED=1
[ -n "${HOME:-}" ] || export GOCACHE=$work/gocache GOPATH=$work/gopath
go_minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$go_minor" ] || [ "$go_minor" -lt 22 ]; then
  echo "go: $(go env GOVERSION) is too old (need Go >= 1.22)" >&2
  exit 1
fi
unset LD_LIBRARY_PATH
# Go's build cache does not key a cgo package on pkg-config's answer: a
# package built before against another libzkl would be linked again (its
# rpath and all). It keys on CGO_CPPFLAGS: name the install and its header.
zkl_h=$(pkg-config --variable=includedir zkl)/zkl.h
export CGO_CPPFLAGS="${CGO_CPPFLAGS:-} $(pkg-config --cflags zkl) -DZKL_H_CKSUM=$(cksum <"$zkl_h" | cut -d' ' -f1)"

cd "$here"
log "$(go version), libzkl $(pkg-config --modversion zkl) from $ZKL_PREFIX"
log "go vet"
go vet ./...
log "TLS ZooKeeper (the tls scenarios of tls_test.go)"
zkl_start_tls_zookeeper zk-tls
log "go test -race"
go test -race -count=1 -timeout 6m ./...
