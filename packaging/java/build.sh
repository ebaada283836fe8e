#!/usr/bin/env bash
# packaging/java/build.sh DIST: the Maven artifact io.zkl:zkl-java:VERSION,
# as Maven Central takes it.
#
# Environment (set by scripts/package):
#   ZKL_PACKAGE_PREFIX  a libzkl install (include/zkl.h, lib/libzkl.so.1,
#                       lib/pkgconfig/zkl.pc)
#   ZKL_PACKAGE_SRC     the clean source tree the artifact is built from
# Optional:
#   ZKL_GPG_KEY_ID      sign every file with this gpg key (.asc; GNUPGHOME as
#                       usual, ZKL_GPG_PASSPHRASE if the key has one).
#                       Central refuses unsigned files; unset, the bundle is
#                       complete but for the signatures.
#
# Writes into DIST:
#   m2/io/zkl/zkl-java/VERSION/   the component in Maven repository layout:
#       zkl-java-VERSION.jar          library classes (no examples) + natives
#                                     under io/zkl/native/linux-amd64/:
#                                     libzkljni.so, libzkl.so.1, the
#                                     libabsl_*.so it needs (each with RUNPATH
#                                     $ORIGIN, scripts/bundle-libzkl) and
#                                     `libraries`, their load order (NativeLoader)
#       zkl-java-VERSION-sources.jar  the sources of every class of the jar
#       zkl-java-VERSION-javadoc.jar  javadoc, built with doclint
#       zkl-java-VERSION.pom          the published pom: coordinates and
#                                     metadata, no build, no test dependencies
#                                     (published-pom.py from bindings/java/pom.xml)
#       each with .md5 .sha1 .sha256 .sha512 (and .asc when signed; seal.sh)
#     A project uses it as <repository><url>file://DIST/m2</url>.
#   zkl-java-VERSION-bundle.zip   the same component as one zip: the Central
#                                 Portal's upload format
#   zkl-java-VERSION.jar, zkl-java-VERSION.pom  copies, for install:install-file
# check-central.py checks all of it (packaging/java/test.sh runs it).
# VERSION is scripts/version of ZKL_PACKAGE_SRC; the pom must agree.
# Needs a JDK 17, Maven, swig, cc, pkg-config, patchelf, python3 (gpg to
# sign). Maven plugins come from the normal cache (~/.m2), downloaded once if
# missing (all pinned). Quiet on success; prints the artifact paths.
set -euo pipefail
dist=${1:?usage: packaging/java/build.sh DIST}
: "${ZKL_PACKAGE_PREFIX:?packaging/java/build.sh: set ZKL_PACKAGE_PREFIX (a libzkl install prefix; scripts/package does)}"
: "${ZKL_PACKAGE_SRC:?packaging/java/build.sh: set ZKL_PACKAGE_SRC (a clean source tree; scripts/package does)}"
here=$(cd "$(dirname "$0")" && pwd)
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

# 3. The jars: -Dzkl.release leaves the examples out, makes every javac
#    lint warning an error (-Werror) and adds the -sources and -javadoc jars
#    (doclint); the native step is skipped: it would rebuild libzkljni.so.
"${mvn[@]}" -Dzkl.release -Dexec.skip=true -Dmaven.test.skip=true package >>"$log" 2>&1 \
  || fail "mvn -Dzkl.release package failed"
jar=$work/java/target/zkl-java-$version.jar
for f in "$jar" "${jar%.jar}-sources.jar" "${jar%.jar}-javadoc.jar"; do
  [ -s "$f" ] || fail "no $f"
done
jar tf "$jar" >"$work/listing" || fail "cannot list $jar"
grep -q "^io/zkl/native/.*/libzkl.so.1$" "$work/listing" || fail "$jar lacks libzkl.so.1"
! grep -q "^io/zkl/examples/" "$work/listing" || fail "$jar ships the examples"

# 4. DIST: the component in repository layout (published pom, checksums,
#    signatures), its Central bundle, and top-level copies of jar and pom.
rm -rf "$dist/m2" "$dist"/zkl-java-*.jar "$dist"/zkl-java-*.pom "$dist"/zkl-java-*-bundle.zip
comp=$dist/m2/io/zkl/zkl-java/$version
mkdir -p "$comp"
cp "$jar" "${jar%.jar}-sources.jar" "${jar%.jar}-javadoc.jar" "$comp/"
python3 "$here/published-pom.py" "$work/java/pom.xml" "$comp/zkl-java-$version.pom" 2>>"$log" \
  || fail "published-pom.py failed"
"$here/seal.sh" "$comp" >>"$log" 2>&1 || fail "seal.sh (checksums${ZKL_GPG_KEY_ID:+, signatures with $ZKL_GPG_KEY_ID}) failed"
(cd "$dist/m2" && python3 -m zipfile -c "$dist/zkl-java-$version-bundle.zip" io) >>"$log" 2>&1 \
  || fail "cannot write the bundle zip"
cp "$comp/zkl-java-$version.jar" "$comp/zkl-java-$version.pom" "$dist/"

echo "$dist/m2 (io.zkl:zkl-java:$version: jar, sources, javadoc, pom; checksums${ZKL_GPG_KEY_ID:+, signatures})"
echo "$dist/zkl-java-$version-bundle.zip"
echo "$dist/zkl-java-$version.jar"
echo "$dist/zkl-java-$version.pom"
