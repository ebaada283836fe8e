"""Session trouble on a server of this module's own (paused for real):
SUSPENDED then RESTORED, and SUSPENDED then LOST once the session is surely
gone (a session timeout after the connection was lost, or sooner with
lost_after), delivered on the asyncio loop; and a blocking holder learning of
the loss through is_held and LockLost."""
import asyncio
import time

import pytest

import zkl
from conftest import connect, paused, wait_until


def run(coro, timeout=90):
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def next_event(queue, types, timeout=30):
    while True:
        ev = await asyncio.wait_for(queue.get(), timeout)
        if ev.type in types:
            return ev


def test_suspended_then_restored(zk_private, path):
    async def main():
        async with zkl.Client(zk_private.connect, session_timeout=6.0) as c:
            await c.wait_connected_async(20)
            queue = asyncio.Queue()
            lock = c.lock(path, timeout=5, listener=queue.put_nowait)
            token = await lock.acquire_async()
            with paused(zk_private):
                ev = await next_event(queue, {zkl.EventType.SUSPENDED, zkl.EventType.LOST})
                assert ev.type == zkl.EventType.SUSPENDED
                assert not lock.is_held  # never "yes" while suspended
            ev = await next_event(queue, {zkl.EventType.RESTORED, zkl.EventType.LOST})
            assert ev.type == zkl.EventType.RESTORED
            assert lock.is_held and lock.fencing_token == token
            await asyncio.get_running_loop().run_in_executor(None, lock.release)

    run(main())


def test_frozen_server_suspends_then_loses(zk_private, path):
    # Suspended is not lost. The server freezes (SIGSTOP): the hold is
    # SUSPENDED, and is_held says no, before a session timeout T has passed
    # (from 3/4 T after the last quorum proof at the latest), so before the
    # server could expire the session and grant the lock to another. zkl keeps
    # resuming the same session and gives it up (LOST, SessionLost) a session
    # timeout after the connection was lost, which the C client notices 2/3 T
    # after the server's last answer: between T and 5/3 T (+ slack) after the
    # freeze.
    async def frozen():
        async with zkl.Client(zk_private.connect, session_timeout=2.0) as c:
            await c.wait_connected_async(20)
            timeout = c.session_timeout
            queue = asyncio.Queue()
            lock = c.lock(path, timeout=5, listener=queue.put_nowait)
            await lock.acquire_async()
            start = time.monotonic()
            with paused(zk_private):
                frozen_at = time.monotonic()  # the freeze is between start and here
                ev = await next_event(queue, {zkl.EventType.SUSPENDED, zkl.EventType.LOST})
                assert ev.type == zkl.EventType.SUSPENDED
                assert not lock.is_held
                assert time.monotonic() - start < timeout, "suspended only after T"
                ev = await next_event(queue, {zkl.EventType.LOST, zkl.EventType.RESTORED})
                lost_at = time.monotonic()
                assert ev.type == zkl.EventType.LOST
                assert isinstance(ev.exception, zkl.SessionLost)
                assert lost_at - frozen_at >= timeout, "lost before T"
                assert lost_at - start <= timeout * 5 / 3 + 1.5, "lost only after 5/3 T + slack"
                assert not lock.is_held
            await c.wait_connected_async(30)  # a new session
            assert await lock.acquire_async(timeout=10) > 0
            lock.release()

    run(frozen())


def test_suspended_then_lost_by_deadline(zk_private, path):
    # lost_after shortens the wait: the session is given up lost_after after
    # the connection was lost (here long before the session timeout).
    async def main():
        async with zkl.Client(zk_private.connect, session_timeout=2.0, lost_after=0.3) as c:
            await c.wait_connected_async(20)
            queue = asyncio.Queue()
            sessions = []
            c.add_listener(lambda e: e.type == zkl.EventType.SESSION and sessions.append(e.session_state))
            lock = c.lock(path, timeout=5, listener=queue.put_nowait)
            await lock.acquire_async()
            with paused(zk_private):
                ev = await next_event(queue, {zkl.EventType.SUSPENDED})
                ev = await next_event(queue, {zkl.EventType.LOST, zkl.EventType.RESTORED})
                assert ev.type == zkl.EventType.LOST
                assert isinstance(ev.exception, zkl.SessionLost)
                assert not lock.is_held
            assert zkl.SessionState.SUSPENDED in sessions and zkl.SessionState.LOST in sessions
            with pytest.raises(zkl.LockLost):
                lock.release()
            await c.wait_connected_async(30)  # a new session
            assert await lock.acquire_async(timeout=10) > 0
            lock.release()

    run(main())


def test_blocking_holder_sees_loss(zk_private, path):
    c = connect(zk_private.connect, session_timeout=2.0, lost_after=0.3)
    try:
        lock = c.lock(path, timeout=5)
        lock.acquire()
        with paused(zk_private):
            # Nobody dispatches events here: is_held turns false by itself as
            # soon as the client cannot be sure.
            wait_until(lambda: not lock.is_held, timeout=20, what="is_held false")
            wait_until(lambda: c.state == zkl.SessionState.LOST, timeout=20, what="session LOST")
        with pytest.raises(zkl.LockLost):
            lock.release()
        c.wait_connected(30)
        assert lock.acquire() > 0  # the same handle, in the new session
        lock.release()
    finally:
        c.close()


# The re-acquire waits until the server expires the abandoned session (its
# node still holds there); once granted, the hold is provable at once
# (heartbeats follow the shortened safety bound).
def test_reacquire_after_loss_is_held_at_once(zk_private, path):
    c = connect(zk_private.connect, session_timeout=2.0, lost_after=0.3)
    try:
        lock = c.lock(path, timeout=5)
        lock.acquire()
        with paused(zk_private):
            wait_until(lambda: c.state == zkl.SessionState.LOST, timeout=20, what="session LOST")
        with pytest.raises(zkl.LockLost):
            lock.release()
        c.wait_connected(30)
        with lock:
            assert lock.is_held
    finally:
        c.close()
