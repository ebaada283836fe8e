"""Leader election (fair and non-fair) and the observer, blocking API + events."""
import threading

import pytest

import zkl
from conftest import node_names, wait_until


@pytest.mark.parametrize("kind", [zkl.ElectionKind.FAIR, zkl.ElectionKind.NONFAIR])
def test_campaign_resign(new_client, path, kind):
    a = new_client().election(path, "alpha", kind=kind, timeout=5)
    b = new_client().election(path, "beta", kind=kind)
    t1 = a.campaign()
    assert a.is_leader and a.fencing_token == t1
    with pytest.raises(zkl.TimedOut):
        b.campaign(timeout=0.3)
    assert not b.is_leader
    with pytest.raises(zkl.NotHeld):
        b.fencing_token
    a.resign()
    assert not a.is_leader
    t2 = b.campaign(timeout=5)
    assert t2 > t1
    b.resign()


def test_with_election(client, path):
    with client.election(path, "me", timeout=5) as e:
        assert e.is_leader
        (p,) = client.inspect(path, zkl.ElectionKind.FAIR)
        assert p.data == b"me" and p.is_holder
    assert not e.is_leader
    assert node_names(client, path, zkl.ElectionKind.FAIR) == []


def test_election_events_and_observer(new_client, path):
    c1, c2, c3 = new_client(), new_client(), new_client()
    events = []
    observed = []
    a = c1.election(path, "alpha", timeout=5)
    a.campaign()
    observer = c3.observer(path, listener=lambda e: observed.append(e.leader))
    wait_until(lambda: observer.leader == "alpha", client=c3, what="observer sees alpha")

    b = c2.election(path, "beta", listener=events.append)
    b.start()
    wait_until(lambda: [e.type for e in events] == [zkl.EventType.NOT_ELECTED], client=c2,
               what="NOT_ELECTED")
    a.resign()
    wait_until(lambda: events[-1].type == zkl.EventType.ELECTED, client=c2, what="ELECTED")
    assert events[-1].fencing_token == b.fencing_token
    assert events[-1].source is b
    assert b.is_leader
    wait_until(lambda: observed and observed[-1] == "beta", client=c3, what="observer sees beta")
    b.resign()
    wait_until(lambda: observed and observed[-1] is None, client=c3, what="no leader")
    assert observer.leader is None
    observer.close()


def test_campaign_while_start_pending_is_busy(new_client, path):
    a = new_client().election(path, "alpha", timeout=5)
    a.campaign()
    c = new_client()
    events = []
    b = c.election(path, "beta", listener=events.append)
    b.start()
    wait_until(lambda: [e.type for e in events] == [zkl.EventType.NOT_ELECTED], client=c,
               what="NOT_ELECTED")
    # The pending start() is the one campaign: a blocking one is refused.
    with pytest.raises(zkl.Busy):
        b.campaign(timeout=0.2)
    a.resign()
    wait_until(lambda: events[-1].type == zkl.EventType.ELECTED, client=c, what="ELECTED")
    assert b.is_leader
    assert b.campaign(timeout=0) == b.fencing_token  # leader: at once
    b.resign()


def test_start_with_timeout_leaves(new_client, path):
    a = new_client().election(path, "alpha", timeout=5)
    a.campaign()
    c = new_client()
    events = []
    b = c.election(path, "beta", listener=events.append)
    b.start(timeout=0.3)
    wait_until(lambda: events and events[-1].type == zkl.EventType.ACQUIRE_FAILED, client=c,
               what="ACQUIRE_FAILED")
    assert isinstance(events[-1].exception, zkl.TimedOut)
    assert len(node_names(c, path, zkl.ElectionKind.FAIR)) == 1
    with pytest.raises(zkl.NotHeld):
        b.resign()


def test_election_lease_and_stats(client, path):
    e = client.election(path, "me", timeout=5)
    assert e.valid_for() == 0.0 and e.valid_until() is None
    e.campaign()
    assert 0 < e.valid_for() < client.session_timeout
    st = e.stats()
    assert st["type"] == "election" and st["path"] == path
    e.resign()
    assert e.valid_for() == 0.0


def test_observer_long_id(new_client, path):
    long_id = "x" * 1000 + "é"
    e = new_client().election(path, long_id, timeout=5)
    e.campaign()
    c = new_client()
    o = c.observer(path)
    wait_until(lambda: o.leader is not None, client=c, what="a leader")
    assert o.leader == long_id
    assert o.leader_bytes == long_id.encode()
