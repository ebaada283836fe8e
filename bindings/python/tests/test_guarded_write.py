"""Guarded writes, proclaim and fence checks: the scenarios of
bindings/CONFORMANCE.md ("Guarded writes, proclaim, fence checks"), one test
each named test_<id>, and the binding's own details (the Ops builder, the
results, the async form matched by request id)."""
import asyncio
import os
import subprocess
import sys

import pytest
from kazoo.client import KazooClient

import zkl
from zkl import capi
from conftest import run, until, wait_until

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.fixture
def raw(zk):
    """A plain ZooKeeper client (kazoo) to read what the writes did."""
    kz = KazooClient(hosts=zk.connect, timeout=10)
    kz.start(timeout=20)
    try:
        yield kz
    finally:
        kz.stop()
        kz.close()


def test_guarded_write_applies(client, raw, path):
    lock = client.lock(path)
    token = lock.acquire(timeout=5)
    ops = (zkl.Ops()
           .create(f"{path}/state", b"v1")
           .set(f"{path}/state", b"v2", version=0)
           .create(f"{path}/state/item-", "x", flags=zkl.CreateFlag.SEQUENTIAL))
    assert len(ops) == 3
    result = lock.write(ops)
    assert isinstance(result, zkl.WriteResult)
    assert result.failed is None
    assert result.paths[0] == f"{path}/state"
    assert result.paths[1] is None  # a set creates nothing
    assert result.paths[2].startswith(f"{path}/state/item-")
    assert result.versions[:2] == (0, 1)
    assert raw.get(f"{path}/state")[0] == b"v2"
    assert raw.exists(result.paths[2]) is not None
    # A second write's check op with version 1: the set was applied.
    assert lock.write(zkl.Ops().check(f"{path}/state", 1)).failed is None

    # The async form, through the loop, answered by its request id.
    async def main():
        return await lock.write_async(zkl.Ops().create(f"{path}/async", b"a"))

    result = run(main())
    assert result.failed is None and result.paths == (f"{path}/async",)
    assert raw.get(f"{path}/async")[0] == b"a"
    assert lock.fencing_token == token
    lock.release()


def test_guarded_write_refused(client, raw, path):
    lock = client.lock(path)
    ops = zkl.Ops().create(f"{path}/x", b"1")
    with pytest.raises(zkl.NotHeld) as e:  # never held
        lock.write(ops)
    assert e.value.failed is None and e.value.result.failed is None
    lock.acquire(timeout=5)
    with pytest.raises(zkl.BadPath):  # outside the lock's tree: nothing sent
        lock.write(zkl.Ops().create(f"{path}/ok", b"").create("/elsewhere", b""))
    assert raw.exists(f"{path}/ok") is None
    lock.write(zkl.Ops().create(f"{path}/data", b"0"))
    # A create of an existing node: EXISTS, its index, the create before it
    # in the same write not applied.
    exists = zkl.Ops().create(f"{path}/data", b"again")
    with pytest.raises(zkl.NodeExists) as e:
        lock.write(exists)
    assert e.value.code == capi.ZKL_EEXISTS and e.value.failed == 0
    with pytest.raises(zkl.NodeExists) as e:
        lock.write(zkl.Ops().create(f"{path}/first", b"no").create(f"{path}/data", b"again"))
    assert e.value.failed == 1 and e.value.result.failed == 1
    assert raw.exists(f"{path}/first") is None
    # A set with a wrong version.
    with pytest.raises(zkl.BadVersion) as e:
        lock.write(zkl.Ops().set(f"{path}/data", b"x", version=41))
    assert e.value.code == capi.ZKL_EBADVERSION and e.value.failed == 0
    # A delete of a node with children.
    lock.write(zkl.Ops().create(f"{path}/data/child", b""))
    with pytest.raises(zkl.NotEmpty) as e:
        lock.write(zkl.Ops().delete(f"{path}/data"))
    assert e.value.failed == 0
    assert raw.get(f"{path}/data")[0] == b"0"
    lock.release()
    with pytest.raises(zkl.NotHeld):  # after release
        lock.write(ops)
    assert raw.exists(f"{path}/x") is None

    # The async form refuses the same way: at once when nothing is sent,
    # through the WRITTEN event when the server refused.
    async def main():
        with pytest.raises(zkl.NotHeld):
            await lock.write_async(ops)
        await lock.acquire_async(timeout=5)
        with pytest.raises(zkl.BadPath):
            await lock.write_async(zkl.Ops().create("/elsewhere", b""))
        with pytest.raises(zkl.NodeExists) as e:
            await lock.write_async(exists)
        assert e.value.failed == 0
        lock.release()

    run(main())
    assert raw.exists(f"{path}/x") is None


