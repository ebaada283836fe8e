//! The scenarios of bindings/CONFORMANCE.md, one test per id (the same ids
//! run in every binding's suite), against the shared ZooKeeper server.

mod common;

use std::time::{Duration, Instant};

use common::*;
use zkl::{ElectionKind, Error, ErrorKind, InspectKind, LockKind, DEFAULT_OWNER};

const SHORT: Duration = Duration::from_millis(200);

fn election_nodes(c: &zkl::Client, path: &str) -> usize {
    c.inspect(path, InspectKind::Election(ElectionKind::Fair), LONG).expect("inspect").len()
}

#[test]
fn fair_lock_excludes() {
    let (a, b) = (client(), client());
    let path = unique_path("excl");
    let la = a.lock(&path).unwrap();
    let lb = b.lock(&path).unwrap();
    let ga = la.acquire_blocking(LONG).unwrap();
    // The typed AGAIN of a try is `Ok(None)` in Rust (would block).
    assert!(lb.try_acquire().unwrap().is_none());
    ga.release_blocking().unwrap();
    let gb = lb.acquire_blocking(LONG).unwrap();
    assert!(gb.is_held());
}

#[test]
fn timeout_zero_tries_once() {
    let (a, b) = (client(), client());
    let path = unique_path("zero");
    let la = a.lock(&path).unwrap();
    let ga = la.acquire_blocking(Duration::ZERO).expect("a free lock is taken with timeout 0");
    let lb = b.lock(&path).unwrap();
    let t0 = Instant::now();
    assert_eq!(lb.acquire_blocking(Duration::ZERO).unwrap_err(), ErrorKind::Timeout);
    assert!(t0.elapsed() < Duration::from_secs(3), "took {:?}", t0.elapsed());
    // Asked on the failing client's own session, which deleted its node first.
    assert_eq!(nodes(&b, &path, LockKind::Fair), 1, "the try left a node");
    drop(ga);
}

#[test]
fn acquire_timeout_leaves_no_node() {
    let (a, b) = (client(), client());
    let path = unique_path("timeout");
    let _ga = a.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let lb = b.lock(&path).unwrap();
    let t0 = Instant::now();
    assert_eq!(lb.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(150) && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(nodes(&b, &path, LockKind::Fair), 1); // b's session: after its delete
}

#[test]
fn cancel_pending_acquire() {
    let (a, b) = (client(), client());
    let path = unique_path("cancel");
    let _ga = a.lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let lb = b.lock(&path).unwrap();
    // A blocking acquire on another thread, cancelled from here.
    let waiter = std::thread::spawn({
        let lb = lb.clone();
        move || lb.acquire_blocking(LONG).map(drop)
    });
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 2));
    lb.cancel().unwrap();
    assert_eq!(waiter.join().unwrap().unwrap_err(), ErrorKind::Canceled);
    assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 1));
    // The async acquire (a future), cancelled through the handle.
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let pending = tokio::spawn({
                let lb = lb.clone();
                async move { lb.acquire().await.map(drop) }
            });
            while nodes(&a, &path, LockKind::Fair) != 2 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            lb.cancel().unwrap();
            let r = tokio::time::timeout(LONG, pending).await.unwrap().unwrap();
            assert_eq!(r.unwrap_err(), ErrorKind::Canceled);
        });
        assert!(eventually(LONG, || nodes(&a, &path, LockKind::Fair) == 1));
    }
}

#[cfg(feature = "tokio")]
#[test]
fn async_acquire_event() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let c = zkl::Client::connect_async(&servers(), CONNECT).await.unwrap();
        let lock = c.lock(&unique_path("async")).unwrap();
        let guard = tokio::time::timeout(LONG, lock.acquire()).await.unwrap().unwrap();
        assert!(guard.fencing_token() > 0);
        assert_eq!(lock.current_token().unwrap(), guard.fencing_token());
    });
}

#[test]
fn reentrant_hold_count() {
    let c = client();
    let lock = c.reentrant_lock(&unique_path("re")).unwrap();
    let g1 = lock.acquire_blocking(LONG).unwrap();
    let g2 = lock.acquire_blocking(LONG).unwrap();
    assert_eq!(lock.hold_count(), 2);
    g2.release_blocking().unwrap();
    assert_eq!(lock.hold_count(), 1);
    assert!(lock.is_held());
    g1.release_blocking().unwrap();
    assert!(!lock.is_held());
}

