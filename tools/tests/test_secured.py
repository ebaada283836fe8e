"""The zkl command against secured ZooKeepers (issue 15): mutual TLS, SASL
DIGEST-MD5 (alone and over TLS on one connection) and Kerberos (GSSAPI)
with a throw-away MIT KDC. The servers are session fixtures (conftest.py).

Every run's stdout and stderr is checked for the secrets it was given: the
key passphrase, the SASL password, the keytab's keys."""
import os
import re
import socket
import subprocess
import time

import pytest

from helpers import EXIT_ZKL, Zkl, need_tools

# zkl's own limit for the failing connections below; a failure must come
# within it (plus the start of the process on a loaded machine).
CONNECT_TIMEOUT = "3s"
FAIL_BOUND_S = 3 + 8

# CMD of the lock tests: its token and lock path, then its whole environment
# (to show that no secret was passed on to it).
TOKEN_CMD = ["sh", "-c", 'echo "TOKEN $ZKL_FENCING_TOKEN $ZKL_LOCK_PATH"; env']
# CMD of a holder: says so, then holds until its stdin closes.
HOLD_CMD = ["sh", "-c", 'echo "HELD $ZKL_FENCING_TOKEN"; cat >/dev/null']


def client(servers, **env):
    z = Zkl(servers)
    z.env.update(env)
    return z


@pytest.fixture
def started():
    """client() for tests that start zkl processes: stopped at the end."""
    made = []

    def make(servers, **env):
        made.append(client(servers, **env))
        return made[-1]
    yield make
    for z in made:
        z.cleanup()


def run_timed(z, *args, env=None, timeout=30):
    t = time.monotonic()
    r = z.run(*args, env=env, timeout=timeout)
    return r, time.monotonic() - t


def assert_no_secret(r, *secrets):
    out = r.stdout + r.stderr
    for s in secrets:
        assert s and s not in out, f"a secret reached zkl's output: {out!r}"


def token_of(r, path):
    """The token CMD printed (TOKEN_CMD); checks the lock path too."""
    m = re.search(r"^TOKEN (\d+) (\S+)$", r.stdout, re.M)
    assert m, (r.returncode, r.stdout, r.stderr)
    assert m.group(2) == path
    return int(m.group(1))


# --------------------------------------------------------------------------
# mutual TLS
# --------------------------------------------------------------------------

def tls_flags(certs, key="client-enc.key", password_file=True):
    f = ["--tls-ca", certs.file("ca.pem"), "--tls-cert", certs.file("client.crt"),
         "--tls-key", certs.file(key)]
    if password_file:
        f += ["--tls-key-password-file", certs.file("client-key.pass")]
    return f


def tls_env(certs):
    return {"ZKL_TLS_CA": certs.file("ca.pem"), "ZKL_TLS_CERT": certs.file("client.crt"),
            "ZKL_TLS_KEY": certs.file("client-enc.key"),
            "ZKL_TLS_KEY_PASSWORD_FILE": certs.file("client-key.pass")}


def test_tls_status_and_a_held_lock(tls_zk, certs, path, started):
    z = started(tls_zk.secure)
    flags = tls_flags(certs)
    r = z.run("status", *flags, path)
    assert r.returncode == 0 and "free" in r.stdout, r.stderr
    holder = z.start("lock", "-v", *flags, path, "--", *HOLD_CMD, stdin=subprocess.PIPE)
    try:
        token = int(holder.expect(r"^HELD (\d+)").group(1))
        # Another connection over TLS sees the holder with the child's token.
        r = z.run("status", "--json", *flags, path)
        assert r.returncode == 0, r.stderr
        assert f'"fencing_token":{token}' in r.stdout and '"holders":1' in r.stdout, r.stdout
    finally:
        holder.release()
    assert holder.wait() == 0, holder.stderr
    assert_no_secret(holder, certs.passphrase)


