"""The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR)."""
import os
import time

import pytest

import zkl
from conftest import run, wait_until

ATTEMPT = 3.0  # attempt_timeout: one attempt, TLS handshake included
BOUND = 10.0   # a failing connect must end within this (no hang)


def env_bool(name):
    """A yes/no environment variable, strictly: unset or empty is no; 1/0,
    true/false, yes/no, on/off in any case; anything else fails."""
    value = os.environ.get(name, "")
    if value.lower() in ("", "0", "false", "no", "off"):
        return False
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    pytest.fail(f"${name} must be one of 1/0, true/false, yes/no, on/off (any case), not {value!r}")


@pytest.fixture(scope="module")
def tls():
    """(servers, certificates dir) of the suite's TLS server."""
    servers = os.environ.get("ZKL_TEST_TLS_SERVERS")
    certs = os.environ.get("ZKL_TEST_TLS_DIR")
    if not servers or not certs:
        why = "ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)"
        if env_bool("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return servers, certs


def tls_client(tls, ca="ca.pem", cert="client.crt", key="client.key", wait=20.0, **kw):
    servers, certs = tls
    at = lambda name: name and os.path.join(certs, name)  # noqa: E731
    return zkl.Client.connect(servers, connect_timeout=wait, attempt_timeout=ATTEMPT,
                              tls_ca_file=at(ca), tls_cert_file=at(cert), tls_key_file=at(key),
                              **kw)


def fails_within_bound(tls, error, **kw):
    t0 = time.monotonic()
    with pytest.raises(error) as failed:
        # Waits past one attempt: the error says why the attempts failed.
        tls_client(tls, wait=ATTEMPT + 2, **kw).close()
    assert time.monotonic() - t0 < BOUND
    return failed.value


def test_tls_lock_and_election(tls):
    path = f"/zkl-py-tls/{os.getpid()}-{time.monotonic_ns()}"
    with tls_client(tls) as a, tls_client(tls) as b:
        lock = a.lock(path + "/lock")
        assert lock.acquire(timeout=10) > 0
        assert lock.is_held
        lock.release()
        assert not lock.is_held

        election = a.election(path + "/election", "alpha")
        term = election.campaign(timeout=10)
        assert election.is_leader
        observer = b.observer(path + "/election")
        wait_until(lambda: observer.leader == "alpha", client=b, what="leader seen over TLS")
        assert observer.term == term
        election.resign()


def test_tls_encrypted_key(tls):
    with open(os.path.join(tls[1], "client-key.pass")) as f:
        passphrase = f.read().strip()
    with tls_client(tls, key="client-enc.key", tls_key_password=passphrase) as c:
        lock = c.lock(f"/zkl-py-tls/{os.getpid()}-{time.monotonic_ns()}-enc")
        assert lock.acquire(timeout=10) > 0
        lock.release()


def test_tls_wrong_ca(tls):
    # The server's chain ends in ca.pem, not in the CA trusted here.
    fails_within_bound(tls, zkl.CertificateError, ca="other-ca.pem")


def test_tls_wrong_ca_ends_wait(tls):
    # No session yet and every server refused verification: the state becomes
    # AUTH_FAILED with the certificate error, which ends the asyncio wait long
    # before its 20 s, with that error (not AuthFailed, not TimedOut).
    servers, certs = tls

    async def connect():
        c = zkl.Client(servers, connect_timeout=20, logger=None,
                       tls_ca_file=os.path.join(certs, "other-ca.pem"),
                       tls_cert_file=os.path.join(certs, "client.crt"),
                       tls_key_file=os.path.join(certs, "client.key"))
        try:
            t0 = time.monotonic()
            with pytest.raises(zkl.CertificateError) as failed:
                await c.wait_connected_async()  # the client's connect_timeout: 20 s
            assert time.monotonic() - t0 < 5.0
            assert failed.value.code == zkl.CertificateError.code
            assert c.state == zkl.SessionState.AUTH_FAILED
            assert " (tls): " in str(failed.value), str(failed.value)
            # Asked again in that state, the wait answers the same at once.
            with pytest.raises(zkl.CertificateError):
                await c.wait_connected_async()
        finally:
            c.close()

    run(connect())


def test_tls_no_client_cert(tls):
    # The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
    fails_within_bound(tls, zkl.ClientCertificateError, cert=None, key=None)


def test_tls_wrong_ca_async(tls):
    # The asyncio wait reports the reason too, not only TimedOut.
    servers, certs = tls

    async def connect():
        c = zkl.Client(servers, attempt_timeout=ATTEMPT, logger=None,
                       tls_ca_file=os.path.join(certs, "other-ca.pem"),
                       tls_cert_file=os.path.join(certs, "client.crt"),
                       tls_key_file=os.path.join(certs, "client.key"))
        try:
            await c.wait_connected_async(ATTEMPT + 2)
        finally:
            c.close()

    t0 = time.monotonic()
    with pytest.raises(zkl.CertificateError):
        run(connect())
    assert time.monotonic() - t0 < BOUND


# The errors_detail_* scenarios: a failure's message says why, as libzkl
# does (the option and the reason; each server's failed attempt).

def test_errors_detail_key_missing(tls):
    key = os.path.join(tls[1], "missing.key")
    with pytest.raises(zkl.CertificateError) as failed:
        zkl.Client(tls[0], tls_ca_file=os.path.join(tls[1], "ca.pem"),
                   tls_cert_file=os.path.join(tls[1], "client.crt"), tls_key_file=key).close()
    assert failed.value.code == zkl.CertificateError.code
    assert key in str(failed.value) and "No such file" in str(failed.value), str(failed.value)


def test_errors_detail_refused():
    # Nothing listens on port 1: each attempt is refused; the wait runs out.
    with pytest.raises(zkl.TimedOut) as failed:
        zkl.Client.connect("127.0.0.1:1", connect_timeout=2.0, attempt_timeout=1.0).close()
    assert "127.0.0.1:1 (tcp)" in str(failed.value), str(failed.value)
    assert "refused" in str(failed.value), str(failed.value)


def test_connect_timeout_bounds_wait():
    # connect_timeout bounds the whole wait for a session, not one attempt:
    # nothing listens on port 1, each attempt is refused at once.
    for wait in ("blocking", "asyncio"):
        t0 = time.monotonic()
        with pytest.raises(zkl.TimedOut) as failed:
            if wait == "blocking":
                zkl.Client.connect("127.0.0.1:1", connect_timeout=2.0, logger=None).close()
            else:
                async def connect():
                    with zkl.Client("127.0.0.1:1", connect_timeout=2.0, logger=None) as c:
                        await c.wait_connected_async()
                run(connect())
        took = time.monotonic() - t0
        assert 1.9 <= took < 5.0, (wait, took)
        assert "connection refused" in str(failed.value), str(failed.value)


def test_errors_detail_wrong_ca(tls):
    err = fails_within_bound(tls, zkl.CertificateError, ca="other-ca.pem")
    assert " (tls): " in str(err) and "certificate" in str(err), str(err)
