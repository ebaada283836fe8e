//! Several lock handles of one client taken all or none (`zkl_multilock_*`).

use std::borrow::Borrow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zkl_sys as sys;

use crate::error::{check, At};
use crate::lock::{lease, DEFAULT_OWNER};
use crate::{c_path, timeout_ms, Client, Error, ErrorKind, HandleId, Lock, Result};

impl Client {
    /// Groups lock handles of this client into one [`MultiLock`], taken all
    /// or none with one deadline, always in one canonical order (by path),
    /// so overlapping multi-locks never deadlock. Any mix of fair, non-fair,
    /// read, write and semaphore handles on distinct paths, idle (neither
    /// held nor acquiring).
    ///
    /// The multi-lock takes the handles over: from now on only their getters
    /// work (`path`, `is_held`, `current_token`, ...; other calls give
    /// `Busy`), and they are destroyed with the multi-lock.
    ///
    /// Errors: `InvalidArgument` for an empty set, two handles on one path,
    /// a handle of another client or a reentrant lock; `Busy` for a handle
    /// that is held, acquiring, or already in a multi-lock; `Closed`.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
    /// let both = client.multilock([client.lock("/app/a")?, client.lock("/app/b")?])?;
    /// let guard = both.acquire_blocking(Duration::from_secs(5))?; // both, or Err(Timeout) and none
    /// let token_a = guard.fencing_token("/app/a")?;
    /// # let _ = token_a;
    /// drop(guard); // releases both
    /// # Ok::<(), zkl::Error>(())
    /// ```
    pub fn multilock<I>(&self, members: I) -> Result<MultiLock>
    where
        I: IntoIterator,
        I::Item: Borrow<Lock>,
    {
        self.new_multilock(members.into_iter().map(|l| l.borrow().clone()).collect()).op("new multilock")
    }

