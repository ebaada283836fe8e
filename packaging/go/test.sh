#!/usr/bin/env bash
# packaging/go/test.sh DIST: install the Go module from DIST/goproxy into a
# fresh module the way a user would (`go get` from a module proxy), build
# packaging/go/example (one lock, one leader election) and run it against a
# real ZooKeeper on 127.0.0.1, with no libzkl reachable: LD_LIBRARY_PATH,
# PKG_CONFIG_PATH, CGO_* flags and ZKL_PACKAGE_PREFIX unset, a fresh GOPATH
# and module cache, GOPROXY the file proxy only (offline). Checks the binary
# links no libzkl, no ZooKeeper client and no abseil (ldd) and carries no
# run path; `go mod verify` of the fresh module and `go vet` of the
# module's packages, both offline. Then, when ZKL_PACKAGE_PREFIX is set, that the published module
# still builds with -tags dynamic against it (the pkg-config route).
#
# Environment: ZKL_SOURCE_DIR (the repository, for scripts/zk-server;
# default two levels up), ZKL_PACKAGE_PREFIX (optional, dynamic check only).
# Ends with "packages-go: N passed, M failed"; exits non-zero on failure.
set -euo pipefail
dist=$(cd "${1:?usage: packaging/go/test.sh DIST}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
module=github.com/zkl-project/zkl-go
proxy=$dist/goproxy
version=$(sed -n 1p "$proxy/$module/@v/list" 2>/dev/null || true)
[ -n "$version" ] || { echo "go test.sh: no module in $proxy (run packaging/go/build.sh $1)" >&2; exit 1; }
dyn_prefix=${ZKL_PACKAGE_PREFIX:-}

if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-go-pkgtest.XXXXXX")
cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  chmod -R u+w "$work" 2>/dev/null || true   # the module cache is read-only
  rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
bad()  { failed=$((failed + 1)); echo "FAIL $*" >&2; }
finish() { echo "packages-go: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# Nothing of the build tree or of an installed libzkl within reach.
unset LD_LIBRARY_PATH PKG_CONFIG_PATH ZKL_PACKAGE_PREFIX ZKL_PREFIX ZKL_PACKAGE_SRC \
      CGO_CFLAGS CGO_CPPFLAGS CGO_CXXFLAGS CGO_LDFLAGS GOFLAGS GOWORK
export GOTOOLCHAIN=local CGO_ENABLED=1 GOPATH=$work/gopath GOMODCACHE=$work/gopath/pkg/mod \
       GOPROXY=file://$proxy GONOSUMDB=$module GOENV=off
gc=$(go env GOCACHE 2>/dev/null || true)    # no HOME (CI): a cache of our own
[ -n "$gc" ] && [ "$gc" != off ] || export GOCACHE=$work/gocache
if pkg-config --exists zkl 2>/dev/null || ldconfig -p 2>/dev/null | grep -q 'libzkl\.so'; then
  echo "note: a system libzkl exists; the checks below show the program does not use it"
fi

# Install: a fresh module, go get from the file proxy, go build.
app=$work/app
mkdir -p "$app"
cp "$here/example/main.go" "$app/"
t0=$(date +%s.%N)
if (cd "$app" && go mod init example.com/zkl-pkg-test >/dev/null 2>&1 &&
    go get "$module@$version" 2>"$work/get.log" && go build -o "$app/example" . 2>"$work/build.log"); then
  install_s=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
  ok "go get $module@$version + go build in a fresh module (${install_s}s)"
else
  cat "$work/get.log" "$work/build.log" >&2 2>/dev/null || true
  bad "go get / go build from $proxy"
  finish
fi
grep -q "^$module $version h1:" "$app/go.sum" && ok "go.sum records $module $version h1:" ||
  bad "go.sum has no h1: line for $module $version"
# The module cache against go.sum (the hashes the proxy served), offline.
if out=$(cd "$app" && go mod verify 2>&1) && [ "$out" = "all modules verified" ]; then
  ok "go mod verify: $out"
else
  echo "$out" >&2; bad "go mod verify"
fi
# go vet of every package of the module as the proxy delivered it (tests too).
if out=$(cd "$app" && go vet "$module/..." 2>&1); then
  ok "go vet $module/...: clean ($(cd "$app" && go list "$module/..." | wc -l) packages)"
else
  echo "$out" >&2; bad "go vet $module/..."
fi

# Self-contained: no libzkl, ZooKeeper client or abseil; no run path.
deps=$(ldd "$app/example")
if echo "$deps" | grep -Eq 'libzkl|libzookeeper|libabsl|not found'; then
  echo "$deps" >&2; bad "ldd shows libzkl / libzookeeper / libabsl or a missing library"
else
  ok "ldd: $(echo "$deps" | awk '/=>/ {print $1}' | paste -sd' ')"
fi
if readelf -d "$app/example" | grep -Eq 'RPATH|RUNPATH'; then bad "the binary carries a run path"; else ok "no RPATH/RUNPATH"; fi

# Run against a real ZooKeeper, watching what the loader loads.
hp=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk")
if out=$(cd "$work" && LD_DEBUG=libs LD_DEBUG_OUTPUT=$work/lddebug timeout 90 "$app/example" "$hp" 2>&1); then
  echo "$out" | sed 's/^/  | /'
  echo "$out" | grep -qx "libzkl ${version#v}" && ok "zkl.Version() is ${version#v}" || bad "zkl.Version() is not ${version#v}"
  tok=$(echo "$out" | sed -n 's/^locked token=\([0-9]*\)$/\1/p')
  [ -n "$tok" ] && [ "$tok" -gt 0 ] && ok "lock: fencing token $tok > 0" || bad "lock: no fencing token > 0"
  echo "$out" | grep -Eq '^elected token=[1-9][0-9]*$' && ok "election: elected" || bad "election: not elected"
else
  echo "$out" >&2; bad "the example failed against $hp"
fi
if ! cat "$work"/lddebug.* 2>/dev/null | grep -q 'calling init: .*libssl'; then
  bad "LD_DEBUG: no loader trace (expected libssl among the loaded libraries)"
elif cat "$work"/lddebug.* | grep -Eq 'calling init: .*(libzkl|libabsl|libzookeeper)'; then
  bad "LD_DEBUG: libzkl / libabsl / libzookeeper was loaded"
else
  ok "LD_DEBUG: no libzkl, libabsl or libzookeeper loaded at run time"
fi
"$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true

# Vendoring keeps the header and the archive (internal/lib/* are packages).
if (cd "$app" && go mod vendor 2>"$work/vendor.log" &&
    go build -mod=vendor -o "$app/example-vendored" . 2>>"$work/vendor.log"); then
  ok "go mod vendor + go build -mod=vendor"
else
  cat "$work/vendor.log" >&2; bad "go mod vendor + go build -mod=vendor"
fi
rm -rf "$app/vendor"

# The pkg-config route of the published module (-tags dynamic).
if [ -n "$dyn_prefix" ]; then
  pc=$(dirname "$(find "$dyn_prefix" -name zkl.pc -print -quit)")
  if (cd "$app" && PKG_CONFIG_PATH=$pc go build -tags dynamic -o "$app/example-dynamic" . 2>"$work/dyn.log") &&
     lib=$(ldd "$app/example-dynamic" | awk '$1 == "libzkl.so.1" {print $3}') &&
     [ -n "$lib" ] && [ "$(realpath "$lib")" -ef "$(realpath "$pc/../libzkl.so.1")" ]; then
    ok "-tags dynamic links the libzkl of ZKL_PACKAGE_PREFIX (pkg-config)"
  else
    cat "$work/dyn.log" >&2; bad "-tags dynamic build against ZKL_PACKAGE_PREFIX"
  fi
fi

zip=$proxy/$module/@v/$version.zip
echo "artifact: $zip $(stat -c %s "$zip") bytes; example binary $(stat -c %s "$app/example") bytes; install (go get + go build) ${install_s}s"
finish
