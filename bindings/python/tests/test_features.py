"""Multi-lock, revocation, max hold, semaphore leases, statistics events and
the log channel into `logging`."""
import asyncio
import logging

import pytest

import zkl
from conftest import connect, node_names, wait_until


def run(coro, timeout=60):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def test_multilock_all_or_none(new_client, path):
    c, other = new_client(), new_client()
    a, b = c.lock(path + "/b"), c.lock(path + "/a")
    m = c.multilock([a, b])
    assert [lk.path for lk in m.members] == [path + "/a", path + "/b"]  # canonical order
    blocker = other.lock(path + "/b")
    blocker.acquire(timeout=5)
    with pytest.raises(zkl.TimedOut):
        m.acquire(timeout=0.3)
    assert node_names(c, path + "/a") == []  # the member taken meanwhile was released
    blocker.release()
    m.acquire(timeout=5)
    assert m.is_held and 0 < m.valid_for()
    tokens = m.fencing_tokens
    assert set(tokens) == {path + "/a", path + "/b"} and all(t > 0 for t in tokens.values())
    assert other.lock(path + "/a").try_acquire() is False
    with pytest.raises(zkl.Busy):
        a.acquire(timeout=0)  # a member belongs to the multi-lock
    m.release()
    assert not m.is_held
    with pytest.raises(zkl.NotHeld):
        m.release()
    m.close()
    assert a.is_held is False


def test_multilock_async(client, path):
    m = client.multilock([client.lock(path + "/x"), client.semaphore(path + "/y", 3)])

    async def main():
        async with m:
            assert m.is_held
        assert not m.is_held

    run(main())


def test_semaphore_leases(new_client, path):
    big = new_client().semaphore(path, 3, leases=2)
    small = new_client().semaphore(path, 3)
    other = new_client().semaphore(path, 3, leases=2)
    big.acquire(timeout=5)
    (p,) = new_client().inspect(path, zkl.LockKind.SEMAPHORE)
    assert p.leases == 2
    small.acquire(timeout=5)  # 2 + 1 = 3
    assert other.try_acquire() is False
    big.release()
    assert other.acquire(timeout=5) > 0
    small.release()
    other.release()


def test_max_hold_delivers_lost(client, path):
    events = []
    lock = client.lock(path, max_hold=0.3, listener=events.append)

    async def main():
        await lock.acquire_async(timeout=5)
        ev = await asyncio.wait_for(lock.until_lost(), 10)
        assert isinstance(ev.exception, zkl.MaxHoldExceeded)

    run(main())
    assert not lock.is_held
    with pytest.raises(zkl.LockLost):
        lock.release()


def test_revoke_notify_and_release(new_client, path):
    holder_client, tool = new_client(), new_client()
    events = []
    notified = holder_client.lock(path + "/n", on_revoke=zkl.OnRevoke.NOTIFY,
                                  listener=events.append)
    released = holder_client.lock(path + "/r", on_revoke=zkl.OnRevoke.RELEASE,
                                  listener=events.append)
    notified.acquire(timeout=5)
    released.acquire(timeout=5)
    assert tool.revoke(path + "/n") == 1
    wait_until(lambda: any(e.type == zkl.EventType.REVOKE_REQUESTED and e.source is notified
                           for e in events), client=holder_client, what="REVOKE_REQUESTED")
    assert notified.is_held  # NOTIFY: the holder decides
    (p,) = tool.inspect(path + "/r")
    assert tool.revoke(path + "/r", holder=p.name) == 1
    wait_until(lambda: any(e.type == zkl.EventType.LOST and e.source is released for e in events),
               client=holder_client, what="LOST (revoked)")
    lost = [e for e in events if e.type == zkl.EventType.LOST][-1]
    assert isinstance(lost.exception, zkl.Revoked)
    notified.release()


def test_stats_events(zk, path):
    c = connect(zk.connect, stats_interval=0.1)
    try:
        docs = []
        c.add_listener(lambda e: e.type == zkl.EventType.STATS and docs.append(e.stats))
        wait_until(lambda: docs, client=c, what="a STATS event")
        assert docs[0]["schema"] == 1 and "client" in docs[0]
    finally:
        c.close()


def test_log_lines_go_to_logging(zk, caplog):
    caplog.set_level(logging.DEBUG, logger="zkl")
    c = connect(zk.connect)  # the "zkl" logger at DEBUG: zkl logs at DEBUG
    try:
        wait_until(lambda: any(r.name == "zkl" for r in caplog.records), client=c,
                   what="a log line")
    finally:
        c.close()
    rec = next(r for r in caplog.records if r.name == "zkl")
    assert rec.zkl_component in ("zkl", "zookeeper", "tls", "sasl")
    assert rec.levelno in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)


def test_log_level_off_and_own_logger(zk, caplog):
    caplog.set_level(logging.DEBUG)
    mine = logging.getLogger("myapp.zk")
    c = connect(zk.connect, log_level=zkl.LogLevel.DEBUG, logger=mine)
    try:
        wait_until(lambda: any(r.name == "myapp.zk" for r in caplog.records), client=c,
                   what="a log line on the given logger")
    finally:
        c.close()
    caplog.clear()
    c = connect(zk.connect, log_level=zkl.LogLevel.OFF)
    try:
        c.dispatch()
        assert not [r for r in caplog.records if r.name == "zkl"]
    finally:
        c.close()


def test_election_restored_and_until_lost_on_close(zk, path):
    c = connect(zk.connect)
    e = c.election(path, "me")

    async def main():
        await e.campaign_async(timeout=5)
        lost = asyncio.ensure_future(e.until_lost())
        await asyncio.sleep(0)
        c.close()
        ev = await asyncio.wait_for(lost, 10)
        assert isinstance(ev.exception, zkl.Closed)

    run(main())
