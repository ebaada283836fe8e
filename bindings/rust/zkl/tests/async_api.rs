//! The tokio API against a real ZooKeeper: acquire/await, cancellation by
//! drop, tokio::time::timeout, elections, observers, many tasks.
#![cfg(feature = "tokio")]

mod common;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use zkl::{Client, ClientBuilder, ElectionKind, ErrorKind, EventKind, LockKind, SessionState, Source};

fn current_thread<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

fn multi_thread<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// Bounds every await of a test: a bug fails fast instead of hanging.
async fn bounded<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LONG, f).await.expect("timed out")
}

/// `eventually` for async tests: sleeps on the runtime, so that spawned
/// tasks on a current-thread runtime keep running.
async fn eventually_async(mut f: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + LONG;
    while !f() {
        if tokio::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

async fn connect() -> Client {
    bounded(ClientBuilder::new(servers()).connect_timeout(CONNECT).connect_async()).await.unwrap()
}

#[test]
fn acquire_await_and_handoff() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-handoff");
        let la = a.lock(&path).unwrap();
        let lb = b.lock(&path).unwrap();
        let ga = bounded(la.acquire()).await.unwrap();
        assert!(ga.is_held());
        // The waiter runs on the same thread: awaiting must not block it.
        let waiter = tokio::spawn(async move { lb.acquire().await.map(|g| g.fencing_token()) });
        let first = ga.fencing_token();
        drop(ga);
        let second = bounded(waiter).await.unwrap().unwrap();
        assert!(second > first);
    });
}

#[test]
fn tokio_timeout_cancels_and_leaves_no_node() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-timeout");
        let ga = bounded(a.lock(&path).unwrap().acquire()).await.unwrap();
        let lb = b.lock(&path).unwrap();
        for _ in 0..5 {
            let r = tokio::time::timeout(Duration::from_millis(100), lb.acquire()).await;
            assert!(r.is_err(), "acquired a held lock");
        }
        // Dropped futures cancelled their acquires: only the holder's node.
        assert!(eventually_async(|| nodes(&a, &path, LockKind::Fair) == 1).await);
        assert!(!lb.is_held());
        // And the handle still works afterwards.
        drop(ga);
        let gb = bounded(lb.acquire()).await.unwrap();
        assert!(gb.is_held());
        assert_eq!(nodes(&a, &path, LockKind::Fair), 1);
    });
}

#[test]
fn dropping_a_pending_acquire_cancels_it() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-drop");
        let ga = bounded(a.lock(&path).unwrap().acquire()).await.unwrap();
        let lb = b.lock(&path).unwrap();
        {
            let mut fut = Box::pin(lb.acquire());
            // Poll until its node is queued behind the holder, then drop it.
            let queued = tokio::time::timeout(LONG, async {
                loop {
                    if let Some(r) = futures_poll_once(fut.as_mut()).await {
                        panic!("acquired a held lock: {r:?}");
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    if nodes(&a, &path, LockKind::Fair) == 2 {
                        break;
                    }
                }
            })
            .await;
            assert!(queued.is_ok(), "the acquire never queued");
        }
        assert!(eventually_async(|| nodes(&a, &path, LockKind::Fair) == 1).await);
        drop(ga);
        assert!(eventually_async(|| nodes(&a, &path, LockKind::Fair) == 0).await);
    });
}

#[test]
fn a_grant_nobody_awaits_is_released() {
    // The future is dropped after libzkl granted the lock but before the
    // future saw it: the hold must not leak.
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-unwanted");
        let lb = b.lock(&path).unwrap();
        let mut fut = Box::pin(lb.acquire());
        // One poll starts the acquire; then drop without polling again.
        assert!(futures_poll_once(fut.as_mut()).await.is_none());
        assert!(eventually_async(|| lb.is_held()).await);
        drop(fut);
        let la = a.lock(&path).unwrap();
        let ga = bounded(la.acquire()).await.unwrap();
        assert!(ga.is_held());
        assert!(!lb.is_held());
    });
}

