"""Blocking API: every lock recipe, timeouts, try, cancel, owners, fencing."""
import threading
import time

import pytest

import zkl
from conftest import node_names, wait_until


def test_versions():
    c = zkl.capi
    expected = f"{c.ZKL_VERSION_MAJOR}.{c.ZKL_VERSION_MINOR}.{c.ZKL_VERSION_PATCH}"
    assert zkl.library_version() == expected
    assert c.zkl_version() == (c.ZKL_VERSION_MAJOR * 10000 + c.ZKL_VERSION_MINOR * 100
                               + c.ZKL_VERSION_PATCH)
    assert zkl.__version__ == expected


def test_client_session(client):
    assert client.state == zkl.SessionState.CONNECTED
    assert client.connected
    assert client.session_id > 0
    assert len(client.session_password) == 16
    assert client.session_timeout > 0
    assert client.fileno() >= 0
    assert client.stats()["client"]["sessions"] == 1
    events = client.dispatch()
    assert [e.type for e in events] == [zkl.EventType.SESSION]
    assert events[0].session_state == zkl.SessionState.CONNECTED


def test_fair_lock_context_manager(client, client2, path):
    with client.lock(path, timeout=5) as lock:
        token = lock.fencing_token
        assert token > 0
        assert lock.is_held
        assert lock.hold_count == 1
        other = client2.lock(path)
        assert other.try_acquire() is False
        assert len(node_names(client, path)) == 1  # try leaves no node behind
    assert not lock.is_held
    with pytest.raises(zkl.NotHeld):
        lock.fencing_token
    with client2.lock(path, timeout=5) as lock2:
        assert lock2.fencing_token > token


def test_acquire_returns_token(client, path):
    lock = client.lock(path)
    token = lock.acquire(timeout=5)
    assert token == lock.fencing_token
    lock.release()
    assert lock.acquire() > token  # same handle again: a new node, a larger czxid
    lock.release()


def test_fair_lock_is_fifo(new_client, path):
    holder = new_client().lock(path)
    holder.acquire(timeout=5)
    order, errors = [], []
    observer = new_client()

    def contend(name, c):
        try:
            with c.lock(path, timeout=20) as lk:
                order.append((name, lk.fencing_token))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = []
    for i, name in enumerate("abc"):
        c = new_client()
        t = threading.Thread(target=contend, args=(name, c))
        t.start()
        threads.append(t)
        # Queue them in a known order: wait until this one's node is there.
        wait_until(lambda: len(node_names(observer, path)) == i + 2, what=f"{name} queued")
    holder.release()
    for t in threads:
        t.join(30)
        assert not t.is_alive()
    assert not errors
    assert [n for n, _ in order] == ["a", "b", "c"]
    tokens = [t for _, t in order]
    assert tokens == sorted(tokens) and len(set(tokens)) == 3


def test_timeout(client, client2, path):
    with client.lock(path):
        other = client2.lock(path)
        t0 = time.monotonic()
        with pytest.raises(zkl.TimedOut) as info:
            other.acquire(timeout=0.3)
        assert time.monotonic() - t0 >= 0.25
        assert isinstance(info.value, TimeoutError)
        assert info.value.code == zkl.capi.ZKL_ETIMEDOUT
        assert info.value.name == "ZKL_ETIMEDOUT"
        # The failed acquire left no node behind (inspect runs after its
        # delete on the same session).
        assert len(node_names(client2, path)) == 1
        with pytest.raises(zkl.TimedOut):
            with client2.lock(path, timeout=0.1):
                pytest.fail("must not get here")
        with pytest.raises(zkl.TimedOut):
            other.acquire(timeout=0)


def test_try_acquire_free(client, path):
    lock = client.lock(path)
    assert lock.try_acquire()
    assert lock.is_held
    lock.release()
    assert node_names(client, path) == []


def test_non_reentrant_lock(client, path):
    lock = client.lock(path)
    lock.acquire(timeout=5)
    with pytest.raises(zkl.Deadlock):
        lock.acquire(timeout=1)
    with pytest.raises(zkl.Busy):
        lock.acquire(timeout=1, owner=12345)
    with pytest.raises(zkl.NotOwner):
        lock.release(owner=12345)
    lock.release()
    with pytest.raises(zkl.NotHeld):
        lock.release()


