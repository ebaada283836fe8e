//! The multi-lock against a real ZooKeeper: all or none, one fencing token
//! per member path, release, loss of one member as loss of the whole, bad
//! input as typed errors.

mod common;

use std::time::{Duration, Instant};

use common::*;
use zkl::{ErrorKind, EventKind, InspectKind, Lock, LockKind, Revocation, Source};

const SHORT: Duration = Duration::from_millis(300);

fn free(c: &zkl::Client, path: &str) -> bool {
    eventually(LONG, || nodes(c, path, LockKind::Fair) == 0)
}

#[test]
fn all_or_none_with_one_token_per_path() {
    let (a, b) = (client(), client());
    let (p1, p2) = (unique_path("m1"), unique_path("m2"));
    // Given out of order: the canonical order is by path.
    let ml = a.multilock([a.lock(&p2).unwrap(), a.lock(&p1).unwrap()]).unwrap();
    assert_eq!(ml.paths().collect::<Vec<_>>(), vec![p1.as_str(), p2.as_str()]);
    assert_eq!(ml.members().len(), 2);

    // A member held elsewhere: the wait times out and holds none.
    let other = b.lock(&p2).unwrap();
    let held = other.acquire_blocking(LONG).unwrap();
    let t0 = Instant::now();
    assert_eq!(ml.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    assert!(t0.elapsed() >= SHORT - Duration::from_millis(20), "{:?}", t0.elapsed());
    assert!(!ml.is_held());
    assert!(ml.members().iter().all(|m| !m.is_held()));
    assert!(free(&b, &p1), "the member taken before the timeout was released");
    assert_eq!(nodes(&b, &p2, LockKind::Fair), 1);
    assert!(ml.try_acquire().unwrap().is_none());
    assert!(free(&b, &p1));
    assert_eq!(ml.current_token(&p1).unwrap_err(), ErrorKind::NotHeld);
    assert!(ml.valid_until().is_none());

    // Free again: both, each with its own token.
    let before = held.fencing_token();
    held.release_blocking().unwrap();
    let g = ml.acquire_blocking(LONG).unwrap();
    assert!(g.is_held() && ml.is_held());
    let (t1, t2) = (g.fencing_token(&p1).unwrap(), g.fencing_token(&p2).unwrap());
    assert!(t1 > 0 && t2 > before);
    assert_ne!(t1, t2);
    assert_eq!(g.fencing_tokens(), &[(p1.clone(), t1), (p2.clone(), t2)]);
    assert_eq!(ml.current_token(&p1).unwrap(), t1);
    assert_eq!(ml.members()[0].current_token().unwrap(), t1);
    assert_eq!(g.fencing_token("/not/a/member").unwrap_err(), ErrorKind::NotFound);
    assert_eq!(ml.current_token("/not/a/member").unwrap_err(), ErrorKind::NotFound);
    assert_eq!(ml.current_token("no-slash").unwrap_err(), ErrorKind::NotFound);
    assert_eq!(ml.current_token("/a\0b").unwrap_err(), ErrorKind::BadPath);
    let until = g.valid_until().expect("a lease while held");
    assert!(until > Instant::now());
    assert!(g.valid_for().unwrap() <= ml.members()[0].valid_for().unwrap() + Duration::from_millis(5));
    // Same owner again: deadlock; others wait in vain.
    assert_eq!(ml.acquire_blocking(Duration::ZERO).unwrap_err(), ErrorKind::Deadlock);
    assert!(b.lock(&p1).unwrap().try_acquire().unwrap().is_none());
    assert!(other.try_acquire().unwrap().is_none());

    // Released: every member; the next holders see larger tokens.
    g.release_blocking().unwrap();
    assert!(!ml.is_held());
    assert_eq!(nodes(&b, &p1, LockKind::Fair), 0);
    assert_eq!(nodes(&b, &p2, LockKind::Fair), 0);
    let g2 = ml.try_acquire().unwrap().expect("free");
    assert!(g2.fencing_token(&p1).unwrap() > t1);
    assert!(g2.fencing_token(&p2).unwrap() > t2);
    // Dropping the guard releases too.
    drop(g2);
    assert!(free(&b, &p1) && free(&b, &p2));
    assert_eq!(ml.release_blocking_as(zkl::DEFAULT_OWNER).unwrap_err(), ErrorKind::NotHeld);
}

#[test]
fn overlapping_multilocks_exclude_each_other() {
    let (a, b) = (client(), client());
    let (p1, p2, p3) = (unique_path("o1"), unique_path("o2"), unique_path("o3"));
    let ma = a.multilock([a.lock(&p1).unwrap(), a.lock(&p2).unwrap()]).unwrap();
    let mb = b.multilock([b.lock(&p3).unwrap(), b.lock(&p2).unwrap()]).unwrap();
    let ga = ma.acquire_blocking(LONG).unwrap();
    let shared = p2.clone();
    let waiter = std::thread::spawn(move || {
        let g = mb.acquire_blocking(LONG).unwrap();
        let t = g.fencing_token(&shared).unwrap();
        g.release_blocking().unwrap();
        t
    });
    std::thread::sleep(SHORT);
    let t_a = ga.fencing_token(&p2).unwrap();
    drop(ga);
    assert!(waiter.join().unwrap() > t_a);
}

#[test]
fn losing_one_member_loses_the_whole() {
    let (a, b) = (client(), client());
    let (p1, p2) = (unique_path("l1"), unique_path("l2"));
    let revocable = a.lock_builder(&p1).on_revoke(Revocation::Release).build().unwrap();
    let ml = a.multilock([&revocable, &a.lock(&p2).unwrap()]).unwrap();
    let g = ml.acquire_blocking(LONG).unwrap();
    assert_eq!(g.wait_lost(Duration::from_millis(50)), None);
    // Another client makes the holder of one member let go.
    assert_eq!(b.revoke(&p1, InspectKind::Lock(LockKind::Fair), None, LONG).unwrap(), 1);
    assert_eq!(g.wait_lost(LONG).map(|e| e.kind()), Some(ErrorKind::Revoked));
    assert!(!g.is_held());
    assert!(g.valid_until().is_none());
    // The other member was released with it.
    assert!(free(&b, &p1) && free(&b, &p2));
    assert!(b.lock(&p2).unwrap().try_acquire().unwrap().is_some());
    // The loss is reported once, as an error, never as a clean release.
    assert_eq!(g.release_blocking().unwrap_err(), ErrorKind::Lost);
    // The loss event is about the whole, not a member.
    let mut seen = false;
    while let Some(ev) = a.next_event() {
        if ev.source == Source::MultiLock(ml.id()) && ev.kind == EventKind::Lost(ErrorKind::Revoked.into()) {
            seen = true;
        }
        assert_ne!(ev.source, Source::Lock(revocable.id()), "member events are the multi-lock's");
    }
    assert!(seen);
    // And it can be taken again.
    let again = ml.acquire_blocking(LONG).unwrap();
    assert!(again.is_held());
}

#[test]
fn closing_the_client_loses_it_as_closed() {
    let a = client();
    let (p1, p2) = (unique_path("c1"), unique_path("c2"));
    let ml = a.multilock([a.lock(&p1).unwrap(), a.lock(&p2).unwrap()]).unwrap();
    let g = ml.acquire_blocking(LONG).unwrap();
    a.close().unwrap();
    assert_eq!(g.wait_lost(LONG).map(|e| e.kind()), Some(ErrorKind::Closed));
    assert!(!g.is_held());
    drop(g);
    assert_eq!(ml.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Closed);
    let b = client();
    assert!(free(&b, &p1) && free(&b, &p2));
}

#[test]
fn bad_input_is_a_typed_error() {
    let (a, b) = (client(), client());
    let (p1, p2) = (unique_path("b1"), unique_path("b2"));
    assert_eq!(a.multilock(Vec::<Lock>::new()).unwrap_err(), ErrorKind::InvalidArgument);
    // Two handles on one path.
    let dup = [a.lock(&p1).unwrap(), a.lock(&p1).unwrap()];
    assert_eq!(a.multilock(&dup).unwrap_err(), ErrorKind::InvalidArgument);
    // A handle of another client.
    let foreign = b.lock(&p2).unwrap();
    assert_eq!(a.multilock([&a.lock(&p1).unwrap(), &foreign]).unwrap_err(), ErrorKind::InvalidArgument);
    // Reentrant locks cannot be members.
    let re = a.reentrant_lock(&p2).unwrap();
    assert_eq!(a.multilock([a.lock(&p1).unwrap(), re]).unwrap_err(), ErrorKind::InvalidArgument);
    // A held handle, or one already in a multi-lock, is busy.
    let held = a.lock(&p2).unwrap();
    let g = held.acquire_blocking(LONG).unwrap();
    assert_eq!(a.multilock([a.lock(&p1).unwrap(), held.clone()]).unwrap_err(), ErrorKind::Busy);
    drop(g);
    let m1 = a.lock(&p1).unwrap();
    let ml = a.multilock([&m1]).unwrap();
    assert_eq!(a.multilock([&m1]).unwrap_err(), ErrorKind::Busy);
    // Members are taken over: only their getters work.
    assert_eq!(m1.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Busy);
    assert!(m1.try_acquire().is_err());
    let g = ml.acquire_blocking(LONG).unwrap();
    assert!(m1.is_held());
    assert_eq!(m1.current_token().unwrap(), g.fencing_token(&p1).unwrap());
    // Nothing pending: cancel says so.
    assert_eq!(ml.cancel().unwrap_err(), ErrorKind::NotHeld);
    drop(g);
    // Destroyed with the multi-lock (the member's own handle is then dead).
    drop(ml);
    assert_eq!(m1.acquire_blocking(SHORT).unwrap_err(), ErrorKind::BadHandle);
}

#[test]
fn mixed_kinds_and_cancel() {
    let (a, b) = (client(), client());
    let (p1, p2) = (unique_path("k1"), unique_path("k2"));
    let ml = a
        .multilock([a.semaphore(&p1, 2).unwrap(), a.write_lock(&p2).unwrap()])
        .unwrap();
    // A reader elsewhere blocks the write member; cancel ends the wait.
    let r = b.read_lock(&p2).unwrap();
    let rg = r.acquire_blocking(LONG).unwrap();
    let waiter = {
        let ml = ml.clone();
        std::thread::spawn(move || ml.acquire_blocking(LONG).map(|g| g.fencing_tokens().to_vec()))
    };
    assert!(eventually(LONG, || nodes(&b, &p2, LockKind::Write) >= 1));
    assert!(eventually(LONG, || ml.cancel().is_ok()));
    assert_eq!(waiter.join().unwrap().unwrap_err(), ErrorKind::Canceled);
    assert!(eventually(LONG, || nodes(&b, &p1, LockKind::Semaphore { max_leases: 2 }) == 0));
    drop(rg);
    let g = ml.acquire_blocking(LONG).unwrap();
    assert!(g.fencing_token(&p1).unwrap() > 0 && g.fencing_token(&p2).unwrap() > 0);
    // The semaphore has a second lease for somebody else.
    assert!(b.semaphore(&p1, 2).unwrap().try_acquire().unwrap().is_some());
    g.release_blocking().unwrap();
}

#[cfg(feature = "tokio")]
mod tokio_api {
    use super::*;

    fn run<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
            tokio::time::timeout(LONG * 2, f).await.expect("timed out")
        })
    }

    #[test]
    fn futures_are_send() {
        fn assert_send<T: Send>(_: &T) {}
        let a = client();
        let ml = a.multilock([a.lock(&unique_path("s")).unwrap()]).unwrap();
        assert_send(&ml.acquire());
    }

    #[test]
    fn acquire_await_times_out_with_none_then_succeeds_and_loses_as_closed() {
        let (a, b) = (client(), client());
        let (p1, p2) = (unique_path("a1"), unique_path("a2"));
        let ml = a.multilock([a.lock(&p1).unwrap(), a.lock(&p2).unwrap()]).unwrap();
        let other = b.lock(&p1).unwrap();
        run(async {
            let held = other.acquire().await.unwrap();
            assert_eq!(ml.acquire().timeout(SHORT).await.unwrap_err(), ErrorKind::Timeout);
            assert_eq!(nodes(&b, &p2, LockKind::Fair), 0);
            // Dropped while waiting: cancelled, nothing left behind.
            assert!(tokio::time::timeout(SHORT, ml.acquire()).await.is_err());
            assert!(!ml.is_held());
            drop(held);
            let g = ml.acquire().await.unwrap();
            assert!(g.fencing_token(&p1).unwrap() > 0 && g.fencing_token(&p2).unwrap() > 0);
            let closer = {
                let a = a.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(50));
                    a.close().unwrap();
                })
            };
            assert_eq!(g.lost().await.unwrap_err(), ErrorKind::Closed);
            closer.join().unwrap();
        });
        assert!(free(&b, &p1) && free(&b, &p2));
    }
}