#[test]
fn release_twice_not_held() {
    let c = client();
    let path = unique_path("twice");
    for lock in [c.lock(&path).unwrap(), c.lock_builder(&path).data("x").build().unwrap()] {
        let owner = lock.acquire_blocking(LONG).unwrap().forget();
        lock.release_blocking_as(owner).unwrap();
        assert_eq!(lock.release_blocking_as(owner).unwrap_err(), ErrorKind::NotHeld);
    }
}

#[test]
fn release_wrong_owner() {
    let c = client();
    let lock = c.lock(&unique_path("owner")).unwrap();
    let g = lock.acquire_blocking_as(7, LONG).unwrap();
    assert_eq!(lock.release_blocking_as(8).unwrap_err(), ErrorKind::NotOwner);
    assert!(lock.is_held());
    g.release_blocking().unwrap();
}

#[test]
fn default_owner_any_thread_releases() {
    let c = client();
    let lock = c.lock(&unique_path("default-owner")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    assert_eq!(g.owner(), DEFAULT_OWNER);
    assert_eq!(DEFAULT_OWNER, zkl::sys::ZKL_DEFAULT_OWNER as u64);
    std::thread::spawn(move || g.release_blocking()).join().unwrap().unwrap();
    assert!(!lock.is_held());
    // Without a guard: another thread releases the default owner's hold.
    let owner = lock.acquire_blocking(LONG).unwrap().forget();
    let l2 = lock.clone();
    std::thread::spawn(move || l2.release_blocking_as(owner)).join().unwrap().unwrap();
    assert!(!lock.is_held());
}

#[test]
fn fencing_token_increases() {
    let (a, b) = (client(), client());
    let path = unique_path("tokens");
    let (la, lb) = (a.lock(&path).unwrap(), b.lock(&path).unwrap());
    let mut last: u64 = 0;
    for i in 0..4 {
        let l = if i % 2 == 0 { &la } else { &lb };
        let g = l.acquire_blocking(LONG).unwrap();
        let t: u64 = g.fencing_token();
        assert!(t > last, "token {t} after {last}");
        last = t;
        g.release_blocking().unwrap();
    }
}

#[test]
fn valid_for_while_held() {
    let c = client();
    let lock = c.lock(&unique_path("lease")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    let session = c.session_timeout().unwrap();
    let left = g.valid_for().expect("valid while held");
    assert!(left > Duration::ZERO && left < session, "{left:?} vs {session:?}");
    let until = g.valid_until().expect("a deadline while held");
    assert!(until > Instant::now() && until < Instant::now() + session);
    assert!(lock.valid_until().is_some());
    g.release_blocking().unwrap();
    assert_eq!(lock.valid_for(), None);
    assert_eq!(lock.valid_until(), None);
    // Elections answer the same way.
    let e = c.election(&unique_path("lease-election"), "me").unwrap();
    assert_eq!(e.valid_until(), None);
    e.campaign_blocking(LONG).unwrap();
    let left = e.valid_for().expect("valid while leader");
    assert!(left > Duration::ZERO && left < session);
    e.resign().unwrap();
    assert_eq!(e.valid_until(), None);
}

#[test]
fn is_held_false_after_close() {
    let c = client();
    let lock = c.lock(&unique_path("close-held")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    c.close().unwrap();
    assert!(!g.is_held());
    assert!(!lock.is_held());
    assert_eq!(g.valid_until(), None);
}

#[test]
fn lost_on_session_expiry() {
    let servers = servers();
    let c = client();
    let lock = c.lock(&unique_path("expiry")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    expire_session(&servers, &c);
    assert_eq!(g.wait_lost(LONG).map(|e| e.kind()), Some(ErrorKind::Session));
    assert!(!g.is_held());
    assert!(!lock.is_held());
    #[cfg(feature = "tokio")]
    {
        // The async form, on a fresh hold of a fresh session.
        c.wait_connected(LONG).unwrap();
        let g2 = lock.acquire_blocking(LONG).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            expire_session(&servers, &c);
            let why = tokio::time::timeout(LONG, g2.lost()).await.expect("lost() never resolved");
            assert_eq!(why.unwrap_err(), ErrorKind::Session);
        });
        assert!(!g2.is_held());
    }
}

#[test]
fn lost_on_client_close() {
    let c = client();
    let lock = c.lock(&unique_path("close-lost")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    c.close().unwrap();
    assert_eq!(g.wait_lost(LONG).map(|e| e.kind()), Some(ErrorKind::Closed), "close must deliver loss, not a clean release");
    #[cfg(feature = "tokio")]
    {
        let c = client();
        let lock = c.lock(&unique_path("close-lost-async")).unwrap();
        let g = lock.acquire_blocking(LONG).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let lost = g.lost();
            c.close().unwrap();
            let why = tokio::time::timeout(LONG, lost).await.expect("lost() never resolved");
            assert_eq!(why.unwrap_err(), ErrorKind::Closed);
        });
    }
}

#[test]
fn campaign_timeout_leaves_election() {
    let (a, b) = (client(), client());
    let path = unique_path("campaign-timeout");
    let ea = a.election(&path, "leader").unwrap();
    let eb = b.election(&path, "other").unwrap();
    ea.campaign_blocking(LONG).unwrap();
    assert_eq!(eb.campaign_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    assert!(eventually(LONG, || election_nodes(&a, &path) == 1), "the campaign left a node");
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let r = tokio::time::timeout(LONG, eb.campaign().timeout(SHORT)).await.unwrap();
            assert_eq!(r.unwrap_err(), ErrorKind::Timeout);
        });
        assert!(eventually(LONG, || election_nodes(&a, &path) == 1), "the async campaign left a node");
    }
    assert!(ea.is_leader());
}

