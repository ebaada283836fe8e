//! Distributed locks, semaphores and leader election on ZooKeeper: safe Rust
//! bindings to libzkl.
//!
//! * [`Client`]: a ZooKeeper session, the factory of everything else.
//! * [`Lock`]: fair, reentrant, non-fair, read/write and semaphore recipes
//!   ([`LockKind`]); acquiring gives a [`LockGuard`] that releases on drop
//!   and carries a **fencing token** that strictly increases across holders.
//! * [`Election`] (fair or non-fair) and [`Observer`] (watch the leader and
//!   its term).
//! * Leases: [`LockGuard::valid_until`] / [`Election::valid_until`] say until
//!   when a hold is provably valid; `is_held` / `is_leader` are computed at
//!   the call from the monotonic clock.
//! * Loss is always delivered as an error: [`LockGuard::wait_lost`], events
//!   ([`Client::wait_event`]), and with the `tokio` feature
//!   `guard.lost().await` (`Err(Session)` on expiry, `Err(Closed)` when the
//!   client is closed while holding).
//! * Statistics as JSON ([`Client::stats`], [`Lock::stats`],
//!   [`Election::stats`]); libzkl's log lines go to the [`log`] crate.
//!
//! Blocking methods end in `_blocking` (or are named `wait_*`); with the
//! `tokio` feature the same operations exist as futures
//! (`lock.acquire().await`, `election.campaign().await`, ...) driven by
//! tokio's `AsyncFd` on the client's event fd — no threads of their own.
//!
//! ```no_run
//! use std::time::Duration;
//! use zkl::{Client, LockKind};
//!
//! let client = Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
//!
//! // A fair mutex.
//! let lock = client.lock("/app/locks/db")?;
//! let guard = lock.acquire_blocking(Duration::from_secs(5))?;
//! println!("holding with fencing token {}", guard.fencing_token());
//! drop(guard);
//!
//! // A reentrant lock counts holds per owner token.
//! let re = client.reentrant_lock("/app/locks/re")?;
//! let a = re.acquire_blocking_as(7, Duration::from_secs(5))?;
//! let b = re.acquire_blocking_as(7, Duration::ZERO)?; // no round trip
//! assert_eq!(re.hold_count(), 2);
//! drop((a, b));
//!
//! // A semaphore with 3 leases, and a read/write lock.
//! let lease = client.semaphore("/app/pool", 3)?.acquire_blocking(Duration::from_secs(5))?;
//! let read = client.lock_of("/app/rw", LockKind::Read)?;
//! let r = read.try_acquire()?; // None if a writer holds it
//! # drop((lease, r));
//! # Ok::<(), zkl::Error>(())
//! ```
//!
//! # Threads
//!
//! libzkl is thread-safe throughout, so [`Client`], [`Lock`], [`LockGuard`],
//! [`Election`] and [`Observer`] are `Send + Sync`; a guard may be released
//! on another thread or task than the one that acquired it (holds belong to
//! owner tokens, not threads). Several threads may wait on one client at
//! once; each event is delivered to whoever it concerns.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

use std::ffi::CString;
use std::time::Duration;

/// The `owner` and `timeout` builder methods of an acquire future (a type
/// with `owner` and `timeout_ms` fields); `$owner` is the owner method's
/// doc, `$left` ends the timeout method's (what a timeout leaves).
#[cfg(feature = "tokio")]
macro_rules! owner_and_timeout {
    ($owner:literal, $left:literal) => {
        #[doc = $owner]
        pub fn owner(mut self, owner: u64) -> Self {
            self.owner = owner;
            self
        }

        #[doc = concat!("Gives up after `timeout` with `Err(Timeout)` (`Duration::MAX`:\nnever), timed by libzkl; ", $left)]
        pub fn timeout(mut self, timeout: Duration) -> Self {
            self.timeout_ms = timeout_ms(timeout);
            self
        }
    };
}

#[cfg(feature = "tokio")]
mod asyncio;
mod client;
mod election;
mod error;
mod event;
mod lock;
mod multilock;
#[cfg(feature = "tokio")]
mod multilock_async;
mod write;
#[cfg(feature = "tokio")]
mod write_async;

#[cfg(feature = "tokio")]
pub use asyncio::{Acquire, Campaign};
pub use client::{Acl, Client, ClientBuilder, InspectKind, Participant, Sasl, Tls, DEFAULT_CONNECT_TIMEOUT};
pub use election::{Election, ElectionKind, ElectionStatus, Observer};
pub use error::{strerror, Error, ErrorKind, Result};
pub use event::{Event, EventKind, HandleId, SessionState, Source};
pub use lock::{Lock, LockBuilder, LockGuard, LockKind, Revocation, DEFAULT_OWNER};
pub use multilock::{MultiLock, MultiLockGuard};
#[cfg(feature = "tokio")]
pub use multilock_async::MultiAcquire;
pub use write::{CreateMode, Ops, WriteResult, ANY_VERSION, OPS_MAX_BYTES};
#[cfg(feature = "tokio")]
pub use write_async::Write;
pub use zkl_sys as sys;

/// The linked libzkl's version string, e.g. `"0.2.0"`.
pub fn version() -> String {
    // SAFETY: a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(sys::zkl_version_string()) }.to_string_lossy().into_owned()
}

/// Milliseconds for libzkl, rounded up (a nonzero wait never becomes "do
/// not wait"); beyond i64 milliseconds (e.g. `Duration::MAX`): forever.
pub(crate) fn timeout_ms(d: Duration) -> i64 {
    let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
    i64::try_from(ms).unwrap_or(-1)
}

/// A path for libzkl; an interior NUL byte is a bad path (libzkl checks the
/// rest: absolute, no empty, "." or ".." segments, no trailing slash).
pub(crate) fn c_path(path: &str) -> Result<CString> {
    CString::new(path).map_err(|_| Error::from(ErrorKind::BadPath))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_round_up_and_saturate() {
        assert_eq!(timeout_ms(Duration::ZERO), 0);
        assert_eq!(timeout_ms(Duration::from_micros(1)), 1);
        assert_eq!(timeout_ms(Duration::from_millis(1500)), 1500);
        assert_eq!(timeout_ms(Duration::MAX), -1);
    }

    #[test]
    fn interior_nul_is_a_bad_path() {
        assert_eq!(c_path("/a\0b").unwrap_err(), ErrorKind::BadPath);
        assert!(c_path("/a/b").is_ok());
    }

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn handles_are_send_and_sync() {
        assert_send_sync::<Client>();
        assert_send_sync::<Lock>();
        assert_send_sync::<LockGuard>();
        assert_send_sync::<Election>();
        assert_send_sync::<Observer>();
        assert_send_sync::<Error>();
        #[cfg(feature = "tokio")]
        {
            fn assert_send<T: Send>() {}
            assert_send::<Acquire>();
            assert_send::<Campaign>();
        }
    }
}
