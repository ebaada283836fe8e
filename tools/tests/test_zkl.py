"""Tests of the `zkl` command against a real ZooKeeper server (no mocks)."""
import json
import os
import pty
import re
import select
import signal
import subprocess
import time

import pytest

from helpers import (EXIT_LOST, EXIT_NOEXEC, EXIT_NOTFOUND, EXIT_TIMEOUT, EXIT_ZKL, ZKL_BIN,
                     participants, process_gone, wait_for)

# A holder command that reports its token and then runs until told to stop.
LOOP = "while :; do sleep 0.05; done"


def status_json(zkl, path, *opts):
    r = zkl.run("status", "--json", *opts, path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# --------------------------------------------------------------------------
# Help and bad input
# --------------------------------------------------------------------------

@pytest.mark.parametrize("sub", [None, "lock", "elect", "status", "leader"])
def test_help_for_every_subcommand(sub):
    args = [ZKL_BIN] + ([sub] if sub else []) + ["--help"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert "Usage: zkl" in r.stdout
    assert "--servers" in r.stdout and "ZKL_SERVERS" in r.stdout
    if sub in ("lock", "elect"):
        for status in ("75", "125", "126", "127"):
            assert status in r.stdout
    if sub == "lock":
        assert "124" in r.stdout


def test_version():
    r = subprocess.run([ZKL_BIN, "version"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0
    assert re.match(r"zkl \d+\.\d+\.\d+ \(libzkl \d+\.\d+\.\d+\)", r.stdout)


@pytest.mark.parametrize("args, message", [
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["lock", "--timeout", "5x", "/a", "--", "true"], "bad duration '5x'"),
    (["lock", "--timeout", "-1", "/a", "--", "true"], "bad duration '-1'"),
    (["lock", "--grace", "soon", "/a", "--", "true"], "bad duration 'soon'"),
    (["lock", "--session-timeout", "1y", "/a", "--", "true"], "bad duration '1y'"),
    (["lock", "relative/path", "--", "true"], "bad path 'relative/path'"),
    (["lock", "/trailing/", "--", "true"], "bad path '/trailing/'"),
    (["lock", "/a//b", "--", "true"], "bad path '/a//b'"),
    (["lock", "/a/../b", "--", "true"], "bad path '/a/../b'"),
    (["lock", "/a"], "missing CMD"),
    (["lock", "--", "true"], "missing PATH"),
    (["lock"], "missing PATH"),
    (["lock", "--shared", "--non-fair", "/a", "--", "true"], "exclude each other"),
    (["lock", "--semaphore", "0", "/a", "--", "true"], "bad lease count '0'"),
    (["lock", "--bogus", "/a", "--", "true"], "unknown option '--bogus'"),
    (["lock", "--timeout"], "needs a value"),
    (["lock", "--auth", "nopassword", "/a", "--", "true"], "USER:PASSWORD"),
    (["elect", "--fair", "--unfair", "/a", "--", "true"], "exclude each other"),
    (["status", "/a", "--kind", "weird"], "bad --kind 'weird'"),
    (["status"], "missing PATH"),
    (["status", "/a", "/b"], "unexpected argument '/b'"),
    (["leader", "a"], "bad path 'a'"),
])
def test_bad_input_is_named(zkl, args, message):
    r = zkl.run(*args, timeout=20)
    assert r.returncode == EXIT_ZKL, (r.returncode, r.stderr)
    assert message in r.stderr
    assert r.stdout == ""


def test_unreachable_server_fails_fast_and_names_it(zkl):
    # Port 1 on loopback: nothing listens there.
    t0 = time.monotonic()
    r = zkl.run("lock", "--servers", "127.0.0.1:1", "--connect-timeout", "1s", "/a", "--", "true")
    elapsed = time.monotonic() - t0
    assert r.returncode == EXIT_ZKL
    assert "cannot connect to ZooKeeper at 127.0.0.1:1" in r.stderr
    assert "ZOO_ERROR" not in r.stderr  # the C client's own log lines stay out
    assert elapsed < 8
    r = zkl.run("status", "/a", env=dict(os.environ, ZKL_SERVERS="127.0.0.1:1"),
                timeout=30)
    assert r.returncode == EXIT_ZKL and "127.0.0.1:1" in r.stderr


def test_a_silent_server_first_in_the_list_costs_only_its_share(zkl, path):
    # A server that accepts TCP and never answers (a frozen JVM): the kernel
    # completes the handshake from the listen backlog. With a 3 s connect
    # timeout and a 10 s session, one attempt used to take 3.3 s (T / 3), so
    # whenever the list's shuffle tried it first the command failed; now each
    # of the two servers gets 1.5 s. Several runs: both orders occur.
    import socket
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        servers = f"127.0.0.1:{silent.getsockname()[1]},{zkl.servers}"
        for _ in range(6):
            t0 = time.monotonic()
            r = zkl.run("status", "--servers", servers, "--connect-timeout", "3s", path)
            assert r.returncode == 0, r.stderr
            assert time.monotonic() - t0 < 3 + 2
        # --attempt-timeout sets the bound itself; the failure says which step stalled.
        only_silent = f"127.0.0.1:{silent.getsockname()[1]}"
        r = zkl.run("status", "--servers", only_silent, "--connect-timeout", "2s",
                    "--attempt-timeout", "500ms", path)
        assert r.returncode == EXIT_ZKL, r.stderr
        assert f"{only_silent} (session): no answer to the session handshake within 500 ms" \
            in r.stderr, r.stderr


def test_invalid_server_list(zkl):
    r = zkl.run("status", "--servers", "127.0.0.1:1/chroot", "/a")
    assert r.returncode == EXIT_ZKL
    assert "127.0.0.1:1/chroot" in r.stderr


def test_exec_failures(zkl, path, tmp_path):
    r = zkl.run("lock", path, "--", "/nonexistent/command")
    assert r.returncode == EXIT_NOTFOUND
    assert "cannot run '/nonexistent/command'" in r.stderr
    r = zkl.run("lock", path, "--", "no-such-command-zkl-test")
    assert r.returncode == EXIT_NOTFOUND
    plain = tmp_path / "not-executable"
    plain.write_text("echo should not run\n")
    plain.chmod(0o644)
    r = zkl.run("lock", path, "--", str(plain))
    assert r.returncode == EXIT_NOEXEC, r.stderr
    assert "Permission denied" in r.stderr and "should not run" not in r.stdout
    # The lock was released in both cases.
    assert participants(zkl, path) == []


# --------------------------------------------------------------------------
# zkl lock
# --------------------------------------------------------------------------

def test_exit_status_passthrough(zkl, path):
    assert zkl.run("lock", path, "--", "true").returncode == 0
    assert zkl.run("lock", path, "--", "sh", "-c", "exit 7").returncode == 7
    # Killed by a signal: 128 + N, as the shell reports it.
    assert zkl.run("lock", path, "--", "sh", "-c", "kill -KILL $$").returncode == 128 + 9
    # Without "--", CMD starts at the first word after PATH.
    assert zkl.run("lock", path, "sh", "-c", "exit 3").returncode == 3
    # Options after PATH, before "--".
    assert zkl.run("lock", path, "--timeout", "5s", "--", "sh", "-c", "exit 4").returncode == 4


def test_child_environment(zkl, path):
    r = zkl.run("lock", "--id", "job-1", path, "--", "sh", "-c",
                'echo "$ZKL_FENCING_TOKEN|$ZKL_LOCK_PATH|$ZKL_ID|$KEEP"',
                env=dict(zkl.env, KEEP="kept", ZKL_FENCING_TOKEN="stale"))
    assert r.returncode == 0, r.stderr
    token, lock_path, ident, keep = r.stdout.strip().split("|")
    assert int(token) > 0
    assert lock_path == path and ident == "job-1" and keep == "kept"


def test_fencing_token_strictly_increases_across_runs(zkl, path):
    tokens = []
    for _ in range(4):
        r = zkl.run("lock", path, "--", "sh", "-c", 'echo "$ZKL_FENCING_TOKEN"')
        assert r.returncode == 0, r.stderr
        tokens.append(int(r.stdout))
    assert tokens == sorted(set(tokens)), tokens


def test_second_waits_until_first_ends(zkl, path):
    first = zkl.hold(path, ident="first")
    second = zkl.start_holder(path, ident="second")
    # The second is queued behind the first, and does not run.
    wait_for(lambda: len(participants(zkl, path)) == 2, what="second in the queue")
    ps = participants(zkl, path)
    assert [p["id"] for p in ps] == ["first", "second"]
    assert [p["holder"] for p in ps] == [True, False]
    assert second.out_q.empty()
    first.release()
    assert first.wait() == 0
    m = second.expect(r"^HELD (\d+)")
    assert int(m.group(1)) > first.token
    second.release()
    assert second.wait() == 0
    assert participants(zkl, path) == []


def test_concurrent_runs_never_overlap(zkl, path, tmp_path):
    history = tmp_path / "history"
    script = ('echo "start $ZKL_ID $ZKL_FENCING_TOKEN" >> "$HIST"; sleep 0.2; '
              'echo "end $ZKL_ID $ZKL_FENCING_TOKEN" >> "$HIST"')
    env = dict(zkl.env, HIST=str(history))
    procs = [zkl.start("lock", "--id", f"w{i}", path, "--", "sh", "-c", script, env=env)
             for i in range(5)]
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr
    lines = history.read_text().split()
    events = [tuple(lines[i:i + 3]) for i in range(0, len(lines), 3)]
    assert len(events) == 10
    tokens = []
    for i in range(0, 10, 2):
        start, end = events[i], events[i + 1]
        assert start[0] == "start" and end[0] == "end", events
        assert start[1:] == end[1:], f"overlap: {events}"
        tokens.append(int(start[2]))
    assert tokens == sorted(set(tokens)), tokens


def test_timeout_status(zkl, path):
    holder = zkl.hold(path)
    t0 = time.monotonic()
    r = zkl.run("lock", "--timeout", "700ms", path, "--", "echo", "ran")
    elapsed = time.monotonic() - t0
    assert r.returncode == EXIT_TIMEOUT, r.stderr
    assert "ran" not in r.stdout
    assert "timed out" in r.stderr
    assert 0.6 <= elapsed < 10
    # --timeout 0: one try.
    r = zkl.run("lock", "--timeout", "0", path, "--", "echo", "ran")
    assert r.returncode == EXIT_TIMEOUT and "ran" not in r.stdout
    # The failed attempts left no node behind.
    assert len(participants(zkl, path)) == 1
    holder.release()
    assert holder.wait() == 0
    r = zkl.run("lock", "--timeout", "0", path, "--", "echo", "ran")
    assert r.returncode == 0 and r.stdout.strip() == "ran"


def test_signals_are_forwarded_and_lock_released(zkl, path):
    script = ("trap 'echo GOT-TERM; exit 3' TERM; trap 'echo GOT-HUP; exit 4' HUP; "
              "trap 'echo GOT-USR1' USR1; echo HELD; " + LOOP)
    p = zkl.start("lock", path, "--", "bash", "-c", script)
    p.expect("^HELD")
    p.signal(signal.SIGUSR1)
    p.expect("^GOT-USR1")
    p.signal(signal.SIGTERM)
    p.expect("^GOT-TERM")
    assert p.wait() == 3
    assert participants(zkl, path) == []

    p = zkl.start("lock", path, "--", "bash", "-c", script)
    p.expect("^HELD")
    p.signal(signal.SIGHUP)
    assert p.wait() == 4
    assert "GOT-HUP" in p.stdout


def test_sigint_forwarded_in_foreground_mode(zkl, path):
    script = "trap 'echo GOT-INT; exit 5' INT; echo HELD; " + LOOP
    p = zkl.start("lock", "--foreground", path, "--", "bash", "-c", script)
    p.expect("^HELD")
    p.signal(signal.SIGINT)
    assert p.wait() == 5
    assert "GOT-INT" in p.stdout


def test_signal_while_waiting_gives_up_the_place(zkl, path):
    holder = zkl.hold(path, ident="holder")
    waiter = zkl.start_holder(path, ident="waiter")
    wait_for(lambda: len(participants(zkl, path)) == 2, what="waiter queued")
    waiter.signal(signal.SIGTERM)
    assert waiter.wait() == 128 + signal.SIGTERM
    assert "HELD" not in waiter.stdout
    assert [p["id"] for p in participants(zkl, path)] == ["holder"]
    holder.release()
    assert holder.wait() == 0


def exit_while_paused(zkl, p, timeout=20):
    """Pauses the ZooKeeper server until zkl process p exits (at most timeout
    seconds), then resumes it; p's exit code."""
    zkl.server.pause()
    try:
        return p.wait(timeout=timeout)
    finally:
        zkl.server.resume()


def test_lost_lock_stops_command_with_sigterm(private_zk, path, tmp_path):
    zkl = private_zk
    script = "trap 'echo GOT-TERM; exit 0' TERM; echo HELD $ZKL_FENCING_TOKEN; " + LOOP
    p = zkl.start("lock", "--session-timeout", "2s", "--grace", "10s", path, "--",
                  "bash", "-c", script)
    p.expect("^HELD")
    # The client-side deadline fires (no reply from the paused server): LOST.
    rc = exit_while_paused(zkl, p)
    assert rc == EXIT_LOST, (rc, p.stderr)
    assert "GOT-TERM" in p.stdout
    assert "lost" in p.stderr


def test_lost_lock_sigkill_after_grace(private_zk, path):
    zkl = private_zk
    # Ignores SIGTERM (inherited by its children): only SIGKILL ends it.
    script = "trap '' TERM; echo HELD; " + LOOP
    p = zkl.start("lock", "--session-timeout", "2s", "--grace", "1s", path, "--",
                  "bash", "-c", script)
    p.expect("^HELD")
    rc = exit_while_paused(zkl, p)
    assert rc == EXIT_LOST, (rc, p.stderr)
    assert "SIGKILL" in p.stderr


def test_stop_on_suspend(private_zk, path):
    zkl = private_zk
    script = "trap 'echo GOT-TERM; exit 0' TERM; echo HELD; " + LOOP
    p = zkl.start("lock", "--session-timeout", "10s", "--stop-on-suspend", path, "--",
                  "bash", "-c", script)
    p.expect("^HELD")
    # Suspended after 2/3 of 10s; the lock would be declared lost later.
    rc = exit_while_paused(zkl, p)
    assert rc == EXIT_LOST, (rc, p.stderr)
    assert "GOT-TERM" in p.stdout
    assert "--stop-on-suspend" in p.stderr


def test_killed_zkl_stops_its_command(zkl, path):
    # zkl dies by SIGKILL: CMD must not run on without the lock.
    p = zkl.start("lock", path, "--", "sh", "-c", 'echo "HELD $$"; exec sleep 60')
    child = int(p.expect(r"^HELD (\d+)").group(1))
    p.p.kill()
    p.wait()
    wait_for(lambda: process_gone(child), timeout=10, what="command stopped")


# --------------------------------------------------------------------------
# Lock kinds
# --------------------------------------------------------------------------

def test_shared_and_exclusive(zkl, path):
    r1 = zkl.hold(path, "--shared", ident="r1")
    r2 = zkl.hold(path, "--read", ident="r2")  # both read at once
    w = zkl.start_holder(path, "--exclusive", ident="w")
    wait_for(lambda: len(participants(zkl, path, "--kind", "read-write")) == 3, what="writer queued")
    doc = status_json(zkl, path, "--kind", "read-write")
    assert doc["holders"] == 2 and doc["waiters"] == 1
    assert [(p["id"], p["mode"], p["holder"]) for p in doc["participants"]] == [
        ("r1", "read", True), ("r2", "read", True), ("w", "write", False)]
    r1.release()
    r2.release()
    m = w.expect(r"^HELD (\d+)")
    assert int(m.group(1)) > max(r1.token, r2.token)
    # A reader now waits for the writer.
    r = zkl.run("lock", "--shared", "--timeout", "300ms", path, "--", "true")
    assert r.returncode == EXIT_TIMEOUT
    w.release()
    for p in (r1, r2, w):
        assert p.wait() == 0


def test_semaphore(zkl, path):
    a = zkl.hold(path, "--semaphore", "2", ident="a")
    b = zkl.hold(path, "--semaphore", "2", ident="b")
    c = zkl.start_holder(path, "--semaphore", "2", ident="c")
    wait_for(lambda: len(participants(zkl, path, "--kind", "semaphore")) == 3, what="third queued")
    doc = status_json(zkl, path, "--kind", "semaphore", "--leases", "2")
    assert [(p["id"], p["holder"]) for p in doc["participants"]] == [
        ("a", True), ("b", True), ("c", False)]
    # Disagreeing on the lease count is an error, not a silent second lock.
    r = zkl.run("lock", "--semaphore", "3", "--timeout", "2s", path, "--", "true")
    assert r.returncode == EXIT_ZKL and "lease count" in r.stderr
    a.release()
    c.expect("^HELD")
    for p in (b, c):
        p.release()
    for p in (a, b, c):
        assert p.wait() == 0


def test_non_fair(zkl, path):
    h = zkl.hold(path, "--non-fair", ident="nf")
    r = zkl.run("lock", "--non-fair", "--timeout", "300ms", path, "--", "true")
    assert r.returncode == EXIT_TIMEOUT
    ps = participants(zkl, path, "--kind", "nonfair")
    assert [(p["id"], p["holder"], p["fencing_token"]) for p in ps] == [("nf", True, h.token)]
    h.release()
    assert h.wait() == 0
    r = zkl.run("lock", "--non-fair", "--timeout", "5s", path, "--", "sh", "-c",
                'echo "$ZKL_FENCING_TOKEN"')
    assert r.returncode == 0 and int(r.stdout) > h.token


def test_auth_and_creator_acl(zkl, path):
    secret = "s3cret-pw"
    p = zkl.start("lock", "-v", "--auth", f"alice:{secret}", "--acl", "creator", path, "--",
                  "sh", "-c", 'echo HELD; cat >/dev/null', stdin=subprocess.PIPE)
    p.expect("^HELD")
    ps = participants(zkl, path)  # world-readable
    assert len(ps) == 1 and ps[0]["holder"]
    p.release()
    assert p.wait() == 0
    assert secret not in p.stderr and secret not in p.stdout


# --------------------------------------------------------------------------
# zkl status
# --------------------------------------------------------------------------

def test_status_json_holder_and_waiters(zkl, path):
    t0 = time.time() * 1000
    holder = zkl.hold(path, ident="holder-1")
    w1 = zkl.start_holder(path, ident="waiter-1")
    wait_for(lambda: len(participants(zkl, path)) == 2, what="waiter-1 queued")
    w2 = zkl.start_holder(path, ident="waiter-2")
    wait_for(lambda: len(participants(zkl, path)) == 3, what="waiter-2 queued")
    doc = status_json(zkl, path)
    assert doc["path"] == path and doc["kind"] == "fair"
    assert doc["holders"] == 1 and doc["waiters"] == 2
    ps = doc["participants"]
    assert [p["position"] for p in ps] == [1, 2, 3]
    assert [p["id"] for p in ps] == ["holder-1", "waiter-1", "waiter-2"]
    assert [p["holder"] for p in ps] == [True, False, False]
    assert ps[0]["fencing_token"] == holder.token
    tokens = [p["fencing_token"] for p in ps]
    assert tokens == sorted(set(tokens))
    sids = [p["session_id"] for p in ps]
    assert all(re.fullmatch(r"0x[0-9a-f]+", s) for s in sids) and len(set(sids)) == 3
    for p in ps:
        assert p["ctime_ms"] >= t0 - 5000 and p["age_ms"] >= 0
        assert "-lock-" in p["node"]
    assert ps[0]["age_ms"] >= ps[2]["age_ms"]

    # The human form shows the same.
    r = zkl.run("status", path)
    assert r.returncode == 0
    assert "1 holder, 2 waiters" in r.stdout
    rows = [l.split() for l in r.stdout.splitlines() if re.match(r"\s+\d", l)]
    assert [(row[1], row[-1]) for row in rows] == [
        ("holds", "holder-1"), ("waits", "waiter-1"), ("waits", "waiter-2")]
    assert rows[0][2] == str(holder.token) and rows[0][3] == sids[0]

    for p in (holder, w1, w2):
        p.release()
    for p in (holder, w1, w2):
        assert p.wait() == 0


def test_status_of_free_lock(zkl, path):
    doc = status_json(zkl, path)
    assert doc == {"path": path, "kind": "fair", "holders": 0, "waiters": 0, "participants": []}
    r = zkl.run("status", path)
    assert r.returncode == 0 and "free" in r.stdout


# --------------------------------------------------------------------------
# zkl elect / zkl leader
# --------------------------------------------------------------------------

LEADER_CMD = 'echo "LEADER $ZKL_ID $ZKL_FENCING_TOKEN $$ $ZKL_ELECTION_PATH"; exec sleep 60'


def test_elect_failover_after_sigkill(zkl, path):
    a = zkl.start("elect", "--session-timeout", "2s", "--id", "A", path, "--", "sh", "-c", LEADER_CMD)
    m = a.expect(r"^LEADER A (\d+) (\d+) (\S+)")
    token_a, child_a = int(m.group(1)), int(m.group(2))
    assert m.group(3) == path
    b = zkl.start("elect", "--session-timeout", "2s", "--id", "B", path, "--", "sh", "-c", LEADER_CMD)
    wait_for(lambda: len(participants(zkl, path, "--kind", "election")) == 2, what="B in line")
    r = zkl.run("leader", path)
    assert r.returncode == 0 and r.stdout == "A\n"
    assert b.out_q.empty()  # B does not run while A leads

    t0 = time.monotonic()
    a.p.kill()  # SIGKILL: no goodbye; B takes over once A's session expires
    a.wait()
    m = b.expect(r"^LEADER B (\d+)", timeout=20)
    assert int(m.group(1)) > token_a
    assert time.monotonic() - t0 < 15
    wait_for(lambda: process_gone(child_a), timeout=10, what="A's command stopped")
    r = zkl.run("leader", path)
    assert r.stdout == "B\n"
    b.signal(signal.SIGTERM)
    assert b.wait() == 128 + signal.SIGTERM  # sleep was terminated by the forwarded signal
    r = zkl.run("leader", path)
    assert r.returncode == 1 and "no leader" in r.stderr


def test_elect_command_exit_resigns(zkl, path):
    a = zkl.start("elect", "--id", "A", path, "--", "sh", "-c", "echo LEADER; cat >/dev/null; exit 6",
                  stdin=subprocess.PIPE)
    a.expect("^LEADER")
    b = zkl.start("elect", "--id", "B", path, "--", "sh", "-c", "echo LEADER; exit 0")
    wait_for(lambda: len(participants(zkl, path, "--kind", "election")) == 2, what="B in line")
    a.release()
    assert a.wait() == 6
    assert b.wait() == 0 and "LEADER" in b.stdout


def test_elect_lost_leadership(private_zk, path):
    zkl = private_zk
    script = "trap 'echo GOT-TERM; exit 0' TERM; echo LEADER; " + LOOP
    p = zkl.start("elect", "--session-timeout", "2s", path, "--", "bash", "-c", script)
    p.expect("^LEADER")
    rc = exit_while_paused(zkl, p)
    assert rc == EXIT_LOST, (rc, p.stderr)
    assert "GOT-TERM" in p.stdout


def test_elect_rejoin_restarts_command(private_zk, path):
    zkl = private_zk
    script = ("trap 'echo GOT-TERM; exit 0' TERM; echo \"LEADER $ZKL_FENCING_TOKEN\"; " + LOOP)
    p = zkl.start("elect", "--rejoin", "--session-timeout", "2s", path, "--", "bash", "-c", script)
    first = int(p.expect(r"^LEADER (\d+)").group(1))
    zkl.server.pause()
    try:
        p.expect("^GOT-TERM", timeout=20)
    finally:
        zkl.server.resume()
    # CMD was stopped when the lease ran out. Leader again, either in the
    # same term (the session survived the pause: RESTORED, the same token)
    # or elected in a new session (a newer token): CMD runs again, and the
    # token never goes back.
    second = int(p.expect(r"^LEADER (\d+)", timeout=30).group(1))
    assert second >= first
    p.signal(signal.SIGTERM)
    assert p.wait() == 0  # the trap exits 0


def test_elect_unfair_and_leader_watch(zkl, path):
    watch = zkl.start("leader", "--unfair", "--watch", path)
    watch.expect("^-$")  # no leader yet
    a = zkl.start("elect", "--unfair", "--id", "U1", path, "--", "sh", "-c",
                  'echo LEADER; cat >/dev/null', stdin=subprocess.PIPE)
    a.expect("^LEADER")
    watch.expect("^U1$")
    r = zkl.run("leader", "--unfair", path)
    assert r.returncode == 0 and r.stdout == "U1\n"
    ps = participants(zkl, path, "--kind", "election-unfair")
    assert [(p["id"], p["holder"]) for p in ps] == [("U1", True)]
    a.release()
    assert a.wait() == 0
    watch.expect("^-$")
    watch.signal(signal.SIGTERM)
    assert watch.wait() == 0


@pytest.mark.parametrize("mode", [[], ["--foreground"]], ids=["own-group", "foreground"])
def test_terminal_ctrl_c_reaches_command_once(zkl, path, mode):
    """^C on a terminal: the command gets exactly one SIGINT in both modes
    (own group: zkl forwards it; --foreground: the terminal sends it to
    both, and zkl does not forward it again). A second SIGINT sent at the
    same moment may coalesce with the first, so this is no proof against
    double delivery, only that ^C works in both modes."""
    script = ("n=0; trap 'n=$((n+1)); echo GOT-INT $n' INT; trap 'echo USR1 $n; exit 4' USR1; "
              "echo HELD; " + LOOP)
    pid, master = pty.fork()
    if pid == 0:  # child: a session of its own with the pty as terminal
        try:
            os.execve(ZKL_BIN, [ZKL_BIN, "lock", *mode, path, "--", "bash", "-c", script], zkl.env)
        finally:
            os._exit(127)
    out = []

    def read_until(pattern, timeout=15):
        deadline = time.monotonic() + timeout
        buf = ""
        while time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(master, 4096).decode(errors="replace")
                except OSError:
                    break
                buf += chunk
                out.append(chunk)
                if re.search(pattern, buf):
                    return buf
        raise AssertionError(f"no {pattern!r} on the terminal within {timeout}s: {''.join(out)!r}")

    try:
        read_until("HELD")
        os.write(master, b"\x03")  # ^C
        read_until(r"GOT-INT 1")
        os.kill(pid, signal.SIGUSR1)  # forwarded after any SIGINT zkl would forward
        text = read_until(r"USR1 \d")
        assert "USR1 1" in text, "".join(out)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 4, (status, "".join(out))
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(master)
