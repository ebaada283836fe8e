//! Raw declarations of the libzkl C ABI (`zkl.h`), written by hand.
//!
//! Everything here is `unsafe` and mirrors the header one to one; use the
//! safe `zkl` crate instead. `tests/header_drift.rs` parses the installed
//! `zkl.h` and fails when a function, parameter or return type, options
//! struct field or constant here differs from it.
//!
//! The library is found with pkg-config (`PKG_CONFIG_PATH` for a non-system
//! install); the header's directory is exported to dependents' build scripts
//! as `DEP_ZKL_INCLUDE` and the library's as `DEP_ZKL_LIBDIR`.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------
// Version
// ---------------------------------------------------------------------------

pub const ZKL_VERSION_MAJOR: c_int = 0;
pub const ZKL_VERSION_MINOR: c_int = 1;
pub const ZKL_VERSION_PATCH: c_int = 0;

// ---------------------------------------------------------------------------
// Error codes
// ---------------------------------------------------------------------------

pub const ZKL_OK: c_int = 0;
pub const ZKL_EINVAL: c_int = -1;
pub const ZKL_EBADPATH: c_int = -2;
pub const ZKL_EBADHANDLE: c_int = -3;
pub const ZKL_ETIMEDOUT: c_int = -4;
pub const ZKL_EAGAIN: c_int = -5;
pub const ZKL_ECANCELED: c_int = -6;
pub const ZKL_ENOTHELD: c_int = -7;
pub const ZKL_ENOTOWNER: c_int = -8;
pub const ZKL_EBUSY: c_int = -9;
pub const ZKL_EDEADLK: c_int = -10;
pub const ZKL_ECLOSED: c_int = -11;
pub const ZKL_ECONNECTION: c_int = -12;
pub const ZKL_ESESSION: c_int = -13;
pub const ZKL_ELOST: c_int = -14;
pub const ZKL_EMISMATCH: c_int = -15;
pub const ZKL_EAUTH: c_int = -16;
pub const ZKL_ETOOBIG: c_int = -17;
pub const ZKL_ENOMEM: c_int = -18;
pub const ZKL_EZOOKEEPER: c_int = -19;
pub const ZKL_EVERSION: c_int = -20;
pub const ZKL_ENOTFOUND: c_int = -21;
pub const ZKL_EINTERNAL: c_int = -22;
pub const ZKL_ERANGE: c_int = -23;

// ---------------------------------------------------------------------------
// Events and session states
// ---------------------------------------------------------------------------

pub const ZKL_EVENT_SESSION: c_int = 1;
pub const ZKL_EVENT_ACQUIRED: c_int = 2;
pub const ZKL_EVENT_ACQUIRE_FAILED: c_int = 3;
pub const ZKL_EVENT_SUSPENDED: c_int = 4;
pub const ZKL_EVENT_RESTORED: c_int = 5;
pub const ZKL_EVENT_LOST: c_int = 6;
pub const ZKL_EVENT_RELEASED: c_int = 7;
pub const ZKL_EVENT_ELECTED: c_int = 8;
pub const ZKL_EVENT_NOT_ELECTED: c_int = 9;
pub const ZKL_EVENT_LEADER_CHANGED: c_int = 10;

pub const ZKL_SESSION_CONNECTING: c_int = 1;
pub const ZKL_SESSION_CONNECTED: c_int = 2;
pub const ZKL_SESSION_SUSPENDED: c_int = 3;
pub const ZKL_SESSION_RECONNECTED: c_int = 4;
pub const ZKL_SESSION_LOST: c_int = 5;
pub const ZKL_SESSION_CLOSED: c_int = 6;
pub const ZKL_SESSION_AUTH_FAILED: c_int = 7;

// ---------------------------------------------------------------------------
// Opaque handles and owned objects
// ---------------------------------------------------------------------------

