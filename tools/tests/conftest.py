"""Fixtures for the tests of the `zkl` command (see helpers.py).

The secured servers (TLS, SASL DIGEST-MD5, Kerberos with its KDC) are
session fixtures: each is started once, on first use, and stopped by its
pid file at the end of the session."""
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import types
import uuid

import pytest

from helpers import SOURCE_DIR, PrivateServer, Zkl, need_tools, start_server, zk_server

SBIN_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


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


# --------------------------------------------------------------------------
# secured servers (test_secured.py)
# --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def secured_root():
    """One directory for the certificates, keytabs and servers of the session
    (secrets included: removed at the end)."""
    d = tempfile.mkdtemp(prefix="zkl-tools-secured-")
    yield d
    if not os.environ.get("ZKL_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


def _read(path):
    with open(path) as f:
        return f.read().strip()


@pytest.fixture(scope="session")
def certs(secured_root):
    """scripts/test-certs: a CA, server and client certificates, an encrypted
    client key (passphrase in client-key.pass), another CA and a client
    certificate of it, server key stores for a wrong host name, expired and
    not yet valid."""
    need_tools("openssl")
    d = os.path.join(secured_root, "certs")
    subprocess.run([os.path.join(SOURCE_DIR, "scripts", "test-certs"), d], check=True,
                   capture_output=True, timeout=60)
    return types.SimpleNamespace(dir=d, file=lambda name: os.path.join(d, name),
                                 passphrase=_read(os.path.join(d, "client-key.pass")))


def _secured_server(root, name, extra_env):
    d = os.path.join(root, name)
    plain = start_server(d, extra_env=extra_env)
    secure_file = os.path.join(d, "secure_connect")
    secure = _read(secure_file) if os.path.exists(secure_file) else None
    return types.SimpleNamespace(dir=d, plain=plain, secure=secure,
                                 port=int(plain.rsplit(":", 1)[1]))


@pytest.fixture(scope="session")
def tls_zk(secured_root, certs):
    """A ZooKeeper whose secure port needs a client certificate (mutual TLS)."""
    need_tools("java")
    srv = _secured_server(secured_root, "tls-zk",
                          {"ZK_TLS_DIR": certs.dir, "ZK_TLS_CLIENT_AUTH": "need"})
    try:
        yield srv
    finally:
        zk_server("stop", srv.dir)


@pytest.fixture(scope="session")
def tls_zk_serving(secured_root, certs):
    """tls_zk_serving(KEYSTORE): a ZooKeeper whose secure port serves the
    scripts/test-certs key store KEYSTORE (expired-server.pem, ...; a client
    certificate wanted, not needed). Each started once, on first use."""
    servers = {}

    def get(keystore):
        if keystore not in servers:
            need_tools("java")
            name = "tls-" + keystore.replace(".pem", "")
            servers[keystore] = _secured_server(
                secured_root, name, {"ZK_TLS_DIR": certs.dir, "ZK_TLS_SERVER_CERT": keystore,
                                     "ZK_TLS_CLIENT_AUTH": "want"})
        return servers[keystore]
    try:
        yield get
    finally:
        for srv in servers.values():
            zk_server("stop", srv.dir)


@pytest.fixture(scope="session")
def sasl_zk(secured_root, certs):
    """A ZooKeeper that requires SASL DIGEST-MD5 of every client, on its
    plaintext port and on a TLS port (client certificate wanted, not needed)."""
    need_tools("java")
    user, password = "zkl-alice", "alice-" + secrets.token_hex(8)
    users = os.path.join(secured_root, "digest-users")
    with open(os.open(users, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(f"{user}:{password}\n")
    srv = _secured_server(secured_root, "sasl-zk",
                          {"ZK_TLS_DIR": certs.dir, "ZK_TLS_CLIENT_AUTH": "want",
                           "ZK_SASL_DIGEST_FILE": users})
    srv.user, srv.password = user, password
    try:
        yield srv
    finally:
        zk_server("stop", srv.dir)


@pytest.fixture(scope="session")
def kdc(secured_root):
    """A throw-away MIT KDC (scripts/kdc): principals, keytabs, krb5.conf."""
    need_tools("krb5kdc", "kdb5_util", "kadmin.local", "klist")
    d = os.path.join(secured_root, "kdc")
    script = os.path.join(SOURCE_DIR, "scripts", "kdc")
    env = dict(os.environ, PATH=SBIN_PATH, KDC_OWNER_PID=str(os.getpid()))
    r = subprocess.run([script, "start", d], capture_output=True, text=True, timeout=120, env=env)
    if r.returncode != 0:
        subprocess.run([script, "stop", d], capture_output=True, timeout=30, env=env)
        raise RuntimeError("scripts/kdc start failed: " + r.stderr)
    try:
        yield types.SimpleNamespace(
            dir=d, file=lambda name: os.path.join(d, name),
            principal=_read(os.path.join(d, "client_principal")),
            other_principal=_read(os.path.join(d, "other_principal")),
            krb5_config=os.path.join(d, "krb5.conf"))
    finally:
        subprocess.run([script, "stop", d], capture_output=True, timeout=30, env=env)


@pytest.fixture(scope="session")
def krb_zk(secured_root, kdc):
    """A ZooKeeper that requires Kerberos (GSSAPI) as zookeeper/localhost."""
    need_tools("java")
    srv = _secured_server(secured_root, "krb-zk", {"ZK_SASL_KERBEROS": kdc.dir})
    # The server's principal names localhost: connect by that name.
    srv.by_name = f"localhost:{srv.port}"
    try:
        yield srv
    finally:
        zk_server("stop", srv.dir)