def test_reentrant_lock(client, client2, path):
    lock = client.reentrant_lock(path, timeout=5)
    with lock:
        token = lock.fencing_token
        with lock:
            assert lock.hold_count == 2
            assert lock.fencing_token == token
        assert lock.hold_count == 1
        assert lock.is_held
        assert client2.lock(path).try_acquire() is False
        with pytest.raises(zkl.Busy):
            lock.acquire(owner=7)
    assert lock.hold_count == 0
    assert not lock.is_held
    # Explicit owner tokens: acquired by one "task", released by another
    # thread with the same token.
    lock.acquire(owner=42)
    lock.acquire(owner=42)
    t = threading.Thread(target=lambda: (lock.release(owner=42), lock.release(owner=42)))
    t.start()
    t.join(10)
    assert lock.hold_count == 0
    assert node_names(client, path) == []


def test_nonfair_lock(client, client2, path):
    a = client.nonfair_lock(path, timeout=5)
    b = client2.nonfair_lock(path)
    with a:
        assert a.fencing_token > 0
        assert not b.try_acquire()
        assert node_names(client, path, zkl.LockKind.NONFAIR) == ["lock"]
        with pytest.raises(zkl.TimedOut):
            b.acquire(timeout=0.2)
    assert b.acquire(timeout=5) > 0
    b.release()


def test_read_write_lock(new_client, path):
    r1 = new_client().read_lock(path, timeout=5)
    r2 = new_client().read_lock(path, timeout=5)
    w = new_client().write_lock(path)
    with r1, r2:  # readers share
        assert r1.is_held and r2.is_held
        assert not w.try_acquire()
    w.acquire(timeout=5)  # the writer, alone now
    w.release()
    rw = new_client().read_write_lock(path, timeout=5)
    with rw.write:
        assert not r1.try_acquire()
        assert not w.try_acquire()
    with rw.read:
        assert r1.try_acquire()
        r1.release()
    rw.close()


def test_reader_behind_writer_waits(new_client, path):
    observer = new_client()
    r1 = new_client().read_lock(path, timeout=5)
    r1.acquire()
    w = new_client().write_lock(path, timeout=20)
    done = threading.Event()

    def write():
        with w:
            done.set()

    t = threading.Thread(target=write)
    t.start()
    wait_until(lambda: len(node_names(observer, path, zkl.LockKind.WRITE)) == 2, what="writer queued")
    # A new reader queues behind the waiting writer (no writer starvation).
    r2 = new_client().read_lock(path)
    assert not r2.try_acquire()
    r1.release()
    t.join(20)
    assert done.is_set()
    assert r2.acquire(timeout=5) > 0
    r2.release()


def test_semaphore(new_client, path):
    a = new_client().semaphore(path, 2, timeout=5)
    b = new_client().semaphore(path, 2, timeout=5)
    c = new_client().semaphore(path, 2)
    with a, b:
        assert a.is_held and b.is_held
        assert not c.try_acquire()
        with pytest.raises(zkl.TimedOut):
            c.acquire(timeout=0.2)
    assert c.acquire(timeout=5) > 0
    wrong = new_client().semaphore(path, 3)
    with pytest.raises(zkl.Mismatch):
        wrong.acquire(timeout=5)
    c.release()


def test_lock_data_visible_to_inspect(client, path):
    with client.lock(path, data=b"holder-1\x00x", timeout=5) as lock:
        (p,) = client.inspect(path)
        assert p.data == b"holder-1\x00x"
        assert p.is_holder
        assert p.fencing_token == lock.fencing_token
        assert p.session_id == client.session_id
        assert p.ctime_ms > 0


def test_cancel_blocking_acquire_from_thread(client, client2, path):
    with client.lock(path, timeout=5):
        waiter = client2.lock(path)
        result = []

        def run():
            try:
                waiter.acquire(timeout=30)
                result.append("acquired")
            except zkl.Cancelled as e:
                result.append(e)

        t = threading.Thread(target=run)
        t.start()
        wait_until(lambda: len(node_names(client, path)) == 2, what="waiter queued")
        assert waiter.cancel() is True
        t.join(10)
        assert not t.is_alive()
        assert isinstance(result[0], zkl.Cancelled)
        assert len(node_names(client2, path)) == 1
        assert waiter.cancel() is False


