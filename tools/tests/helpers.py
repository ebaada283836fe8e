"""Helpers for the tests of the `zkl` command, against real ZooKeeper servers.

Environment (set by tools/test.sh):
  ZKL_BIN            the zkl executable under test
  ZKL_TEST_SERVERS   connect string of a shared server started by test.sh
  ZKL_SOURCE_DIR     the repository (for scripts/zk-server)
Tests that pause a server get a private one (`private_zk`); the secured
servers of test_secured.py are session fixtures in conftest.py.
"""
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time

import pytest

SOURCE_DIR = os.environ.get(
    "ZKL_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
ZK_SERVER = os.path.join(SOURCE_DIR, "scripts", "zk-server")
ZKL_BIN = os.environ.get("ZKL_BIN", "zkl")

# Exit statuses of zkl (see `zkl lock --help`).
EXIT_LOST = 75
EXIT_TIMEOUT = 124
EXIT_ZKL = 125
EXIT_NOEXEC = 126
EXIT_NOTFOUND = 127


class Proc:
    """A running process whose stdout/stderr lines can be awaited with a bound."""

    def __init__(self, args, env=None, stdin=subprocess.DEVNULL, **kw):
        self.args = args
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=stdin, env=env, text=True, **kw)
        self.out_q, self.err_q = queue.Queue(), queue.Queue()
        self.out_lines, self.err_lines = [], []
        self._threads = [
            threading.Thread(target=self._pump, args=(self.p.stdout, self.out_q), daemon=True),
            threading.Thread(target=self._pump, args=(self.p.stderr, self.err_q), daemon=True),
        ]
        for t in self._threads:
            t.start()

    @staticmethod
    def _pump(stream, q):
        for line in stream:
            q.put(line.rstrip("\n"))
        q.put(None)

    @property
    def pid(self):
        return self.p.pid

    def expect(self, pattern, timeout=15, stream="out"):
        """Waits for a line matching `pattern` (regex); returns the match."""
        q = self.out_q if stream == "out" else self.err_q
        seen = self.out_lines if stream == "out" else self.err_lines
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no line matching {pattern!r} on {stream} of {self.args} within {timeout}s; "
                    f"seen: {seen}; stderr: {self.err_lines}")
            try:
                line = q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                q.put(None)  # keep EOF visible for later calls
                raise AssertionError(
                    f"{stream} of {self.args} ended without {pattern!r}; seen: {seen}; "
                    f"stderr: {self.err_lines}")
            seen.append(line)
            m = re.search(pattern, line)
            if m:
                return m

    def wait(self, timeout=20):
        """Waits for exit (bounded); returns the status; drains the output."""
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.args} did not exit within {timeout}s; "
                                 f"stdout: {self.out_lines}; stderr: {self.err_lines}")
        for t in self._threads:
            t.join(timeout=5)
        for q, seen in ((self.out_q, self.out_lines), (self.err_q, self.err_lines)):
            while True:
                try:
                    line = q.get_nowait()
                except queue.Empty:
                    break
                if line is None:
                    q.put(None)
                    break
                seen.append(line)
        return rc

    @property
    def stdout(self):
        return "\n".join(self.out_lines)

    @property
    def stderr(self):
        return "\n".join(self.err_lines)

    def signal(self, sig):
        self.p.send_signal(sig)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def release(self):
        """Closes stdin: the holder commands of these tests end on EOF."""
        if self.p.stdin:
            self.p.stdin.close()


class Zkl:
    """Runs the zkl command against one server."""

    def __init__(self, servers):
        self.servers = servers
        self.env = dict(os.environ, ZKL_SERVERS=servers)
        self.procs = []

    def run(self, *args, timeout=30, env=None, input=None):
        return subprocess.run([ZKL_BIN, *args], capture_output=True, text=True, timeout=timeout,
                              env=env or self.env, input=input)

    def start(self, *args, stdin=subprocess.DEVNULL, env=None):
        p = Proc([ZKL_BIN, *args], env=env or self.env, stdin=stdin)
        self.procs.append(p)
        return p

    def hold(self, path, *opts, ident=None, extra_env=None):
        """Starts `zkl lock` whose command prints HELD <token> and holds until
        stdin closes (Proc.release). Returns the Proc after HELD was seen."""
        p = self.start_holder(path, *opts, ident=ident)
        m = p.expect(r"^HELD (\d+)")
        p.token = int(m.group(1))
        return p

    def start_holder(self, path, *opts, ident=None):
        args = ["lock", *opts]
        if ident:
            args += ["--id", ident]
        args += [path, "--", "sh", "-c", 'echo "HELD $ZKL_FENCING_TOKEN $ZKL_ID"; cat >/dev/null']
        return self.start(*args, stdin=subprocess.PIPE)

    def cleanup(self):
        for p in self.procs:
            if p.p.stdin and not p.p.stdin.closed:
                p.release()
            p.kill()


def start_server(d, attempts=3, extra_env=None):
    """Starts a standalone server in directory d; returns its connect string.
    extra_env: ZK_TLS_DIR, ZK_SASL_* ... (see scripts/zk-server).
    Retries: on a busy machine a JVM may be slow to come up."""
    env = dict(os.environ, ZK_OWNER_PID=str(os.getpid()), **(extra_env or {}))
    errors = []
    for _ in range(attempts):
        r = subprocess.run([ZK_SERVER, "start", d], capture_output=True, text=True, timeout=120,
                           env=env)
        if r.returncode == 0:
            return r.stdout.strip().splitlines()[-1]
        errors.append(r.stderr.strip())
        subprocess.run([ZK_SERVER, "kill", d], capture_output=True, timeout=60)
    raise RuntimeError("zk-server start failed: " + "\n---\n".join(errors))


def need_tools(*names):
    """Skips the test when a system tool is missing -- except in CI (the CI
    environment variable set), where scripts/install-deps installs them all
    and a skip would hide a broken setup: there it fails. Also looks in the
    sbin directories (krb5kdc, kdb5_util) that a user's PATH may lack."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    missing = [n for n in names if not shutil.which(n, path=path)]
    if not missing:
        return
    why = "missing system tools: " + ", ".join(missing)
    if os.environ.get("CI"):
        pytest.fail(why + " (CI must have them: scripts/install-deps)")
    pytest.skip(why)


def zk_server(cmd, d):
    subprocess.run([ZK_SERVER, cmd, d], capture_output=True, text=True, timeout=60, check=True)


class PrivateServer:
    def __init__(self, d):
        self.dir = d
        self.servers = start_server(d)

    def pause(self):
        zk_server("pause", self.dir)

    def resume(self):
        zk_server("resume", self.dir)

    def stop(self):
        zk_server("stop", self.dir)


def participants(zkl, path, *opts):
    """The participants of PATH as `zkl status --json` lists them."""
    r = zkl.run("status", "--json", *opts, path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["participants"]


def wait_for(cond, timeout=15, interval=0.05, what="condition"):
    """Polls `cond` (bounded); returns its truthy value."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def process_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie still answers kill(0): look at its state.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
