"""Bad input gets clear exceptions, before C where C could not see it (NUL)."""
import pytest

import zkl
from zkl import capi


def test_hierarchy():
    for cls in (zkl.TimedOut, zkl.LockLost, zkl.NotHeld, zkl.NotOwner, zkl.BadPath,
                zkl.BadHandle, zkl.Closed, zkl.Busy, zkl.Deadlock, zkl.Cancelled):
        assert issubclass(cls, zkl.ZklError)
    assert issubclass(zkl.TimedOut, TimeoutError)
    assert issubclass(zkl.BadPath, ValueError)
    assert issubclass(zkl.InvalidArgument, ValueError)
    e = zkl.error_for(capi.ZKL_ELOST, "release /x")
    assert type(e) is zkl.LockLost and e.code == -14 and e.name == "ZKL_ELOST"
    assert "release /x" in str(e)
    e = zkl.error_for(-999)
    assert type(e) is zkl.ZklError and e.code == -999
    t = zkl.TimedOut()
    assert t.code == capi.ZKL_ETIMEDOUT and str(t)


@pytest.mark.parametrize("bad", ["/a\x00b", "\x00", "/lock\x00/../x"])
def test_nul_in_path_rejected_before_c(client, bad):
    with pytest.raises(zkl.BadPath, match="NUL"):
        client.lock(bad)
    with pytest.raises(zkl.BadPath, match="NUL"):
        client.election(bad, "id")
    with pytest.raises(zkl.BadPath, match="NUL"):
        client.observer(bad)
    with pytest.raises(zkl.BadPath, match="NUL"):
        client.inspect(bad)


def test_nul_rejected_by_the_low_level_module_too(client):
    opts = capi.zkl_lock_options()
    assert capi.zkl_lock_options_init(opts, 1) == 0
    with pytest.raises(ValueError, match="NUL"):
        capi.zkl_lock_new(client._h, "/a\x00b", opts)


@pytest.mark.parametrize("bad", ["", "a/b", "/", "/a/", "/a//b", "/a/./b", "/a/../b",
                                 "/zookeeper/x", "/a\x01b"])
def test_bad_paths(client, bad):
    with pytest.raises(zkl.BadPath) as info:
        client.lock(bad)
    assert info.value.code == capi.ZKL_EBADPATH


def test_bad_arguments(zk, client, path):
    with pytest.raises(TypeError):
        client.lock(b"/bytes")
    with pytest.raises(TypeError):
        client.lock(None)
    with pytest.raises(zkl.BadPath):
        client.lock("/\udcff")  # not encodable
    with pytest.raises(zkl.InvalidArgument):
        zkl.Client("127.0.0.1:1\x00")
    with pytest.raises(zkl.InvalidArgument):
        client.election(path, "id\x00x")
    with pytest.raises(ValueError):
        client.lock(path, timeout=-1)
    with pytest.raises(TypeError):
        client.lock(path).acquire(timeout="5")
    with pytest.raises(ValueError):
        client.lock(path).acquire(owner=-1)
    with pytest.raises(ValueError):
        client.lock(path).acquire(owner=2**64)
    with pytest.raises(zkl.InvalidArgument):
        client.semaphore(path, 0)
    with pytest.raises(zkl.InvalidArgument):
        client.lock(path, kind=99)
    with pytest.raises(zkl.InvalidArgument):
        client.election(path, "id", kind=7)
    with pytest.raises(zkl.TooBig):
        client.lock(path, data=b"x" * (1024 * 1024 + 1))


def test_closed_and_destroyed_handles(zk, path):
    c = zkl.Client.connect(zk.connect, connect_timeout=20)
    lock = c.lock(path)
    raw = lock._h
    lock.close()
    with pytest.raises(zkl.Closed):
        lock.acquire()
    # The C layer checks handles: a destroyed one is an error, not a crash.
    assert capi.zkl_lock_acquire(raw, 1, 0) == capi.ZKL_EBADHANDLE
    assert capi.zkl_lock_destroy(raw) == capi.ZKL_EBADHANDLE
    c.close()
    with pytest.raises(zkl.Closed):
        c.wait_connected(1)


def test_wait_connected_times_out():
    # Nothing listens on this loopback port (a port in the kernel's reserved
    # range below 1024 that no test server uses).
    c = zkl.Client("127.0.0.1:9", session_timeout=2.0)
    try:
        assert c.state == zkl.SessionState.CONNECTING
        with pytest.raises(zkl.TimedOut):
            c.wait_connected(0.2)
        lock = c.lock("/x")
        assert not lock.is_held
        with pytest.raises(zkl.ConnectionLost):
            lock.try_acquire()
    finally:
        c.close()


@pytest.mark.parametrize("servers", ["", "nonsense", "127.0.0.1:", "127.0.0.1:99999"])
def test_bad_connect_strings(servers):
    with pytest.raises(zkl.InvalidArgument):
        zkl.Client(servers)


def test_options_version_check():
    opts = capi.zkl_client_options()
    assert capi.zkl_client_options_init(opts, 99) == capi.ZKL_EVERSION
