"""The scenarios of bindings/CONFORMANCE.md, one test each, named test_<id>.
(lost_on_session_expiry is in test_asyncio.py: the loss arrives on the loop.)"""
import asyncio
import gc
import json
import os
import re
import threading
import time
import warnings

import pytest

import zkl
from zkl import capi
from conftest import ROOT, connect, node_names, run, until, wait_until



def test_fair_lock_excludes(client, client2, path):
    a = client.lock(path)
    a.acquire(timeout=5)
    b = client2.lock(path)
    assert b.try_acquire() is False  # ZKL_EAGAIN: would block
    assert capi.zkl_lock_try_acquire(b._h, zkl.DEFAULT_OWNER) == capi.ZKL_EAGAIN
    a.release()
    assert b.acquire(timeout=5) > 0
    b.release()


def test_timeout_zero_tries_once(client, client2, path):
    a = client.lock(path)
    assert a.acquire(timeout=0) > 0  # free: acquired
    b = client2.lock(path)
    t0 = time.monotonic()
    with pytest.raises(zkl.TimedOut):
        b.acquire(timeout=0)
    assert time.monotonic() - t0 < 2.0  # at once: one round trip, no waiting
    assert len(node_names(client2, path)) == 1  # no node left
    a.release()


def test_acquire_timeout_leaves_no_node(client, client2, path):
    holder = client.lock(path)
    holder.acquire(timeout=5)
    other = client2.lock(path)
    t0 = time.monotonic()
    with pytest.raises(zkl.TimedOut):
        other.acquire(timeout=0.2)
    assert time.monotonic() - t0 >= 0.15
    # inspect on the waiter's own session runs after its delete
    assert len(node_names(client2, path)) == 1
    holder.release()
    assert node_names(client2, path) == []


def test_cancel_pending_acquire(client, client2, path):
    holder = client.lock(path)
    holder.acquire(timeout=5)
    waiter = client2.lock(path)

    async def main():
        task = asyncio.create_task(waiter.acquire_async(timeout=30))
        await until(lambda: len(node_names(client, path)) == 2, what="waiter queued")
        assert waiter.cancel() is True
        with pytest.raises(zkl.Cancelled):
            await task
        assert len(node_names(client2, path)) == 1

    run(main())
    holder.release()


def test_async_acquire_event(client, path):
    events = []
    lock = client.lock(path, listener=events.append)

    async def main():
        token = await lock.acquire_async(timeout=5)
        assert token > 0 and token == lock.fencing_token
        (ev,) = [e for e in events if e.type == zkl.EventType.ACQUIRED]
        assert ev.fencing_token == token and ev.source is lock and ev.error == 0
        lock.release()

    run(main())


def test_reentrant_hold_count(client, client2, path):
    lock = client.reentrant_lock(path)
    lock.acquire(timeout=5)
    lock.acquire(timeout=5)
    assert lock.hold_count == 2
    lock.release()
    assert lock.hold_count == 1 and lock.is_held
    assert client2.lock(path).try_acquire() is False
    lock.release()
    assert lock.hold_count == 0 and not lock.is_held


@pytest.mark.parametrize("make", ["lock", "reentrant_lock", "semaphore", "class", "with"])
def test_release_twice_not_held(client, path, make):
    if make == "semaphore":
        lock = client.semaphore(path, 2)
    elif make == "class":
        lock = zkl.Lock(client, path)
    else:
        lock = getattr(client, "lock" if make == "with" else make)(path)
    if make == "with":
        with lock:
            pass
    else:
        lock.acquire(timeout=5)
        lock.release()
    with pytest.raises(zkl.NotHeld) as info:
        lock.release()
    assert info.value.code == capi.ZKL_ENOTHELD


def test_release_wrong_owner(client, path):
    lock = client.lock(path)
    lock.acquire(timeout=5)
    with pytest.raises(zkl.NotOwner):
        lock.release(owner=12345)
    assert lock.is_held
    lock.release()


def test_default_owner_any_thread_releases(client, path):
    lock = client.lock(path)
    assert lock.owner == zkl.DEFAULT_OWNER == capi.ZKL_DEFAULT_OWNER
    lock.acquire(timeout=5)
    errors = []

    def release():
        try:
            lock.release()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=release)
    t.start()
    t.join(10)
    assert not errors and not lock.is_held
    assert node_names(client, path) == []


def test_fencing_token_increases(client, client2, path):
    tokens = []
    for c in (client, client2, client, client2):
        lock = c.lock(path)
        tokens.append(lock.acquire(timeout=5))
        lock.release()
    for t in tokens:
        assert 0 < t < 2**64  # unsigned 64-bit, never negative
    assert all(a < b for a, b in zip(tokens, tokens[1:])), tokens


