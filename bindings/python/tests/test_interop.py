"""Across processes and libraries: two Python processes and one C process
(zkl-hold) exclude each other with strictly increasing fencing tokens; a
kazoo Lock and a zkl fair lock exclude each other on one path."""
import os
import re
import select
import subprocess
import sys
import threading
import time

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout

import zkl
from conftest import node_names, wait_until
from contender import append

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")


def read_line(proc, timeout):
    """One line of proc's stdout, waiting at most `timeout` seconds."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise AssertionError(f"no output from {proc.args[0]} within {timeout}s")
    return proc.stdout.readline()


def test_two_python_processes_and_a_c_process_exclude_each_other(zk, zkl_hold, path, tmp_path):
    log = str(tmp_path / "holds.log")
    pys = [
        subprocess.Popen([sys.executable, os.path.join(HERE, "contender.py"), zk.connect, path,
                          log, "4", "30", f"py{i}"], stdout=subprocess.PIPE, text=True)
        for i in range(2)
    ]
    try:
        # Let the Python contenders get going first, so that the C holds
        # interleave with theirs.
        wait_until(lambda: os.path.exists(log) and "start py" in open(log).read(), timeout=60,
                   what="a Python contender holding")
        for k in range(3):
            c = subprocess.Popen([zkl_hold, "--hold", "-1", "--timeout", "60000", zk.connect, path],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                line = read_line(c, 60)
                assert line.startswith("acquired "), line
                token = int(line.split()[1])
                append(log, f"start c{k} {token}")
                time.sleep(0.03)  # the C holder's critical section
                append(log, f"end c{k} {token}")
                c.stdin.close()
                assert read_line(c, 30).strip() == "released"
                assert c.wait(30) == 0
            finally:
                if c.poll() is None:
                    c.kill()
        for p in pys:
            assert p.wait(90) == 0
    finally:
        for p in pys:
            if p.poll() is None:
                p.kill()

    lines = [ln.split() for ln in open(log).read().splitlines()]
    assert len(lines) == 2 * (4 + 4 + 3)
    tokens = []
    for i in range(0, len(lines), 2):
        start, end = lines[i], lines[i + 1]
        # No overlap: every start is directly followed by its own end.
        assert start[0] == "start" and end[0] == "end" and start[1:] == end[1:], (start, end)
        tokens.append(int(start[2]))
    assert all(a < b for a, b in zip(tokens, tokens[1:])), tokens
    holders = {ln[1] for ln in lines}
    assert holders == {"py0", "py1", "c0", "c1", "c2"}


def test_example_runs(zk, path):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "contend.py"), zk.connect,
                          "--path", path, "--rounds", "2", "--hold", "0.05"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    tokens = [int(t) for t in re.findall(r"fencing token (\d+)", out.stdout)]
    assert len(tokens) == 4, out.stdout
    assert tokens == sorted(tokens) and len(set(tokens)) == 4


@pytest.fixture
def kazoo(zk):
    kz = KazooClient(hosts=zk.connect, timeout=10)
    kz.start(timeout=20)
    try:
        yield kz
    finally:
        kz.stop()
        kz.close()


def kazoo_try(klock, timeout):
    try:
        return klock.acquire(timeout=timeout)
    except LockTimeout:
        return False


def test_kazoo_lock_and_zkl_fair_lock_exclude_each_other(kazoo, client, path):
    klock = kazoo.Lock(path, "kazoo", extra_lock_patterns=("-lock-",))
    zlock = client.lock(path, timeout=5)

    # zkl holds: kazoo cannot get it.
    with zlock:
        ztoken = zlock.fencing_token
        assert not klock.acquire(blocking=False)
        assert not kazoo_try(klock, 0.3)
    # kazoo holds: zkl cannot get it.
    assert klock.acquire(timeout=5)
    try:
        assert not zlock.try_acquire()
        with pytest.raises(zkl.TimedOut):
            zlock.acquire(timeout=0.3)
        (kazoo_node,) = [p for p in client.inspect(path) if "__lock__" in p.name]
        assert kazoo_node.is_holder  # zkl counts the foreign node
        assert kazoo_node.fencing_token > ztoken
    finally:
        klock.release()
    assert zlock.acquire(timeout=5) > kazoo_node.fencing_token
    zlock.release()


def test_kazoo_and_zkl_queue_behind_each_other(kazoo, new_client, path):
    observer = new_client()
    zlock = new_client().lock(path, timeout=20)
    klock = kazoo.Lock(path, "kazoo", extra_lock_patterns=("-lock-",))
    got = threading.Event()

    # kazoo waits behind a zkl holder...
    zlock.acquire()

    def kazoo_waits():
        if klock.acquire(timeout=20):
            got.set()

    t = threading.Thread(target=kazoo_waits)
    t.start()
    wait_until(lambda: len(node_names(observer, path)) == 2, what="kazoo queued")
    assert not got.is_set()
    zlock.release()
    t.join(20)
    assert got.is_set()

    # ...and zkl waits behind the kazoo holder.
    result = []
    t = threading.Thread(target=lambda: result.append(zlock.acquire(timeout=20)))
    t.start()
    wait_until(lambda: len(node_names(observer, path)) == 2, what="zkl queued")
    assert not result
    klock.release()
    t.join(20)
    assert result and result[0] > 0
    zlock.release()
