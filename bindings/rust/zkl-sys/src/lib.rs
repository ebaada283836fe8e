//! Raw declarations of the libzkl C ABI (`zkl.h`).
//!
//! Everything here is `unsafe` and mirrors the header one to one; use the
//! safe `zkl` crate instead. The constants (`src/constants.rs`) are generated
//! from `zkl.h` by `scripts/gen-constants` (never retyped); the functions and
//! options structs below are written by hand, and `tests/header_drift.rs`
//! parses the installed `zkl.h` and fails when a function, parameter or
//! return type, options struct field or constant here differs from it.
//!
//! The library is found with pkg-config (`PKG_CONFIG_PATH` for a non-system
//! install); the header's directory is exported to dependents' build scripts
//! as `DEP_ZKL_INCLUDE` and the library's as `DEP_ZKL_LIBDIR`.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

mod constants;
pub use constants::*;

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
opaque!(zkl_client, zkl_lock, zkl_multilock, zkl_election, zkl_observer, zkl_event, zkl_participants, zkl_ops);

/// Event callback (runs inside `zkl_client_dispatch`, on its caller's thread).
pub type zkl_event_cb = Option<unsafe extern "C" fn(ev: *const zkl_event, user_data: *mut c_void)>;

/// Log callback (runs inside `zkl_client_dispatch`, like event callbacks).
pub type zkl_log_cb = Option<
    unsafe extern "C" fn(level: c_int, component: *const c_char, message: *const c_char, user_data: *mut c_void),
>;

