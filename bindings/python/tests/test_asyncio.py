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