#[test]
fn each_future_is_settled_by_its_own_request_id() {
    // One client, calls in flight on several handles at once, answered in
    // another order than they were started: each future takes the answer
    // to its own call (by the request id its C call returned).
    current_thread(async {
        let holder = connect().await;
        let c = connect().await;
        let (p1, p2, p3) = (unique_path("ids-1"), unique_path("ids-2"), unique_path("ids-3"));
        let h1 = bounded(holder.lock(&p1).unwrap().acquire()).await.unwrap();
        let h2 = bounded(holder.lock(&p2).unwrap().acquire()).await.unwrap();
        let h3 = bounded(holder.lock(&p3).unwrap().acquire()).await.unwrap();
        // Two acquires waiting, on two handles.
        let (l1, l2, l3) = (c.lock(&p1).unwrap(), c.lock(&p2).unwrap(), c.lock(&p3).unwrap());
        let mut a1 = Box::pin(l1.acquire());
        let mut a2 = Box::pin(l2.acquire());
        assert!(futures_poll_once(a1.as_mut()).await.is_none());
        assert!(futures_poll_once(a2.as_mut()).await.is_none());
        // And a multi-lock's, over p2 and a free path.
        let ml = c.multilock([c.lock(&p2).unwrap(), c.lock(&unique_path("ids-free")).unwrap()]).unwrap();
        let mut am = Box::pin(ml.acquire());
        assert!(futures_poll_once(am.as_mut()).await.is_none());
        // A third one cancelled by dropping its future.
        let mut cancelled = Box::pin(l3.acquire());
        assert!(futures_poll_once(cancelled.as_mut()).await.is_none());
        assert!(eventually_async(|| nodes(&holder, &p3, LockKind::Fair) == 2).await);
        drop(cancelled);
        // A fourth timed out by libzkl (its ACQUIRE_FAILED settles it, and
        // none of the others), then started again at once on the same
        // handle: the new call waits for an answer of its own.
        let l4 = c.lock(&p1).unwrap();
        let timed_out = bounded(l4.acquire().timeout(Duration::from_millis(200))).await;
        assert_eq!(timed_out.unwrap_err(), ErrorKind::Timeout);
        let mut again = Box::pin(l4.acquire());
        assert!(all_pending(&mut [&mut again, &mut a1, &mut a2]).await);
        assert!(eventually_async(|| nodes(&holder, &p1, LockKind::Fair) == 3).await);
        // The second started is answered first.
        drop(h2);
        let g2 = bounded(&mut a2).await.unwrap();
        assert_eq!(g2.fencing_token(), l2.current_token().unwrap());
        assert!(all_pending(&mut [&mut am]).await && all_pending(&mut [&mut a1, &mut again]).await);
        drop(g2);
        let gm = bounded(&mut am).await.unwrap();
        assert_eq!(gm.fencing_token(&p2).unwrap(), ml.current_token(&p2).unwrap());
        // p1 is fair: l1 queued before the restarted call of l4.
        drop(h1);
        let g1 = bounded(&mut a1).await.unwrap();
        assert_eq!(g1.fencing_token(), l1.current_token().unwrap());
        assert!(all_pending(&mut [&mut again]).await);
        let first = g1.fencing_token();
        drop(g1);
        let g4 = bounded(&mut again).await.unwrap();
        assert!(g4.fencing_token() > first);
        assert_eq!(g4.fencing_token(), l4.current_token().unwrap());
        // The cancelled call left no node, and its handle holds nothing.
        assert!(eventually_async(|| nodes(&holder, &p3, LockKind::Fair) == 1).await);
        drop(h3);
        assert!(eventually_async(|| nodes(&holder, &p3, LockKind::Fair) == 0).await);
        assert!(!l3.is_held());
        // The answers were the futures' own: none reached the event queue.
        while let Some(ev) = c.next_event() {
            assert!(
                !matches!(ev.kind, EventKind::Acquired | EventKind::AcquireFailed(_)),
                "an answer nobody took: {ev:?}"
            );
        }
    });
}

/// Polls each future once: true if none completed.
async fn all_pending<F: Future + Unpin>(futs: &mut [&mut F]) -> bool {
    for f in futs.iter_mut() {
        if futures_poll_once(&mut **f).await.is_some() {
            return false;
        }
    }
    true
}

/// Polls a future once; `Some` if it completed.
async fn futures_poll_once<F: Future + Unpin>(mut f: F) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut f).poll(cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

#[test]
fn libzkl_timeout_reports_timeout() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-zkl-timeout");
        let _ga = bounded(a.lock(&path).unwrap().acquire()).await.unwrap();
        let lb = b.lock(&path).unwrap();
        let r = bounded(lb.acquire().timeout(Duration::from_millis(200))).await;
        assert_eq!(r.unwrap_err(), ErrorKind::Timeout);
        assert_eq!(nodes(&a, &path, LockKind::Fair), 1);
    });
}

