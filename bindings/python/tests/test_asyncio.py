"""asyncio integration: the event fd on the loop (add_reader), awaiting
acquires, cancellation without leftovers, events delivered on the loop."""
import asyncio
import threading
import time

import pytest

import zkl
from conftest import connect, expire_session, node_names, run, until



def test_async_with_and_tokens(zk, path):
    async def main():
        async with zkl.Client(zk.connect) as c:
            await c.wait_connected_async(20)
            assert c.connected
            async with c.lock(path, timeout=5) as lock:
                t1 = lock.fencing_token
                assert lock.is_held
            t2 = await c.lock(path).acquire_async(timeout=5)
            assert t2 > t1

    run(main())


def test_async_exclusion_between_clients(zk, path):
    async def main():
        async with zkl.Client(zk.connect) as a, zkl.Client(zk.connect) as b:
            await a.wait_connected_async(20)
            await b.wait_connected_async(20)
            inside = 0
            history = []

            async def worker(client, name):
                nonlocal inside
                for _ in range(3):
                    async with client.lock(path, timeout=20) as lock:
                        inside += 1
                        assert inside == 1
                        history.append((name, lock.fencing_token))
                        await asyncio.sleep(0.02)
                        inside -= 1

            await asyncio.gather(worker(a, "a"), worker(b, "b"), worker(a, "a2"))
            tokens = [t for _, t in history]
            assert len(history) == 9
            assert tokens == sorted(tokens) and len(set(tokens)) == 9

    run(main())


def test_async_timeout(client, client2, path):
    holder = client.lock(path)  # keep it: a dropped handle is released
    holder.acquire(timeout=5)
    other = client2.lock(path)

    async def main():
        with pytest.raises(zkl.TimedOut):
            await other.acquire_async(timeout=0.2)
        assert len(node_names(client2, path)) == 1

    run(main())


def test_cancel_waiting_acquire_leaves_no_node(client, client2, path):
    holder = client.lock(path)
    holder.acquire(timeout=5)
    waiter = client2.lock(path)

    async def main():
        task = asyncio.create_task(waiter.acquire_async(timeout=30))
        await until(lambda: len(node_names(client, path)) == 2, what="waiter queued")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # Inspect on the waiter's own session runs after its delete.
        assert len(node_names(client2, path)) == 1
        # The handle is usable again.
        holder.release()
        assert await waiter.acquire_async(timeout=5) > 0
        waiter.release()

    run(main())


def test_wait_for_timeout_cancels(client, client2, path):
    holder = client.lock(path)  # keep it: a dropped handle is released
    holder.acquire(timeout=5)
    waiter = client2.lock(path)

    async def main():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(waiter.acquire_async(), 0.3)
        assert len(node_names(client2, path)) == 1

    run(main())


def test_cancel_after_grant_releases(client, client2, path):
    lock = client.lock(path)

    async def main():
        task = asyncio.create_task(lock.acquire_async(timeout=10))
        await asyncio.sleep(0)  # the task starts the acquire
        # Block the loop until the C side has granted it: its ACQUIRED event
        # is queued but not dispatched when the task is cancelled.
        deadline = time.monotonic() + 10
        while not lock.is_held:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The grant nobody awaits any more is undone.
        assert await client2.lock(path).acquire_async(timeout=10) > 0

    run(main())
    assert lock.hold_count == 0


def test_lost_on_session_expiry(zk, new_client, path):
    c = new_client()
    other = new_client()
    seen = []
    lock = c.lock(path, listener=seen.append)

    async def main():
        token = await lock.acquire_async(timeout=5)
        lost = asyncio.ensure_future(lock.until_lost())
        await asyncio.sleep(0)
        loop_thread = threading.get_ident()
        thread_of_event = []
        lock.add_listener(lambda e: thread_of_event.append(threading.get_ident()))
        await asyncio.get_running_loop().run_in_executor(None, expire_session, zk.connect, c)
        ev = await asyncio.wait_for(lost, 20)
        assert ev.type == zkl.EventType.LOST
        assert isinstance(ev.exception, zkl.SessionLost)
        assert ev.source is lock
        assert not lock.is_held
        assert thread_of_event and set(thread_of_event) == {loop_thread}
        with pytest.raises(zkl.LockLost):
            lock.release()
        with pytest.raises(zkl.NotHeld):
            lock.release()
        # Someone else gets it, with a larger token.
        assert await other.lock(path).acquire_async(timeout=10) > token
        # The client has a new session by itself.
        await c.wait_connected_async(20)

    run(main())
    assert any(e.type == zkl.EventType.LOST for e in seen)


def test_async_with_raises_lock_lost(zk, new_client, path):
    c = new_client()

    async def main():
        with pytest.raises(zkl.LockLost):
            async with c.lock(path, timeout=5) as lock:
                await asyncio.get_running_loop().run_in_executor(None, expire_session, zk.connect, c)
                await asyncio.wait_for(lock.until_lost(), 20)

    run(main())


def test_close_fails_pending_acquire(zk, client, path):
    holder = client.lock(path)  # keep it: a dropped handle is released
    holder.acquire(timeout=5)
    c2 = connect(zk.connect)

    async def main():
        task = asyncio.create_task(c2.lock(path).acquire_async(timeout=30))
        await until(lambda: len(node_names(client, path)) == 2, what="waiter queued")
        c2.close()
        with pytest.raises(zkl.Closed):
            await task

    run(main())
    assert len(node_names(client, path)) == 1