def test_valid_for_while_held(client, path):
    lock = client.lock(path)
    assert lock.valid_for() == 0.0 and lock.valid_until() is None
    lock.acquire(timeout=5)
    left = lock.valid_for()
    assert 0 < left < client.session_timeout
    now = time.monotonic()
    until_ = lock.valid_until()
    assert until_ is not None and now < until_ < now + client.session_timeout
    rc, ms = capi.zkl_lock_valid_for(lock._h)
    assert rc == 0 and 0 < ms
    lock.release()
    assert lock.valid_for() == 0.0 and lock.valid_until() is None
    rc, ms = capi.zkl_lock_valid_for(lock._h)
    assert rc == capi.ZKL_ENOTHELD and ms == 0


def test_is_held_false_after_close(zk, path):
    c = connect(zk.connect)
    lock = c.lock(path)
    lock.acquire(timeout=5)
    election = c.election(path + "-e", "me")
    election.campaign(timeout=5)
    c.close()
    assert lock.is_held is False
    assert election.is_leader is False
    assert lock.valid_for() == 0.0


def test_lost_on_client_close(zk, client2, path):
    c = connect(zk.connect)
    seen = []
    lock = c.lock(path, listener=seen.append)

    async def main():
        await lock.acquire_async(timeout=5)
        lost = asyncio.ensure_future(lock.until_lost())
        await asyncio.sleep(0)
        c.close()
        ev = await asyncio.wait_for(lost, 10)
        assert ev.type == zkl.EventType.LOST
        assert ev.error == capi.ZKL_ECLOSED
        assert isinstance(ev.exception, zkl.Closed)

    run(main())
    assert [e.type for e in seen][-1] == zkl.EventType.LOST
    assert not lock.is_held
    # The session (and so the node) is gone: another client gets the lock.
    assert client2.lock(path).acquire(timeout=10) > 0


def test_lost_on_client_close_blocking_listener(zk, path):
    """Without a loop: close() delivers LOST to the listeners itself."""
    c = connect(zk.connect)
    seen = []
    lock = c.lock(path, listener=seen.append)
    lock.acquire(timeout=5)
    c.close()
    lost = [e for e in seen if e.type == zkl.EventType.LOST]
    assert len(lost) == 1 and isinstance(lost[0].exception, zkl.Closed)
    assert not any(e.type == zkl.EventType.RELEASED for e in seen)


def test_lost_on_client_close_from_another_thread(zk, path):
    """close() from another thread while the client is attached to a loop:
    the LOST event still arrives on the loop."""
    c = connect(zk.connect)
    lock = c.lock(path)

    async def main():
        await lock.acquire_async(timeout=5)
        loop_thread = threading.get_ident()
        threads = []
        lock.add_listener(lambda e: threads.append(threading.get_ident()))
        lost = asyncio.ensure_future(lock.until_lost())
        await asyncio.get_running_loop().run_in_executor(None, c.close)
        ev = await asyncio.wait_for(lost, 10)
        assert isinstance(ev.exception, zkl.Closed)
        assert set(threads) == {loop_thread}

    run(main())


def test_campaign_timeout_leaves_election(new_client, path):
    a = new_client().election(path, "alpha")
    a.campaign(timeout=5)
    c = new_client()
    b = c.election(path, "beta")
    with pytest.raises(zkl.TimedOut):
        b.campaign(timeout=0.2)
    assert not b.is_leader
    names = node_names(c, path, zkl.ElectionKind.FAIR)  # after b's delete (same session)
    assert len(names) == 1
    (p,) = c.inspect(path, zkl.ElectionKind.FAIR)
    assert p.data == b"alpha"
    with pytest.raises(zkl.NotHeld):
        b.resign()  # not taking part any more
    a.resign()


def test_campaign_when_leader_returns_at_once(client, path):
    e = client.election(path, "me")
    token = e.campaign(timeout=5)
    t0 = time.monotonic()
    assert e.campaign(timeout=5) == token
    assert e.campaign(timeout=0) == token
    assert e.campaign(timeout=None) == token
    assert time.monotonic() - t0 < 1.0

    async def main():
        assert await e.campaign_async(timeout=5) == token

    run(main())
    assert e.is_leader
    assert len(node_names(client, path, zkl.ElectionKind.FAIR)) == 1
    e.resign()


