//! The guarded-write, proclaim and fence-check scenarios of
//! bindings/CONFORMANCE.md (one test per id), against the shared ZooKeeper
//! server.

mod common;

use common::*;
use zkl::{CreateMode, ElectionKind, ErrorKind, InspectKind, LockGuard, LockKind, Ops, ANY_VERSION};

const P: CreateMode = CreateMode::PERSISTENT;

/// Whether `path` exists, asked through the guard's hold (a write of one
/// check).
fn exists(guard: &LockGuard, path: &str) -> bool {
    match guard.write_blocking(&Ops::new().check(path, ANY_VERSION)) {
        Ok(_) => true,
        Err(e) if e == ErrorKind::NotFound => false,
        Err(e) => panic!("check {path}: {e}"),
    }
}

#[test]
fn guarded_write_applies() {
    let c = client();
    let path = unique_path("gw-apply");
    let lock = c.lock(&path).unwrap();
    let guard = lock.acquire_blocking(LONG).unwrap();
    let state = format!("{path}/state");
    let ops = Ops::new()
        .create(&state, "v1", P)
        .set(&state, "v2", 0)
        .create(format!("{state}/item-"), "x", CreateMode::SEQUENTIAL);
    assert_eq!(ops.len(), 3);
    let r = guard.write_blocking(&ops).unwrap();
    assert_eq!(r.failed, None);
    assert_eq!(r.path(0), Some(state.as_str()));
    assert_eq!(r.path(1), None);
    let item = r.path(2).expect("the sequential create's path").to_string();
    assert!(item.starts_with(&format!("{state}/item-")) && item.len() > state.len() + 6, "{item}");
    assert_eq!(r.version(0), Some(0));
    assert_eq!(r.version(1), Some(1));
    // The set applied: the node's version is 1.
    guard.write_blocking(&Ops::new().check(&state, 1)).unwrap();
    assert_eq!(guard.write_blocking(&Ops::new().check(&state, 0)).unwrap_err(), ErrorKind::BadVersion);
    assert!(exists(&guard, &item));

    // The async form, through tokio: answered by request id.
    #[cfg(feature = "tokio")]
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    #[cfg(feature = "tokio")]
    rt.block_on(async {
        let first = guard.write(&Ops::new().create(format!("{path}/async"), "a", P));
        let second = lock.write(&Ops::new().create(format!("{path}/async"), "b", P));
        // Sent in this order (a write is sent on its first poll).
        let (r1, r2) = tokio::time::timeout(LONG, async {
            let mut first = std::pin::pin!(first);
            let second = std::pin::pin!(second);
            futures_poll_once(first.as_mut()).await;
            let r2 = second.await;
            (first.await, r2)
        })
        .await
        .unwrap();
        let r1 = r1.unwrap();
        assert_eq!(r1.path(0), Some(format!("{path}/async").as_str()));
        let e = r2.unwrap_err();
        assert_eq!(e, ErrorKind::Exists);
        assert_eq!(e.failed_op(), Some(0));
    });
    guard.release_blocking().unwrap();
}

/// Polls a future once (sending a write), leaving it pending.
#[cfg(feature = "tokio")]
async fn futures_poll_once<F: std::future::Future + Unpin>(mut f: F) {
    std::future::poll_fn(|cx| {
        let _ = std::pin::Pin::new(&mut f).poll(cx);
        std::task::Poll::Ready(())
    })
    .await
}

#[test]
fn guarded_write_refused() {
    let c = client();
    let path = unique_path("gw-refused");
    let lock = c.lock(&path).unwrap();
    let x = format!("{path}/x");
    // Without a hold.
    let e = lock.write_blocking(&Ops::new().create(&x, "1", P)).unwrap_err();
    assert_eq!(e, ErrorKind::NotHeld);
    assert_eq!(e.failed_op(), None);
    let guard = lock.acquire_blocking(LONG).unwrap();
    // Outside the lock's tree.
    let elsewhere = unique_path("gw-elsewhere");
    let e = guard
        .write_blocking(&Ops::new().create(format!("{path}/ok"), "fine", P).create(&elsewhere, "no", P))
        .unwrap_err();
    assert_eq!(e, ErrorKind::BadPath);
    // A create of an existing node, after a create in the same write.
    let data = format!("{path}/data");
    guard.write_blocking(&Ops::new().create(&data, "0", P)).unwrap();
    let first = format!("{path}/first");
    let e = guard.write_blocking(&Ops::new().create(&data, "again", P).create(&first, "no", P)).unwrap_err();
    assert_eq!(e, ErrorKind::Exists);
    assert_eq!(e.failed_op(), Some(0));
    let e = guard.write_blocking(&Ops::new().create(&first, "no", P).create(&data, "again", P)).unwrap_err();
    assert_eq!(e, ErrorKind::Exists);
    assert_eq!(e.failed_op(), Some(1));
    // A set with a wrong version.
    let e = guard.write_blocking(&Ops::new().set(&data, "x", 41)).unwrap_err();
    assert_eq!(e, ErrorKind::BadVersion);
    assert_eq!(e.failed_op(), Some(0));
    // Nothing of those was written; the data node is as created.
    assert!(!exists(&guard, &first));
    assert!(!exists(&guard, &format!("{path}/ok")));
    assert!(!exists(&guard, &x));
    guard.write_blocking(&Ops::new().check(&data, 0)).unwrap();
    // After release.
    guard.release_blocking().unwrap();
    assert_eq!(lock.write_blocking(&Ops::new().create(&x, "1", P)).unwrap_err(), ErrorKind::NotHeld);
    let guard = lock.acquire_blocking(LONG).unwrap();
    assert!(!exists(&guard, &x));
    // Refused before sending: bad operations.
    assert_eq!(guard.write_blocking(&Ops::new()).unwrap_err(), ErrorKind::InvalidArgument);
    let e = guard.write_blocking(&Ops::new().create("relative", "", P)).unwrap_err();
    assert_eq!(e, ErrorKind::BadPath);
    assert_eq!(e.path(), Some("relative"));
    assert_eq!(guard.write_blocking(&Ops::new().set(&data, "", -2)).unwrap_err(), ErrorKind::InvalidArgument);
    let big = vec![0u8; 1024 * 1024 + 1];
    assert_eq!(guard.write_blocking(&Ops::new().set(&data, big, ANY_VERSION)).unwrap_err(), ErrorKind::TooBig);
}

