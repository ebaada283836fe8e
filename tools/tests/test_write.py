"""zkl write (guarded writes under a lock) and zkl fence-check."""
import subprocess

from helpers import EXIT_LOST, EXIT_TIMEOUT, EXIT_ZKL, participants, wait_for

EXIT_OPFAILED = 1


def write(zkl, path, *args, timeout=30):
    return zkl.run("write", path, *args, timeout=timeout)


def test_write_puts_creates_and_sets(zkl, path):
    r = write(zkl, path, "--put", "state=running", "--put", "owner=a")
    assert r.returncode == 0, r.stderr
    # The values are there: creating them again fails (nothing written), and
    # a version-checked set of the first value's version 0 applies.
    r = write(zkl, path, "--create", "state=again")
    assert r.returncode == EXIT_OPFAILED and "exists" in r.stderr, r.stderr
    r = write(zkl, path, "--if-version", "0", "--set", "state=done")
    assert r.returncode == 0, r.stderr
    r = write(zkl, path, "--if-version", "0", "--set", "state=late")
    assert r.returncode == EXIT_OPFAILED and "version" in r.stderr, r.stderr
    # All or nothing: a create before a failing set is not applied.
    r = write(zkl, path, "--create", "new=1", "--set", "missing=x")
    assert r.returncode == EXIT_OPFAILED and path + "/missing" in r.stderr, r.stderr
    r = write(zkl, path, "--create", "new=1")
    assert r.returncode == 0, r.stderr
    r = write(zkl, path, "--delete", "new", "--delete", "owner")
    assert r.returncode == 0, r.stderr
    r = write(zkl, path, "--delete", "new")
    assert r.returncode == EXIT_OPFAILED
    # The lock itself is free again after every write.
    assert participants(zkl, path) == []


def test_write_from_file_and_stdin(zkl, path, tmp_path):
    f = tmp_path / "blob"
    f.write_bytes(b"\x00binary\xffdata")
    r = write(zkl, path, "--put-file", f"blob={f}")
    assert r.returncode == 0, r.stderr
    r = zkl.run("write", path, "--put-file", "text=-", input="from stdin")
    assert r.returncode == 0, r.stderr


def test_write_waits_for_the_lock_and_times_out(zkl, path):
    holder = zkl.hold(path, ident="holder")
    r = write(zkl, path, "--timeout", "300ms", "--put", "x=1")
    assert r.returncode == EXIT_TIMEOUT, r.stderr
    holder.release()
    wait_for(lambda: participants(zkl, path) == [], what="holder gone")
    r = write(zkl, path, "--timeout", "5s", "--put", "x=1")
    assert r.returncode == 0, r.stderr


def test_write_refuses_paths_outside_the_tree(zkl, path):
    for bad in (["--put", "/abs=1"], ["--put", "=1"], ["--put", "noequals"]):
        r = write(zkl, path, *bad)
        assert r.returncode == EXIT_ZKL and "NAME" in r.stderr, (bad, r.stderr)
    # A name the lock's queue would count as a participant.
    r = write(zkl, path, "--put", "x-0000000001=1")
    assert r.returncode == EXIT_ZKL and "outside the tree" in r.stderr, r.stderr
    r = write(zkl, path)
    assert r.returncode == EXIT_ZKL and "nothing to write" in r.stderr
    r = write(zkl, path, "--kind", "semaphore", "--put", "x=1")
    assert r.returncode == EXIT_ZKL and "--leases" in r.stderr


def test_write_as_leader_and_semaphore(zkl, path):
    r = write(zkl, path, "--kind", "election", "--id", "me", "--put", "config=v1")
    assert r.returncode == 0, r.stderr
    r = write(zkl, path + "-sem", "--kind", "semaphore", "--leases", "2", "--put", "n=1")
    assert r.returncode == 0, r.stderr


def test_fence_check_current_and_stale(zkl, path):
    holder = zkl.hold(path, ident="first")
    r = zkl.run("fence-check", path, str(holder.token))
    assert r.returncode == 0 and r.stdout == "current\n", r.stderr
    holder.release()
    wait_for(lambda: participants(zkl, path) == [], what="first gone")
    second = zkl.hold(path, ident="second")
    assert second.token > holder.token
    r = zkl.run("fence-check", path, str(holder.token))
    assert r.returncode == 1 and r.stdout == "stale\n", r.stderr
    r = zkl.run("fence-check", path, str(second.token))
    assert r.returncode == 0
    for bad in ("-1", "x", "12a", ""):
        r = zkl.run("fence-check", path, bad)
        assert r.returncode == EXIT_ZKL, (bad, r.stderr)
    r = zkl.run("fence-check", path)
    assert r.returncode == EXIT_ZKL
    second.release()


def test_write_help_lists_the_exit_statuses(zkl):
    r = zkl.run("write", "--help")
    assert r.returncode == 0 and "76" in r.stdout and "--put" in r.stdout
    assert str(EXIT_LOST) in r.stdout
    r = zkl.run("help", "fence-check")
    assert r.returncode == 0 and "stale" in r.stdout
    assert subprocess  # (imported for Proc users elsewhere)