def test_observer_leader_and_term(new_client, path):
    c1, c2, c3 = new_client(), new_client(), new_client()
    a = c1.election(path, "alpha")
    b = c2.election(path, "beta")
    t1 = a.campaign(timeout=5)
    events = []
    o = c3.observer(path, listener=events.append)
    wait_until(lambda: o.leader == "alpha", client=c3, what="observer sees alpha")
    assert o.term == t1
    ev = [e for e in events if e.type == zkl.EventType.LEADER_CHANGED][-1]
    assert ev.leader == "alpha" and ev.term == t1
    a.resign()
    t2 = b.campaign(timeout=5)
    wait_until(lambda: o.leader == "beta", client=c3, what="observer sees beta")
    assert o.term == t2 and t2 > t1
    b.resign()
    wait_until(lambda: o.leader is None, client=c3, what="no leader")
    assert o.term is None
    wait_until(lambda: events[-1].type == zkl.EventType.NO_LEADER, client=c3, what="NO_LEADER")
    assert events[-1].leader is None


def test_semaphore_max_leases(new_client, path):
    a = new_client().semaphore(path, 2)
    b = new_client().semaphore(path, 2)
    c = new_client().semaphore(path, 2)
    a.acquire(timeout=5)
    b.acquire(timeout=5)
    assert a.is_held and b.is_held
    assert c.try_acquire() is False
    with pytest.raises(zkl.TimedOut):
        c.acquire(timeout=0.2)
    a.release()
    assert c.acquire(timeout=5) > 0
    b.release()
    c.release()


def test_read_write_lock_shared(new_client, path):
    r1 = new_client().read_lock(path)
    r2 = new_client().read_lock(path)
    w = new_client().write_lock(path)
    r1.acquire(timeout=5)
    r2.acquire(timeout=5)
    assert r1.is_held and r2.is_held
    result = []
    t = threading.Thread(target=lambda: result.append(w.acquire(timeout=20)))
    t.start()
    observer = new_client()
    wait_until(lambda: len(node_names(observer, path, zkl.LockKind.WRITE)) == 3,
               what="writer queued")
    r1.release()
    t.join(0.2)
    assert not result  # one reader still holds
    r2.release()
    t.join(20)
    assert result and result[0] > 0 and w.is_held
    w.release()


@pytest.mark.parametrize("bad", ["", "relative", "/trailing/", "/a//b", "/a/./b", "/a/../b",
                                 "/ctrl\x01"])
def test_bad_path_rejected(client, bad):
    with pytest.raises(zkl.BadPath) as info:
        client.lock(bad)
    assert info.value.code == capi.ZKL_EBADPATH


def test_destroyed_handle_errors(client, path):
    lock = client.lock(path)
    raw = lock._h
    lock.acquire(timeout=5)
    lock.close()
    assert lock.is_held is False
    with pytest.raises((zkl.Closed, zkl.BadHandle)):
        lock.acquire(timeout=1)
    with pytest.raises((zkl.Closed, zkl.BadHandle)):
        lock.release()
    # The C layer checks handles: a destroyed one is an error, not a crash.
    assert capi.zkl_lock_is_held(raw) == capi.ZKL_EBADHANDLE
    assert capi.zkl_lock_acquire(raw, 1, 0) == capi.ZKL_EBADHANDLE
    assert capi.zkl_lock_destroy(raw) == capi.ZKL_EBADHANDLE
    assert node_names(client, path) == []  # destroy released it
    e = client.election(path, "me")
    e.close()
    assert e.is_leader is False
    with pytest.raises((zkl.Closed, zkl.BadHandle)):
        e.campaign(timeout=1)


def test_held_lock_outlives_dropped_reference(client, client2, path):
    client.lock(path).acquire(timeout=5)  # the last reference is dropped at once
    gc.collect()
    other = client2.lock(path)
    assert other.try_acquire() is False  # still held: no collector released it
    assert len(node_names(client2, path)) == 1
    # An acquiring handle is kept too: its async result still arrives.
    async def main():
        task = asyncio.ensure_future(client2.lock(path).acquire_async(timeout=30))
        await until(lambda: len(node_names(client, path)) == 2, what="waiter queued")
        gc.collect()
        client.close()  # the holder's session ends: the waiter gets it
        token = await asyncio.wait_for(task, 20)
        assert token > 0

    run(main())


