#!/usr/bin/env bash
# CI entry of the Java binding (run by scripts/test as the "java" stage).
#
# Environment (all optional when run by hand):
#   ZKL_PREFIX       an install of libzkl; unset: the preamble builds and
#                    installs libzkl from ZKL_SOURCE_DIR into a temp prefix
#   ZKL_SOURCE_DIR   the repository root (default: two levels up)
#
# Builds the JNI library (SWIG + cc, through Maven: native/build.sh), starts
# a ZooKeeper server of its own on loopback and a mutual-TLS one for TlsTest
# (scripts/zk-server, through the shared preamble; stopped on exit), and
# runs `mvn -B test` against them.
# Exits non-zero on any failure.
. "$(dirname "$0")/../lib/test-preamble.sh" java

export LD_LIBRARY_PATH=$zkl_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  export JAVA_HOME
fi

connect=$(zkl_start_zookeeper zk | tail -n 1)
log "ZooKeeper at $connect"
zkl_start_tls_zookeeper zk-tls  # for TlsTest

cd "$here"
mvn -B -ntp test -Dzkl.test.connect="$connect" -Dzkl.source.dir="$root" \
    -Dzkl.test.workdir="$work/tests"
