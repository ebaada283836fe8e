#!/usr/bin/env bash
# packaging/go/build.sh DIST: the Go module github.com/zkl-project/zkl-go at
# the one zkl version, as a module proxy directory DIST/goproxy (the GOPROXY
# file layout: MODULE/@v/list, vVERSION.info, .mod, .zip).
#
# Environment (set by scripts/package):
#   ZKL_PACKAGE_SRC     a clean source tree (git archive); the module is
#                       bindings/go of it, plus LICENSE
#   ZKL_PACKAGE_PREFIX  a libzkl install with lib/libzkl_bundle.a and
#                       include/zkl.h; both are staged into the module under
#                       internal/lib/ (link_static.go links them by default)
#
# The module zip carries the linux/amd64 static archive, so `go get` +
# `go build` need no libzkl, ZooKeeper client or abseil. Use it with
#   GOPROXY=file://DIST/goproxy GONOSUMDB=github.com/zkl-project/zkl-go \
#     go get github.com/zkl-project/zkl-go@vVERSION
# Quiet on success; prints the zip's path and its go.sum hash.
set -euo pipefail
dist=${1:?usage: packaging/go/build.sh DIST}
: "${ZKL_PACKAGE_SRC:?packaging/go/build.sh: set ZKL_PACKAGE_SRC to a clean source tree (scripts/package does)}"
: "${ZKL_PACKAGE_PREFIX:?packaging/go/build.sh: set ZKL_PACKAGE_PREFIX to a libzkl install with libzkl_bundle.a (scripts/package does)}"
module=github.com/zkl-project/zkl-go
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
prefix=$(cd "$ZKL_PACKAGE_PREFIX" && pwd)

if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
command -v go >/dev/null || { echo "go build.sh: no Go toolchain on PATH" >&2; exit 1; }
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
[ "$(go env GOOS)_$(go env GOARCH)" = linux_amd64 ] ||
  { echo "go build.sh: the bundled archive is built for linux_amd64 only; this is $(go env GOOS)_$(go env GOARCH)" >&2; exit 1; }

version=$("$src/scripts/version")
archive=$prefix/lib/libzkl_bundle.a
header=$prefix/include/zkl.h
[ -f "$archive" ] || { echo "go build.sh: no $archive (configure libzkl with -DZKL_BUILD_STATIC=ON)" >&2; exit 1; }
[ -f "$header" ] || { echo "go build.sh: no $header" >&2; exit 1; }
# The archive must be the version of the source (one version everywhere).
hv=$(sed -n 's/^#define ZKL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$header" | paste -sd.)
[ "$hv" = "$version" ] || { echo "go build.sh: $header says $hv, the source says $version" >&2; exit 1; }
grep -qx "module $module" "$src/bindings/go/go.mod" ||
  { echo "go build.sh: bindings/go/go.mod is not 'module $module'" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-go-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# No HOME (CI): a build cache of our own.
gc=$(go env GOCACHE 2>/dev/null || true)
[ -n "$gc" ] && [ "$gc" != off ] || gc=$work/gocache
export GOCACHE=$gc

# The module tree: bindings/go without the monorepo's test runner files,
# the LICENSE, and the staged archive + header.
mod=$work/module
cp -a "$src/bindings/go" "$mod"
rm -f "$mod/test.sh" "$mod/apt-packages"
cp "$src/LICENSE" "$mod/LICENSE"
mkdir -p "$mod/internal/lib/include" "$mod/internal/lib/linux_amd64"
cp "$header" "$mod/internal/lib/include/zkl.h"
cp "$archive" "$mod/internal/lib/linux_amd64/libzkl_bundle.a"
# Reproducible: the version time is the source's (git archive sets every
# mtime to the commit time).
stamp=$(date -u -d "@$(stat -c %Y "$src/include/zkl.h")" +%Y-%m-%dT%H:%M:%SZ)

# The module must build from this tree as staged (static link, no pkg-config).
(cd "$mod" && env -u PKG_CONFIG_PATH CGO_ENABLED=1 go build ./... ) ||
  { echo "go build.sh: the staged module does not build" >&2; exit 1; }

mkdir -p "$dist/goproxy"
(cd "$here/modzip" && go run main.go -dir "$mod" -version "v$version" -time "$stamp" "$dist/goproxy")
