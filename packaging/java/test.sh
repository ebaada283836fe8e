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
# Before that, Maven Central's rules (check-central.py): on DIST/m2 and the
# bundle zip as built (signatures only when build.sh had ZKL_GPG_KEY_ID),
# then on a copy signed with a throwaway key (a temporary GNUPGHOME; gnupg
# from apt when missing) with signatures required and verified, and on a
# tampered copy, which must fail.
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
cleanup() {
  "$ZKL_SOURCE_DIR/scripts/zk-server" stop "$zk" >/dev/null 2>&1 || true
  [ -d "$work/gnupg" ] && GNUPGHOME=$work/gnupg gpgconf --kill gpg-agent >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

jar=$dist/zkl-java-$version.jar
comp=$dist/m2/io/zkl/zkl-java/$version
if [ -f "$jar" ] && [ -f "$comp/zkl-java-$version.jar" ]; then
  ok "artifact io.zkl:zkl-java:$version: $(basename "$jar") $(stat -c %s "$jar") bytes ($(du -h "$jar" | cut -f1))"
else
  bad "no $jar or no io.zkl:zkl-java:$version in $dist/m2 (run packaging/java/build.sh)"
  finish
fi

# 0. Maven Central's rules. Each check-central run counts as one result
#    here; its own lines are kept in the log, shown on failure.
central() {  # WHAT EXPECT(pass|fail) ARGS...
  local what=$1 expect=$2; shift 2
  local out=$work/central-${what// /-}.log
  if python3 "$here/check-central.py" "$@" >"$out" 2>&1; then got=pass; else got=fail; fi
  local summary
  summary=$(tail -n 1 "$out")
  if [ "$got" = "$expect" ]; then
    ok "central ($what): ${summary#check-central: }$(grep -q '^note ' "$out" && printf '; %s' "$(grep '^note ' "$out" | head -1 | cut -c6-)")"
    [ "$expect" = fail ] && grep '^FAIL' "$out" | sed 's/^/     expected: /' | head -4
  else
    bad "central ($what): expected to $expect, did $got"; sed 's/^/     /' "$out"
  fi
  return 0
}
central "as built" pass "$dist/m2" "$dist/zkl-java-$version-bundle.zip"
grep -E '^(ok|note) ' "$work/central-as-built.log" | awk '!seen[$0]++' | sed 's/^/     /'

if ! command -v gpg >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnupg >/dev/null 2>&1 || true
  elif sudo -n true 2>/dev/null; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnupg >/dev/null 2>&1 || true
  fi
fi
if command -v gpg >/dev/null 2>&1; then
  export GNUPGHOME=$work/gnupg
  mkdir -m 700 "$GNUPGHOME"
  if gpg --batch --quiet --passphrase '' --quick-gen-key 'zkl packaging test <test@zkl.invalid>' ed25519 sign 1d \
       >"$work/gpg.log" 2>&1; then
    key=$(gpg --batch --with-colons --list-secret-keys 2>>"$work/gpg.log" | awk -F: '$1 == "fpr" {print $10; exit}')
    signed=$work/signed/io/zkl/zkl-java/$version
    mkdir -p "$signed"
    cp "$comp"/*.jar "$comp"/*.pom "$signed/"
    if ZKL_GPG_KEY_ID=$key "$here/seal.sh" "$signed" >>"$work/gpg.log" 2>&1; then
      central "signed with a throwaway key" pass --require-signatures "$work/signed"
      tampered=$work/tampered/io/zkl/zkl-java/$version
      mkdir -p "$tampered"
      cp "$signed"/* "$tampered/"
      printf 'x' >>"$tampered/zkl-java-$version-sources.jar"
      sed -i 's|<scm>|<scm><tag></tag>|; s|<url>https://github.com/zkl-project/zkl</url>|<url></url>|' "$tampered/zkl-java-$version.pom"
      central "tampered" fail --require-signatures "$work/tampered"
      if grep -q "sources.jar.asc: does not verify" "$work/central-tampered.log" \
         && grep -q "sources.jar.sha512: does not match" "$work/central-tampered.log" \
         && grep -q "pom: missing or empty: url, scm/url" "$work/central-tampered.log"; then
        ok "central (tampered): the bad signature, checksums and empty pom fields are each caught"
      else
        bad "central (tampered): a tampered file or field went unnoticed"; sed 's/^/     /' "$work/central-tampered.log"
      fi
      central "unsigned, signatures required" fail --require-signatures "$dist/m2"
    else
      bad "seal.sh could not sign with a throwaway key"; cat "$work/gpg.log"
    fi
  else
    bad "gpg: cannot make a throwaway key"; cat "$work/gpg.log"
  fi
  gpgconf --kill gpg-agent >/dev/null 2>&1 || true
  unset GNUPGHOME
else
  bad "gpg missing (apt-get install gnupg): signatures not checked"
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
if "${mvn[@]}" compile dependency:build-classpath -Dmdep.outputFile="$proj/cp.txt" \
     dependency:sources >"$work/mvn.log" 2>&1; then
  secs=$(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc)")
  got=$work/m2/io/zkl/zkl-java/$version
  if grep -q "$got/zkl-java-$version.jar" "$proj/cp.txt" && cmp -s "$got/zkl-java-$version.jar" "$jar" \
     && grep -q "zkl-java-$version.jar>zkl-dist=" "$got/_remote.repositories" \
     && cmp -s "$got/zkl-java-$version-sources.jar" "$comp/zkl-java-$version-sources.jar"; then
    ok "install: mvn compile + dependency:build-classpath + dependency:sources in a fresh project took ${secs}s (io.zkl:zkl-java:$version and its sources from DIST/m2, checksums enforced)"
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
