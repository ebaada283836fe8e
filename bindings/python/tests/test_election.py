"""Leader election (fair and unfair) and the observer, blocking API + events."""
import threading

import pytest

import zkl
from conftest import node_names, wait_until


@pytest.mark.parametrize("kind", [zkl.ElectionKind.FAIR, zkl.ElectionKind.UNFAIR])
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


def test_campaign_after_start(new_client, path):
    a = new_client().election(path, "alpha", timeout=5)
    a.campaign()
    c = new_client()
    b = c.election(path, "beta")
    b.start()
    wait_until(lambda: len(node_names(c, path, zkl.ElectionKind.FAIR)) == 2, what="beta queued")
    result = []
    t = threading.Thread(target=lambda: result.append(b.campaign(timeout=20)))
    t.start()
    # campaign() must block while alpha leads (not return at once).
    t.join(0.3)
    assert t.is_alive() and not result
    a.resign()
    t.join(20)
    assert result and b.is_leader


def test_observer_long_id(new_client, path):
    long_id = "x" * 1000 + "é"
    e = new_client().election(path, long_id, timeout=5)
    e.campaign()
    c = new_client()
    o = c.observer(path)
    wait_until(lambda: o.leader is not None, client=c, what="a leader")
    assert o.leader == long_id
    assert o.leader_bytes == long_id.encode()