// ---------------------------------------------------------------------------
// Options structs (versioned; fill them with the *_options_init functions)
// ---------------------------------------------------------------------------

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_client_options {
    pub version: u32,
    pub servers: *const c_char,
    pub chroot: *const c_char,
    pub session_timeout_ms: i32,
    pub connect_timeout_ms: i32,
    pub lost_after_ms: i32,
    pub io: i32,
    pub acl: i32,
    pub digest_auth: *const c_char,
    pub tls_ca_file: *const c_char,
    pub tls_cert_file: *const c_char,
    pub tls_key_file: *const c_char,
    pub tls_key_password: *const c_char,
    pub tls_insecure_skip_hostname_check: i32,
    pub sasl_mechanism: *const c_char,
    pub sasl_user: *const c_char,
    pub sasl_password: *const c_char,
    pub sasl_keytab: *const c_char,
    pub sasl_ccache: *const c_char,
    pub sasl_service: *const c_char,
    pub sasl_host: *const c_char,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
    pub log_cb: zkl_log_cb,
    pub log_user_data: *mut c_void,
    pub log_level: i32,
    pub stats_interval_ms: i32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_lock_options {
    pub version: u32,
    pub kind: i32,
    pub max_leases: i32,
    pub leases: i32,
    pub max_hold_ms: i64,
    pub on_revoke: i32,
    pub data: *const c_void,
    pub data_len: usize,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_multilock_options {
    pub version: u32,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_election_options {
    pub version: u32,
    pub kind: i32,
    pub id: *const c_char,
    pub on_revoke: i32,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_observer_options {
    pub version: u32,
    pub kind: i32,
    pub cb: zkl_event_cb,
    pub user_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zkl_inspect_options {
    pub version: u32,
    pub lock_kind: i32,
    pub election_kind: i32,
    pub timeout_ms: i64,
}

// ---------------------------------------------------------------------------
// Functions (in the header's order)
// ---------------------------------------------------------------------------

extern "C" {
    pub fn zkl_version() -> c_int;
    pub fn zkl_version_string() -> *const c_char;
    pub fn zkl_strerror(err: c_int) -> *const c_char;
    pub fn zkl_free(p: *mut c_void);
    pub fn zkl_event_type(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_error(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_session_state(ev: *const zkl_event) -> c_int;
    pub fn zkl_event_lock(ev: *const zkl_event, out: *mut *mut zkl_lock) -> c_int;
    pub fn zkl_event_multilock(ev: *const zkl_event, out: *mut *mut zkl_multilock) -> c_int;
    pub fn zkl_event_election(ev: *const zkl_event, out: *mut *mut zkl_election) -> c_int;
    pub fn zkl_event_observer(ev: *const zkl_event, out: *mut *mut zkl_observer) -> c_int;
    pub fn zkl_event_user_data(ev: *const zkl_event, out: *mut *mut c_void) -> c_int;
    pub fn zkl_event_owner(ev: *const zkl_event, out: *mut u64) -> c_int;
    pub fn zkl_event_fencing_token(ev: *const zkl_event, out: *mut u64) -> c_int;
    pub fn zkl_event_data(ev: *const zkl_event, data: *mut *const c_char, len: *mut usize) -> c_int;
    pub fn zkl_event_log(ev: *const zkl_event, level: *mut c_int, component: *mut *const c_char) -> c_int;
    pub fn zkl_event_request_id(ev: *const zkl_event, out: *mut u64) -> c_int;
    pub fn zkl_event_ops(ev: *const zkl_event, out: *mut *const zkl_ops) -> c_int;
    pub fn zkl_event_free(ev: *mut zkl_event);
    pub fn zkl_client_options_init(opts: *mut zkl_client_options, version: u32) -> c_int;
    pub fn zkl_client_new(opts: *const zkl_client_options, out: *mut *mut zkl_client) -> c_int;
    pub fn zkl_client_create(
        opts: *const zkl_client_options,
        out: *mut *mut zkl_client,
        errbuf: *mut c_char,
        errbuf_size: usize,
    ) -> c_int;
    pub fn zkl_client_options_check(opts: *const zkl_client_options, errbuf: *mut c_char, errbuf_size: usize) -> c_int;
    pub fn zkl_client_close(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_destroy(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_wait_connected(c: *mut zkl_client, timeout_ms: i64) -> c_int;
    pub fn zkl_client_connect_error(c: *mut zkl_client, buf: *mut c_char, len: usize) -> c_int;
    pub fn zkl_client_set_servers(c: *mut zkl_client, servers: *const c_char) -> c_int;
    pub fn zkl_client_follow_ensemble(c: *mut zkl_client, on: c_int) -> c_int;
    pub fn zkl_client_state(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_session_id(c: *mut zkl_client, out: *mut u64) -> c_int;
    pub fn zkl_client_session_password(c: *mut zkl_client, buf: *mut c_void, len: usize) -> c_int;
    pub fn zkl_client_session_timeout(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_fd(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_dispatch(c: *mut zkl_client, max_events: c_int) -> c_int;
    pub fn zkl_client_next_event(c: *mut zkl_client, out: *mut *mut zkl_event) -> c_int;
    pub fn zkl_client_wait(c: *mut zkl_client, timeout_ms: i64) -> c_int;
    pub fn zkl_client_wakeup(c: *mut zkl_client) -> c_int;
    pub fn zkl_client_stats(c: *mut zkl_client, json: *mut *mut c_char, len: *mut usize) -> c_int;
    pub fn zkl_lock_options_init(opts: *mut zkl_lock_options, version: u32) -> c_int;
    pub fn zkl_lock_new(c: *mut zkl_client, path: *const c_char, opts: *const zkl_lock_options, out: *mut *mut zkl_lock) -> c_int;
    pub fn zkl_lock_destroy(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_acquire(l: *mut zkl_lock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_lock_try_acquire(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_acquire_async(l: *mut zkl_lock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_lock_cancel(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_release(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_release_async(l: *mut zkl_lock, owner: u64) -> c_int;
    pub fn zkl_lock_is_held(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_valid_for(l: *mut zkl_lock, ms: *mut i64) -> c_int;
    pub fn zkl_lock_fencing_token(l: *mut zkl_lock, out: *mut u64) -> c_int;
    pub fn zkl_lock_hold_count(l: *mut zkl_lock) -> c_int;
    pub fn zkl_lock_stats(l: *mut zkl_lock, json: *mut *mut c_char, len: *mut usize) -> c_int;
    pub fn zkl_multilock_options_init(opts: *mut zkl_multilock_options, version: u32) -> c_int;
    pub fn zkl_multilock_new(c: *mut zkl_client, members: *const *mut zkl_lock, n: usize, opts: *const zkl_multilock_options, out: *mut *mut zkl_multilock) -> c_int;
    pub fn zkl_multilock_destroy(m: *mut zkl_multilock) -> c_int;
    pub fn zkl_multilock_acquire(m: *mut zkl_multilock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_multilock_try_acquire(m: *mut zkl_multilock, owner: u64) -> c_int;
    pub fn zkl_multilock_acquire_async(m: *mut zkl_multilock, owner: u64, timeout_ms: i64) -> c_int;
    pub fn zkl_multilock_cancel(m: *mut zkl_multilock) -> c_int;
    pub fn zkl_multilock_release(m: *mut zkl_multilock, owner: u64) -> c_int;
    pub fn zkl_multilock_release_async(m: *mut zkl_multilock, owner: u64) -> c_int;
    pub fn zkl_multilock_is_held(m: *mut zkl_multilock) -> c_int;
    pub fn zkl_multilock_valid_for(m: *mut zkl_multilock, ms: *mut i64) -> c_int;
    pub fn zkl_multilock_count(m: *mut zkl_multilock) -> c_int;
    pub fn zkl_multilock_member(m: *mut zkl_multilock, i: usize, out: *mut *mut zkl_lock) -> c_int;
    pub fn zkl_multilock_fencing_token(m: *mut zkl_multilock, path: *const c_char, out: *mut u64) -> c_int;
    pub fn zkl_election_options_init(opts: *mut zkl_election_options, version: u32) -> c_int;
    pub fn zkl_election_new(c: *mut zkl_client, path: *const c_char, opts: *const zkl_election_options, out: *mut *mut zkl_election) -> c_int;
    pub fn zkl_election_destroy(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_acquire(e: *mut zkl_election, timeout_ms: i64) -> c_int;
    pub fn zkl_election_try_acquire(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_acquire_async(e: *mut zkl_election, timeout_ms: i64) -> c_int;
    pub fn zkl_election_cancel(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_release(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_is_leader(e: *mut zkl_election) -> c_int;
    pub fn zkl_election_valid_for(e: *mut zkl_election, ms: *mut i64) -> c_int;
    pub fn zkl_election_fencing_token(e: *mut zkl_election, out: *mut u64) -> c_int;
    pub fn zkl_election_stats(e: *mut zkl_election, json: *mut *mut c_char, len: *mut usize) -> c_int;
    pub fn zkl_observer_options_init(opts: *mut zkl_observer_options, version: u32) -> c_int;
    pub fn zkl_observer_new(c: *mut zkl_client, path: *const c_char, opts: *const zkl_observer_options, out: *mut *mut zkl_observer) -> c_int;
    pub fn zkl_observer_destroy(o: *mut zkl_observer) -> c_int;
    pub fn zkl_observer_leader(o: *mut zkl_observer, buf: *mut c_char, len: usize) -> c_int;
    pub fn zkl_observer_term(o: *mut zkl_observer, out: *mut u64) -> c_int;
    pub fn zkl_ops_new(out: *mut *mut zkl_ops) -> c_int;
    pub fn zkl_ops_free(ops: *mut zkl_ops);
    pub fn zkl_ops_create(ops: *mut zkl_ops, path: *const c_char, data: *const c_void, len: usize, flags: i32) -> c_int;
    pub fn zkl_ops_set(ops: *mut zkl_ops, path: *const c_char, data: *const c_void, len: usize, version: i32) -> c_int;
    pub fn zkl_ops_delete(ops: *mut zkl_ops, path: *const c_char, version: i32) -> c_int;
    pub fn zkl_ops_check(ops: *mut zkl_ops, path: *const c_char, version: i32) -> c_int;
    pub fn zkl_ops_count(ops: *const zkl_ops) -> c_int;
    pub fn zkl_ops_failed(ops: *const zkl_ops) -> c_int;
    pub fn zkl_ops_path(ops: *const zkl_ops, i: usize, buf: *mut c_char, len: usize) -> c_int;
    pub fn zkl_ops_version(ops: *const zkl_ops, i: usize, out: *mut i32) -> c_int;
    pub fn zkl_lock_write(l: *mut zkl_lock, owner: u64, ops: *mut zkl_ops) -> c_int;
    pub fn zkl_lock_write_async(l: *mut zkl_lock, owner: u64, ops: *const zkl_ops) -> c_int;
    pub fn zkl_multilock_write(m: *mut zkl_multilock, owner: u64, ops: *mut zkl_ops) -> c_int;
    pub fn zkl_multilock_write_async(m: *mut zkl_multilock, owner: u64, ops: *const zkl_ops) -> c_int;
    pub fn zkl_election_write(e: *mut zkl_election, ops: *mut zkl_ops) -> c_int;
    pub fn zkl_election_write_async(e: *mut zkl_election, ops: *const zkl_ops) -> c_int;
    pub fn zkl_election_proclaim(e: *mut zkl_election, data: *const c_void, len: usize) -> c_int;
    pub fn zkl_inspect_options_init(opts: *mut zkl_inspect_options, version: u32) -> c_int;
    pub fn zkl_inspect(c: *mut zkl_client, path: *const c_char, opts: *const zkl_inspect_options, out: *mut *mut zkl_participants) -> c_int;
    pub fn zkl_participants_count(p: *const zkl_participants) -> c_int;
    pub fn zkl_participants_name(p: *const zkl_participants, i: usize, out: *mut *const c_char) -> c_int;
    pub fn zkl_participants_is_holder(p: *const zkl_participants, i: usize) -> c_int;
    pub fn zkl_participants_fencing_token(p: *const zkl_participants, i: usize, out: *mut u64) -> c_int;
    pub fn zkl_participants_session_id(p: *const zkl_participants, i: usize, out: *mut u64) -> c_int;
    pub fn zkl_participants_ctime_ms(p: *const zkl_participants, i: usize, out: *mut i64) -> c_int;
    pub fn zkl_participants_data(p: *const zkl_participants, i: usize, data: *mut *const c_char, len: *mut usize) -> c_int;
    pub fn zkl_participants_leases(p: *const zkl_participants, i: usize) -> c_int;
    pub fn zkl_participants_free(p: *mut zkl_participants);
    pub fn zkl_revoke(c: *mut zkl_client, path: *const c_char, opts: *const zkl_inspect_options, holder: *const c_char) -> c_int;
    pub fn zkl_fence_check(c: *mut zkl_client, path: *const c_char, opts: *const zkl_inspect_options, token: u64) -> c_int;
}
