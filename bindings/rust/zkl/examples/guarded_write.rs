//! Acquire a lock, write a value under it with a guarded write, release.
//!
//! ```text
//! cargo run --example guarded_write -- 127.0.0.1:2181 /demo/job hello
//! ```
//!
//! The value goes to `PATH/state` (strictly below the lock's path, as every
//! guarded write's operations must): created on the first run, replaced on
//! later ones. The write is applied only while the hold is real at the
//! ZooKeeper quorum: a holder that was frozen, cut off or expired writes
//! nothing, whatever it believes.
use std::process::ExitCode;
use std::time::Duration;

use zkl::{CreateMode, ErrorKind, Ops, ANY_VERSION};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [servers, path, value] = args.as_slice() else {
        eprintln!("usage: guarded_write SERVERS PATH VALUE");
        return ExitCode::from(1);
    };
    match run(servers, path, value) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("guarded_write: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(servers: &str, path: &str, value: &str) -> zkl::Result<()> {
    let client = zkl::Client::connect(servers, Duration::from_secs(30))?;
    let lock = client.lock(path)?;
    let guard = lock.acquire_blocking(Duration::from_secs(30))?;
    println!("acquired {path}, fencing token {}", guard.fencing_token());

    let state = format!("{path}/state");
    let written = match guard.write_blocking(&Ops::new().create(&state, value, CreateMode::PERSISTENT)) {
        // There from an earlier run: replace it, whatever its version.
        Err(e) if e == ErrorKind::Exists => guard.write_blocking(&Ops::new().set(&state, value, ANY_VERSION)),
        other => other,
    };
    match written {
        Ok(r) => println!("wrote {value:?} to {state} (data version {:?})", r.version(0)),
        Err(e) if e == ErrorKind::InDoubt => {
            eprintln!("the connection broke during the write: read {state} back before retrying");
            return Err(e);
        }
        // Nothing was written (Lost: the hold was gone at the quorum).
        Err(e) => return Err(e),
    }

    guard.release_blocking()?;
    println!("released");
    Ok(())
}