#[test]
fn campaign_when_leader_returns_at_once() {
    let c = client();
    let e = c.election(&unique_path("campaign-again"), "me").unwrap();
    let t = e.campaign_blocking(LONG).unwrap();
    let t0 = Instant::now();
    assert_eq!(e.campaign_blocking(LONG).unwrap(), t);
    assert_eq!(e.campaign_blocking(Duration::ZERO).unwrap(), t);
    assert!(t0.elapsed() < Duration::from_secs(1));
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let again = rt.block_on(async { tokio::time::timeout(SHORT, e.campaign()).await });
        assert_eq!(again.expect("the async campaign waited").unwrap(), t);
    }
    assert!(e.is_leader());
}

#[test]
fn observer_leader_and_term() {
    let (a, b, o) = (client(), client(), client());
    let path = unique_path("observer");
    let observer = o.observer(&path, ElectionKind::Fair).unwrap();
    assert_eq!(observer.next_leader_term(LONG), Some(None));
    let ea = a.election(&path, "alpha").unwrap();
    let eb = b.election(&path, "beta").unwrap();
    let ta = ea.campaign_blocking(LONG).unwrap();
    assert_eq!(observer.next_leader_term(LONG), Some(Some(("alpha".to_string(), ta))));
    assert_eq!(observer.term().unwrap(), Some(ta));
    assert_eq!(observer.leader().unwrap().as_deref(), Some("alpha"));
    eb.start_campaign(Duration::MAX).unwrap();
    ea.resign().unwrap();
    let (who, tb) = loop {
        match observer.next_leader_term(LONG).expect("no leader change") {
            Some((who, term)) if who == "beta" => break (who, term),
            _ => continue,
        }
    };
    assert_eq!(who, "beta");
    assert!(tb > ta, "term {tb} after {ta}");
    eb.resign().unwrap();
    assert!(eventually(LONG, || observer.leader().unwrap().is_none()));
    assert_eq!(observer.term().unwrap(), None);
}

#[test]
fn semaphore_max_leases() {
    let (a, b, c) = (client(), client(), client());
    let path = unique_path("sem");
    let s1 = a.semaphore(&path, 2).unwrap().acquire_blocking(LONG).unwrap();
    let s2 = b.semaphore(&path, 2).unwrap().acquire_blocking(LONG).unwrap();
    let third = c.semaphore(&path, 2).unwrap();
    assert!(third.try_acquire().unwrap().is_none());
    assert_eq!(third.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Timeout);
    drop(s1);
    let s3 = third.acquire_blocking(LONG).unwrap();
    assert!(s2.is_held() && s3.is_held());
}

#[test]
fn read_write_lock_shared() {
    let (a, b, c) = (client(), client(), client());
    let path = unique_path("rw");
    let r1 = a.read_lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let r2 = b.read_lock(&path).unwrap().acquire_blocking(LONG).unwrap();
    let w = c.write_lock(&path).unwrap();
    assert!(w.try_acquire().unwrap().is_none());
    let writer = std::thread::spawn(move || w.acquire_blocking(LONG).map(|g| g.release_blocking()));
    r1.release_blocking().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert!(!writer.is_finished(), "the writer got in while a reader held");
    r2.release_blocking().unwrap();
    writer.join().unwrap().unwrap().unwrap();
}