def test_guarded_write_multilock_election(new_client, raw, path):
    client, client2 = new_client(), new_client()
    a, b = client.lock(f"{path}/a"), client.lock(f"{path}/b")
    multi = client.multilock([a, b])
    ops = zkl.Ops().create(f"{path}/a/x", b"1").create(f"{path}/b/y", b"2")
    with pytest.raises(zkl.NotHeld):
        multi.write(ops)
    multi.acquire(timeout=5)
    result = multi.write(ops)
    assert result.failed is None and result.paths == (f"{path}/a/x", f"{path}/b/y")
    assert raw.get(f"{path}/a/x")[0] == b"1" and raw.get(f"{path}/b/y")[0] == b"2"

    async def multi_async():
        return await multi.write_async(zkl.Ops().set(f"{path}/a/x", b"3"))

    assert run(multi_async()).versions == (1,)
    assert raw.get(f"{path}/a/x")[0] == b"3"
    multi.release()

    epath = f"{path}/election"
    leader = client.election(epath, "alpha")
    follower = client2.election(epath, "beta")
    leader.campaign(timeout=5)
    follower.start()
    result = leader.write(zkl.Ops().create(f"{epath}/config", "from alpha"))
    assert result.failed is None
    assert raw.get(f"{epath}/config")[0] == b"from alpha"
    with pytest.raises(zkl.NotHeld):
        follower.write(zkl.Ops().create(f"{epath}/other", b""))

    async def election_async():
        return await leader.write_async(zkl.Ops().set(f"{epath}/config", b"v2", version=0))

    assert run(election_async()).versions == (1,)
    assert raw.exists(f"{epath}/other") is None
    leader.resign()
    follower.resign()


def test_proclaim_same_term(new_client, path):
    client, client2, watcher = new_client(), new_client(), new_client()
    observer = watcher.observer(path)
    leader = client.election(path, "alpha")
    follower = client2.election(path, "beta")
    term = leader.campaign(timeout=5)
    follower.start()
    wait_until(lambda: observer.leader == "alpha", client=watcher, what="observer sees alpha")
    assert observer.term == term
    leader.proclaim("alpha@v2")
    wait_until(lambda: observer.leader == "alpha@v2", client=watcher, what="the new value")
    assert observer.term == term
    assert leader.is_leader and leader.fencing_token == term
    with pytest.raises(zkl.NotHeld):
        follower.proclaim(b"beta@v2")
    leader.resign()
    follower.resign()


def test_fence_check_current_and_stale(client, client2, path):
    a = client.lock(path)
    b = client2.lock(path)
    with pytest.raises(zkl.StaleToken):  # nobody holds
        client.fence_check(path, 1)
    t1 = a.acquire(timeout=5)
    assert client2.fence_check(path, t1) is None  # current
    a.release()
    t2 = b.acquire(timeout=5)
    assert t2 > t1
    with pytest.raises(zkl.StaleToken) as e:
        client.fence_check(path, t1)
    assert e.value.code == capi.ZKL_ESTALE
    client.fence_check(path, t2)
    client.fence_check(path, t2, kind=zkl.LockKind.FAIR, timeout=5)
    b.release()
    with pytest.raises(zkl.StaleToken):
        client.fence_check(path, t2)
    # Elections: the kind is an ElectionKind.
    epath = f"{path}-election"
    e1 = client.election(epath, "one")
    term = e1.campaign(timeout=5)
    client2.fence_check(epath, term, kind=zkl.ElectionKind.FAIR)
    e1.resign()
    with pytest.raises(zkl.StaleToken):
        client2.fence_check(epath, term, kind=zkl.ElectionKind.FAIR)