def test_held_lock_collected_with_its_client_warns(zk, path):
    c = connect(zk.connect)
    c.lock(path).acquire(timeout=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del c
        gc.collect()
    assert any(issubclass(w.category, ResourceWarning) for w in caught), caught


def test_stats_document(client, path):
    lock = client.lock(path)
    lock.acquire(timeout=5)
    doc = client.stats()
    assert doc["schema"] == 1
    cl = doc["client"]
    for key in ("state", "session_id", "requests", "events", "sessions", "heartbeats"):
        assert key in cl, key
    assert cl["state"] == "connected" and cl["sessions"] == 1
    (entry,) = [h for h in doc["handles"] if h["path"] == path]
    assert entry["held"] is True
    mine = lock.stats()
    assert mine["type"] == "lock" and mine["held"] is True and mine["acquisitions"] == 1
    lock.release()
    json.dumps(doc)  # plain JSON data


def test_set_servers_keeps_session(zk, new_client, path):
    # The suite's server and one that refuses (127.0.0.1:1); the new list
    # is the suite's server alone, the one the client is connected to.
    client = new_client(zk.connect + ",127.0.0.1:1")
    lock = client.lock(path)
    token = lock.acquire(timeout=5)
    sid = client.session_id
    for _ in range(2):  # the second time the list in force is given again
        client.set_servers(zk.connect)
        assert client.session_id == sid
        assert lock.is_held is True
        assert lock.fencing_token == token
        cl = client.stats()["client"]
        assert cl["server_list_changes"] == 1
        assert cl["servers"] == zk.connect


@pytest.mark.parametrize("bad", ["", "nohostport", "a\x00b"])
def test_set_servers_errors(zk, client, bad):
    with pytest.raises(zkl.InvalidArgument) as e:
        client.set_servers(bad)
    assert e.value.code == capi.ZKL_EINVAL
    assert str(e.value).startswith("set servers: ")
    assert client.session_id != 0  # a bad list leaves the session alone


def test_set_servers_errors_after_close(zk):
    c = connect(zk.connect)
    c.close()
    with pytest.raises(zkl.Closed, match="^set servers: "):
        c.set_servers(zk.connect)
    with pytest.raises(zkl.Closed, match="^follow ensemble: "):
        c.follow_ensemble(True)


def test_follow_ensemble_standalone(zk, new_client, path):
    # A standalone server has no ensemble configuration to follow: the call
    # succeeds, the list stays the suite's server, and the statistics say
    # why it is not followed.
    client = new_client()
    lock = client.lock(path)
    lock.acquire(timeout=5)
    sid = client.session_id
    client.follow_ensemble(True)

    def not_followed():
        e = client.stats()["client"]["ensemble"]
        return e["following"] is True and e.get("not_followed", "") != ""

    wait_until(not_followed, what="ensemble.not_followed")
    assert client.stats()["client"]["servers"] == zk.connect
    assert client.session_id == sid and lock.is_held
    client.follow_ensemble(False)
    assert client.stats()["client"]["ensemble"]["following"] is False
    # The option does the same right after creation.
    other = new_client(follow_ensemble=True)
    assert other.stats()["client"]["ensemble"]["following"] is True


def _header_constants():
    candidates = [os.path.join(os.environ.get("ZKL_PREFIX", ""), "include", "zkl.h"),
                  os.path.join(ROOT, "include", "zkl.h")]
    header = next(p for p in candidates if os.path.exists(p))
    with open(header) as f:
        text = f.read()
    consts = {}
    for m in re.finditer(r"^#define (ZKL_[A-Z0-9_]+) (-?\d+)\b", text, re.M):
        consts[m.group(1)] = int(m.group(2))
    return consts


def test_constants_match_header():
    consts = _header_constants()
    assert len(consts) > 60
    for name, value in consts.items():
        assert getattr(capi, name) == value, name
    # The enums are built from capi (SWIG), member for member.
    groups = [(zkl.EventType, "ZKL_EVENT_"), (zkl.SessionState, "ZKL_SESSION_"),
              (zkl.LockKind, "ZKL_LOCK_"), (zkl.ElectionKind, "ZKL_ELECTION_"),
              (zkl.Acl, "ZKL_ACL_"), (zkl.LogLevel, "ZKL_LOG_"), (zkl.OnRevoke, "ZKL_REVOKE_"),
              (zkl.CreateFlag, "ZKL_CREATE_")]
    for cls, prefix in groups:
        names = {n[len(prefix):]: v for n, v in consts.items()
                 if n.startswith(prefix) and not n.endswith("_OPTIONS_VERSION")}
        # (__members__: iterating an IntFlag skips its zero member, PERSISTENT)
        assert {n: m.value for n, m in cls.__members__.items()} == names, cls
    # Every error code has its exception class.
    for name, value in consts.items():
        if name.startswith("ZKL_E") and value < 0:
            err = zkl.error_for(value)
            assert type(err) is not zkl.ZklError and err.code == value and err.name == name
    assert zkl.DEFAULT_OWNER == consts["ZKL_DEFAULT_OWNER"]
    assert zkl.ANY_VERSION == consts["ZKL_ANY_VERSION"]
    for version in ("CLIENT", "LOCK", "MULTILOCK", "ELECTION", "OBSERVER", "INSPECT"):
        name = f"ZKL_{version}_OPTIONS_VERSION"
        assert getattr(capi, name) == consts[name]
