#!/usr/bin/env bash
# packaging/java/test.sh DIST: installs io.zkl:zkl-java from DIST (build.sh's
# output) into a fresh Maven project in a temp dir, as a user would, and runs
# a lock + election example (packaging/java/example) against a real
# ZooKeeper on 127.0.0.1. Nothing of the build is in reach: a fresh local
# repository, LD_LIBRARY_PATH / PKG_CONFIG_PATH / ZKL_PACKAGE_PREFIX /
# ZKL_PREFIX unset. The artifact comes from DIST/m2 only; plugins from the
# normal Maven cache (Maven Central only for what is not cached).
# Proves self-containment twice: ldd of the jar's libzkljni.so resolves
# libzkl and abseil beside it, and the running JVM's /proc/self/maps shows
# libzkl, libzkljni and every abseil library from the extraction directory.
#
# Environment: ZKL_SOURCE_DIR (default: two levels up; for scripts/zk-server
# and scripts/version only), ZKL_M2_CACHE (default ~/.m2/repository).
# Ends with `packages-java: N passed, M failed`; exits non-zero on failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:?usage: packaging/java/test.sh DIST}" && pwd) || exit 1
export ZKL_SOURCE_DIR=${ZKL_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
cache=${ZKL_M2_CACHE:-$HOME/.m2/repository}
version=$("$ZKL_SOURCE_DIR/scripts/version")
unset LD_LIBRARY_PATH PKG_CONFIG_PATH ZKL_PACKAGE_PREFIX ZKL_PREFIX LD_PRELOAD JAVA_TOOL_OPTIONS
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  export JAVA_HOME
fi

passed=0 failed=0
ok()  { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
  echo "packages-java: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}

work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-java-test.XXXXXX")
zk=$work/zk
cleanup() { "$ZKL_SOURCE_DIR/scripts/zk-server" stop "$zk" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

jar=$dist/zkl-java-$version.jar
if [ -f "$jar" ] && [ -f "$dist/m2/io/zkl/zkl-java/$version/zkl-java-$version.jar" ]; then
  ok "artifact io.zkl:zkl-java:$version: $(basename "$jar") $(stat -c %s "$jar") bytes ($(du -h "$jar" | cut -f1))"
else
  bad "no $jar or no io.zkl:zkl-java:$version in $dist/m2 (run packaging/java/build.sh)"
  finish
fi

# 1. Static proof: the jar's native directory, unpacked anywhere, resolves
#    libzkl and abseil inside itself.
mkdir -p "$work/unpacked"
(cd "$work/unpacked" && unzip -q "$jar" 'io/zkl/native/*')
native=$(echo "$work"/unpacked/io/zkl/native/linux-*)
if [ -f "$native/libzkljni.so" ] && ldd "$native/libzkljni.so" >"$work/ldd" 2>&1; then
  outside=$(awk '$1 ~ /^lib(zkl|absl_)/ {print $1, $3}' "$work/ldd" | grep -v " $native/" || true)
  nabsl=$(grep -c '^[[:space:]]*libabsl_.* => '"$native/" "$work/ldd")
  if grep -q "libzkl.so.1 => $native/libzkl.so.1" "$work/ldd" && [ -z "$outside" ] && ! grep -q "not found" "$work/ldd"; then
    ok "ldd: libzkljni.so finds libzkl.so.1 and $nabsl abseil libraries in the jar's own directory"
  else
    bad "ldd: libzkljni.so resolves outside the jar: ${outside:-see below}"; cat "$work/ldd"
  fi
else
  bad "no libzkljni.so in the jar, or ldd failed"; cat "$work/ldd" 2>/dev/null
fi

# 2. A fresh Maven project depending on the coordinates.
proj=$work/project
mkdir -p "$proj"
cp -r "$here/example/." "$proj/"
mvn=(mvn -B -ntp -f "$proj/pom.xml" -Dmaven.repo.local="$work/m2" -Dzkl.version="$version"
     -Dzkl.dist.url="file://$dist/m2" -Dzkl.cache.url="file://$cache")
start=$(date +%s.%N)
if "${mvn[@]}" compile dependency:build-classpath -Dmdep.outputFile="$proj/cp.txt" >"$work/mvn.log" 2>&1; then
  secs=$(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc)")
  got=$work/m2/io/zkl/zkl-java/$version
  if grep -q "$got/zkl-java-$version.jar" "$proj/cp.txt" && cmp -s "$got/zkl-java-$version.jar" "$jar" \
     && grep -q "zkl-java-$version.jar>zkl-dist=" "$got/_remote.repositories"; then
    ok "install: mvn compile + dependency:build-classpath in a fresh project took ${secs}s (io.zkl:zkl-java:$version from DIST/m2)"
  else
    bad "install: zkl-java-$version.jar did not come from DIST/m2"; tail -30 "$work/mvn.log"
  fi
else
  bad "install: mvn compile in the fresh project failed"; tail -40 "$work/mvn.log"
  finish
fi

# 3. A real ZooKeeper and the example.
if ! connect=$(ZK_OWNER_PID=$$ "$ZKL_SOURCE_DIR/scripts/zk-server" start "$zk" 2>"$work/zk.err" | tail -n 1) || [ -z "$connect" ]; then
  bad "zk-server start failed"; cat "$work/zk.err"
  finish
fi
echo "     ZooKeeper at $connect"
if (cd "$work" && timeout 60 java -cp "$proj/target/classes:$(cat "$proj/cp.txt")" \
      example.LockAndElect "$connect") >"$work/run.log" 2>&1; then
  sed 's/^/     /' "$work/run.log"
  grep -q "^lock: held, fencing token [1-9]" "$work/run.log" && ok "lock: fencing token > 0" || bad "lock: no fencing token"
  grep -q "^election: elected, fencing token [1-9]" "$work/run.log" && ok "election: elected" || bad "election: not elected"
  grep -q "^native: .*(none from the system)" "$work/run.log" && ok "loaded: libzkl, libzkljni and abseil all from the extracted jar (/proc/self/maps)" \
    || bad "loaded: native libraries from outside the jar"
else
  bad "the example failed"; sed 's/^/     /' "$work/run.log"
fi
finish
