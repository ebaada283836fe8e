//! Lost-lock notification: the server is frozen (SIGSTOP); libzkl suspends
//! the hold at once and gives the session up (LOST) once it is surely gone,
//! a session timeout after the connection was lost. Uses a server of its own
//! (pausing the shared one would disturb the other tests).

mod common;

use std::time::{Duration, Instant};

use common::*;
use zkl::{ClientBuilder, ErrorKind, EventKind, Source};

/// Resumes the server even when an assertion fails.
struct Paused<'a>(&'a Server);
impl<'a> Paused<'a> {
    fn new(s: &'a Server) -> Self {
        s.pause();
        Paused(s)
    }
}
impl Drop for Paused<'_> {
    fn drop(&mut self) {
        self.0.resume();
    }
}

/// frozen_server_suspends_then_loses: suspended is not lost.
#[test]
fn frozen_server_suspends_then_loses() {
    let server = Server::start("lost");
    let timeout = Duration::from_secs(2);
    let c = ClientBuilder::new(server.connect.as_str()).session_timeout(timeout).connect_timeout(CONNECT).connect().unwrap();
    let lock = c.lock(&unique_path("lost")).unwrap();

    // Blocking: SUSPENDED (is_held false at once) before a session timeout T
    // has passed, so before the server could have expired the session; then
    // LOST a session timeout after the C client noticed the silence (2/3 T
    // after the server's last answer): between T and 5/3 T (+ slack) after
    // the freeze.
    let g = lock.acquire_blocking(LONG).unwrap();
    let timeout = c.session_timeout().expect("negotiated session timeout");
    while c.next_event().is_some() {}
    let t0 = Instant::now();
    let paused = Paused::new(&server);
    let frozen_at = Instant::now(); // the freeze is between t0 and here
    let mut suspended = false;
    let lost = loop {
        let ev = c.wait_event(timeout * 3).expect("no LOST event while the server was frozen");
        if ev.source != Source::Lock(lock.id()) {
            continue;
        }
        assert_eq!(ev.request_id, 0, "{ev:?} answers no call");
        match ev.kind {
            EventKind::Suspended => {
                suspended = true;
                assert!(!g.is_held(), "is_held while suspended");
                assert!(t0.elapsed() < timeout, "suspended only after {:?} (T {timeout:?})", t0.elapsed());
            }
            EventKind::Lost(e) => break e,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert!(frozen_at.elapsed() >= timeout, "lost after {:?}, before T ({timeout:?})", frozen_at.elapsed());
    assert!(t0.elapsed() < timeout * 5 / 3 + Duration::from_millis(1500), "lost only after {:?}", t0.elapsed());
    assert!(suspended);
    assert_eq!(lost, ErrorKind::Session);
    assert_eq!(g.wait_lost(Duration::ZERO).map(|e| e.kind()), Some(ErrorKind::Session));
    assert_eq!(g.lost_error().map(|e| e.kind()), Some(ErrorKind::Session));
    assert!(!g.is_held());
    drop(paused);
    // The holder is told once, on release, that it had lost the lock.
    assert_eq!(g.release_blocking().unwrap_err(), ErrorKind::Lost);

    // A new session comes up by itself; the lock works again.
    c.wait_connected(LONG).unwrap();
    let g = lock.acquire_blocking(LONG).unwrap();
    assert_eq!(g.lost_error(), None);
    assert_eq!(g.wait_lost(Duration::from_millis(100)), None);

    #[cfg(feature = "tokio")]
    {
        // Async: guard.lost().await resolves with the reason.
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let still = tokio::time::timeout(Duration::from_millis(100), g.lost()).await;
            assert!(still.is_err(), "lost() resolved while held");
            let paused = Paused::new(&server);
            let why = tokio::time::timeout(timeout * 3, g.lost()).await.expect("lost() never resolved");
            assert_eq!(why.unwrap_err(), ErrorKind::Session);
            assert!(!g.is_held());
            drop(paused);
            tokio::time::timeout(LONG, c.connected()).await.unwrap().unwrap();
            // The handle can be acquired again while the lost guard lives;
            // dropping the lost guard then leaves the new hold alone.
            let again = tokio::time::timeout(LONG, lock.acquire()).await.unwrap().unwrap();
            assert!(again.fencing_token() > 0);
            drop(g);
            assert!(lock.is_held(), "a lost guard released a newer hold");
            assert_eq!(again.lost_error(), None);
            again.release_blocking().unwrap();
        });
    }
    #[cfg(not(feature = "tokio"))]
    drop(g);
    let stats = parse_json(&c.stats().unwrap());
    assert!(stats.get("client").and_then(|c| c.num("sessions")).unwrap() >= 2.0);
}