@pytest.mark.parametrize("source", ["file-option", "file-env", "value-env"])
def test_tls_lock_with_the_key_passphrase_from(source, tls_zk, certs, path):
    """The encrypted client key's passphrase from --tls-key-password-file,
    $ZKL_TLS_KEY_PASSWORD_FILE or $ZKL_TLS_KEY_PASSWORD: the lock works, CMD
    gets its token and not the passphrase, nothing prints it (also -v)."""
    z = client(tls_zk.secure)
    flags = tls_flags(certs, password_file=source == "file-option")
    env = dict(z.env)
    if source == "file-env":
        env["ZKL_TLS_KEY_PASSWORD_FILE"] = certs.file("client-key.pass")
    elif source == "value-env":
        env["ZKL_TLS_KEY_PASSWORD"] = certs.passphrase
    r = z.run("lock", "-v", *flags, path, "--", *TOKEN_CMD, env=env)
    assert r.returncode == 0, r.stderr
    assert token_of(r, path) > 0
    assert_no_secret(r, certs.passphrase)


@pytest.mark.parametrize("elect_by, leader_by", [("options", "env"), ("env", "options")])
def test_tls_elect_and_leader(elect_by, leader_by, tls_zk, certs, path, started):
    """An election over mutual TLS; the leader seen by `zkl leader` over
    another TLS connection; TLS given by options or by ZKL_TLS_* defaults."""
    def setup(by):
        if by == "options":
            return tls_flags(certs), None
        return [], dict(os.environ, ZKL_SERVERS=tls_zk.secure, **tls_env(certs))
    z = started(tls_zk.secure)
    flags, env = setup(elect_by)
    leader = z.start("elect", *flags, "--id", "tls-leader", path, "--", *HOLD_CMD,
                     stdin=subprocess.PIPE, env=env)
    try:
        term = int(leader.expect(r"^HELD (\d+)").group(1))
        flags, env = setup(leader_by)
        r = z.run("leader", "--terms", *flags, path, env=env)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == f"tls-leader {term}"
    finally:
        leader.release()
    assert leader.wait() == 0, leader.stderr
    r = z.run("leader", *flags, path, env=env)
    assert r.returncode == 1 and "no leader" in r.stderr, (r.returncode, r.stderr)
    for out in (leader, r):
        assert_no_secret(out, certs.passphrase)


def test_tls_status_by_env_defaults_only(tls_zk, certs, path):
    env = dict(os.environ, ZKL_SERVERS=tls_zk.secure, **tls_env(certs))
    r = Zkl(tls_zk.secure).run("status", "-v", path, env=env)
    assert r.returncode == 0 and "free" in r.stdout, r.stderr
    # An unencrypted key needs no passphrase.
    env["ZKL_TLS_KEY"] = certs.file("client.key")
    del env["ZKL_TLS_KEY_PASSWORD_FILE"]
    r = Zkl(tls_zk.secure).run("status", path, env=env)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("passphrase", ["wrong-passphrase", None])
def test_tls_key_that_cannot_be_decrypted(passphrase, tls_zk, certs, path):
    """A wrong or missing passphrase: said at once, before connecting."""
    z = client(tls_zk.secure)
    env = dict(z.env)
    if passphrase:
        env["ZKL_TLS_KEY_PASSWORD"] = passphrase
    r, took = run_timed(z, "status", "-v", *tls_flags(certs, password_file=False), path, env=env)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert "cannot use the TLS files" in r.stderr and "passphrase" in r.stderr, r.stderr
    assert took < 5, took
    if passphrase:
        assert_no_secret(r, passphrase)