def test_election_and_observer_async(new_client, path):
    a, b, o = new_client(), new_client(), new_client()

    async def main():
        observer = o.observer(path)
        ea = a.election(path, "alpha")
        eb = b.election(path, "beta")
        events = []
        eb.add_listener(events.append)
        t1 = await ea.campaign_async(timeout=5)
        assert ea.is_leader and ea.fencing_token == t1
        while observer.leader != "alpha":
            await observer.wait_change(10)
        task = asyncio.create_task(eb.campaign_async(timeout=20))
        await until(lambda: any(e.type == zkl.EventType.NOT_ELECTED for e in events), what="NOT_ELECTED")
        assert not eb.is_leader
        ea.resign()
        t2 = await task
        assert t2 > t1 and eb.is_leader
        assert [e.type for e in events][-1] == zkl.EventType.ELECTED
        while observer.leader != "beta":
            await observer.wait_change(10)
        with pytest.raises(zkl.TimedOut):
            await ea.campaign_async(timeout=0.2)
        assert not ea.is_leader
        eb.resign()

    run(main())


def test_cancelled_campaign_leaves_the_line(new_client, path):
    a, b = new_client(), new_client()

    async def main():
        ea = a.election(path, "alpha")
        await ea.campaign_async(timeout=5)
        eb = b.election(path, "beta")
        task = asyncio.create_task(eb.campaign_async())
        await until(lambda: len(node_names(a, path, zkl.ElectionKind.FAIR)) == 2, what="beta queued")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len(node_names(b, path, zkl.ElectionKind.FAIR)) == 1

    run(main())


def test_client_reattaches_to_a_new_loop(client, path):
    lock = client.lock(path)

    async def once():
        assert await lock.acquire_async(timeout=5) > 0
        lock.release()

    run(once())
    run(once())  # a second asyncio.run: a new loop


def test_dispatch_from_other_thread_is_refused(client, path):
    async def main():
        client.attach()
        err = []
        t = threading.Thread(target=lambda: err.append(pytest.raises(RuntimeError, client.dispatch)))
        t.start()
        t.join(5)
        assert err

    run(main())


def test_async_acquires_matched_by_request_id(client, client2, path):
    """One client, four acquires in flight on four handles: two waiting
    (granted in the reverse order of the calls), one that times out, one
    cancelled. Each call is settled by the event of its own request id."""
    holders = [client2.lock(f"{path}/{i}") for i in range(4)]
    for holder in holders:
        holder.acquire(timeout=5)
    locks = [client.lock(f"{path}/{i}") for i in range(4)]
    seen = []
    client.add_listener(lambda ev: ev.type in (zkl.EventType.ACQUIRED,
                                               zkl.EventType.ACQUIRE_FAILED) and seen.append(ev))

    async def main():
        a = asyncio.create_task(locks[0].acquire_async(timeout=30))
        b = asyncio.create_task(locks[1].acquire_async(timeout=30))
        c = asyncio.create_task(locks[2].acquire_async(timeout=0.5))
        d = asyncio.create_task(locks[3].acquire_async(timeout=30))
        await until(lambda: all(lk._calls for lk in locks), what="four acquires in flight")
        ids = [next(iter(lk._calls)) for lk in locks]
        assert len(set(ids)) == 4 and all(i > 0 for i in ids)
        d.cancel()
        with pytest.raises(asyncio.CancelledError):
            await d
        holders[1].release()
        tb = await b
        assert not a.done()
        holders[0].release()
        ta = await a
        with pytest.raises(zkl.TimedOut):
            await c
        assert tb == locks[1].fencing_token and ta == locks[0].fencing_token and ta != tb
        await until(lambda: not locks[3]._calls, what="the cancelled acquire's event")
        return ids

    ids = run(main())
    answers = {ev.request_id: (ev.source, ev.type, ev.error) for ev in seen}
    assert answers == {
        ids[0]: (locks[0], zkl.EventType.ACQUIRED, 0),
        ids[1]: (locks[1], zkl.EventType.ACQUIRED, 0),
        ids[2]: (locks[2], zkl.EventType.ACQUIRE_FAILED, zkl.TimedOut.code),
        ids[3]: (locks[3], zkl.EventType.ACQUIRE_FAILED, zkl.Cancelled.code),
    }
    assert locks[0].is_held and locks[1].is_held
    assert not locks[2].is_held and not locks[3].is_held
    assert len(node_names(client2, f"{path}/3")) == 1  # the cancelled one left no node


def _block_until(pred, what, timeout=15.0):
    """Blocks the loop (no event is dispatched) until pred()."""
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["lock", "election"])
def test_acquire_again_after_timeout_is_not_settled_by_its_failure(new_client, path, kind):
    """The failure of a timed-out acquire (campaign), still queued when the
    next call of the same handle starts, settles the first call only."""
    a, b = new_client(), new_client()
    if kind == "lock":
        holder, handle, node_kind = a.lock(path), b.lock(path), zkl.LockKind.FAIR
        holder.acquire(timeout=5)
        start = handle.acquire_async
    else:
        holder, handle = a.election(path, "alpha"), b.election(path, "beta")
        node_kind = zkl.ElectionKind.FAIR
        holder.campaign(timeout=5)
        start = handle.campaign_async

    def line():
        return len(node_names(a, path, node_kind))

    async def main():
        first = asyncio.create_task(start(timeout=1))
        await until(lambda: line() == 2, what="first call queued")
        _block_until(lambda: line() == 1, "first call timed out")
        second = asyncio.ensure_future(start(timeout=30))
        await asyncio.sleep(0)  # second's C call runs before the failure is dispatched
        assert len(handle._calls) == 2
        with pytest.raises(zkl.TimedOut):
            await first
        await asyncio.sleep(0.2)
        assert not second.done() and handle._kept  # still waiting, kept alive
        holder.release()
        assert await second == handle.fencing_token

    run(main())
    assert handle.valid_for() > 0
    handle.release()
