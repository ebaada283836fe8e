use std::sync::Arc;
use std::time::{Duration, Instant};

use zkl_sys as sys;

use crate::error::{check, At};
use crate::{c_path, timeout_ms, Client, Error, ErrorKind, HandleId, Result};

/// The owner token used by the methods without an `_as` suffix
/// (`ZKL_DEFAULT_OWNER`): the handle itself is the owner, so any thread or
/// task may release what another acquired.
pub const DEFAULT_OWNER: u64 = sys::ZKL_DEFAULT_OWNER as u64;

/// What a holder does when someone asks it to let go
/// ([`Client::revoke`], Curator's Revoker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Revocation {
    /// Not watched (no extra request per hold).
    #[default]
    Ignore,
    /// An [`crate::EventKind::RevokeRequested`] event; the holder decides.
    Notify,
    /// The event, then zkl releases by itself and delivers lost with
    /// [`ErrorKind::Revoked`].
    Release,
}

impl Revocation {
    pub(crate) fn raw(self) -> i32 {
        match self {
            Revocation::Ignore => sys::ZKL_REVOKE_IGNORE,
            Revocation::Notify => sys::ZKL_REVOKE_NOTIFY,
            Revocation::Release => sys::ZKL_REVOKE_RELEASE,
        }
    }
}

/// A lease answer in milliseconds (`zkl_*_valid_for`) as a duration, `None`
/// when not held (or not provably valid).
pub(crate) fn lease(rc: i32, ms: i64) -> Option<Duration> {
    (rc == 0 && ms > 0).then(|| Duration::from_millis(ms as u64))
}

/// The recipe of a [`Lock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// FIFO mutex (Curator `InterProcessMutex`-compatible nodes).
    Fair,
    /// Fair, plus a hold count per owner token: the same owner may acquire
    /// again without waiting.
    Reentrant,
    /// One ephemeral node; waiters race when it goes (not FIFO).
    NonFair,
    /// Shared side of a read/write lock (Curator `InterProcessReadWriteLock`).
    Read,
    /// Exclusive side of a read/write lock.
    Write,
    /// One of `max_leases` leases; every participant must use the same N.
    Semaphore {
        /// Number of leases (N >= 1).
        max_leases: u32,
    },
}

impl LockKind {
    pub(crate) fn raw(self) -> i32 {
        match self {
            LockKind::Fair => sys::ZKL_LOCK_FAIR,
            LockKind::Reentrant => sys::ZKL_LOCK_REENTRANT,
            LockKind::NonFair => sys::ZKL_LOCK_NONFAIR,
            LockKind::Read => sys::ZKL_LOCK_READ,
            LockKind::Write => sys::ZKL_LOCK_WRITE,
            LockKind::Semaphore { .. } => sys::ZKL_LOCK_SEMAPHORE,
        }
    }
}

/// Configures a [`Lock`]: see [`Client::lock_builder`].
#[derive(Debug, Clone)]
pub struct LockBuilder {
    client: Client,
    path: String,
    kind: LockKind,
    data: Vec<u8>,
    leases: u32,
    max_hold: Option<Duration>,
    on_revoke: Revocation,
}

impl LockBuilder {
    /// Semaphore: leases taken per acquisition, all or none (1..=max_leases,
    /// default 1); one node, one fencing token for them all.
    pub fn leases(mut self, leases: u32) -> Self {
        self.leases = leases;
        self
    }

    /// A hold ends after this long: zkl releases it and delivers lost with
    /// [`ErrorKind::MaxHold`] (default: no limit).
    pub fn max_hold(mut self, max: Duration) -> Self {
        self.max_hold = Some(max);
        self
    }

    /// What a holder does on a revocation request (default
    /// [`Revocation::Ignore`]).
    pub fn on_revoke(mut self, what: Revocation) -> Self {
        self.on_revoke = what;
        self
    }

    /// The recipe (default [`LockKind::Fair`]).
    pub fn kind(mut self, kind: LockKind) -> Self {
        self.kind = kind;
        self
    }

    /// Data stored in this contender's node, e.g. a holder id that
    /// [`Client::inspect`] shows (at most 1 MiB).
    pub fn data(mut self, data: impl Into<Vec<u8>>) -> Self {
        self.data = data.into();
        self
    }

    /// Creates the handle (no server traffic yet).
    pub fn build(self) -> Result<Lock> {
        let path = self.path.clone();
        self.create().at("new lock", &path)
    }