def test_tls_server_certificate_from_another_ca(tls_zk, certs, path):
    z = client(tls_zk.secure)
    flags = tls_flags(certs)
    flags[1] = certs.file("other-ca.pem")  # --tls-ca
    r, took = run_timed(z, "status", "-v", "--connect-timeout", CONNECT_TIMEOUT, *flags, path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert re.search(r"TLS connection to ZooKeeper at \S+ failed: server certificate not trusted",
                     r.stderr), r.stderr
    assert took < FAIL_BOUND_S, took
    assert_no_secret(r, certs.passphrase)


def test_tls_no_client_certificate_for_a_server_that_needs_one(tls_zk, certs, path):
    z = client(tls_zk.secure)
    r, took = run_timed(z, "status", "--connect-timeout", CONNECT_TIMEOUT,
                        "--tls-ca", certs.file("ca.pem"), path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert re.search(r"TLS connection .* failed: server requires a client certificate", r.stderr), \
        r.stderr
    assert took < FAIL_BOUND_S, took


@pytest.mark.parametrize("tls_client", [True, False])
def test_tls_and_plaintext_ports_mixed_up(tls_client, tls_zk, certs, path):
    """A TLS client on the plaintext port, a plaintext one on the TLS port:
    each a clear error, within the connect timeout."""
    if tls_client:
        z, flags, message = client(tls_zk.plain), tls_flags(certs), "TLS handshake failed"
    else:
        z, flags, message = client(tls_zk.secure), [], "broke off the session handshake"
    r, took = run_timed(z, "status", "--connect-timeout", CONNECT_TIMEOUT, *flags, path)
    assert r.returncode == EXIT_ZKL and message in r.stderr, (r.returncode, r.stderr)
    assert took < FAIL_BOUND_S, took


def test_tls_server_that_never_answers_the_handshake(certs, path):
    """A listener that takes the TCP connection and never says a word (a
    server hung mid-handshake): zkl gives up at its connect timeout."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        z = client("127.0.0.1:%d" % silent.getsockname()[1])
        r, took = run_timed(z, "status", "--connect-timeout", CONNECT_TIMEOUT, *tls_flags(certs),
                            path)
    assert r.returncode == EXIT_ZKL and "cannot connect to ZooKeeper" in r.stderr, \
        (r.returncode, r.stderr)
    assert took < FAIL_BOUND_S, took


def test_tls_passphrase_never_printed_with_every_log_on(tls_zk, certs, path):
    """-v and the ZooKeeper C client's own log (ZKL_ZOOKEEPER_LOG=1), for a
    good connection and failing ones: the passphrase is in none."""
    z = client(tls_zk.secure, ZKL_ZOOKEEPER_LOG="1", ZKL_TLS_KEY_PASSWORD=certs.passphrase)
    good = tls_flags(certs, password_file=False)
    other_ca = list(good)
    other_ca[1] = certs.file("other-ca.pem")
    runs = [
        z.run("lock", "-v", *good, path, "--", *TOKEN_CMD),
        z.run("status", "-v", "--connect-timeout", CONNECT_TIMEOUT, *other_ca, path),
        z.run("status", "-v", "--connect-timeout", CONNECT_TIMEOUT, *good, path,
              env=dict(z.env, ZKL_SERVERS=tls_zk.plain)),
    ]
    assert [r.returncode for r in runs] == [0, EXIT_ZKL, EXIT_ZKL], [r.stderr for r in runs]
    for r in runs:
        assert_no_secret(r, certs.passphrase)


# --------------------------------------------------------------------------
# why a TLS connection fails (issue 25): the code's meaning and each
# server's reason (zkl_client_connect_error); refusals come at once
# --------------------------------------------------------------------------

# A refusal no retry can change (the server's certificate or name, the
# client certificate) ends zkl at once: well within this connect timeout.
LONG_TIMEOUT = ["--connect-timeout", "20s", "--session-timeout", "20s"]
AT_ONCE_S = 10


def closed_port():
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("keystore, meaning, reason", [
    ("expired-server.pem", "server certificate not trusted", "certificate has expired"),
    ("notyet-server.pem", "server certificate not trusted", "certificate is not yet valid"),
    ("wronghost-server.pem", "server certificate does not name the host",
     "the certificate does not name 127.0.0.1"),
])
def test_tls_server_certificate_refused_at_once(keystore, meaning, reason, tls_zk_serving, certs,
                                                path):
    srv = tls_zk_serving(keystore)
    z = client(srv.secure)
    r, took = run_timed(z, "status", *LONG_TIMEOUT, *tls_flags(certs), path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert f"TLS connection to ZooKeeper at {srv.secure} failed: {meaning}" in r.stderr, r.stderr
    assert f"{srv.secure} (tls): {reason}" in r.stderr, r.stderr
    assert took < AT_ONCE_S, (took, r.stderr)
    assert_no_secret(r, certs.passphrase)


def test_tls_server_certificate_of_an_unknown_ca_refused_at_once(tls_zk, certs, path):
    z = client(tls_zk.secure)
    flags = tls_flags(certs)
    flags[1] = certs.file("other-ca.pem")  # --tls-ca: not the CA of the server's certificate
    r, took = run_timed(z, "status", *LONG_TIMEOUT, *flags, path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert "failed: server certificate not trusted" in r.stderr, r.stderr
    assert f"{tls_zk.secure} (tls): unable to get local issuer certificate" in r.stderr, r.stderr
    assert took < AT_ONCE_S, (took, r.stderr)


def test_tls_client_certificate_of_another_ca_refused_at_once(tls_zk, certs, path):
    """The server needs a client certificate of its CA: one of another CA
    is refused (the server's alert), at once."""
    z = client(tls_zk.secure)
    r, took = run_timed(z, "status", *LONG_TIMEOUT, "--tls-ca", certs.file("ca.pem"),
                        "--tls-cert", certs.file("other-client.crt"),
                        "--tls-key", certs.file("other-client.key"), path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert "failed: server requires a client certificate, or rejected it" in r.stderr, r.stderr
    assert re.search(re.escape(tls_zk.secure) +
                     r" \((tls|session)\): the server rejected the client certificate", r.stderr), \
        r.stderr
    assert took < AT_ONCE_S, (took, r.stderr)


@pytest.mark.parametrize("how, value, connects", [
    ("flag", None, True), ("flag", "yes", True), ("flag", "no", False),
    ("env", "1", True), ("env", "On", True), ("env", "off", False), ("env", "0", False),
])
def test_tls_hostname_check_switch(how, value, connects, tls_zk_serving, certs, path):
    """--tls-insecure-skip-hostname-check[=BOOL] and
    $ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK against a certificate for another
    host: on, it connects; off (also spelled no/off/0), the name is checked."""
    srv = tls_zk_serving("wronghost-server.pem")
    z = client(srv.secure)
    args, env = tls_flags(certs), dict(z.env)
    if how == "flag":
        args.append("--tls-insecure-skip-hostname-check" + (f"={value}" if value else ""))
    else:
        env["ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK"] = value
    r = z.run("status", "--connect-timeout", "5s", *args, path, env=env)
    if connects:
        assert r.returncode == 0 and "free" in r.stdout, r.stderr
    else:
        assert r.returncode == EXIT_ZKL and "does not name the host" in r.stderr, r.stderr


@pytest.mark.parametrize("tls", [False, True])
def test_refused_connection_names_server_and_reason(tls, certs, path):
    port = closed_port()
    z = client(f"127.0.0.1:{port}")
    flags = tls_flags(certs) if tls else []
    r, took = run_timed(z, "status", "--connect-timeout", "2s", *flags, path)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert f"cannot connect to ZooKeeper at 127.0.0.1:{port}: timed out after 2.0s" in r.stderr, \
        r.stderr
    assert f"127.0.0.1:{port} (tcp): connection refused" in r.stderr, r.stderr
    assert took < 2 + 8, took


# --------------------------------------------------------------------------
# TLS files that cannot be used: said at once, naming the option and file
# --------------------------------------------------------------------------

TLS_ENV = {"--tls-ca": "ZKL_TLS_CA", "--tls-cert": "ZKL_TLS_CERT", "--tls-key": "ZKL_TLS_KEY",
           "--tls-key-password-file": "ZKL_TLS_KEY_PASSWORD_FILE"}


def bad_tls_files(certs, tmp_path):
    """name -> (TLS settings, the file to name, what else stderr says)."""
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("not a certificate\n")
    wrong_pass = tmp_path / "wrong.pass"
    wrong_pass.write_text("wrong-passphrase-31\n")
    missing = str(tmp_path / "missing.pem")
    ca, crt, key = certs.file("ca.pem"), certs.file("client.crt"), certs.file("client.key")
    enc = certs.file("client-enc.key")

    def tls(**over):
        s = {"--tls-ca": ca, "--tls-cert": crt, "--tls-key": key}
        s.update({"--" + k.replace("_", "-"): v for k, v in over.items()})
        return s
    return {
        "missing CA": (tls(tls_ca=missing), missing, ["--tls-ca", "No such file"]),
        "missing certificate": (tls(tls_cert=missing), missing, ["--tls-cert", "No such file"]),
        "missing key": (tls(tls_key=missing), missing, ["--tls-key", "No such file"]),
        "CA a directory": (tls(tls_ca=str(tmp_path)), str(tmp_path), ["Is a directory"]),
        "key a directory": (tls(tls_key=str(tmp_path)), str(tmp_path), ["Is a directory"]),
        "CA not PEM": (tls(tls_ca=str(not_pem)), str(not_pem), ["not PEM"]),
        "certificate not PEM": (tls(tls_cert=str(not_pem)), str(not_pem), ["not PEM"]),
        "key not PEM": (tls(tls_key=str(not_pem)), str(not_pem), ["not PEM"]),
        "key of another certificate": (tls(tls_key=certs.file("other-client.key")),
                                       certs.file("other-client.key"), ["does not match"]),
        "encrypted key, no passphrase": (tls(tls_key=enc), enc, ["encrypted", "passphrase"]),
        "encrypted key, wrong passphrase": (tls(tls_key=enc, tls_key_password_file=str(wrong_pass)),
                                            enc, ["wrong passphrase"]),
    }


BAD_TLS_FILES = ["missing CA", "missing certificate", "missing key", "CA a directory",
                 "key a directory", "CA not PEM", "certificate not PEM", "key not PEM",
                 "key of another certificate", "encrypted key, no passphrase",
                 "encrypted key, wrong passphrase"]


@pytest.mark.parametrize("by", ["flags", "env"])
@pytest.mark.parametrize("case", BAD_TLS_FILES)
def test_tls_file_that_cannot_be_used_is_named(case, by, certs, path, tmp_path):
    """No server needed: the files are judged when the client is made."""
    settings, named, says = bad_tls_files(certs, tmp_path)[case]
    z = client(f"127.0.0.1:{closed_port()}")
    args, env = [], dict(z.env)
    for opt, v in settings.items():
        if by == "flags":
            args += [opt, v]
        else:
            env[TLS_ENV[opt]] = v
    r, took = run_timed(z, "status", *LONG_TIMEOUT, *args, path, env=env)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert "cannot use the TLS files: " in r.stderr and named in r.stderr, r.stderr
    for s in says:
        if by == "env" and s in TLS_ENV:  # the message names where the file came from
            s = "$" + TLS_ENV[s]
        assert s in r.stderr, r.stderr
    assert took < 5, took
    assert_no_secret(r, "wrong-passphrase-31", certs.passphrase)


@pytest.mark.parametrize("what", ["missing", "directory"])
@pytest.mark.parametrize("by", ["flags", "env"])
def test_unreadable_passphrase_file_is_named(what, by, certs, path, tmp_path):
    """The passphrase file is zkl's own to read: the option, file, reason."""
    f = str(tmp_path / "missing.pass") if what == "missing" else str(tmp_path)
    z = client(f"127.0.0.1:{closed_port()}")
    flags, env = tls_flags(certs, password_file=False), dict(z.env)
    if by == "flags":
        flags += ["--tls-key-password-file", f]
    else:
        env["ZKL_TLS_KEY_PASSWORD_FILE"] = f
    r = z.run("status", *flags, path, env=env)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    reason = "No such file or directory" if what == "missing" else "Is a directory"
    named = "--tls-key-password-file" if by == "flags" else "$ZKL_TLS_KEY_PASSWORD_FILE"
    assert f"cannot read {named} '{f}': {reason}" in r.stderr, r.stderr


# --------------------------------------------------------------------------
# SASL DIGEST-MD5 (and over TLS)
# --------------------------------------------------------------------------

def digest_flags(sasl_zk):
    return ["--sasl-mechanism", "DIGEST-MD5", "--sasl-user", sasl_zk.user]


@pytest.mark.parametrize("source", ["file-option", "file-env", "value-env"])
def test_digest_lock_with_the_password_from(source, sasl_zk, path, tmp_path):
    z = client(sasl_zk.plain)
    pw = tmp_path / "sasl-password"
    pw.write_text(sasl_zk.password + "\n")
    env = dict(z.env)
    if source == "file-option":
        args = [*digest_flags(sasl_zk), "--sasl-password-file", str(pw)]
    elif source == "file-env":
        args = digest_flags(sasl_zk)
        env["ZKL_SASL_PASSWORD_FILE"] = str(pw)
    else:  # everything from the environment
        args = []
        env.update(ZKL_SASL_MECHANISM="DIGEST-MD5", ZKL_SASL_USER=sasl_zk.user,
                   ZKL_SASL_PASSWORD=sasl_zk.password)
    r = z.run("lock", "-v", *args, path, "--", *TOKEN_CMD, env=env)
    assert r.returncode == 0, r.stderr
    assert token_of(r, path) > 0
    assert_no_secret(r, sasl_zk.password)


def test_digest_wrong_password_fails_at_once(sasl_zk, path):
    """A rejected password: a clear error naming SASL, long before the
    (default, 10s) connect timeout; the password is not echoed."""
    wrong = "wrong-" + sasl_zk.password
    z = client(sasl_zk.plain, ZKL_SASL_PASSWORD=wrong, ZKL_ZOOKEEPER_LOG="1")
    r, took = run_timed(z, "lock", "-v", *digest_flags(sasl_zk), path, "--", "echo", "RAN")
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stdout, r.stderr)
    assert "SASL DIGEST-MD5 authentication with ZooKeeper" in r.stderr, r.stderr
    assert "RAN" not in r.stdout
    assert took < 5, took
    assert_no_secret(r, wrong)


def test_auth_password_on_argv_warns(sasl_zk, path):
    """--auth USER:PASSWORD (digest ACL identity) still works beside SASL,
    with a warning; the password is not printed."""
    argv_pw = "argv-" + sasl_zk.password
    z = client(sasl_zk.plain, ZKL_SASL_PASSWORD=sasl_zk.password)
    r = z.run("lock", "-v", *digest_flags(sasl_zk), "--auth", f"bob:{argv_pw}", path,
              "--", *TOKEN_CMD)
    assert r.returncode == 0, r.stderr
    assert "warning: --auth puts the password on the command line" in r.stderr
    assert_no_secret(r, argv_pw, sasl_zk.password)


def test_tls_and_digest_on_one_connection(sasl_zk, certs, path):
    """Mutual TLS and SASL DIGEST-MD5 together on the secure port; then the
    wrong password over TLS: TLS works, SASL says no."""
    z = client(sasl_zk.secure, ZKL_SASL_PASSWORD=sasl_zk.password)
    args = [*tls_flags(certs), *digest_flags(sasl_zk)]
    r = z.run("lock", "-v", *args, path, "--", *TOKEN_CMD)
    assert r.returncode == 0, r.stderr
    assert token_of(r, path) > 0
    r = z.run("status", "--json", *args, path)
    assert r.returncode == 0 and '"holders":0' in r.stdout, (r.stdout, r.stderr)
    r, took = run_timed(z, "status", *args, path, env=dict(z.env, ZKL_SASL_PASSWORD="wrong"))
    assert r.returncode == EXIT_ZKL and "SASL DIGEST-MD5 authentication" in r.stderr, r.stderr
    assert took < 5, took
    assert_no_secret(r, sasl_zk.password, certs.passphrase)


# --------------------------------------------------------------------------
# Kerberos (GSSAPI)
# --------------------------------------------------------------------------

def keytab_keys(keytab):
    """The keys of a keytab as `klist -k -K` prints them (hex)."""
    r = subprocess.run(["klist", "-k", "-K", keytab], capture_output=True, text=True, timeout=30)
    keys = re.findall(r"\(0x([0-9a-f]{16,})\)", r.stdout)
    assert r.returncode == 0 and keys, r.stdout + r.stderr
    return keys


def krb_client(krb_zk, kdc, servers=None):
    return client(servers or krb_zk.by_name, KRB5_CONFIG=kdc.krb5_config,
                  KRB5CCNAME="FILE:" + kdc.file("unused.ccache"))


def keytab_flags(kdc, keytab="client.keytab"):
    return ["--sasl-mechanism", "GSSAPI", "--sasl-user", kdc.principal,
            "--sasl-keytab", kdc.file(keytab)]


def test_kerberos_status_and_lock_with_a_keytab(krb_zk, kdc, path):
    z = krb_client(krb_zk, kdc)
    r = z.run("status", "-v", *keytab_flags(kdc), path)
    assert r.returncode == 0 and "free" in r.stdout, r.stderr
    lock = z.run("lock", "-v", *keytab_flags(kdc), path, "--", *TOKEN_CMD)
    assert lock.returncode == 0, lock.stderr
    assert token_of(lock, path) > 0
    for out in (r, lock):
        assert_no_secret(out, *keytab_keys(kdc.file("client.keytab")))


def test_kerberos_by_address_needs_the_host_of_the_principal(krb_zk, kdc, path):
    """Connected by 127.0.0.1, the service principal would be
    zookeeper/127.0.0.1: --sasl-host (or $ZKL_SASL_HOST) names localhost."""
    z = krb_client(krb_zk, kdc, servers=krb_zk.plain)
    r = z.run("status", *keytab_flags(kdc), path)
    assert r.returncode == EXIT_ZKL and "--sasl-host" in r.stderr, r.stderr
    r = z.run("status", *keytab_flags(kdc), "--sasl-host", "localhost", path)
    assert r.returncode == 0, r.stderr
    env = dict(z.env, ZKL_SASL_MECHANISM="GSSAPI", ZKL_SASL_USER=kdc.principal,
               ZKL_SASL_KEYTAB=kdc.file("client.keytab"), ZKL_SASL_HOST="localhost")
    r = z.run("lock", path, "--", *TOKEN_CMD, env=env)
    assert r.returncode == 0, r.stderr
    assert token_of(r, path) > 0


def test_kerberos_credential_cache(krb_zk, kdc, path, tmp_path):
    need_tools("kinit")
    cc = "FILE:" + str(tmp_path / "client.ccache")
    subprocess.run(["kinit", "-k", "-t", kdc.file("client.keytab"), "-c", cc, kdc.principal],
                   check=True, capture_output=True, timeout=30,
                   env=dict(os.environ, KRB5_CONFIG=kdc.krb5_config))
    z = krb_client(krb_zk, kdc)
    r = z.run("lock", "--sasl-mechanism", "GSSAPI", "--sasl-ccache", cc, path, "--", *TOKEN_CMD)
    assert r.returncode == 0, r.stderr
    assert token_of(r, path) > 0


@pytest.mark.parametrize("keytab", ["other.keytab", "stale.keytab"])
def test_kerberos_keytab_without_the_principal_s_key(keytab, krb_zk, kdc, path):
    """Another principal's keytab, an old key of the right one: a clear SASL
    error at once, not a hang."""
    z = krb_client(krb_zk, kdc)
    r, took = run_timed(z, "lock", "-v", *keytab_flags(kdc, keytab), path, "--", "echo", "RAN")
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stdout, r.stderr)
    assert "SASL GSSAPI authentication with ZooKeeper" in r.stderr, r.stderr
    assert "RAN" not in r.stdout
    assert took < 5, took
    assert_no_secret(r, *keytab_keys(kdc.file(keytab)))