#[test]
fn bad_path_rejected() {
    let c = client();
    for bad in ["", "relative", "/trailing/", "/a//b", "/a/./b", "/a/../b", "/nul\0byte", "/ctl\u{1}x"] {
        assert_eq!(c.lock(bad).unwrap_err(), ErrorKind::BadPath, "{bad:?}");
    }
}

#[test]
fn destroyed_handle_errors() {
    let c = client();
    let lock = c.lock(&unique_path("destroyed")).unwrap();
    c.close().unwrap();
    // Every call on a handle of a closed client answers a typed error.
    assert_eq!(lock.acquire_blocking(SHORT).unwrap_err(), ErrorKind::Closed);
    assert!(matches!(lock.try_acquire().unwrap_err().kind(), ErrorKind::Closed | ErrorKind::BadHandle));
    assert!(!lock.is_held());
    assert!(lock.current_token().is_err());
    assert!(matches!(c.lock(&unique_path("after-close")).and_then(|l| l.acquire_blocking(SHORT)).map_err(|e| e.kind()),
        Err(ErrorKind::Closed | ErrorKind::BadHandle)));
}

#[test]
fn held_lock_outlives_dropped_reference() {
    let (a, b) = (client(), client());
    let path = unique_path("outlives");
    let lock = a.lock(&path).unwrap();
    let guard = lock.acquire_blocking(LONG).unwrap();
    drop(lock); // the guard keeps the handle, and the hold
    drop(a); // and the client
    let other = b.lock(&path).unwrap();
    assert!(guard.is_held());
    assert!(other.try_acquire().unwrap().is_none());
    // Dropping the guard is the explicit release.
    drop(guard);
    assert!(other.acquire_blocking(LONG).is_ok());
}