/// Declares an opaque C type (never constructed or dereferenced in Rust).
macro_rules! opaque {
    ($($name:ident),* $(,)?) => {$(
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
            _not_send_sync: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}
opaque!(zkl_client, zkl_lock, zkl_election, zkl_observer, zkl_event, zkl_participants);

/// Event callback (runs inside `zkl_client_dispatch`, on its caller's thread).
pub type zkl_event_cb = Option<unsafe extern "C" fn(ev: *const zkl_event, user_data: *mut c_void)>;

// ---------------------------------------------------------------------------
// Options structs (versioned; fill them with the *_options_init functions)
// ---------------------------------------------------------------------------

pub const ZKL_CLIENT_OPTIONS_VERSION: u32 = 1;
pub const ZKL_ACL_OPEN: c_int = 0;
pub const ZKL_ACL_CREATOR: c_int = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_client_options {
    pub version: u32,
    pub servers: *const c_char,
    pub chroot: *const c_char,
    pub session_timeout_ms: i32,
    pub lost_after_ms: i32,
    pub digest_auth: *const c_char,
    pub acl: i32,
    pub session_cb: zkl_event_cb,
    pub session_user_data: *mut c_void,
}

pub const ZKL_COUNTER_REQUESTS: c_int = 1;
pub const ZKL_COUNTER_WATCH_EVENTS: c_int = 2;
pub const ZKL_COUNTER_EVENTS: c_int = 3;
pub const ZKL_COUNTER_SESSIONS: c_int = 4;
pub const ZKL_COUNTER_HEARTBEATS: c_int = 5;

pub const ZKL_LOCK_FAIR: c_int = 1;
pub const ZKL_LOCK_REENTRANT: c_int = 2;
pub const ZKL_LOCK_NONFAIR: c_int = 3;
pub const ZKL_LOCK_READ: c_int = 4;
pub const ZKL_LOCK_WRITE: c_int = 5;
pub const ZKL_LOCK_SEMAPHORE: c_int = 6;

pub const ZKL_LOCK_OPTIONS_VERSION: u32 = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_lock_options {
    pub version: u32,
    pub kind: i32,
    pub max_leases: i32,
    pub data: *const c_void,
    pub data_len: usize,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

pub const ZKL_ELECTION_FAIR: c_int = 1;
pub const ZKL_ELECTION_UNFAIR: c_int = 2;

pub const ZKL_ELECTION_OPTIONS_VERSION: u32 = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_election_options {
    pub version: u32,
    pub kind: i32,
    pub id: *const c_char,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

pub const ZKL_INSPECT_ELECTION_BASE: c_int = 100;

// ---------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------

extern "C" {
    // Version and errors
    pub fn zkl_version() -> c_int;
    pub fn zkl_version_string() -> *const c_char;
    pub fn zkl_strerror(err: c_int) -> *const c_char;

    // Events
    pub fn zkl_event_type(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_error(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_session_state(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_lock(ev: *const zkl_event, out: *mut *mut zkl_lock) -> c_int;
    pub fn zkl_event_election(ev: *const zkl_event, out: *mut *mut zkl_election) -> c_int;
    pub fn zkl_event_observer(ev: *const zkl_event, out: *mut *mut zkl_observer) -> c_int;
    pub fn zkl_event_user_data(ev: *const zkl_event, out: *mut *mut c_void) -> c_int;
    pub fn zkl_event_owner(ev: *const zkl_event, out: *mut u64) -> c_int;
    pub fn zkl_event_fencing_token(ev: *const zkl_event, out: *mut u64) -> c_int;
    pub fn zkl_event_data(ev: *const zkl_event, data: *mut *const c_char, len: *mut usize) -> c_int;
    pub fn zkl_event_free(ev: *mut zkl_event);

    // Client
    pub fn zkl_client_options_init(opts: *mut zkl_client_options, version: u32) -> c_int;
    pub fn zkl_client_new(opts: *const zkl_client_options, out: *mut *mut zkl_client) -> c_int;
    pub fn zkl_client_close(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_destroy(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_wait_connected(c: *mut zkl_client, timeout_ms: i64) -> c_int;
    pub fn zkl_client_state(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_session_id(c: *mut zkl_client, out: *mut u64) -> c_int;
    pub fn zkl_client_session_password(c: *mut zkl_client, buf: *mut c_void, len: usize) -> c_int;
    pub fn zkl_client_session_timeout(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_fd(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_dispatch(c: *mut zkl_client, max_events: c_int) -> c_int;
    pub fn zkl_client_next_event(c: *mut zkl_client, out: *mut *mut zkl_event) -> c_int;
    pub fn zkl_client_wait(c: *mut zkl_client, timeout_ms: i64) -> c_int;
    pub fn zkl_client_wakeup(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_counter(c: *mut zkl_client, which: i32, out: *mut u64) -> c_int;

    // Locks
    pub fn zkl_lock_options_init(opts: *mut zkl_lock_options, version: u32) -> c_int;
    pub fn zkl_lock_new(
        c: *mut zkl_client,
        path: *const c_char,
        opts: *const zkl_lock_options,
        out: *mut *mut zkl_lock,
    ) -> c_int;
    pub fn zkl_lock_destroy(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_acquire(l: *mut zkl_lock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_lock_try_acquire(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_acquire_async(l: *mut zkl_lock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_lock_cancel(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_release(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_release_async(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_is_held(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_fencing_token(l: *mut zkl_lock, out: *mut u64) -> c_int;
    pub fn zkl_lock_hold_count(l: *mut zkl_lock) -> c_int;

    // Leader election
    pub fn zkl_election_options_init(opts: *mut zkl_election_options, version: u32) -> c_int;
    pub fn zkl_election_new(
        c: *mut zkl_client,
        path: *const c_char,
        opts: *const zkl_election_options,
        out: *mut *mut zkl_election,
    ) -> c_int;
    pub fn zkl_election_destroy(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_start(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_campaign(e: *mut zkl_election, timeout_ms: i64) -> c_int;
    pub fn zkl_election_resign(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_is_leader(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_fencing_token(e: *mut zkl_election, out: *mut u64) -> c_int;

    // Observers
    pub fn zkl_observer_new(
        c: *mut zkl_client,
        path: *const c_char,
        kind: i32,
        cb: zkl_event_cb,
        user_data: *mut c_void,
        out: *mut *mut zkl_observer,
    ) -> c_int;
    pub fn zkl_observer_destroy(o: *mut zkl_observer) -> c_int;
    pub fn zkl_observer_leader(o: *mut zkl_observer, buf: *mut c_char, len: usize) -> c_int;

    // Inspection
    pub fn zkl_inspect(
        c: *mut zkl_client,
        path: *const c_char,
        kind: i32,
        timeout_ms: i64,
        out: *mut *mut zkl_participants,
    ) -> c_int;
    pub fn zkl_participants_count(p: *const zkl_participants) -> c_int;
    pub fn zkl_participants_name(p: *const zkl_participants, i: usize, out: *mut *const c_char) -> c_int;
    pub fn zkl_participants_is_holder(p: *const zkl_participants, i: usize) -> c_int;
    pub fn zkl_participants_fencing_token(p: *const zkl_participants, i: usize, out: *mut u64) -> c_int;
    pub fn zkl_participants_session_id(p: *const zkl_participants, i: usize, out: *mut u64) -> c_int;
    pub fn zkl_participants_ctime_ms(p: *const zkl_participants, i: usize, out: *mut i64) -> c_int;
    pub fn zkl_participants_data(
        p: *const zkl_participants,
        i: usize,
        data: *mut *const c_char,
        len: *mut usize,
    ) -> c_int;
    pub fn zkl_participants_free(p: *mut zkl_participants);
}
