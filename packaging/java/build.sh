#!/usr/bin/env bash
# packaging/java/build.sh DIST: the Maven artifact io.zkl:zkl-java:VERSION.
#
# Environment (set by scripts/package):
#   ZKL_PACKAGE_PREFIX  a libzkl install (include/zkl.h, lib/libzkl.so.1,
#                       lib/pkgconfig/zkl.pc)
#   ZKL_PACKAGE_SRC     the clean source tree the artifact is built from
#
# Writes into DIST:
#   zkl-java-VERSION.jar   classes + io/zkl/native/linux-amd64/: libzkljni.so,
#                          libzkl.so.1, the libabsl_*.so it needs (each with
#                          RUNPATH $ORIGIN, scripts/bundle-libzkl) and
#                          `libraries`, their load order (NativeLoader)
#   zkl-java-VERSION.pom
#   m2/                    a Maven repository holding both (checksums and
#                          metadata, as `mvn deploy` writes them): a project
#                          uses it as <repository><url>file://DIST/m2</url>
# VERSION is scripts/version of ZKL_PACKAGE_SRC; the pom must agree.
# Needs a JDK 17, Maven, swig, cc, pkg-config, patchelf. Maven plugins come
# from the normal cache (~/.m2), downloaded once if missing (all pinned).
# Quiet on success; prints the artifact paths.
set -euo pipefail
dist=${1:?usage: packaging/java/build.sh DIST}
: "${ZKL_PACKAGE_PREFIX:?packaging/java/build.sh: set ZKL_PACKAGE_PREFIX (a libzkl install prefix; scripts/package does)}"
: "${ZKL_PACKAGE_SRC:?packaging/java/build.sh: set ZKL_PACKAGE_SRC (a clean source tree; scripts/package does)}"
src=$(cd "$ZKL_PACKAGE_SRC" && pwd)
prefix=$(cd "$ZKL_PACKAGE_PREFIX" && pwd)
[ -e "$prefix/lib/libzkl.so.1" ] || { echo "packaging/java/build.sh: no $prefix/lib/libzkl.so.1" >&2; exit 1; }
version=$("$src/scripts/version")
pom_version=$(sed -n '/<artifactId>zkl-java</,/<version>/s/.*<version>\(.*\)<\/version>.*/\1/p' "$src/bindings/java/pom.xml" | head -1)
[ "$pom_version" = "$version" ] || { echo "packaging/java/build.sh: bindings/java/pom.xml says '$pom_version', scripts/version says $version" >&2; exit 1; }

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkl-java-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/build.log
fail() { cat "$log" >&2 2>/dev/null; echo "packaging/java/build.sh: $*" >&2; exit 1; }

# Build from a copy of the clean tree's binding, never from a working tree.
mkdir -p "$work/java"
tar -C "$src/bindings/java" --exclude=./target -cf - . | tar -C "$work/java" -xf -
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  export JAVA_HOME
fi
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
export ZKL_PREFIX=$prefix ZKL_SOURCE_DIR=$src
mvn=(mvn -B -ntp -f "$work/java/pom.xml")

# 1. SWIG + cc: libzkljni.so into target/generated-resources (native/build.sh).
"${mvn[@]}" generate-resources >"$log" 2>&1 || fail "mvn generate-resources failed"
res=$(echo "$work"/java/target/generated-resources/native/io/zkl/native/*/)
res=${res%/}
[ -f "$res/libzkljni.so" ] || fail "no libzkljni.so under $res"

# 2. Make it self-contained: libzkl.so.1 + abseil beside it, all $ORIGIN.
"$src/scripts/bundle-libzkl" "$prefix/lib/libzkl.so.1" "$res" >"$work/bundled" 2>>"$log" || fail "bundle-libzkl failed"
patchelf --set-rpath '$ORIGIN' "$res/libzkljni.so"
# Load order: every library after the bundled ones it needs.
mapfile -t left < "$work/bundled"
order=()
while [ ${#left[@]} -gt 0 ]; do
  next=()
  for lib in "${left[@]}"; do
    ready=1
    for dep in $(patchelf --print-needed "$res/$lib"); do
      if [ -f "$res/$dep" ] && [[ " ${order[*]} " != *" $dep "* ]]; then ready=0; fi
    done
    if [ $ready -eq 1 ]; then order+=("$lib"); else next+=("$lib"); fi
  done
  [ ${#next[@]} -lt ${#left[@]} ] || fail "dependency cycle among ${next[*]}"
  left=("${next[@]}")
done
{
  echo "# load order of the bundled native libraries (NativeLoader); zkl $version"
  printf '%s\n' "${order[@]}" libzkljni.so
} > "$res/libraries"
# Every library it needs is either beside it or a system one.
missing=$(cd "$res" && ldd ./libzkljni.so | awk '$2 == "=>" && $3 != "not" {print $1, $3}' \
  | grep -Ev '^(libc|libm|libstdc\+\+|libgcc_s|libssl|libcrypto|libsasl2)\.' | grep -v " $res/" || true)
[ -z "$missing" ] || fail "libzkljni.so resolves outside the bundle: $missing"

# 3. The jar (native step skipped: it would rebuild libzkljni.so).
"${mvn[@]}" -Dexec.skip=true -Dmaven.test.skip=true package >>"$log" 2>&1 || fail "mvn package failed"
jar=$work/java/target/zkl-java-$version.jar
[ -f "$jar" ] || fail "no $jar"
jar tf "$jar" >"$work/listing" || fail "cannot list $jar"
grep -q "^io/zkl/native/.*/libzkl.so.1$" "$work/listing" || fail "$jar lacks libzkl.so.1"

# 4. DIST: jar, pom, and a Maven repository holding them.
rm -rf "$dist/m2" "$dist"/zkl-java-*.jar "$dist"/zkl-java-*.pom
cp "$jar" "$dist/zkl-java-$version.jar"
cp "$work/java/pom.xml" "$dist/zkl-java-$version.pom"
mvn -B -ntp -f "$work/java/pom.xml" org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy-file \
    -Dfile="$dist/zkl-java-$version.jar" -DpomFile="$dist/zkl-java-$version.pom" \
    -DrepositoryId=zkl-dist -Durl="file://$dist/m2" >>"$log" 2>&1 || fail "deploy-file into $dist/m2 failed"
[ -f "$dist/m2/io/zkl/zkl-java/$version/zkl-java-$version.jar" ] || fail "not deployed into $dist/m2"

echo "$dist/zkl-java-$version.jar"
echo "$dist/zkl-java-$version.pom"
echo "$dist/m2 (io.zkl:zkl-java:$version)"