    fn create(self) -> Result<Lock> {
        let path = c_path(&self.path)?;
        let mut opts = std::mem::MaybeUninit::<sys::zkl_lock_options>::zeroed();
        check(unsafe { sys::zkl_lock_options_init(opts.as_mut_ptr(), sys::ZKL_LOCK_OPTIONS_VERSION as u32) })?;
        // SAFETY: initialised by zkl_lock_options_init.
        let mut opts = unsafe { opts.assume_init() };
        opts.kind = self.kind.raw();
        if let LockKind::Semaphore { max_leases } = self.kind {
            let invalid = |_| Error::from(ErrorKind::InvalidArgument);
            opts.max_leases = i32::try_from(max_leases).map_err(invalid)?;
            opts.leases = i32::try_from(self.leases).map_err(invalid)?;
        }
        if let Some(max) = self.max_hold {
            opts.max_hold_ms = timeout_ms(max).max(1);
        }
        opts.on_revoke = self.on_revoke.raw();
        if !self.data.is_empty() {
            opts.data = self.data.as_ptr().cast();
            opts.data_len = self.data.len();
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: path and data outlive the call (libzkl copies them).
        check(unsafe { sys::zkl_lock_new(self.client.raw(), path.as_ptr(), &opts, &mut raw) })?;
        self.client.inner.add_slot(raw as usize);
        Ok(Lock {
            inner: Arc::new(LockInner { raw, client: self.client, kind: self.kind, path: self.path }),
        })
    }
}

impl Client {
    /// A fair lock on `path` (FIFO, Curator `InterProcessMutex`-compatible).
    pub fn lock(&self, path: &str) -> Result<Lock> {
        self.lock_builder(path).build()
    }

    /// A lock of `kind` on `path`.
    pub fn lock_of(&self, path: &str, kind: LockKind) -> Result<Lock> {
        self.lock_builder(path).kind(kind).build()
    }

    /// A reentrant lock on `path`: the same owner token may acquire it again.
    pub fn reentrant_lock(&self, path: &str) -> Result<Lock> {
        self.lock_of(path, LockKind::Reentrant)
    }

    /// A non-fair lock on `path`.
    pub fn nonfair_lock(&self, path: &str) -> Result<Lock> {
        self.lock_of(path, LockKind::NonFair)
    }

    /// The shared (read) side of the read/write lock on `path`.
    pub fn read_lock(&self, path: &str) -> Result<Lock> {
        self.lock_of(path, LockKind::Read)
    }

    /// The exclusive (write) side of the read/write lock on `path`.
    pub fn write_lock(&self, path: &str) -> Result<Lock> {
        self.lock_of(path, LockKind::Write)
    }

    /// One lease of the semaphore on `path` with `max_leases` leases (all
    /// participants must agree on the number, or acquire fails with
    /// [`ErrorKind::Mismatch`]).
    pub fn semaphore(&self, path: &str, max_leases: u32) -> Result<Lock> {
        self.lock_of(path, LockKind::Semaphore { max_leases })
    }

    /// A builder for a lock with node data or another kind.
    pub fn lock_builder(&self, path: &str) -> LockBuilder {
        LockBuilder {
            client: self.clone(),
            path: path.to_string(),
            kind: LockKind::Fair,
            data: Vec::new(),
            leases: 1,
            max_hold: None,
            on_revoke: Revocation::Ignore,
        }
    }
}

/// A lock handle: one contender for a distributed lock, semaphore lease or
/// read/write lock side. Cloning shares the handle (and its holds).
///
/// One handle is held by at most one owner token at a time; use one handle
/// per concurrent contender (handles are cheap). Acquiring returns a
/// [`LockGuard`] that releases the hold when dropped.
///
/// ```no_run
/// # use std::time::Duration;
/// # let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
/// let lock = client.lock("/app/lock")?;
/// match lock.try_acquire()? {
///     Some(guard) => println!("got it, token {}", guard.fencing_token()),
///     None => println!("somebody else holds it"),
/// }
/// # Ok::<(), zkl::Error>(())
/// ```
#[derive(Clone)]
pub struct Lock {
    pub(crate) inner: Arc<LockInner>,
}

pub(crate) struct LockInner {
    pub(crate) raw: *mut sys::zkl_lock,
    pub(crate) client: Client,
    kind: LockKind,
    path: String,
}

// SAFETY: libzkl is thread-safe; `raw` is a checked handle value that is
// destroyed only in Drop, after every clone and guard is gone.
unsafe impl Send for LockInner {}
unsafe impl Sync for LockInner {}

impl Drop for LockInner {
    fn drop(&mut self) {
        // Reached with a hold only when a guard was forgotten
        // (LockGuard::forget) and every handle dropped: say so, never
        // release silently.
        let holds = unsafe { sys::zkl_lock_hold_count(self.raw) };
        if holds > 0 {
            log::warn!(
                target: "zkl::zkl",
                "lock handle on {} dropped while held ({holds} hold(s) of a forgotten guard): releasing",
                self.path
            );
        }
        self.client.inner.remove_slot(self.raw as usize);
        // Releases or cancels; the node is deleted in the background.
        unsafe { sys::zkl_lock_destroy(self.raw) };
    }
}

impl std::fmt::Debug for Lock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lock")
            .field("path", &self.inner.path)
            .field("kind", &self.inner.kind)
            .field("held", &self.is_held())
            .finish()
    }
}