    fn new_multilock(&self, mut locks: Vec<Lock>) -> Result<MultiLock> {
        if locks.is_empty() {
            return Err(ErrorKind::InvalidArgument.into());
        }
        if locks.iter().any(|l| !Arc::ptr_eq(&l.client().inner, &self.inner)) {
            return Err(ErrorKind::InvalidArgument.into());
        }
        let raws: Vec<*mut sys::zkl_lock> = locks.iter().map(Lock::raw).collect();
        let mut opts = std::mem::MaybeUninit::<sys::zkl_multilock_options>::zeroed();
        check(unsafe {
            sys::zkl_multilock_options_init(opts.as_mut_ptr(), sys::ZKL_MULTILOCK_OPTIONS_VERSION as u32)
        })?;
        // SAFETY: initialised by zkl_multilock_options_init (no callback:
        // events come through the client's queue).
        let opts = unsafe { opts.assume_init() };
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raws` holds live handles for the duration of the call.
        check(unsafe { sys::zkl_multilock_new(self.raw(), raws.as_ptr(), raws.len(), &opts, &mut raw) })?;
        self.inner.add_slot(raw as usize);
        // The canonical order, as libzkl takes them.
        locks.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(MultiLock { inner: Arc::new(MultiLockInner { raw, client: self.clone(), members: locks }) })
    }
}

/// Several locks of one client, taken all or none ([`Client::multilock`]).
/// Cloning shares the handle.
///
/// One deadline for all members; on timeout, cancel or loss of any member,
/// every member already taken is released. Loss of one member is loss of
/// the whole: the others are released and the guard's
/// [`MultiLockGuard::wait_lost`] reports the member's error. Each member
/// path has its own fencing token ([`MultiLockGuard::fencing_token`]).
#[derive(Clone)]
pub struct MultiLock {
    inner: Arc<MultiLockInner>,
}

struct MultiLockInner {
    raw: *mut sys::zkl_multilock,
    client: Client,
    /// The member handles in canonical order (kept for their getters; they
    /// are destroyed by zkl_multilock_destroy, so their own destroy later
    /// only meets a dead handle, which libzkl checks).
    members: Vec<Lock>,
}

// SAFETY: libzkl is thread-safe; `raw` is a checked handle value that is
// destroyed only in Drop, after every clone and guard is gone.
unsafe impl Send for MultiLockInner {}
unsafe impl Sync for MultiLockInner {}

impl Drop for MultiLockInner {
    fn drop(&mut self) {
        if unsafe { sys::zkl_multilock_is_held(self.raw) } == 1 {
            log::warn!(
                target: "zkl::zkl",
                "multi-lock on {} dropped while held (a forgotten guard): releasing",
                self.paths()
            );
        }
        self.client.inner.remove_slot(self.raw as usize);
        // Releases or cancels, then destroys the members too.
        unsafe { sys::zkl_multilock_destroy(self.raw) };
    }
}

impl MultiLockInner {
    fn paths(&self) -> String {
        self.members.iter().map(Lock::path).collect::<Vec<_>>().join(",")
    }
}

impl std::fmt::Debug for MultiLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiLock")
            .field("paths", &self.paths().collect::<Vec<_>>())
            .field("held", &self.is_held())
            .finish()
    }
}

impl MultiLock {
    pub(crate) fn raw(&self) -> *mut sys::zkl_multilock {
        self.inner.raw
    }

    /// The id events about this multi-lock carry ([`crate::Source::MultiLock`]).
    pub fn id(&self) -> HandleId {
        HandleId(self.inner.raw as usize)
    }

    /// The member handles in canonical order (by path); only their getters
    /// work.
    pub fn members(&self) -> &[Lock] {
        &self.inner.members
    }

    /// The member paths in canonical order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.inner.members.iter().map(Lock::path)
    }

    /// The client this multi-lock belongs to.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The loss count before an acquisition (see `ClientInner::lost_gen`).
    fn lost_gen(&self) -> u64 {
        self.inner.client.inner.lost_gen(self.raw() as usize)
    }

    pub(crate) fn guard(&self, owner: u64, lost_gen: u64) -> MultiLockGuard {
        let tokens = self.paths().map(|p| (p.to_string(), self.current_token(p).unwrap_or(0))).collect();
        MultiLockGuard { ml: self.clone(), owner, tokens, lost_gen, armed: true }
    }

    /// Waits up to `timeout` (one deadline for all members;
    /// `Duration::MAX`: forever) to hold every member.
    ///
    /// Errors: `Timeout` (and none is held), `Deadlock` (already held by
    /// this owner), `Busy` (held or being acquired by another owner),
    /// `Closed`, `Canceled` ([`MultiLock::cancel`] from another thread).
    pub fn acquire_blocking(&self, timeout: Duration) -> Result<MultiLockGuard> {
        self.acquire_blocking_as(DEFAULT_OWNER, timeout)
    }

    /// [`MultiLock::acquire_blocking`] for an explicit owner token.
    pub fn acquire_blocking_as(&self, owner: u64, timeout: Duration) -> Result<MultiLockGuard> {
        let gen = self.lost_gen();
        check(unsafe { sys::zkl_multilock_acquire(self.raw(), owner, timeout_ms(timeout)) }).op("acquire")?;
        Ok(self.guard(owner, gen))
    }

    /// Takes every member if nobody is in the way of any, without waiting:
    /// `Ok(None)` (and none held) when another holder is. `Err(Connection)`
    /// while disconnected.
    pub fn try_acquire(&self) -> Result<Option<MultiLockGuard>> {
        self.try_acquire_as(DEFAULT_OWNER)
    }

    /// [`MultiLock::try_acquire`] for an explicit owner token.
    pub fn try_acquire_as(&self, owner: u64) -> Result<Option<MultiLockGuard>> {
        let gen = self.lost_gen();
        match check(unsafe { sys::zkl_multilock_try_acquire(self.raw(), owner) }) {
            Ok(_) => Ok(Some(self.guard(owner, gen))),
            Err(e) if e == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e.during("try acquire", None)),
        }
    }

    /// Releases every member held by `owner` without a guard (see
    /// [`MultiLockGuard::forget`]) and waits for the server. `NotHeld`,
    /// `NotOwner`, or `Lost` (once) after a loss.
    pub fn release_blocking_as(&self, owner: u64) -> Result<()> {
        check(unsafe { sys::zkl_multilock_release(self.raw(), owner) }).op("release").map(drop)
    }

    /// Cancels a pending acquire (members taken so far are released): a
    /// blocking acquire on another thread returns `Canceled`. `NotHeld`
    /// when nothing is pending.
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::zkl_multilock_cancel(self.raw()) }).op("cancel").map(drop)
    }

    /// Every member held and provably valid at this instant.
    pub fn is_held(&self) -> bool {
        unsafe { sys::zkl_multilock_is_held(self.raw()) == 1 }
    }

    /// The smallest lease of the members: how long from now all of them
    /// stay provably valid; `None` when not held.
    pub fn valid_for(&self) -> Option<Duration> {
        let mut ms = 0i64;
        let rc = unsafe { sys::zkl_multilock_valid_for(self.raw(), &mut ms) };
        lease(rc, ms)
    }

    /// The lease deadline of the whole (the earliest of the members);
    /// `None` when not held.
    pub fn valid_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.valid_for().map(|d| now + d)
    }

    /// The fencing token of the member on `path` for the current hold:
    /// `NotFound` for a path that is no member (also a malformed one),
    /// `NotHeld` when not held, `BadPath` for an interior NUL byte.
    pub fn current_token(&self, path: &str) -> Result<u64> {
        let p = c_path(path).at("fencing token", path)?;
        let mut t = 0u64;
        check(unsafe { sys::zkl_multilock_fencing_token(self.raw(), p.as_ptr(), &mut t) }).at("fencing token", path)?;
        Ok(t)
    }
}

/// One hold of every member of a [`MultiLock`]. Dropping it releases them
/// all, at once (without waiting; [`MultiLockGuard::release_blocking`]
/// waits and reports). `Send` and `Sync`.
#[must_use = "dropping the guard releases the multi-lock"]
pub struct MultiLockGuard {
    ml: MultiLock,
    owner: u64,
    /// (path, fencing token) in canonical order.
    tokens: Vec<(String, u64)>,
    lost_gen: u64,
    armed: bool,
}

impl std::fmt::Debug for MultiLockGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiLockGuard")
            .field("owner", &self.owner)
            .field("fencing_tokens", &self.tokens)
            .finish()
    }
}

impl MultiLockGuard {
    /// The fencing token of this acquisition's member on `path` (strictly
    /// increasing across successive holders of that path): pass it to the
    /// resource `path` protects. `NotFound` for a path that is no member.
    pub fn fencing_token(&self, path: &str) -> Result<u64> {
        let not_found = || Error::from(ErrorKind::NotFound).during("fencing token", Some(path));
        self.tokens.iter().find(|(p, _)| p == path).map(|(_, t)| *t).ok_or_else(not_found)
    }

    /// (path, fencing token) of every member, in canonical order.
    pub fn fencing_tokens(&self) -> &[(String, u64)] {
        &self.tokens
    }

    /// The owner token this hold belongs to.
    pub fn owner(&self) -> u64 {
        self.owner
    }

    /// The multi-lock.
    pub fn multilock(&self) -> &MultiLock {
        &self.ml
    }

    /// Every member still held and provably valid at this instant.
    pub fn is_held(&self) -> bool {
        self.ml.is_held() && self.lost_error().is_none()
    }

    /// How long from now every member stays provably valid; `None` when
    /// not held.
    pub fn valid_for(&self) -> Option<Duration> {
        if self.lost_error().is_some() {
            return None;
        }
        self.ml.valid_for()
    }

    /// The lease deadline of this hold (the earliest of the members);
    /// `None` when not held.
    pub fn valid_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.valid_for().map(|d| now + d)
    }

    /// Whether the multi-lock was lost since this acquisition, as far as
    /// the events taken from the client so far tell.
    pub fn lost_error(&self) -> Option<Error> {
        let st = self.ml.client().inner.router.lock();
        self.lost_in(&st)
    }

    pub(crate) fn lost_in(&self, st: &crate::client::RouterState) -> Option<Error> {
        let slot = st.slots.get(&(self.ml.raw() as usize))?;
        if slot.lost_gen > self.lost_gen {
            slot.lost_error.clone().map(|e| e.during("hold", None))
        } else {
            None
        }
    }

    /// Waits up to `timeout` for the multi-lock to be lost (the loss of any
    /// member): `Some(Session)`, `Some(Closed)` when the client was closed,
    /// `Some(Lost)` when a member's node was deleted (also `MaxHold`,
    /// `Revoked`, `Auth`). `None` if the time ran out still held.
    pub fn wait_lost(&self, timeout: Duration) -> Option<Error> {
        self.ml.client().inner.wait_until(timeout, |st| self.lost_in(st))
    }

    /// Releases every member and waits for the server. `Err(Lost)` when the
    /// multi-lock had been lost meanwhile.
    pub fn release_blocking(mut self) -> Result<()> {
        self.armed = false;
        if self.lost_error().is_some() && self.ml.is_held() {
            // Lost, and held again since: not this guard's hold.
            return Err(Error::from(ErrorKind::Lost).during("release", None));
        }
        self.ml.release_blocking_as(self.owner)
    }

    /// Keeps the hold without a guard; release it later with
    /// [`MultiLock::release_blocking_as`] and this owner token.
    pub fn forget(mut self) -> u64 {
        self.armed = false;
        self.owner
    }
}

impl Drop for MultiLockGuard {
    fn drop(&mut self) {
        if self.armed && self.lost_error().is_none() {
            unsafe { sys::zkl_multilock_release_async(self.ml.raw(), self.owner) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn multilock_handles_are_send_and_sync() {
        assert_send_sync::<MultiLock>();
        assert_send_sync::<MultiLockGuard>();
    }
}
