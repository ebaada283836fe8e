//! The blocking API against a real ZooKeeper: every recipe, timeouts, try,
//! owners, inspection, errors.

mod common;

use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use zkl::{
    Client, ElectionKind, ElectionStatus, Error, ErrorKind, EventKind, InspectKind, LockKind, SessionState, Source,
};

const SHORT: Duration = Duration::from_millis(300);

#[test]
fn fair_lock_excludes_and_fencing_tokens_increase() {
    let (a, b) = (client(), client());
    let path = unique_path("fair");
    let la = a.lock(&path).unwrap();
    let lb = b.lock(&path).unwrap();
    let ga = la.acquire_blocking(LONG).unwrap();
    assert!(ga.is_held());
    assert!(ga.fencing_token() > 0);
    assert_eq!(la.current_token().unwrap(), ga.fencing_token());
    // Taken: try says no, a bounded wait times out; neither leaves a node.
    assert!(lb.try_acquire().unwrap().is_none());
    let t0 = Instant::now();
    assert_eq!(lb.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    assert!(t0.elapsed() >= SHORT);
    assert_eq!(nodes(&a, &path, LockKind::Fair), 1);
    // Released: the other client gets it with a larger token.
    let first = ga.fencing_token();
    ga.release_blocking().unwrap();
    assert!(!la.is_held());
    let gb = lb.acquire_blocking(LONG).unwrap();
    assert!(gb.fencing_token() > first);
    drop(gb);
    let gb2 = lb.acquire_blocking(LONG).unwrap();
    let second = gb2.fencing_token();
    drop(gb2);
    let ga2 = la.acquire_blocking(LONG).unwrap();
    assert!(ga2.fencing_token() > second);
}

#[test]
fn a_waiter_gets_the_lock_when_the_holder_drops_its_guard() {
    let (a, b) = (client(), client());
    let path = unique_path("handoff");
    let la = a.lock(&path).unwrap();
    let lb = b.lock(&path).unwrap();
    let ga = la.acquire_blocking(LONG).unwrap();
    let waiter = std::thread::spawn(move || lb.acquire_blocking(LONG).map(|g| g.fencing_token()));
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 2));
    let first = ga.fencing_token();
    drop(ga); // releases without waiting
    let second = waiter.join().unwrap().unwrap();
    assert!(second > first);
}

