//! Two (or more) processes contending for one lock, printing fencing tokens.
//!
//! ```text
//! cargo run --example contend -- 127.0.0.1:2181 /demo/lock &
//! cargo run --example contend -- 127.0.0.1:2181 /demo/lock
//! ```
//!
//! Usage: `contend [--rounds N] [--hold MS] [--timeout MS] SERVERS PATH`
//!
//! Each round acquires the lock, prints `acquired <fencing token>`, holds it
//! for --hold ms (default 500; -1: until stdin reaches EOF), releases it and
//! prints `released` (the protocol of the C tool zkl-hold, so the two can be
//! tested against each other). Exit status 2 on an acquire timeout.
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let (mut rounds, mut hold_ms, mut timeout_ms) = (3u32, 500i64, 30_000u64);
    while args.len() > 2 && args[0].starts_with("--") {
        let value = args.remove(1);
        match args.remove(0).as_str() {
            "--rounds" => rounds = value.parse().expect("--rounds N"),
            "--hold" => hold_ms = value.parse().expect("--hold MS"),
            "--timeout" => timeout_ms = value.parse().expect("--timeout MS"),
            other => {
                eprintln!("contend: unknown option {other}");
                return ExitCode::from(1);
            }
        }
    }
    let [servers, path] = &args[..] else {
        eprintln!("usage: contend [--rounds N] [--hold MS] [--timeout MS] SERVERS PATH");
        return ExitCode::from(1);
    };
    match run(servers, path, rounds, hold_ms, Duration::from_millis(timeout_ms)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == zkl::ErrorKind::Timeout => {
            eprintln!("contend: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("contend: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(servers: &str, path: &str, rounds: u32, hold_ms: i64, timeout: Duration) -> zkl::Result<()> {
    let client = zkl::Client::connect(servers, Duration::from_secs(20))?;
    let me = format!("pid {}", std::process::id());
    let lock = client.lock_builder(path).data(me.clone()).build()?;
    let mut out = std::io::stdout();
    for round in 1..=rounds {
        let guard = lock.acquire_blocking(timeout)?;
        eprintln!("{me}: round {round}: holding {path}");
        writeln!(out, "acquired {}", guard.fencing_token()).and_then(|_| out.flush()).ok();
        if hold_ms < 0 {
            let mut sink = Vec::new();
            std::io::stdin().read_to_end(&mut sink).ok();
        } else {
            // Still ours? A real program would check before each write to
            // the protected resource, passing it the fencing token.
            if guard.wait_lost(Duration::from_millis(hold_ms as u64)).is_some() {
                eprintln!("{me}: lost the lock");
            }
        }
        guard.release_blocking()?;
        writeln!(out, "released").and_then(|_| out.flush()).ok();
        if hold_ms < 0 {
            break;
        }
    }
    Ok(())
}