# --- the binding's own details ---------------------------------------------

def test_ops_builder_checks_each_operation():
    ops = zkl.Ops()
    with pytest.raises(zkl.BadPath):
        ops.create("relative", b"x")
    with pytest.raises(zkl.BadPath):
        ops.create("/a\x00b", b"x")
    with pytest.raises(zkl.InvalidArgument):
        ops.create("/a", b"x", flags=4)
    with pytest.raises(zkl.InvalidArgument):
        ops.set("/a", b"x", version=-2)
    with pytest.raises(TypeError):
        ops.set("/a", 42)
    with pytest.raises(TypeError):
        ops.check("/a", "1")
    assert len(ops) == 0
    with pytest.raises(zkl.TooBig):
        ops.set("/a", b"x" * (1024 * 1024 + 1))
    big = b"x" * 600_000
    ops.set("/a", big)
    with pytest.raises(zkl.TooBig):
        ops.set("/b", big)
    assert len(ops) == 1
    assert (zkl.CreateFlag.EPHEMERAL | zkl.CreateFlag.SEQUENTIAL) == 3
    assert zkl.ANY_VERSION == capi.ZKL_ANY_VERSION


def test_write_type_and_empty_ops(client, path):
    lock = client.lock(path)
    lock.acquire(timeout=5)
    with pytest.raises(TypeError):
        lock.write([("create", f"{path}/x")])
    with pytest.raises(zkl.InvalidArgument):
        lock.write(zkl.Ops())
    lock.release()


def test_write_async_matches_by_request_id(client, raw, path):
    """Several writes in flight on two handles: each awaiting call gets the
    answer of its own request id (and a cancelled await does not recall its
    write)."""
    lock = client.lock(f"{path}/l")
    election = client.election(f"{path}/e", "me")
    lock.acquire(timeout=5)
    election.campaign(timeout=5)
    seen = []
    client.add_listener(lambda ev: ev.type == zkl.EventType.WRITTEN and seen.append(ev))

    async def main():
        calls = []
        for i in range(5):
            calls.append(lock.write_async(zkl.Ops().create(f"{path}/l/n{i}", str(i))))
            calls.append(election.write_async(zkl.Ops().create(f"{path}/e/n{i}", str(i))))
        calls.append(lock.write_async(zkl.Ops().create(f"{path}/l/n0", b"again")))
        results = await asyncio.gather(*calls, return_exceptions=True)
        for i in range(5):
            assert results[2 * i].paths == (f"{path}/l/n{i}",)
            assert results[2 * i + 1].paths == (f"{path}/e/n{i}",)
        assert isinstance(results[-1], zkl.NodeExists) and results[-1].failed == 0
        task = asyncio.ensure_future(lock.write_async(zkl.Ops().create(f"{path}/l/late", b"")))
        await asyncio.sleep(0)
        task.cancel()
        await until(lambda: not client._writes, what="the WRITTEN event of the cancelled call")
        assert raw.exists(f"{path}/l/late") is not None

    run(main())
    assert len(seen) >= 11
    ids = [ev.request_id for ev in seen]
    assert all(i > 0 for i in ids) and len(set(ids)) == len(ids)
    assert all(ev.write_result is not None for ev in seen)
    assert not client._writes
    lock.release()
    election.resign()


def test_write_async_fails_on_client_close(zk, path):
    client = zkl.Client.connect(zk.connect, connect_timeout=20)
    lock = client.lock(path)
    lock.acquire(timeout=5)

    async def main():
        fut = asyncio.ensure_future(lock.write_async(zkl.Ops().create(f"{path}/x", b"")))
        await asyncio.sleep(0)
        client.close()
        try:
            await fut
        except zkl.ZklError as e:  # closed before or after it landed
            assert isinstance(e, (zkl.Closed, zkl.InDoubt)), e

    run(main())


def test_guarded_write_example_runs(zk, raw, path):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "guarded_write.py"), zk.connect,
                          "--path", path, "--value", "hello"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "wrote" in out.stdout, out.stdout
    assert raw.get(f"{path}/state")[0] == b"hello"