#[test]
fn stats_document() {
    let c = client();
    let lock = c.lock(&unique_path("stats")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    let doc = parse_json(&c.stats().unwrap());
    assert_eq!(doc.num("schema"), Some(1.0));
    let client = doc.get("client").expect("client");
    for counter in ["requests", "watch_events", "events", "sessions", "heartbeats"] {
        assert!(client.num(counter).is_some(), "no {counter}");
    }
    assert!(client.num("requests").unwrap() >= 1.0);
    let Some(zkl_json_handles) = doc.get("handles") else { panic!("no handles") };
    assert!(matches!(zkl_json_handles, Json::Arr(h) if h.len() == 1));
    let entry = parse_json(&lock.stats().unwrap());
    assert_eq!(entry.get("held"), Some(&Json::Bool(true)));
    assert_eq!(entry.num("acquisitions"), Some(1.0));
    drop(g);
    let e = c.election(&unique_path("stats-election"), "me").unwrap();
    assert!(parse_json(&e.stats().unwrap()).get("type").is_some());
}

#[test]
fn set_servers_keeps_session() {
    // The suite's server and one that refuses (127.0.0.1:1); the new list
    // is the suite's server alone, the one the client is connected to.
    let c = zkl::Client::connect(&format!("{},127.0.0.1:1", servers()), CONNECT).unwrap();
    let lock = c.lock(&unique_path("set-servers")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    let (id, token) = (c.session_id().expect("a session"), g.fencing_token());
    let client_stats = || parse_json(&c.stats().unwrap()).get("client").expect("client").clone();
    for _ in 0..2 {
        // The second time the list in force is given again: nothing changes.
        c.set_servers(&servers()).expect("set servers");
        assert_eq!(c.session_id(), Some(id));
        assert!(g.is_held());
        assert!(lock.is_held());
        assert_eq!(g.fencing_token(), token);
        assert_eq!(lock.current_token().unwrap(), token);
        let stats = client_stats();
        assert_eq!(stats.num("server_list_changes"), Some(1.0));
        assert_eq!(stats.get("servers"), Some(&Json::Str(servers())));
    }
}

#[test]
fn set_servers_errors() {
    let c = client();
    for bad in ["", "nohostport", "a\0b"] {
        let e = c.set_servers(bad).unwrap_err();
        assert_eq!(e, ErrorKind::InvalidArgument, "{bad:?}: {e}");
        assert_eq!(e.op(), Some("set servers"));
        assert!(e.to_string().starts_with("set servers"), "{e}");
    }
    // A bad list leaves the session as it was.
    assert!(c.session_id().is_some());
    c.close().unwrap();
    assert_eq!(c.set_servers(&servers()).unwrap_err(), ErrorKind::Closed);
    let e = c.follow_ensemble(true).unwrap_err();
    assert_eq!(e, ErrorKind::Closed);
    assert_eq!(e.op(), Some("follow ensemble"));
}

#[test]
fn follow_ensemble_standalone() {
    // A standalone server has no ensemble configuration to follow: the
    // call succeeds and the list stays the suite's server.
    let c = client();
    let lock = c.lock(&unique_path("follow")).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    let id = c.session_id();
    c.follow_ensemble(true).expect("follow ensemble");
    // libzkl has read /zookeeper/config (or found none) and says why it
    // does not follow it.
    assert!(eventually(LONG, || {
        let doc = parse_json(&c.stats().unwrap());
        let e = doc.get("client").and_then(|cl| cl.get("ensemble")).expect("ensemble").clone();
        e.get("following") == Some(&Json::Bool(true))
            && matches!(e.get("not_followed"), Some(Json::Str(why)) if !why.is_empty())
    }));
    let doc = parse_json(&c.stats().unwrap());
    let client = doc.get("client").expect("client");
    assert_eq!(client.get("servers"), Some(&Json::Str(servers())));
    assert_eq!(c.session_id(), id);
    assert!(g.is_held());
    c.follow_ensemble(false).expect("stop following");
    let b = zkl::Client::builder(servers()).follow_ensemble(true).connect().expect("follow_ensemble option");
    assert!(b.session_id().is_some());
}

#[test]
fn constants_match_header() {
    // zkl-sys's constants are generated from zkl.h (scripts/gen-constants;
    // zkl-sys/tests/header_drift.rs compares them with the installed
    // header). Here: the safe crate's mappings use them, both ways.
    use zkl::sys;
    let errors = [
        sys::ZKL_EINVAL, sys::ZKL_EBADPATH, sys::ZKL_EBADHANDLE, sys::ZKL_ETIMEDOUT, sys::ZKL_EAGAIN,
        sys::ZKL_ECANCELED, sys::ZKL_ENOTHELD, sys::ZKL_ENOTOWNER, sys::ZKL_EBUSY, sys::ZKL_EDEADLK,
        sys::ZKL_ECLOSED, sys::ZKL_ECONNECTION, sys::ZKL_ESESSION, sys::ZKL_ELOST, sys::ZKL_EMISMATCH,
        sys::ZKL_EAUTH, sys::ZKL_ETOOBIG, sys::ZKL_ENOMEM, sys::ZKL_EZOOKEEPER, sys::ZKL_EVERSION,
        sys::ZKL_ENOTFOUND, sys::ZKL_EINTERNAL, sys::ZKL_ERANGE, sys::ZKL_ENOTSUP, sys::ZKL_EMAXHOLD,
        sys::ZKL_EREVOKED, sys::ZKL_ETLS, sys::ZKL_ECERT, sys::ZKL_EHOSTNAME, sys::ZKL_ECLIENTCERT,
        sys::ZKL_EPROTOCOL, sys::ZKL_EEXISTS, sys::ZKL_EBADVERSION, sys::ZKL_ENOTEMPTY, sys::ZKL_ESTALE,
        sys::ZKL_EINDOUBT,
    ];
    for code in errors {
        let e = Error::from_code(code);
        assert!(!matches!(e.kind(), ErrorKind::Unknown(_)), "{code} has no variant");
        assert_eq!(e.code(), Some(code));
        assert_eq!(e.to_string(), zkl::strerror(code));
    }
    assert_eq!(ErrorKind::Timeout.code(), Some(-4));
    assert_eq!(DEFAULT_OWNER, 1);
    assert_eq!(ErrorKind::Exists.code(), Some(sys::ZKL_EEXISTS));
    assert_eq!(ErrorKind::InDoubt.code(), Some(sys::ZKL_EINDOUBT));
    assert_eq!(zkl::CreateMode::SEQUENTIAL.raw(), sys::ZKL_CREATE_SEQUENTIAL);
    assert_eq!((zkl::CreateMode::EPHEMERAL | zkl::CreateMode::SEQUENTIAL).raw(), 3);
    assert_eq!(zkl::ANY_VERSION, sys::ZKL_ANY_VERSION);
    let generated = include_str!("../../zkl-sys/src/constants.rs");
    assert!(generated.starts_with("// Code generated by scripts/gen-constants"));
    let v = zkl::version();
    assert_eq!(v, format!("{}.{}.{}", sys::ZKL_VERSION_MAJOR, sys::ZKL_VERSION_MINOR, sys::ZKL_VERSION_PATCH));
}
