#!/usr/bin/env bash
# Builds the JNI library of the Java binding; Maven runs it in the
# generate-sources phase (see pom.xml), and it can be run by hand:
#
#   native/build.sh TARGET_DIR
#
# Produces (all under TARGET_DIR, i.e. Maven's target/):
#   generated-sources/swig/io/zkl/*.java     SWIG's Java side (package-private)
#   native/zkl_wrap.c                        SWIG's JNI side
#   generated-resources/native/io/zkl/native/<os>-<arch>/libzkljni.so
#                                            packaged into the jar; NativeLoader
#                                            extracts and loads it
#   zkl-hold                                 the C contender of the cross-process
#                                            test (tests/tools/zkl_hold.c), when
#                                            the repository's source is there
#
# libzkl is found with pkg-config (PKG_CONFIG_PATH, or ZKL_PREFIX). The JNI
# library records libzkl's directory as its RUNPATH, so LD_LIBRARY_PATH is
# only needed when libzkl moves after the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${1:?usage: build.sh TARGET_DIR}
mkdir -p "$target"
target=$(cd "$target" && pwd)
repo=${ZKL_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}

if [ -n "${ZKL_PREFIX:-}" ]; then
  export PKG_CONFIG_PATH=$ZKL_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
fi
if ! pkg-config --exists zkl; then
  echo "native/build.sh: pkg-config cannot find zkl; set ZKL_PREFIX or PKG_CONFIG_PATH" >&2
  exit 1
fi

# JNI headers: from JAVA_HOME, else from the javac on PATH.
java_home=${JAVA_HOME:-}
if [ -z "$java_home" ] || [ ! -f "$java_home/include/jni.h" ]; then
  java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
fi
[ -f "$java_home/include/jni.h" ] || { echo "native/build.sh: jni.h not found (JDK needed)" >&2; exit 1; }

os=$(uname -s | tr '[:upper:]' '[:lower:]')
case $(uname -m) in
  x86_64) arch=amd64 ;;
  aarch64) arch=aarch64 ;;
  *) arch=$(uname -m) ;;
esac

gen=$target/generated-sources/swig/io/zkl
obj=$target/native
res=$target/generated-resources/native/io/zkl/native/$os-$arch
rm -rf "$gen" "$obj"
mkdir -p "$gen" "$obj" "$res"

incdir=$(pkg-config --variable=includedir zkl)
libdir=$(pkg-config --variable=libdir zkl)
swig -java -package io.zkl -outdir "$gen" -o "$obj/zkl_wrap.c" -I"$incdir" "$here/zkl.i"
# SWIG 4.1 has no pragma for the constants interface's modifiers: keep it
# package-private like the other generated classes.
sed -i 's/^public interface ZklNativeConstants/interface ZklNativeConstants/' "$gen/ZklNativeConstants.java"

# shellcheck disable=SC2046
cc -shared -fPIC -O2 -Wall -Wno-unused-function -Wno-unused-variable \
   -I"$java_home/include" -I"$java_home/include/$os" $(pkg-config --cflags zkl) \
   "$obj/zkl_wrap.c" -o "$res/libzkljni.so.tmp" \
   $(pkg-config --libs zkl) -Wl,-rpath,"$libdir" -Wl,--no-undefined
mv "$res/libzkljni.so.tmp" "$res/libzkljni.so"

if [ -f "$repo/tests/tools/zkl_hold.c" ]; then
  # shellcheck disable=SC2046
  cc -O2 -Wall "$repo/tests/tools/zkl_hold.c" $(pkg-config --cflags --libs zkl) \
     -Wl,-rpath,"$libdir" -o "$target/zkl-hold"
fi
echo "native/build.sh: built $res/libzkljni.so"
