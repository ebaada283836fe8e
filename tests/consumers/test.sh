#!/usr/bin/env bash
# CI stage "consumers": programs that use an *installed* libzkl the ways
# outside users do — pkg-config, CMake find_package, dlopen by SONAME — and
# the public header as strict C99 and as C++.
#
# Env: ZKL_PREFIX  the install prefix (else this script builds and installs
#                  one under build/consumers)
# Starts its own ZooKeeper on a free loopback port and stops it on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}

if [ -z "${ZKL_PREFIX:-}" ]; then
  build=$root/build/consumers
  echo "consumers: ZKL_PREFIX not set: building into $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DZKL_BUILD_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX="$build/prefix" >/dev/null &&
    cmake --build "$build" -j 2 >/dev/null &&
    cmake --install "$build" >/dev/null || { echo "consumers: build failed" >&2; exit 1; }
  ZKL_PREFIX=$build/prefix
fi
prefix=$(cd "$ZKL_PREFIX" && pwd)
# The library directory of the install (lib, or lib/<multiarch>).
libdir=$(dirname "$(find "$prefix" -name 'libzkl.so' -print -quit)")
[ -f "$libdir/libzkl.so" ] || { echo "consumers: no libzkl.so under $prefix" >&2; exit 1; }

work=$(mktemp -d /tmp/zkl-consumers.XXXXXX)
cleanup() {
  "$root/scripts/zk-server" stop "$work/zk" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
servers=$(ZK_OWNER_PID=$$ "$root/scripts/zk-server" start "$work/zk") ||
  { echo "consumers: cannot start ZooKeeper" >&2; exit 1; }
echo "consumers: ZooKeeper at $servers; libzkl installed in $prefix" >&2

export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
passed=0
failed=0
failures=()

# check NAME CMD...: runs CMD (output to $work/NAME.log), prints one line.
check() {
  local name=$1
  shift
  local rc
  # A plain command (not an `if` or `||` operand, where bash ignores set -e):
  # the first failing step fails the check.
  (set -e; "$@") >"$work/$name.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    printf 'PASS  %-28s %s\n' "$name" "$(tail -n 1 "$work/$name.log")"
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf 'FAIL  %-28s (output below)\n' "$name"
    sed 's/^/      | /' "$work/$name.log"
  fi
}

bounded() { timeout --kill-after=5 60 "$@"; }

t_pkgconfig_metadata() {
  pkg-config --exists zkl
  local v want
  v=$(pkg-config --modversion zkl)
  want=$(sed -n 's/^#define ZKL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$prefix/include/zkl.h" | paste -sd.)
  [ "$v" = "$want" ] || { echo "pkg-config says $v, zkl.h says $want"; return 1; }
  echo "pkg-config: zkl $v, cflags '$(pkg-config --cflags zkl)'"
}

t_pkgconfig_c() {
  # shellcheck disable=SC2046
  $CC -std=c99 -Wall -Wextra -Werror -o "$work/lock_once_pc" "$here/c/lock_once.c" \
      $(pkg-config --cflags --libs zkl)
  # Not linked with an rpath: the loader finds the install via LD_LIBRARY_PATH.
  LD_LIBRARY_PATH=$libdir bounded "$work/lock_once_pc" "$servers" /zkl-consumers/pkgconfig
}

t_cmake_find_package() {
  cmake -S "$here/cmake" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_BUILD_TYPE=Release
  cmake --build "$work/cmake-build"
  # The imported target carries the library's location (build-tree rpath).
  bounded "$work/cmake-build/lock_once" "$servers" /zkl-consumers/cmake
}

t_dlopen_soname() {
  local soname
  soname=$(objdump -p "$libdir/libzkl.so" | awk '$1 == "SONAME" {print $2}')
  [ -n "$soname" ] || { echo "libzkl.so has no SONAME"; return 1; }
  [ -e "$libdir/$soname" ] || { echo "$soname is not installed in $libdir"; return 1; }
  $CC -std=c99 -Wall -Wextra -Werror -I"$prefix/include" -DZKL_SONAME="\"$soname\"" \
      -o "$work/dlopen_lock" "$here/dlopen/dlopen_lock.c" -ldl
  # It must not be linked against libzkl.
  if objdump -p "$work/dlopen_lock" | grep -q 'NEEDED.*libzkl'; then
    echo "dlopen_lock links libzkl"; return 1
  fi
  LD_LIBRARY_PATH=$libdir bounded "$work/dlopen_lock" "$servers" /zkl-consumers/dlopen
}

t_header_c99() {
  $CC -std=c99 -pedantic -Wall -Wextra -Werror -I"$prefix/include" \
      -o "$work/use_header_c" "$here/header/use_header.c" -L"$libdir" -lzkl
  LD_LIBRARY_PATH=$libdir "$work/use_header_c"
  echo "zkl.h: -std=c99 -pedantic -Wall -Wextra -Werror: compiles, links, runs"
}

t_header_cxx() {
  local std
  for std in c++11 c++17 c++20; do
    $CXX -x c++ -std=$std -pedantic -Wall -Wextra -Werror -I"$prefix/include" \
         -o "$work/use_header_cxx" "$here/header/use_header.c" -L"$libdir" -lzkl
    LD_LIBRARY_PATH=$libdir "$work/use_header_cxx" >/dev/null
  done
  echo "zkl.h as C++ (-x c++, c++11/17/20, -pedantic -Werror): compiles, links, runs"
}

check pkgconfig-metadata t_pkgconfig_metadata
check pkgconfig-c-program t_pkgconfig_c
check cmake-find-package t_cmake_find_package
check dlopen-by-soname t_dlopen_soname
check header-c99-pedantic t_header_c99
check header-as-cxx t_header_cxx

echo "consumers: $passed passed, $failed failed${failures:+ (${failures[*]})}"
[ "$failed" -eq 0 ]