#[test]
fn reentrant_owners_and_release_from_another_task() {
    multi_thread(async {
        let c = connect().await;
        let lock = c.reentrant_lock(&unique_path("async-reentrant")).unwrap();
        let g1 = bounded(lock.acquire().owner(5)).await.unwrap();
        let g2 = bounded(lock.acquire().owner(5)).await.unwrap();
        assert_eq!(lock.hold_count(), 2);
        assert_eq!(bounded(lock.acquire().owner(6)).await.unwrap_err(), ErrorKind::Busy);
        tokio::spawn(async move { drop(g2) }).await.unwrap();
        assert_eq!(lock.hold_count(), 1);
        drop(g1);
        assert_eq!(lock.hold_count(), 0);
    });
}

#[test]
fn every_lock_recipe_works_async() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        // non-fair
        let p = unique_path("async-nonfair");
        let g = bounded(a.nonfair_lock(&p).unwrap().acquire()).await.unwrap();
        assert!(b.nonfair_lock(&p).unwrap().try_acquire().unwrap().is_none());
        drop(g);
        // read/write
        let p = unique_path("async-rw");
        let r1 = bounded(a.read_lock(&p).unwrap().acquire()).await.unwrap();
        let r2 = bounded(b.read_lock(&p).unwrap().acquire()).await.unwrap();
        let w = b.write_lock(&p).unwrap();
        assert!(tokio::time::timeout(Duration::from_millis(100), w.acquire()).await.is_err());
        drop((r1, r2));
        let wg = bounded(w.acquire()).await.unwrap();
        assert!(wg.is_held());
        // semaphore
        let p = unique_path("async-sem");
        let s1 = bounded(a.semaphore(&p, 2).unwrap().acquire()).await.unwrap();
        let s2 = bounded(b.semaphore(&p, 2).unwrap().acquire()).await.unwrap();
        let third = a.semaphore(&p, 2).unwrap();
        assert!(tokio::time::timeout(Duration::from_millis(100), third.acquire()).await.is_err());
        drop(s1);
        let s3 = bounded(third.acquire()).await.unwrap();
        assert!(s2.is_held() && s3.is_held());
    });
}

#[test]
fn many_tasks_on_a_multi_thread_runtime_never_overlap() {
    multi_thread(async {
        let path = unique_path("async-overlap");
        let inside = Arc::new(AtomicBool::new(false));
        let mut tasks = vec![];
        for _ in 0..4 {
            let (path, inside) = (path.clone(), inside.clone());
            tasks.push(tokio::spawn(async move {
                let c = connect().await;
                let lock = c.lock(&path).unwrap();
                let mut last = 0;
                for _ in 0..5 {
                    let g = bounded(lock.acquire()).await.unwrap();
                    assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                    assert!(g.fencing_token() > last);
                    last = g.fencing_token();
                    tokio::task::yield_now().await;
                    inside.store(false, Ordering::SeqCst);
                    drop(g);
                }
            }));
        }
        for t in tasks {
            bounded(t).await.unwrap();
        }
    });
}

#[test]
fn many_handles_on_one_client_share_its_fd() {
    // Several futures on one client, each waiting for its own result.
    current_thread(async {
        let c = connect().await;
        let path = unique_path("async-shared-fd");
        let locks: Vec<_> = (0..4).map(|_| c.lock(&path).unwrap()).collect();
        let mut last = 0;
        let holder = bounded(locks[0].acquire()).await.unwrap();
        let mut waiting: Vec<_> = locks[1..].iter().map(|l| Box::pin(l.acquire())).collect();
        last = last.max(holder.fencing_token());
        drop(holder);
        while !waiting.is_empty() {
            let (g, i, _) = bounded(select_all(&mut waiting)).await;
            let g = g.unwrap();
            assert!(g.fencing_token() > last);
            last = g.fencing_token();
            drop(waiting.remove(i));
        }
    });
}

/// A small select_all: the index of the first ready future.
async fn select_all<F: Future + Unpin>(futs: &mut [F]) -> (F::Output, usize, ()) {
    std::future::poll_fn(|cx| {
        for (i, f) in futs.iter_mut().enumerate() {
            if let std::task::Poll::Ready(v) = std::pin::Pin::new(f).poll(cx) {
                return std::task::Poll::Ready((v, i, ()));
            }
        }
        std::task::Poll::Pending
    })
    .await
}