#[test]
fn guarded_write_multilock_election() {
    let c = client();
    let (p1, p2) = (unique_path("gw-m1"), unique_path("gw-m2"));
    let ml = c.multilock([c.lock(&p1).unwrap(), c.lock(&p2).unwrap()]).unwrap();
    let ops = Ops::new().create(format!("{p1}/x"), "1", P).create(format!("{p2}/y"), "2", P);
    assert_eq!(ml.write_blocking(&ops).unwrap_err(), ErrorKind::NotHeld);
    let guard = ml.acquire_blocking(LONG).unwrap();
    let r = guard.write_blocking(&ops).unwrap();
    assert_eq!(r.path(0), Some(format!("{p1}/x").as_str()));
    assert_eq!(r.path(1), Some(format!("{p2}/y").as_str()));
    let e = guard.write_blocking(&ops).unwrap_err();
    assert_eq!((e.kind(), e.failed_op()), (ErrorKind::Exists, Some(0)));
    drop(guard);

    let (a, b) = (client(), client());
    let path = unique_path("gw-election");
    let leader = a.election(&path, "alpha").unwrap();
    let follower = b.election(&path, "beta").unwrap();
    leader.campaign_blocking(LONG).unwrap();
    follower.start_campaign(std::time::Duration::MAX).unwrap();
    let config = format!("{path}/config");
    let r = leader.write_blocking(&Ops::new().create(&config, "from alpha", P)).unwrap();
    assert_eq!(r.path(0), Some(config.as_str()));
    let e = follower.write_blocking(&Ops::new().create(format!("{path}/other"), "from beta", P)).unwrap_err();
    assert_eq!(e, ErrorKind::NotHeld);
    // The async forms.
    #[cfg(feature = "tokio")]
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let e = tokio::time::timeout(LONG, leader.write(&Ops::new().create(&config, "again", P)))
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(e, ErrorKind::Exists);
        let e = follower.write(&Ops::new().create(&config, "x", P)).await.unwrap_err();
        assert_eq!(e, ErrorKind::NotHeld);
        let guard = ml.acquire().await.unwrap();
        let r = tokio::time::timeout(LONG, guard.write(&Ops::new().set(format!("{p1}/x"), "3", 0)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(r.version(0), Some(1));
    });
}

#[test]
fn proclaim_same_term() {
    let (a, b, o) = (client(), client(), client());
    let path = unique_path("gw-proclaim");
    let observer = o.observer(&path, ElectionKind::Fair).unwrap();
    let leader = a.election(&path, "alpha").unwrap();
    let follower = b.election(&path, "beta").unwrap();
    let term = leader.campaign_blocking(LONG).unwrap();
    follower.start_campaign(std::time::Duration::MAX).unwrap();
    assert!(eventually(LONG, || observer.leader().ok().flatten().as_deref() == Some("alpha")));
    leader.proclaim("alpha@v2").unwrap();
    assert!(eventually(LONG, || observer.leader().ok().flatten().as_deref() == Some("alpha@v2")));
    assert_eq!(observer.term().unwrap(), Some(term));
    assert!(leader.is_leader());
    assert_eq!(follower.proclaim("beta@v2").unwrap_err(), ErrorKind::NotHeld);
}

#[test]
fn fence_check_current_and_stale() {
    let (a, b) = (client(), client());
    let path = unique_path("gw-fence");
    let kind = InspectKind::Lock(LockKind::Fair);
    let ga = a.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let t1 = ga.fencing_token();
    b.fence_check(&path, kind, t1, LONG).unwrap();
    ga.release_blocking().unwrap();
    let gb = b.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let t2 = gb.fencing_token();
    assert!(t2 > t1);
    let e = a.fence_check(&path, kind, t1, LONG).unwrap_err();
    assert_eq!(e, ErrorKind::Stale);
    assert_eq!(e.op(), Some("fence check"));
    a.fence_check(&path, kind, t2, LONG).unwrap();
    assert_eq!(a.fence_check("bad", kind, t2, LONG).unwrap_err(), ErrorKind::BadPath);
    gb.release_blocking().unwrap();
    assert_eq!(a.fence_check(&path, kind, t2, LONG).unwrap_err(), ErrorKind::Stale);
}
