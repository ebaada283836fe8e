"""Fixtures: real ZooKeeper servers (scripts/zk-server, loopback only), clients,
unique paths, the zkl-hold C contender, and bounded waiting helpers."""
import asyncio
import contextlib
import itertools
import os
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import time

import pytest

import zkl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("ZKL_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
ZK_SERVER = os.path.join(ROOT, "scripts", "zk-server")


class ZkServer:
    """A standalone server in its own directory, controlled by zk-server."""

    def __init__(self, directory):
        self.dir = str(directory)
        self.connect = None

    def _run(self, *args, timeout=90):
        env = dict(os.environ, ZK_OWNER_PID=str(os.getpid()))
        out = subprocess.run([ZK_SERVER, *args, self.dir], check=True, capture_output=True,
                             text=True, timeout=timeout, env=env)
        return out.stdout.strip()

    def start(self):
        self.connect = self._run("start").splitlines()[-1]
        return self

    def stop(self):
        self._run("stop")

    def pause(self):
        self._run("pause")

    def resume(self):
        self._run("resume")


@pytest.fixture(scope="session")
def zk(tmp_path_factory):
    """The shared server of the test session."""
    server = ZkServer(tmp_path_factory.mktemp("zk")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def zk_private(tmp_path_factory):
    """A server of the module's own, for tests that pause or stop it."""
    server = ZkServer(tmp_path_factory.mktemp("zk-private")).start()
    try:
        yield server
    finally:
        server.stop()  # also resumes a paused server first


_counter = itertools.count(1)


@pytest.fixture
def path(request):
    """A fresh lock path per test."""
    name = request.node.name.replace("[", "-").replace("]", "").replace("/", "_")
    return f"/zkl-py/{os.getpid()}-{next(_counter)}-{name}"


def connect(servers, **kw):
    kw.setdefault("connect_timeout", 20)
    return zkl.Client.connect(servers, **kw)


@pytest.fixture
def new_client(zk):
    """Factory: new_client() -> a connected client (closed at teardown)."""
    made = []

    def make(servers=None, **kw):
        c = connect(servers or zk.connect, **kw)
        made.append(c)
        return c

    yield make
    for c in reversed(made):
        c.close()


@pytest.fixture
def client(new_client):
    return new_client()


@pytest.fixture
def client2(new_client):
    return new_client()


@contextlib.contextmanager
def paused(server):
    """The ZooKeeper server paused (SIGSTOP) for the with block, resumed after."""
    server.pause()
    try:
        yield
    finally:
        server.resume()


def run(coro, timeout=60):
    """asyncio.run with an overall bound, so a bug fails instead of hanging."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def until(pred, timeout=15.0, what="condition"):
    """Bounded wait for state that no event announces (another client's node)."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def wait_until(pred, timeout=15.0, client=None, interval=0.01, what="condition"):
    """Waits (bounded) until pred() is true. With a client, waits on its
    event fd and dispatches events meanwhile; otherwise re-checks every
    `interval` seconds (for state that no event announces, e.g. another
    client's node appearing)."""
    deadline = time.monotonic() + timeout
    while True:
        if client is not None:
            client.dispatch()
        if pred():
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        if client is not None:
            client.wait(min(left, interval if interval > 0.05 else 0.05))
        else:
            time.sleep(min(left, interval))


def node_names(client, path, kind=zkl.LockKind.FAIR):
    try:
        return [p.name for p in client.inspect(path, kind)]
    except zkl.NotFound:
        return []


def expire_session(servers, client, timeout=20.0):
    """Expires `client`'s session for real: connects to the server as that
    session (same id and password) and closes it, as kazoo's
    KazooClient(client_id=...) would. Taking the session over makes the
    server drop the original connection, and if the original client
    reconnects before the close goes out it takes the session back; so this
    pipelines connect + closeSession on one socket and repeats until the
    server confirms the close or answers that the session is expired."""
    sid, passwd = client.session_id, client.session_password
    assert sid != 0
    host, port = servers.split(",")[0].rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if _close_session_once((host, int(port)), sid, passwd):
                return
        except OSError:
            pass
    raise AssertionError(f"could not expire session 0x{sid:x} within {timeout}s")


def _close_session_once(addr, sid, passwd):
    # ZooKeeper's wire format (jute): a 4-byte length before each packet.
    connect = struct.pack(">iqiqi", 0, 0, 30000, sid, len(passwd)) + passwd + b"\x00"
    close = struct.pack(">ii", 1, -11)  # xid 1, OpCode.closeSession
    with socket.create_connection(addr, timeout=5) as s:
        s.sendall(struct.pack(">i", len(connect)) + connect + struct.pack(">i", len(close)) + close)
        reply = _read_packet(s)
        _, session_timeout, got_sid = struct.unpack(">iiq", reply[:16])
        if session_timeout <= 0 or got_sid != sid:
            return True  # already expired
        header = _read_packet(s)
        xid, _, err = struct.unpack(">iqi", header[:16])
        return xid == 1 and err == 0


def _read_packet(s):
    (n,) = struct.unpack(">i", _read_exactly(s, 4))
    return _read_exactly(s, n)


def _read_exactly(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed by the server")
        buf += chunk
    return buf


def _zkl_flags():
    prefix = os.environ.get("ZKL_PREFIX")
    if prefix:
        lib = os.path.join(prefix, "lib")
        return [f"-I{prefix}/include", f"-L{lib}", f"-Wl,-rpath,{lib}", "-lzkl"]
    out = subprocess.run(["pkg-config", "--cflags", "--libs", "zkl"], check=True,
                         capture_output=True, text=True).stdout
    flags = shlex.split(out)
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    return flags + [f"-Wl,-rpath,{d}" for d in libdirs]


@pytest.fixture(scope="session")
def zkl_hold(tmp_path_factory):
    """Path of the zkl-hold C contender, built from tests/tools/zkl_hold.c."""
    src = os.path.join(ROOT, "tests", "tools", "zkl_hold.c")
    if not os.path.exists(src):
        pytest.fail(f"{src} not found (set ZKL_SOURCE_DIR)")
    out = str(tmp_path_factory.mktemp("bin") / "zkl-hold")
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    subprocess.run([cc, "-O1", "-o", out, src, *_zkl_flags()], check=True, timeout=120)
    return out


@pytest.fixture
def python_exe():
    return sys.executable
