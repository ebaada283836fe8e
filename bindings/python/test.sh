#!/usr/bin/env bash
# CI entry of the Python binding: builds the package into a venv and runs its
# pytest suite against real ZooKeeper servers (started by the tests through
# scripts/zk-server on loopback, stopped on exit; the mutual-TLS one of
# tests/test_tls.py by this script, see zkl_start_tls_zookeeper).
#
# Environment (as set by scripts/test; all optional):
#   ZKL_PREFIX       an install of libzkl; if unset, libzkl is built from
#                    ZKL_SOURCE_DIR into a temporary prefix (the preamble)
#   ZKL_SOURCE_DIR   the repository root (default: ../.. from here)
#   PYTHON           the interpreter for the venv (default: python3)
#   ZKL_PY_VENV      where the venv goes (default: bindings/python/.venv)
#   PYTEST_ARGS      extra pytest arguments
. "$(dirname "$0")/../lib/test-preamble.sh" python
python=${PYTHON:-python3}
venv=${ZKL_PY_VENV:-$here/.venv}
export LD_LIBRARY_PATH=$zkl_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

log "venv $venv ($("$python" --version 2>&1))"
if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r "$here/requirements-test.txt"

log "building and installing the package (SWIG + extension) against $ZKL_PREFIX"
rm -rf "$here/build" "$here/src/zkl.egg-info"  # no stale extension linked elsewhere
"${pip[@]}" install --force-reinstall --no-deps "$here"
rm -rf "$here/build" "$here/src/zkl.egg-info"

log "TLS ZooKeeper (the tls scenarios)"
zkl_start_tls_zookeeper zk-tls

log "pytest"
cd "$here/tests"
# Run from tests/: `import zkl` is the installed package, not src/.
set +e
# shellcheck disable=SC2086
"$venv/bin/python" -m pytest -p no:cacheprovider --basetemp="$work/pytest" -ra ${PYTEST_ARGS:-}
rc=$?
set -e
if [ $rc -eq 5 ]; then
  echo "python: pytest collected no tests" >&2
  rc=1
fi
exit $rc