def test_gil_released_while_blocking(client, client2, path):
    with client.lock(path, timeout=5):
        waiter = client2.lock(path)
        t = threading.Thread(target=lambda: pytest.raises(zkl.TimedOut, waiter.acquire, timeout=1.0))
        t.start()
        # This thread keeps running Python code while the other one blocks in C.
        n = 0
        t0 = time.monotonic()
        while t.is_alive() and time.monotonic() - t0 < 10:
            n += 1
        t.join()
        assert n > 10000


def test_listener_and_release_event(client, path):
    seen = []
    lock = client.lock(path, timeout=5, listener=seen.append)
    client.add_listener(lambda e: seen.append(("client", e.type)))
    lock.acquire()
    lock.release(wait=False)  # RELEASED event reports the outcome
    wait_until(lambda: any(getattr(e, "type", None) == zkl.EventType.RELEASED for e in seen),
               client=client, what="RELEASED")
    ev = next(e for e in seen if getattr(e, "type", None) == zkl.EventType.RELEASED)
    assert ev.source is lock and ev.error == 0 and ev.exception is None
    assert ("client", zkl.EventType.RELEASED) in seen


def test_release_events_carry_request_ids(client, path):
    """release(wait=False): each RELEASED carries its call's request id; an
    inner hold of a reentrant lock is answered at once by its own."""
    seen = []
    lock = client.reentrant_lock(path, timeout=5, listener=seen.append)
    lock.acquire()
    lock.acquire()
    lock.release(wait=False)  # inner hold: the node stays
    assert lock.hold_count == 1 and lock.is_held
    lock.release(wait=False)

    def released():
        return [e for e in seen if e.type == zkl.EventType.RELEASED]

    wait_until(lambda: len(released()) == 2, client=client, what="two RELEASED")
    ids = [e.request_id for e in released()]
    assert all(i > 0 for i in ids) and ids[0] < ids[1]
    assert all(e.error == 0 and e.source is lock for e in released())
    assert lock.hold_count == 0 and not lock._kept
    assert node_names(client, path) == []


def test_dispatcher_thread(client, path):
    seen = []
    ready = threading.Event()

    def listener(ev):
        seen.append((ev.type, threading.current_thread().name))
        if ev.type == zkl.EventType.RELEASED:
            ready.set()

    lock = client.lock(path, timeout=5, listener=listener)
    t = client.start_dispatcher()
    assert t.daemon
    lock.acquire()
    lock.release(wait=False)
    assert ready.wait(10)
    assert (zkl.EventType.RELEASED, "zkl-dispatcher") in seen
    client.stop_dispatcher()
    assert not t.is_alive()


def test_close_handles(client, path):
    lock = client.lock(path, timeout=5)
    lock.acquire()
    lock.close()
    lock.close()  # idempotent
    with pytest.raises(zkl.Closed):
        lock.acquire()
    assert node_names(client, path) == []  # destroy released it


def test_client_close_closes_everything(zk, path):
    c = zkl.Client.connect(zk.connect, connect_timeout=20)
    lock = c.lock(path, timeout=5)
    lock.acquire()
    c.close()
    c.close()
    assert lock.is_held is False
    assert lock.valid_for() == 0.0 and lock.hold_count == 0
    with pytest.raises(zkl.Closed):
        c.lock(path)
    with pytest.raises(zkl.Closed):
        c.state


def test_event_fd_with_select_wait_and_wakeup(client, path):
    import select

    client.dispatch()  # drain the CONNECTED event
    assert select.select([client], [], [], 0)[0] == []  # nothing pending: not readable
    assert client.wait(0) is False
    lock = client.lock(path, timeout=5)
    lock.acquire()
    lock.release(wait=False)
    # Level-triggered: readable while the RELEASED event is pending.
    assert select.select([client], [], [], 10)[0] == [client]
    assert select.select([client], [], [], 0)[0] == [client]
    assert client.wait(5) is True
    (ev,) = client.poll(0)
    assert ev.type == zkl.EventType.RELEASED
    assert select.select([client], [], [], 0)[0] == []
    client.wakeup()
    t0 = time.monotonic()
    assert client.wait(10) is False  # woken up, no event
    assert time.monotonic() - t0 < 5