impl Lock {
    pub(crate) fn raw(&self) -> *mut sys::zkl_lock {
        self.inner.raw
    }

    /// The id events about this handle carry ([`crate::Source::Lock`]).
    pub fn id(&self) -> HandleId {
        HandleId(self.inner.raw as usize)
    }

    /// The lock path.
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// The recipe.
    pub fn kind(&self) -> LockKind {
        self.inner.kind
    }

    /// The client this lock belongs to.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The loss count before an acquisition (see `ClientInner::lost_gen`).
    fn lost_gen(&self) -> u64 {
        self.inner.client.inner.lost_gen(self.raw() as usize)
    }

    pub(crate) fn guard(&self, owner: u64, token: u64, lost_gen: u64) -> LockGuard {
        LockGuard { lock: self.clone(), owner, token, lost_gen, armed: true }
    }

    /// Waits up to `timeout` to acquire (`Duration::MAX`: forever).
    ///
    /// Errors: `Timeout`, `Deadlock` (a non-reentrant lock already held by
    /// this owner), `Busy` (held or being acquired by another owner on this
    /// handle), `Closed`, `Mismatch` (semaphore lease count). On any error
    /// no node is left behind. Blocks the calling thread: in async code use
    /// [`Lock::acquire`] (feature `tokio`).
    pub fn acquire_blocking(&self, timeout: Duration) -> Result<LockGuard> {
        self.acquire_blocking_as(DEFAULT_OWNER, timeout)
    }

    /// [`Lock::acquire_blocking`] for an explicit owner token (reentrant
    /// locks count holds per owner).
    pub fn acquire_blocking_as(&self, owner: u64, timeout: Duration) -> Result<LockGuard> {
        let gen = self.lost_gen();
        check(unsafe { sys::zkl_lock_acquire(self.raw(), owner, timeout_ms(timeout)) }).at("acquire", self.path())?;
        let token = self.current_token().unwrap_or(0);
        Ok(self.guard(owner, token, gen))
    }

    /// Acquires if nobody is in the way (one round trip): `Ok(None)` when
    /// another holder is. `Err(Connection)` while disconnected.
    pub fn try_acquire(&self) -> Result<Option<LockGuard>> {
        self.try_acquire_as(DEFAULT_OWNER)
    }

    /// [`Lock::try_acquire`] for an explicit owner token.
    pub fn try_acquire_as(&self, owner: u64) -> Result<Option<LockGuard>> {
        let gen = self.lost_gen();
        match check(unsafe { sys::zkl_lock_try_acquire(self.raw(), owner) }) {
            Ok(_) => {
                let token = self.current_token().unwrap_or(0);
                Ok(Some(self.guard(owner, token, gen)))
            }
            Err(e) if e == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e.during("try acquire", Some(self.path()))),
        }
    }

    /// Releases one hold of `owner` without a guard (see
    /// [`LockGuard::forget`]); waits for the server when it was the last.
    /// `NotHeld` if not held, `NotOwner` for another owner, `Lost` (once)
    /// when the lock was lost while held.
    pub fn release_blocking_as(&self, owner: u64) -> Result<()> {
        check(unsafe { sys::zkl_lock_release(self.raw(), owner) }).at("release", self.path()).map(drop)
    }

    /// Cancels a pending acquire of this handle (its node is deleted):
    /// a blocking acquire on another thread returns `Canceled`. `NotHeld`
    /// when nothing is pending.
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::zkl_lock_cancel(self.raw()) }).at("cancel", self.path()).map(drop)
    }

    /// Held and provably valid at this instant (computed at the call from
    /// the monotonic clock and the last time the server heard from this
    /// client): false while suspended, after loss, after close, and on the
    /// first call after the process was frozen past the safety bound.
    pub fn is_held(&self) -> bool {
        unsafe { sys::zkl_lock_is_held(self.raw()) == 1 }
    }

    /// How long from now the hold stays provably valid even if the server
    /// is never heard from again; `None` when not held (or suspended, or
    /// past the bound).
    pub fn valid_for(&self) -> Option<Duration> {
        let mut ms = 0i64;
        let rc = unsafe { sys::zkl_lock_valid_for(self.raw(), &mut ms) };
        lease(rc, ms)
    }

    /// The lease deadline: the instant until which the hold stays provably
    /// valid (hand it to the work as its own deadline, and pass the fencing
    /// token to the resource). `None` when not held.
    pub fn valid_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.valid_for().map(|d| now + d)
    }

    /// This handle's statistics as JSON (its entry of [`Client::stats`]).
    pub fn stats(&self) -> Result<String> {
        crate::client::take_json(|json, len| unsafe { sys::zkl_lock_stats(self.raw(), json, len) }).at("stats", self.path())
    }

    /// Current hold count (0 when not held).
    pub fn hold_count(&self) -> u32 {
        unsafe { sys::zkl_lock_hold_count(self.raw()) }.max(0) as u32
    }

    /// Fencing token of the current hold (`NotHeld` if not held).
    pub fn current_token(&self) -> Result<u64> {
        let mut t = 0u64;
        check(unsafe { sys::zkl_lock_fencing_token(self.raw(), &mut t) }).at("fencing token", self.path())?;
        Ok(t)
    }
}

