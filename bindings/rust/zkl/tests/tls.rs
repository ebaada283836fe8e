//! The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
//! ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR).

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::*;
use zkl::{Client, ClientBuilder, ElectionKind, Error, ErrorKind, Tls};

/// Bound of one attempt (the attempt timeout), TLS handshake included.
const ATTEMPT: Duration = Duration::from_secs(3);
/// A failing connect must end within this (no hang).
const BOUND: Duration = Duration::from_secs(10);

/// A yes/no environment variable, strictly: unset or empty is no; 1/0,
/// true/false, yes/no, on/off in any case; anything else panics.
fn env_bool(name: &str) -> bool {
    let value = std::env::var(name).unwrap_or_default();
    match value.to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "no" | "off" => false,
        "1" | "true" | "yes" | "on" => true,
        _ => panic!("${name} must be one of 1/0, true/false, yes/no, on/off (any case), not {value:?}"),
    }
}

/// The TLS connect string and the certificates dir; `None` (the test is
/// skipped) without them, a panic under CI.
fn tls_server() -> Option<(String, PathBuf)> {
    match (std::env::var("ZKL_TEST_TLS_SERVERS"), std::env::var_os("ZKL_TEST_TLS_DIR")) {
        (Ok(servers), Some(dir)) if !servers.is_empty() => Some((servers, PathBuf::from(dir))),
        _ => {
            let why = "ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)";
            assert!(!env_bool("CI"), "{why}");
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// A builder for the TLS server: `ca` and, when given, the certificate and
/// key name files of the certificates dir.
fn tls_builder(ca: &str, cert_key: Option<(&str, &str)>, key_password: Option<String>) -> Option<ClientBuilder> {
    let (servers, dir) = tls_server()?;
    let at = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let tls = Tls {
        ca_file: at(ca),
        cert_file: cert_key.map(|(c, _)| at(c)),
        key_file: cert_key.map(|(_, k)| at(k)),
        key_password,
        ..Tls::default()
    };
    Some(ClientBuilder::new(servers).session_timeout(Duration::from_secs(6)).attempt_timeout(ATTEMPT).tls(tls))
}

fn mtls_client() -> Option<Client> {
    let builder = tls_builder("ca.pem", Some(("client.crt", "client.key")), None)?;
    Some(builder.connect_timeout(CONNECT).connect().expect("connect over TLS"))
}

/// Connecting with `builder` fails with `want`, within the bound; with the
/// tokio feature, `connect_async` says the same. The (blocking) error.
fn connect_fails(builder: Option<ClientBuilder>, want: ErrorKind) -> Option<Error> {
    // Waits past one attempt: the error says why the attempts failed.
    let builder = builder?.connect_timeout(ATTEMPT + Duration::from_secs(2));
    #[cfg(feature = "tokio")]
    let again = builder.clone();
    let t0 = Instant::now();
    let err = builder.connect().map(drop).unwrap_err();
    assert_eq!(err, want);
    assert!(t0.elapsed() < BOUND, "failed after {:?}", t0.elapsed());
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let t0 = Instant::now();
        let err = rt.block_on(again.connect_async()).map(drop).unwrap_err();
        assert_eq!(err, want, "connect_async");
        assert!(t0.elapsed() < BOUND, "connect_async failed after {:?}", t0.elapsed());
    }
    Some(err)
}

#[test]
fn tls_lock_and_election() {
    let (Some(a), Some(b)) = (mtls_client(), mtls_client()) else { return };
    let path = unique_path("tls");

    let lock = a.lock(&format!("{path}/lock")).unwrap();
    let guard = lock.acquire_blocking(LONG).unwrap();
    assert!(guard.is_held() && guard.fencing_token() > 0);
    guard.release_blocking().unwrap();
    assert!(!lock.is_held());

    let election = a.election(&format!("{path}/election"), "alpha").unwrap();
    let term = election.campaign_blocking(LONG).unwrap();
    assert!(election.is_leader());
    let observer = b.observer(&format!("{path}/election"), ElectionKind::Fair).unwrap();
    let seen = loop {
        match observer.next_leader_term(LONG).expect("no leader seen over TLS") {
            Some((who, t)) if who == "alpha" => break t,
            _ => continue,
        }
    };
    assert_eq!(seen, term);
    election.resign().unwrap();
}

#[test]
fn tls_encrypted_key() {
    let Some((_, dir)) = tls_server() else { return };
    let pass = std::fs::read_to_string(dir.join("client-key.pass")).unwrap().trim().to_string();
    let c = tls_builder("ca.pem", Some(("client.crt", "client-enc.key")), Some(pass))
        .unwrap()
        .connect_timeout(CONNECT)
        .connect()
        .expect("connect with the encrypted key");
    let guard = c.lock(&unique_path("tls-enc")).unwrap().acquire_blocking(LONG).unwrap();
    guard.release_blocking().unwrap();
}

#[test]
fn tls_wrong_ca() {
    // The server's chain ends in ca.pem, not in the CA trusted here.
    connect_fails(tls_builder("other-ca.pem", Some(("client.crt", "client.key")), None), ErrorKind::Cert);
}

#[test]
fn tls_wrong_ca_ends_wait() {
    // No session yet and every server refused verification: the session's
    // AuthFailed carries Cert, which ends the wait long before its 20 s,
    // with that kind (not Auth, not Timeout).
    let Some(builder) = tls_builder("other-ca.pem", Some(("client.crt", "client.key")), None) else { return };
    let builder = builder.connect_timeout(Duration::from_secs(20)).log_level(log::LevelFilter::Off);
    let check = |err: Error, t0: Instant, how: &str| {
        assert_eq!(err, ErrorKind::Cert, "{how}: {err}");
        assert!(t0.elapsed() < Duration::from_secs(5), "{how} failed after {:?} (timeout 20 s)", t0.elapsed());
        assert!(err.to_string().contains(" (tls): "), "{how}: {err}");
    };
    let t0 = Instant::now();
    check(builder.clone().connect().map(drop).unwrap_err(), t0, "connect");
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            // The event-driven waits: connected() and connect_async().
            let client = builder.clone().build().unwrap();
            let t0 = Instant::now();
            let waited = tokio::time::timeout(Duration::from_secs(20), client.connected()).await;
            check(waited.expect("connected() waited 20 s").unwrap_err(), t0, "connected()");
            assert_eq!(client.state(), zkl::SessionState::AuthFailed);
            // Asked again in that state, it answers the same at once.
            check(client.connected().await.unwrap_err(), Instant::now(), "connected() again");
            let t0 = Instant::now();
            check(builder.connect_async().await.map(drop).unwrap_err(), t0, "connect_async");
        });
    }
}