#[test]
fn fair_lock_is_not_reentrant() {
    let c = client();
    let lock = c.lock(&unique_path("not-reentrant")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    assert_eq!(lock.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Deadlock);
    assert_eq!(lock.acquire_blocking_as(9, SHORT).unwrap_err(), ErrorKind::Busy);
    drop(g);
}

#[test]
fn reentrant_lock_counts_holds_per_owner() {
    let (a, b) = (client(), client());
    let path = unique_path("reentrant");
    let lock = a.reentrant_lock(&path).unwrap();
    let other = b.reentrant_lock(&path).unwrap();
    let g1 = lock.acquire_blocking_as(7, LONG).unwrap();
    let g2 = lock.acquire_blocking_as(7, Duration::ZERO).unwrap();
    assert_eq!(lock.hold_count(), 2);
    assert_eq!(g1.fencing_token(), g2.fencing_token());
    // Another owner on the same handle is refused; another client waits.
    assert_eq!(lock.acquire_blocking_as(8, SHORT).unwrap_err(), ErrorKind::Busy);
    assert!(other.try_acquire().unwrap().is_none());
    // Released from another thread: holds belong to owners, not threads.
    std::thread::spawn(move || g2.release_blocking().unwrap()).join().unwrap();
    assert_eq!(lock.hold_count(), 1);
    assert!(lock.is_held());
    assert!(other.try_acquire().unwrap().is_none());
    g1.release_blocking().unwrap();
    assert_eq!(lock.hold_count(), 0);
    let g = other.acquire_blocking(LONG).unwrap();
    assert!(g.is_held());
}

#[test]
fn release_without_guard_checks_owner_and_hold() {
    let c = client();
    let lock = c.reentrant_lock(&unique_path("owners")).unwrap();
    let owner = lock.acquire_blocking_as(42, LONG).unwrap().forget();
    assert_eq!(owner, 42);
    assert!(lock.is_held());
    assert_eq!(lock.release_blocking_as(43).unwrap_err(), ErrorKind::NotOwner);
    lock.release_blocking_as(42).unwrap();
    assert_eq!(lock.release_blocking_as(42).unwrap_err(), ErrorKind::NotHeld);
    assert_eq!(lock.cancel().unwrap_err(), ErrorKind::NotHeld);
}

#[test]
fn nonfair_lock_excludes() {
    let (a, b) = (client(), client());
    let path = unique_path("nonfair");
    let la = a.nonfair_lock(&path).unwrap();
    let lb = b.nonfair_lock(&path).unwrap();
    let ga = la.acquire_blocking(LONG).unwrap();
    assert!(lb.try_acquire().unwrap().is_none());
    assert_eq!(lb.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    let first = ga.fencing_token();
    let waiter = std::thread::spawn(move || lb.acquire_blocking(LONG).map(|g| g.fencing_token()));
    ga.release_blocking().unwrap();
    assert!(waiter.join().unwrap().unwrap() > first);
}

#[test]
fn read_write_lock_shares_reads_and_excludes_writes() {
    let (a, b, w) = (client(), client(), client());
    let path = unique_path("rw");
    let r1 = a.read_lock(&path).unwrap();
    let r2 = b.read_lock(&path).unwrap();
    let wl = w.write_lock(&path).unwrap();
    let g1 = r1.acquire_blocking(LONG).unwrap();
    let g2 = r2.acquire_blocking(LONG).unwrap(); // readers share
    assert!(wl.try_acquire().unwrap().is_none());
    let writer = std::thread::spawn(move || {
        let g = wl.acquire_blocking(LONG).unwrap();
        (g.fencing_token(), g.forget(), wl)
    });
    drop(g1);
    g2.release_blocking().unwrap();
    let (wtoken, owner, wl) = writer.join().unwrap();
    assert!(wtoken > 0);
    // A reader waits behind the writer.
    assert!(r1.try_acquire().unwrap().is_none());
    wl.release_blocking_as(owner).unwrap();
    let g = r1.acquire_blocking(LONG).unwrap();
    assert!(g.fencing_token() > wtoken);
}

#[test]
fn semaphore_grants_max_leases() {
    let clients: Vec<Client> = (0..3).map(|_| client()).collect();
    let path = unique_path("semaphore");
    let leases: Vec<_> = clients.iter().map(|c| c.semaphore(&path, 2).unwrap()).collect();
    let g0 = leases[0].acquire_blocking(LONG).unwrap();
    let g1 = leases[1].acquire_blocking(LONG).unwrap();
    assert!(leases[2].try_acquire().unwrap().is_none());
    assert_eq!(leases[2].acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    drop(g0);
    let g2 = leases[2].acquire_blocking(LONG).unwrap();
    assert!(g2.is_held() && g1.is_held());
    // A participant that disagrees on the lease count is refused.
    let odd = clients[0].semaphore(&path, 5).unwrap();
    assert_eq!(odd.acquire_blocking(LONG).unwrap_err(), ErrorKind::Mismatch);
}

#[test]
fn many_threads_never_overlap() {
    let path = unique_path("overlap");
    let inside = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicU32::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (path, inside, rounds) = (path.clone(), inside.clone(), rounds.clone());
            std::thread::spawn(move || {
                let c = client();
                let lock = c.lock(&path).unwrap();
                let mut last = 0;
                for _ in 0..5 {
                    let g = lock.acquire_blocking(LONG).unwrap();
                    assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                    assert!(g.fencing_token() > last);
                    last = g.fencing_token();
                    rounds.fetch_add(1, Ordering::SeqCst);
                    inside.store(false, Ordering::SeqCst);
                    g.release_blocking().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(rounds.load(Ordering::SeqCst), 20);
}

#[test]
fn fair_election_with_observer() {
    let (a, b, o) = (client(), client(), client());
    let path = unique_path("election");
    let observer = o.observer(&path, ElectionKind::Fair).unwrap();
    assert_eq!(observer.next_leader(LONG), Some(None)); // nobody yet
    let ea = a.election(&path, "alice").unwrap();
    let eb = b.election(&path, "bob").unwrap();
    let ta = ea.campaign_blocking(LONG).unwrap();
    assert!(ea.is_leader());
    assert_eq!(ea.fencing_token().unwrap(), ta);
    assert_eq!(observer.next_leader(LONG), Some(Some("alice".to_string())));
    assert_eq!(observer.leader().unwrap().as_deref(), Some("alice"));
    // Bob waits in line.
    assert_eq!(eb.campaign_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    assert!(!eb.is_leader());
    assert_eq!(eb.fencing_token().unwrap_err(), ErrorKind::NotHeld);
    ea.resign().unwrap();
    assert!(!ea.is_leader());
    let tb = eb.campaign_blocking(LONG).unwrap();
    assert!(tb > ta);
    assert!(eventually(LONG, || observer.leader().unwrap().as_deref() == Some("bob")));
    drop(eb); // leaves
    assert!(eventually(LONG, || observer.leader().unwrap().is_none()));
}

#[test]
fn election_statuses_arrive_as_events() {
    let (a, b) = (client(), client());
    let path = unique_path("election-events");
    let ea = a.election(&path, "first").unwrap();
    let eb = b.election(&path, "second").unwrap();
    ea.start_campaign(Duration::MAX).unwrap();
    assert!(matches!(ea.next_status(LONG), Some(ElectionStatus::Elected(t)) if t > 0));
    eb.start_campaign(Duration::MAX).unwrap();
    assert_eq!(eb.next_status(LONG), Some(ElectionStatus::NotElected));
    assert_eq!(eb.next_status(SHORT), None); // nothing new
    ea.resign().unwrap();
    assert!(matches!(eb.next_status(LONG), Some(ElectionStatus::Elected(_))));
    assert!(eb.is_leader());
    let ev = std::iter::from_fn(|| b.wait_event(LONG))
        .find(|e| e.source == Source::Election(eb.id()) && e.kind == EventKind::Elected);
    assert!(ev.is_some(), "the Elected event is also in the client's queue");
}

/// The next event of `c` from `source` that `want` accepts.
fn next_event_of(c: &Client, source: Source, want: impl Fn(&EventKind) -> bool) -> zkl::Event {
    std::iter::from_fn(|| c.wait_event(LONG))
        .find(|e| e.source == source && want(&e.kind))
        .unwrap_or_else(|| panic!("no such event of {source:?}"))
}

#[test]
fn events_carry_the_request_id_of_the_call_they_answer() {
    let (a, b) = (client(), client());
    // An event that answers no call carries 0.
    assert_eq!(next_event_of(&b, Source::Client, |k| *k == EventKind::Session).request_id, 0);
    // A campaign: its progress (NotElected) and its answer (Elected) carry
    // the id of its one call.
    let path = unique_path("request-ids");
    let ea = a.election(&path, "first").unwrap();
    let eb = b.election(&path, "second").unwrap();
    ea.campaign_blocking(LONG).unwrap();
    eb.start_campaign(Duration::MAX).unwrap();
    let queued = next_event_of(&b, Source::Election(eb.id()), |k| *k == EventKind::NotElected);
    ea.resign().unwrap();
    let elected = next_event_of(&b, Source::Election(eb.id()), |k| *k == EventKind::Elected);
    assert!(queued.request_id > 0, "{queued:?}");
    assert_eq!(elected.request_id, queued.request_id);
    // Releases without waiting (guard drops), each answered by its own
    // RELEASED, an inner hold of a reentrant lock's too (at once).
    let lock = b.reentrant_lock(&unique_path("request-ids-re")).unwrap();
    let outer = lock.acquire_blocking_as(7, LONG).unwrap();
    let inner = lock.acquire_blocking_as(7, Duration::ZERO).unwrap();
    drop(inner);
    let first = next_event_of(&b, Source::Lock(lock.id()), |k| matches!(k, EventKind::Released(_)));
    assert_eq!((first.kind, lock.hold_count()), (EventKind::Released(None), 1));
    drop(outer);
    let last = next_event_of(&b, Source::Lock(lock.id()), |k| matches!(k, EventKind::Released(_)));
    assert_eq!(last.kind, EventKind::Released(None));
    assert!(first.request_id > 0 && last.request_id > 0 && first.request_id != last.request_id);
    assert!(!lock.is_held());
}

#[test]
fn nonfair_election_elects_one() {
    let (a, b) = (client(), client());
    let path = unique_path("unfair");
    let ea = a.election_of(&path, "a", ElectionKind::NonFair).unwrap();
    let eb = b.election_of(&path, "b", ElectionKind::NonFair).unwrap();
    let observer = a.observer(&path, ElectionKind::NonFair).unwrap();
    let ta = ea.campaign_blocking(LONG).unwrap();
    assert_eq!(eb.campaign_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    assert!(eventually(LONG, || observer.leader().unwrap().as_deref() == Some("a")));
    ea.resign().unwrap();
    assert!(eb.campaign_blocking(LONG).unwrap() > ta);
}

#[test]
fn inspect_shows_holder_waiters_and_data() {
    let (a, b) = (client(), client());
    let path = unique_path("inspect");
    let la = a.lock_builder(&path).data("holder-a").build().unwrap();
    let lb = b.lock_builder(&path).data(b"waiter-b".to_vec()).build().unwrap();
    let ga = la.acquire_blocking(LONG).unwrap();
    let t = std::thread::spawn(move || lb.acquire_blocking(LONG).map(|g| g.fencing_token()));
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 2));
    let ps = a.inspect(&path, InspectKind::Lock(LockKind::Fair), LONG).unwrap();
    assert!(ps[0].is_holder && !ps[1].is_holder);
    assert_eq!(ps[0].data, b"holder-a");
    assert_eq!(ps[1].data, b"waiter-b");
    assert_eq!(ps[0].fencing_token, ga.fencing_token());
    assert_eq!(Some(ps[0].session_id), a.session_id());
    assert_eq!(Some(ps[1].session_id), b.session_id());
    drop(ga);
    t.join().unwrap().unwrap();
    assert!(a.inspect(&unique_path("absent"), InspectKind::Lock(LockKind::Fair), LONG).unwrap().is_empty());
}

#[test]
fn bad_paths_are_rejected() {
    let c = client();
    for bad in ["", "relative", "/trailing/", "/a//b", "/a/./b", "/a/../b", "/nul\0inside"] {
        assert_eq!(c.lock(bad).unwrap_err(), ErrorKind::BadPath, "{bad:?}");
        assert_eq!(c.election(bad, "x").unwrap_err(), ErrorKind::BadPath, "{bad:?}");
        assert_eq!(c.observer(bad, ElectionKind::Fair).unwrap_err(), ErrorKind::BadPath, "{bad:?}");
    }
    assert_eq!(c.semaphore(&unique_path("zero"), 0).unwrap_err(), ErrorKind::InvalidArgument);
    assert_eq!(c.election(&unique_path("id"), "nul\0id").unwrap_err(), ErrorKind::InvalidArgument);
    let too_big = vec![b'x'; 1024 * 1024 + 1];
    assert_eq!(c.lock_builder(&unique_path("big")).data(too_big).build().unwrap_err(), ErrorKind::TooBig);
}

#[test]
fn error_codes_map_both_ways() {
    for code in -23..=-1 {
        let e = Error::from_code(code);
        assert_eq!(e.code(), Some(code));
        assert!(!matches!(e.kind(), ErrorKind::Unknown(_)), "{code} unmapped");
        assert_eq!(e.to_string(), zkl::strerror(code));
        let _: &dyn std::error::Error = &e;
    }
    assert_eq!(Error::from_code(-999), ErrorKind::Unknown(-999));
    assert_eq!(Error::from_code(-4), ErrorKind::Timeout);
    assert_eq!(Error::from_code(-7), ErrorKind::NotHeld);
    assert_eq!(Error::from_code(-8), ErrorKind::NotOwner);
    assert_eq!(Error::from_code(-11), ErrorKind::Closed);
    assert_eq!(Error::from_code(-14), ErrorKind::Lost);
    let io: Error = std::io::Error::from(std::io::ErrorKind::Other).into();
    assert_eq!(io.code(), None);
    assert!(std::error::Error::source(&io).is_some());
}

#[test]
fn client_session_fd_and_stats() {
    let c = client();
    assert_eq!(c.state(), SessionState::Connected);
    assert!(c.session_id().is_some());
    assert_eq!(c.session_password().unwrap().len(), 16);
    assert!(c.session_timeout().unwrap() > Duration::ZERO);
    let fd = c.as_raw_fd();
    assert!(fd >= 0);
    assert_eq!(c.as_fd().as_raw_fd(), fd);
    assert_eq!(c.clone().as_raw_fd(), fd, "stable and shared by clones");
    let stats = parse_json(&c.stats().unwrap());
    assert_eq!(stats.get("client").and_then(|c| c.num("sessions")), Some(1.0));
    assert!(!zkl::version().is_empty());
    // The connect produced a session event.
    let ev = std::iter::from_fn(|| c.next_event()).find(|e| e.source == Source::Client).unwrap();
    assert_eq!(ev.kind, EventKind::Session);
    assert_eq!(ev.session_state, SessionState::Connected);
}

#[test]
fn connect_timeout_and_bad_options() {
    // Nobody listens on this port of the loopback (zk-server keeps its
    // ports out of the ephemeral range; port 1 is privileged and unused).
    let c = zkl::ClientBuilder::new("127.0.0.1:1").build().unwrap();
    assert_eq!(c.wait_connected(Duration::from_millis(200)).unwrap_err(), ErrorKind::Timeout);
    assert_eq!(c.state(), SessionState::Connecting);
    let lock = c.lock(&unique_path("offline")).unwrap();
    assert_eq!(lock.try_acquire().unwrap_err(), ErrorKind::Connection);
    assert_eq!(zkl::ClientBuilder::new("nul\0").build().unwrap_err(), ErrorKind::InvalidArgument);
}

#[test]
fn close_ends_pending_acquires_and_frees_nodes() {
    let holder = client();
    let c = client();
    let path = unique_path("close");
    let g = holder.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let lock = c.lock(&path).unwrap();
    let l2 = lock.clone();
    let t = std::thread::spawn(move || l2.acquire_blocking(LONG).map(drop));
    assert!(eventually(LONG, || nodes(&holder, &path, LockKind::Fair) == 2));
    c.close().unwrap();
    assert_eq!(t.join().unwrap().unwrap_err(), ErrorKind::Closed);
    assert_eq!(c.state(), SessionState::Closed);
    assert_eq!(lock.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Closed);
    assert_eq!(c.lock(&path).unwrap_err(), ErrorKind::Closed);
    assert!(eventually(LONG, || nodes(&holder, &path, LockKind::Fair) == 1));
    drop(g);
}

#[test]
fn cancel_from_another_thread() {
    let (a, b) = (client(), client());
    let path = unique_path("cancel");
    let _g = a.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let lock = b.lock(&path).unwrap();
    let l2 = lock.clone();
    let t = std::thread::spawn(move || l2.acquire_blocking(LONG).map(drop));
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 2));
    lock.cancel().unwrap();
    assert_eq!(t.join().unwrap().unwrap_err(), ErrorKind::Canceled);
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 1));
}

#[test]
fn dropping_the_lock_handle_releases() {
    let (a, b) = (client(), client());
    let path = unique_path("drop-handle");
    let la = a.lock(&path).unwrap();
    let g = la.acquire_blocking(LONG).unwrap();
    let owner = g.forget();
    assert_eq!(owner, zkl::DEFAULT_OWNER);
    drop(la); // zkl_lock_destroy releases the forgotten hold
    assert!(b.lock(&path).unwrap().acquire_blocking(LONG).is_ok());
}

#[test]
fn several_threads_wait_on_one_client() {
    // Blocking waits on one client from many threads: each gets its own
    // event, none misses one pumped by another thread.
    let holder = client();
    let c = client();
    let path = unique_path("many-waiters");
    let g = holder.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let observers: Vec<_> = (0..3).map(|_| c.observer(&path, ElectionKind::Fair).unwrap()).collect();
    let waiters: Vec<_> = observers
        .into_iter()
        .map(|o| std::thread::spawn(move || o.next_leader(LONG)))
        .collect();
    for w in waiters {
        assert!(w.join().unwrap().is_some());
    }
    drop(g);
}
