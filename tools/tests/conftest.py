"""Fixtures for the tests of the `zkl` command (see helpers.py)."""
import os
import re
import tempfile
import uuid

import pytest

from helpers import PrivateServer, Zkl, start_server, zk_server


@pytest.fixture(scope="session")
def servers():
    s = os.environ.get("ZKL_TEST_SERVERS")
    if s:
        yield s
        return
    d = tempfile.mkdtemp(prefix="zkl-tools-zk-")
    try:
        yield start_server(d)
    finally:
        zk_server("stop", d)


@pytest.fixture
def zkl(servers):
    z = Zkl(servers)
    yield z
    z.cleanup()


@pytest.fixture
def private_zk(tmp_path):
    """A server of its own, for tests that pause or stop it."""
    srv = PrivateServer(str(tmp_path / "zk"))
    z = Zkl(srv.servers)
    z.server = srv
    try:
        yield z
    finally:
        z.cleanup()
        srv.stop()


@pytest.fixture
def path(request):
    """A fresh lock path per test."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", request.node.name)
    return f"/zkl-tools-test/{name}-{uuid.uuid4().hex[:8]}"