/// One hold of a [`Lock`]. Dropping it releases the hold, explicitly and at
/// once (without waiting for the server; use [`LockGuard::release_blocking`]
/// to wait and see the outcome): keep the guard alive as long as you hold
/// the lock. Dropping the [`Lock`] handle does not release a guard's hold.
/// `Send` and `Sync`: it may be released from any thread or task.
#[must_use = "dropping the guard releases the lock"]
pub struct LockGuard {
    lock: Lock,
    owner: u64,
    token: u64,
    lost_gen: u64,
    armed: bool,
}

impl std::fmt::Debug for LockGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LockGuard")
            .field("path", &self.lock.path())
            .field("owner", &self.owner)
            .field("fencing_token", &self.token)
            .finish()
    }
}

impl LockGuard {
    /// The fencing token of this acquisition: strictly increasing across
    /// successive holders of the path. Pass it to the resource you protect.
    pub fn fencing_token(&self) -> u64 {
        self.token
    }

    /// The owner token this hold belongs to.
    pub fn owner(&self) -> u64 {
        self.owner
    }

    /// The lock handle.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// Still held and provably valid at this instant (see
    /// [`Lock::is_held`]).
    pub fn is_held(&self) -> bool {
        self.lock.is_held() && self.lost_error().is_none()
    }

    /// How long from now this hold stays provably valid; `None` when not
    /// held (see [`Lock::valid_for`]).
    pub fn valid_for(&self) -> Option<Duration> {
        if self.lost_error().is_some() {
            return None;
        }
        self.lock.valid_for()
    }

    /// The lease deadline of this hold; `None` when not held (see
    /// [`Lock::valid_until`]).
    pub fn valid_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.valid_for().map(|d| now + d)
    }

    /// Whether the lock was lost since this guard's acquisition, as far as
    /// the events taken from the client so far tell (see
    /// [`LockGuard::wait_lost`], which waits for them).
    pub fn lost_error(&self) -> Option<Error> {
        let st = self.lock.client().inner.router.lock();
        self.lost_in(&st)
    }

    pub(crate) fn lost_in(&self, st: &crate::client::RouterState) -> Option<Error> {
        let slot = st.slots.get(&(self.lock.raw() as usize))?;
        if slot.lost_gen > self.lost_gen {
            slot.lost_error.clone().map(|e| e.during("hold", Some(self.lock.path())))
        } else {
            None
        }
    }

    /// Waits up to `timeout` for the lock to be lost: `Some(Session)` when
    /// the session expired or was disconnected past the safety bound,
    /// `Some(Closed)` when the client was closed, `Some(Lost)` when the node
    /// was deleted (also `MaxHold`, `Revoked`, `Auth`). `None` if the time
    /// ran out with the lock still held (or merely suspended).
    pub fn wait_lost(&self, timeout: Duration) -> Option<Error> {
        self.lock.client().inner.wait_until(timeout, |st| self.lost_in(st))
    }

    /// Releases the hold and waits for the server to confirm (one round
    /// trip when it was the last hold). `Err(Lost)` when the lock had been
    /// lost meanwhile.
    pub fn release_blocking(mut self) -> Result<()> {
        self.armed = false;
        if self.lost_error().is_some() && self.lock.hold_count() > 0 {
            // Lost, and the handle was acquired again since: that hold is
            // not this guard's to release.
            return Err(Error::from(ErrorKind::Lost).during("release", Some(self.lock.path())));
        }
        self.lock.release_blocking_as(self.owner)
    }

    /// Keeps the hold without a guard; release it later with
    /// [`Lock::release_blocking_as`] and this guard's owner token.
    pub fn forget(mut self) -> u64 {
        self.armed = false;
        self.owner
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // A guard whose hold was lost releases nothing: the handle may hold
        // again (a newer acquisition) by the same owner.
        if self.armed && self.lost_error().is_none() {
            // Sends the delete and returns at once; a later acquire on the
            // same client is ordered after it by ZooKeeper.
            unsafe { sys::zkl_lock_release_async(self.lock.raw(), self.owner) };
        }
    }
}