#[test]
fn connect_timeout_bounds_wait() {
    // The connect timeout bounds the whole wait for a session, not one
    // attempt: nothing listens on port 1, each attempt is refused at once.
    let builder = ClientBuilder::new("127.0.0.1:1").connect_timeout(Duration::from_secs(2)).log_level(log::LevelFilter::Off);
    let check = |err: Error, t0: Instant, how: &str| {
        let took = t0.elapsed();
        assert_eq!(err, ErrorKind::Timeout, "{how}: {err}");
        assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(5), "{how} failed after {took:?}");
        assert!(err.to_string().contains("connection refused"), "{how}: {err}");
    };
    let t0 = Instant::now();
    check(builder.clone().connect().map(drop).unwrap_err(), t0, "connect");
    #[cfg(feature = "tokio")]
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let t0 = Instant::now();
        check(rt.block_on(builder.connect_async()).map(drop).unwrap_err(), t0, "connect_async");
    }
}

#[test]
fn tls_no_client_cert() {
    // The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
    connect_fails(tls_builder("ca.pem", None, None), ErrorKind::ClientCert);
}

// The errors_detail_* scenarios: a failure's message says why, as libzkl
// does (the option and the reason; each server's failed attempt).

#[test]
fn errors_detail_key_missing() {
    let Some((_, dir)) = tls_server() else { return };
    let key = dir.join("missing.key").to_string_lossy().into_owned();
    let err = tls_builder("ca.pem", Some(("client.crt", "missing.key")), None).unwrap().build().unwrap_err();
    assert_eq!(err, ErrorKind::Cert);
    assert_eq!(err.op(), Some("new client"));
    let msg = err.to_string();
    assert!(msg.contains(&key) && msg.contains("No such file"), "{msg}");
}

#[test]
fn errors_detail_refused() {
    // Nothing listens on port 1: each attempt is refused; the wait runs out.
    let builder = ClientBuilder::new("127.0.0.1:1").attempt_timeout(Duration::from_secs(1));
    let err = builder.connect_timeout(Duration::from_secs(2)).connect().map(drop).unwrap_err();
    assert_eq!(err, ErrorKind::Timeout);
    let msg = err.to_string();
    assert!(msg.starts_with("connect: ") && msg.contains("127.0.0.1:1 (tcp)") && msg.contains("refused"), "{msg}");
}

#[test]
fn errors_detail_wrong_ca() {
    let builder = tls_builder("other-ca.pem", Some(("client.crt", "client.key")), None);
    let Some(err) = connect_fails(builder, ErrorKind::Cert) else { return };
    let msg = err.to_string();
    assert!(msg.contains(" (tls): ") && msg.contains("certificate"), "{msg}");
}
