"""Tests of the zkl command's newer features against a real ZooKeeper: help
and completion, multi-lock, revocation, --max-hold, leader terms, statistics,
metrics, secrets and the TLS/SASL options, lease-truth supervision."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from helpers import EXIT_LOST, EXIT_TIMEOUT, EXIT_ZKL, ZKL_BIN, participants, wait_for

LOOP = "while :; do sleep 0.05; done"
TRAP = "trap 'echo GOT-TERM; exit 0' TERM; echo HELD $ZKL_FENCING_TOKEN; " + LOOP
PREFIX = os.path.dirname(os.path.dirname(os.path.realpath(ZKL_BIN)))


# --------------------------------------------------------------------------
# help, version, completion
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", ["lock", "elect", "status", "leader", "revoke"])
def test_help_cmd_is_cmd_help(cmd):
    a = subprocess.run([ZKL_BIN, "help", cmd], capture_output=True, text=True, timeout=10)
    b = subprocess.run([ZKL_BIN, cmd, "--help"], capture_output=True, text=True, timeout=10)
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and f"Usage: zkl {cmd}" in a.stdout


def test_version_flag_and_unknown_help():
    r = subprocess.run([ZKL_BIN, "--version"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and re.match(r"zkl \d+\.\d+\.\d+ \(libzkl \d+\.\d+\.\d+\)", r.stdout)
    r = subprocess.run([ZKL_BIN, "help", "nope"], capture_output=True, text=True, timeout=10)
    assert r.returncode == EXIT_ZKL and "unknown command 'nope'" in r.stderr


def test_completion_scripts_installed():
    bash = os.path.join(PREFIX, "share", "bash-completion", "completions", "zkl")
    zsh = os.path.join(PREFIX, "share", "zsh", "site-functions", "_zkl")
    assert os.path.isfile(bash) and os.path.isfile(zsh)
    script = (f'source "{bash}"; COMP_WORDS=(zkl lock --rev); COMP_CWORD=2; _zkl; '
              'echo "${COMPREPLY[*]}"; COMP_WORDS=(zkl st); COMP_CWORD=1; _zkl; echo "${COMPREPLY[*]}"')
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["--revocable", "status"]


# --------------------------------------------------------------------------
# multi-lock
# --------------------------------------------------------------------------

def test_multilock_tokens_in_canonical_order(zkl, path):
    a, b = path + "/a", path + "/b"
    r = zkl.run("lock", b, a, "--", "sh", "-c",
                'echo "$ZKL_FENCING_TOKEN|$ZKL_FENCING_TOKENS|$ZKL_LOCK_PATH|$ZKL_LOCK_PATHS"')
    assert r.returncode == 0, r.stderr
    first, tokens, lock_path, paths = r.stdout.strip().split("|")
    pairs = dict(t.rsplit("=", 1) for t in tokens.split(" "))
    assert sorted(pairs) == [a, b] and tokens.startswith(a + "=")
    assert first == pairs[a] and int(pairs[b]) > 0
    assert lock_path == a and paths == f"{a} {b}"
    # One path: the same variables, one entry.
    r = zkl.run("lock", a, "--", "sh", "-c", 'echo "$ZKL_FENCING_TOKEN $ZKL_FENCING_TOKENS"')
    tok, pair = r.stdout.split()
    assert pair == f"{a}={tok}" and int(tok) > int(pairs[a])


def test_multilock_all_or_none(zkl, path):
    a, b = path + "/a", path + "/b"
    holder = zkl.hold(b, ident="holder-b")
    r = zkl.run("lock", "--timeout", "500ms", a, b, "--", "echo", "ran")
    assert r.returncode == EXIT_TIMEOUT and "ran" not in r.stdout
    assert participants(zkl, a) == []  # the member taken was released again
    waiter = zkl.start("lock", "--id", "multi", a, b, "--", "sh", "-c", "echo BOTH; cat >/dev/null",
                       stdin=subprocess.PIPE)
    wait_for(lambda: len(participants(zkl, b)) == 2, what="multi-lock queued on b")
    assert waiter.out_q.empty()
    holder.release()
    assert holder.wait() == 0
    waiter.expect("^BOTH")
    assert [p["id"] for p in participants(zkl, a)] == ["multi"]
    waiter.release()
    assert waiter.wait() == 0
    assert participants(zkl, a) == [] and participants(zkl, b) == []


def test_multilock_bad_input(zkl, path):
    r = zkl.run("lock", "--non-fair", path + "/a", path + "/b", "--", "true")
    assert r.returncode == EXIT_ZKL and "--non-fair" in r.stderr
    r = zkl.run("lock", path, path, "--", "true")
    assert r.returncode == EXIT_ZKL and "given twice" in r.stderr


# --------------------------------------------------------------------------
# revocation, --max-hold
# --------------------------------------------------------------------------

def test_revoke_a_revocable_holder(zkl, path):
    r = zkl.run("revoke", path)
    assert r.returncode == 0 and r.stdout == "0 holders asked\n"
    p = zkl.start("lock", "--revocable", path, "--", "bash", "-c", TRAP)
    p.expect("^HELD")
    r = zkl.run("revoke", "--holder", "no-such-node", path)
    assert r.returncode == 1 and "not a holder" in r.stderr
    r = zkl.run("revoke", path)
    assert r.returncode == 0 and r.stdout == "1 holder asked\n", r.stderr
    assert p.wait() == EXIT_LOST, p.stderr
    assert "GOT-TERM" in p.stdout and "revocation" in p.stderr
    assert participants(zkl, path) == []


def test_revoke_one_holder_by_node(zkl, path):
    a = zkl.start("lock", "--revocable", "--semaphore", "2", "--id", "a", path, "--", "bash", "-c", TRAP)
    b = zkl.start("lock", "--revocable", "--semaphore", "2", "--id", "b", path, "--", "bash", "-c", TRAP)
    a.expect("^HELD")
    b.expect("^HELD")
    ps = participants(zkl, path, "--kind", "semaphore")
    node_b = next(p["node"] for p in ps if p["id"] == "b")
    r = zkl.run("revoke", "--kind", "semaphore", "--holder", node_b, path)
    assert r.returncode == 0 and r.stdout == "1 holder asked\n", r.stderr
    assert b.wait() == EXIT_LOST
    assert [p["id"] for p in participants(zkl, path, "--kind", "semaphore")] == ["a"]
    a.signal(signal.SIGTERM)
    assert a.wait() == 0


def test_max_hold_stops_then_releases(zkl, path):
    t0 = time.monotonic()
    p = zkl.start("lock", "--max-hold", "700ms", path, "--", "bash", "-c", TRAP)
    p.expect("^HELD")
    assert p.wait() == EXIT_LOST, p.stderr
    assert time.monotonic() - t0 >= 0.7
    assert "GOT-TERM" in p.stdout and "--max-hold" in p.stderr
    assert participants(zkl, path) == []
    # A command that ends in time keeps its own status.
    assert zkl.run("lock", "--max-hold", "10s", path, "--", "sh", "-c", "exit 3").returncode == 3


# --------------------------------------------------------------------------
# leader terms, statistics, metrics
# --------------------------------------------------------------------------

def test_leader_watch_terms(zkl, path):
    watch = zkl.start("leader", "--watch", "--terms", path)
    watch.expect("^-$")
    a = zkl.start("elect", "--id", "A", path, "--", "sh", "-c", "echo LEADER; cat >/dev/null",
                  stdin=subprocess.PIPE)
    term_a = int(watch.expect(r"^A (\d+)$").group(1))
    r = zkl.run("leader", "--json", path)
    doc = json.loads(r.stdout)
    assert doc["leader"] == "A" and doc["term"] == term_a
    a.release()
    assert a.wait() == 0
    watch.expect(rf"^- {term_a}$")
    b = zkl.start("elect", "--id", "B", path, "--", "sh", "-c", "echo LEADER; cat >/dev/null",
                  stdin=subprocess.PIPE)
    m = watch.expect(r"^B (\d+) \(after \S+ without a leader\)$")
    assert int(m.group(1)) > term_a
    b.release()
    assert b.wait() == 0
    watch.signal(signal.SIGTERM)
    assert watch.wait() == 0


def test_status_stats(zkl, path):
    r = zkl.run("status", "--stats", path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == 1 and doc["client"]["requests"] >= 1
    assert doc["client"]["state"] == "connected"


def test_metrics_file(zkl, path, tmp_path):
    f = tmp_path / "zkl.prom"
    r = zkl.run("lock", "--metrics-file", str(f), path, "--", "sh", "-c", "exit 4")
    assert r.returncode == 4, r.stderr
    text = f.read_text()
    lab = f'{{path="{path}"}}'
    assert f"zkl_lock_acquisitions_total{lab} 1" in text
    assert f"zkl_lock_run_exit_status{lab} 4" in text
    assert f"zkl_lock_proof_waits_total{lab} 0" in text
    assert "# TYPE zkl_lock_wait_milliseconds summary" in text
    assert re.search(rf'zkl_lock_hold_milliseconds_count\{{path="{re.escape(path)}"\}} 1', text)
    for line in text.splitlines():  # every sample line is NAME{labels} NUMBER
        assert line.startswith("#") or re.fullmatch(r'[a-z_]+\{[^}]*\} -?[0-9.e+]+', line), line
    assert not [n for n in os.listdir(tmp_path) if ".tmp." in n]


# --------------------------------------------------------------------------
# secrets, TLS and SASL options
# --------------------------------------------------------------------------

def test_auth_from_file_and_env(zkl, path, tmp_path):
    secret = "pw-from-file-42"
    f = tmp_path / "auth"
    f.write_text(f"alice:{secret}\n")
    script = 'echo "HELD ${ZKL_AUTH:-none}"'
    r = zkl.run("lock", "-v", "--auth-file", str(f), "--acl", "creator", path, "--", "sh", "-c", script)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "HELD none" and secret not in r.stderr and "warning" not in r.stderr
    env = dict(zkl.env, ZKL_AUTH=f"alice:{secret}")
    r = zkl.run("lock", "-v", "--acl", "creator", path, "--", "sh", "-c", script, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "HELD none"  # CMD does not inherit the secret
    assert secret not in r.stderr
    r = zkl.run("lock", "--auth", f"alice:{secret}", path, "--", "true")
    assert r.returncode == 0 and "warning: --auth" in r.stderr and secret not in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--sasl-password", "x"], "--sasl-password is not accepted"),
    (["--tls-key-password", "x"], "not accepted"),
    (["--auth-file", "/nonexistent/zkl-auth"], "cannot read --auth-file '/nonexistent/zkl-auth'"),
    (["--tls-cert", "/c.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-insecure-skip-hostname-check"], "need --tls-ca"),
    (["--sasl-mechanism", "PLAIN"], "bad --sasl-mechanism 'PLAIN'"),
    (["--sasl-user", "u"], "need --sasl-mechanism"),
    (["--sasl-keytab", "/k.keytab"], "need --sasl-mechanism"),
    (["--sasl-ccache", "MEMORY:x"], "need --sasl-mechanism"),
    (["--sasl-host", "zk1"], "need --sasl-mechanism"),
])
def test_secret_and_tls_option_errors(zkl, path, args, message):
    r = zkl.run("status", *args, path)
    assert r.returncode == EXIT_ZKL and message in r.stderr, r.stderr


@pytest.mark.parametrize("value, on", [("1", True), ("yes", True), ("ON", True), ("True", True),
                                       ("0", False), ("no", False), ("off", False), ("FALSE", False)])
def test_boolean_environment_is_strict(zkl, path, value, on):
    """ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK takes yes/no words in any case:
    `no` and `off` keep host names checked (they used to turn the check
    off). Without --tls-ca the switch, when on, is an error of its own."""
    env = dict(zkl.env, ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK=value)
    r = zkl.run("status", path, env=env)
    if on:
        assert r.returncode == EXIT_ZKL and "need --tls-ca" in r.stderr, r.stderr
    else:
        assert "need --tls-ca" not in r.stderr and "must be one of" not in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK", "ZKL_ZOOKEEPER_LOG"])
@pytest.mark.parametrize("value", ["maybe", "2", "nope", " yes"])
def test_boolean_environment_refuses_anything_else(zkl, path, name, value):
    """A security switch never turns on (or off) by a typo: the command
    refuses to run and names the variable."""
    r = zkl.run("status", path, env=dict(zkl.env, **{name: value}))
    assert r.returncode == EXIT_ZKL, r.stderr
    assert f"${name} must be one of" in r.stderr and value in r.stderr


@pytest.mark.parametrize("value, on", [("", True), ("=yes", True), ("=TRUE", True), ("=1", True),
                                       ("=no", False), ("=off", False), ("=0", False)])
def test_boolean_flag_takes_an_optional_strict_value(zkl, path, value, on):
    """A flag alone is on; --flag=BOOL takes the same words as the
    environment (so --json=no or --tls-insecure-skip-hostname-check=no
    turn a default off)."""
    r = zkl.run("status", "--json" + value, path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("{") == on, r.stdout
    env = dict(zkl.env, ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK="1")
    r = zkl.run("status", "--tls-insecure-skip-hostname-check" + value, path, env=env)
    if on:
        assert r.returncode == EXIT_ZKL and "need --tls-ca" in r.stderr, r.stderr
    else:
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args", [
    ["status", "--json=maybe", "/a"], ["status", "--stats=2", "/a"],
    ["status", "--verbose=", "/a"], ["status", "--tls-insecure-skip-hostname-check=y", "/a"],
    ["leader", "--watch=sure", "/a"], ["leader", "--terms=nope", "/a"], ["leader", "--json=x", "/a"],
    ["lock", "--revocable=x", "/a", "--", "true"], ["lock", "--foreground=x", "/a", "--", "true"],
    ["lock", "--stop-on-suspend=x", "/a", "--", "true"], ["elect", "--rejoin=x", "/a", "--", "true"],
])
def test_boolean_flag_refuses_anything_else(zkl, args):
    r = zkl.run(*args)
    flag, value = next(a for a in args if "=" in a).split("=", 1)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert f"bad value '{value}' for {flag}" in r.stderr, r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("name", ["ZKL_TLS_CA", "ZKL_TLS_CERT", "ZKL_TLS_KEY",
                                  "ZKL_TLS_KEY_PASSWORD_FILE", "ZKL_AUTH_FILE",
                                  "ZKL_SASL_MECHANISM", "ZKL_SASL_USER", "ZKL_SASL_KEYTAB",
                                  "ZKL_SASL_CCACHE", "ZKL_SASL_HOST", "ZKL_SASL_PASSWORD_FILE"])
def test_empty_security_variable_is_an_error_not_off(zkl, path, name):
    """ZKL_TLS_CA= (a script's variable that expanded to nothing) must not
    quietly mean "no TLS": set and empty is refused, naming the variable."""
    r = zkl.run("status", path, env=dict(zkl.env, **{name: ""}))
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert f"${name} is set but empty" in r.stderr, r.stderr


@pytest.mark.parametrize("opt", ["--tls-ca", "--tls-cert", "--tls-key", "--tls-key-password-file",
                                 "--auth-file", "--sasl-user", "--sasl-keytab", "--sasl-ccache",
                                 "--sasl-host", "--sasl-password-file"])
def test_empty_security_option_is_an_error(zkl, path, opt):
    r = zkl.run("status", opt + "=", path)
    assert r.returncode == EXIT_ZKL and f"{opt} is empty" in r.stderr, r.stderr


def test_sasl_mechanism_from_the_environment_is_checked(zkl, path):
    r = zkl.run("status", path, env=dict(zkl.env, ZKL_SASL_MECHANISM="PLAIN"))
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert "bad $ZKL_SASL_MECHANISM 'PLAIN' (DIGEST-MD5 or GSSAPI)" in r.stderr, r.stderr


def test_unreadable_auth_file_is_named(zkl, path, tmp_path):
    r = zkl.run("status", "--auth-file", str(tmp_path), path)
    assert r.returncode == EXIT_ZKL
    assert f"cannot read --auth-file '{tmp_path}': Is a directory" in r.stderr, r.stderr
    r = zkl.run("status", path, env=dict(zkl.env, ZKL_AUTH_FILE=str(tmp_path / "none")))
    assert r.returncode == EXIT_ZKL
    assert f"cannot read $ZKL_AUTH_FILE '{tmp_path / 'none'}': No such file or directory" in r.stderr, \
        r.stderr


def test_tls_and_sasl_options_never_print_secrets(zkl, path, tmp_path):
    secret = "sasl-secret-77"
    pw = tmp_path / "pw"
    pw.write_text(secret + "\n")
    keypw = tmp_path / "keypw"
    keypw.write_text("key-secret-88\n")
    ca = tmp_path / "ca.pem"
    ca.write_text("not a certificate\n")
    runs = [
        zkl.run("status", "-v", "--connect-timeout", "1s", "--sasl-mechanism", "DIGEST-MD5",
                "--sasl-user", "bob", "--sasl-password-file", str(pw), path, timeout=30),
        zkl.run("status", "-v", "--connect-timeout", "1s", "--tls-ca", str(ca), "--tls-cert", str(ca),
                "--tls-key", str(ca), "--tls-key-password-file", str(keypw), path, timeout=30),
        zkl.run("status", "-v", "--connect-timeout", "1s", path, timeout=30,
                env=dict(zkl.env, ZKL_TLS_CA=str(ca), ZKL_SASL_MECHANISM="DIGEST-MD5",
                         ZKL_SASL_USER="bob", ZKL_SASL_PASSWORD=secret)),
    ]
    for r in runs[1:]:
        # A CA file that is no certificate (or TLS not built in): zkl's error.
        assert r.returncode == EXIT_ZKL, (r.returncode, r.stdout, r.stderr)
    for r in runs:
        assert secret not in r.stdout + r.stderr and "key-secret-88" not in r.stdout + r.stderr


# --------------------------------------------------------------------------
# lease truth
# --------------------------------------------------------------------------

def test_frozen_zkl_stops_command_when_lease_lapsed(zkl, path):
    """zkl itself frozen (SIGSTOP) past its session timeout while CMD runs
    on: on waking, the hold is not provable any more: CMD is stopped."""
    p = zkl.start("lock", "--session-timeout", "2s", path, "--", "bash", "-c", TRAP)
    p.expect("^HELD")
    os.kill(p.pid, signal.SIGSTOP)
    try:
        time.sleep(3.5)  # the freeze itself, not a synchronisation
    finally:
        os.kill(p.pid, signal.SIGCONT)
    assert p.wait(timeout=20) == EXIT_LOST, p.stderr
    assert "GOT-TERM" in p.stdout
    assert re.search(r"lease lapsed|lost", p.stderr)