#[test]
fn campaign_observer_and_statuses() {
    current_thread(async {
        let (a, b) = (connect().await, connect().await);
        let path = unique_path("async-election");
        let observer = b.observer(&path, ElectionKind::Fair).unwrap();
        assert_eq!(bounded(observer.leader_changed()).await.unwrap(), None);
        let ea = a.election(&path, "alpha").unwrap();
        let eb = b.election(&path, "beta").unwrap();
        let ta = bounded(ea.campaign()).await.unwrap();
        assert!(ea.is_leader());
        assert_eq!(bounded(observer.leader_changed()).await.unwrap().as_deref(), Some("alpha"));
        // Beta's campaign waits; a dropped campaign leaves the election.
        assert!(tokio::time::timeout(Duration::from_millis(200), eb.campaign()).await.is_err());
        assert!(eventually_async(|| {
            a.inspect(&path, zkl::InspectKind::Election(ElectionKind::Fair), LONG).unwrap().len() == 1
        })
        .await);
        let campaign = tokio::spawn({
            let eb = eb.clone();
            async move { eb.campaign().await }
        });
        assert!(eventually_async(|| {
            a.inspect(&path, zkl::InspectKind::Election(ElectionKind::Fair), LONG).unwrap().len() == 2
        })
        .await);
        // The campaign consumed the Elected status; the status stays.
        assert_eq!(ea.status(), Some(zkl::ElectionStatus::Elected(ta)));
        ea.resign().unwrap();
        let tb = bounded(campaign).await.unwrap().unwrap();
        assert!(tb > ta);
        assert_eq!(bounded(observer.leader_changed()).await.unwrap().as_deref(), Some("beta"));
        // Non-fair kind too.
        let p2 = unique_path("async-nonfair");
        let u1 = a.election_of(&p2, "u1", ElectionKind::NonFair).unwrap();
        let u2 = b.election_of(&p2, "u2", ElectionKind::NonFair).unwrap();
        let t1 = bounded(u1.campaign()).await.unwrap();
        u2.start_campaign(Duration::MAX).unwrap();
        assert_eq!(bounded(u2.status_changed()).await.unwrap(), zkl::ElectionStatus::NotElected);
        drop(u1);
        assert!(matches!(bounded(u2.status_changed()).await.unwrap(), zkl::ElectionStatus::Elected(t) if t > t1));
    });
}

#[test]
fn recv_event_and_close() {
    current_thread(async {
        let holder = connect().await;
        let c = connect().await;
        let ev = bounded(c.recv_event()).await.unwrap();
        assert_eq!((ev.source, ev.kind), (Source::Client, EventKind::Session));
        let path = unique_path("async-close");
        let _g = bounded(holder.lock(&path).unwrap().acquire()).await.unwrap();
        let lock = c.lock(&path).unwrap();
        let pending = tokio::spawn({
            let lock = lock.clone();
            async move { lock.acquire().await.map(drop) }
        });
        assert!(eventually_async(|| nodes(&holder, &path, LockKind::Fair) == 2).await);
        c.close().unwrap();
        assert_eq!(bounded(pending).await.unwrap().unwrap_err(), ErrorKind::Closed);
        assert_eq!(c.state(), SessionState::Closed);
        assert_eq!(bounded(c.connected()).await.unwrap_err(), ErrorKind::Closed);
    });
}

#[test]
fn a_client_outlives_its_first_runtime() {
    let c = current_thread(connect());
    let path = unique_path("two-runtimes");
    let lock = c.lock(&path).unwrap();
    let first = current_thread(async { bounded(lock.acquire()).await.unwrap().fencing_token() });
    // The first runtime (and the reactor the fd was registered with) is gone.
    let holder = client();
    let g = holder.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let second = multi_thread(async {
        let waiting = tokio::spawn({
            let lock = lock.clone();
            async move { bounded(lock.acquire()).await.map(|g| g.fencing_token()) }
        });
        assert!(eventually_async(|| nodes(&holder, &path, LockKind::Fair) == 2).await);
        drop(g);
        bounded(waiting).await.unwrap().unwrap()
    });
    assert!(second > first);
}
