use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use zkl_sys as sys;

use crate::client::RouterState;
use crate::error::{check, At};
use crate::{c_path, timeout_ms, Client, Error, ErrorKind, HandleId, Result};

/// The recipe of an [`Election`] or [`Observer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElectionKind {
    /// Leadership in arrival order (Curator `LeaderLatch`-style nodes).
    Fair,
    /// One ephemeral node; every participant races for it.
    NonFair,
}

impl ElectionKind {
    pub(crate) fn raw(self) -> i32 {
        match self {
            ElectionKind::Fair => sys::ZKL_ELECTION_FAIR,
            ElectionKind::NonFair => sys::ZKL_ELECTION_NONFAIR,
        }
    }
}

/// Where a participant stands, from its latest election event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElectionStatus {
    /// Leader, with the fencing token of this term.
    Elected(u64),
    /// In line behind another leader.
    NotElected,
    /// Leadership MAY be lost (disconnected): do not act as leader until
    /// `Restored` (or `Lost`).
    Suspended,
    /// Heard from the same session in time: leader again, same term.
    Restored(u64),
    /// A campaign started with [`Election::start_campaign`] ended without
    /// leadership (`Timeout`, `Canceled`, `Closed`, ...): it has left.
    Left(Error),
    /// Leadership or the place in line was lost (`Session`, `Lost`, `Auth`,
    /// `Closed`); unless closed, the participant rejoins by itself once the
    /// session is back (`NotElected` / `Elected` follow).
    Lost(Error),
}

impl Client {
    /// A participant with id `id` (stored as node data, shown to observers)
    /// in the fair election on `path`. It does not take part until it
    /// campaigns.
    pub fn election(&self, path: &str, id: &str) -> Result<Election> {
        self.election_of(path, id, ElectionKind::Fair)
    }

    /// A participant in an election of `kind`.
    pub fn election_of(&self, path: &str, id: &str, kind: ElectionKind) -> Result<Election> {
        self.new_election(path, id, kind).at("new election", path)
    }

    fn new_election(&self, path: &str, id: &str, kind: ElectionKind) -> Result<Election> {
        let cpath = c_path(path)?;
        let cid = CString::new(id).map_err(|_| Error::from(ErrorKind::InvalidArgument))?;
        let mut opts = std::mem::MaybeUninit::<sys::zkl_election_options>::zeroed();
        check(unsafe { sys::zkl_election_options_init(opts.as_mut_ptr(), sys::ZKL_ELECTION_OPTIONS_VERSION as u32) })?;
        // SAFETY: initialised by zkl_election_options_init.
        let mut opts = unsafe { opts.assume_init() };
        opts.kind = kind.raw();
        opts.id = cid.as_ptr();
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::zkl_election_new(self.raw(), cpath.as_ptr(), &opts, &mut raw) })?;
        self.inner.add_slot(raw as usize);
        Ok(Election {
            inner: Arc::new(ElectionInner {
                raw,
                client: self.clone(),
                path: path.to_string(),
                participant: id.to_string(),
                kind,
                seen: AtomicU64::new(0),
            }),
        })
    }

    /// Watches the leader of the election on `path` without taking part.
    pub fn observer(&self, path: &str, kind: ElectionKind) -> Result<Observer> {
        self.new_observer(path, kind).at("new observer", path)
    }

    fn new_observer(&self, path: &str, kind: ElectionKind) -> Result<Observer> {
        let cpath = c_path(path)?;
        let mut raw = std::ptr::null_mut();
        // The observer reads at once: file its slot before its first event
        // can be taken from the queue.
        let mut opts = std::mem::MaybeUninit::<sys::zkl_observer_options>::zeroed();
        check(unsafe { sys::zkl_observer_options_init(opts.as_mut_ptr(), sys::ZKL_OBSERVER_OPTIONS_VERSION as u32) })?;
        // SAFETY: initialised by zkl_observer_options_init.
        let mut opts = unsafe { opts.assume_init() };
        opts.kind = kind.raw();
        let mut st = self.inner.router.lock();
        check(unsafe { sys::zkl_observer_new(self.raw(), cpath.as_ptr(), &opts, &mut raw) })?;
        st.slots.insert(raw as usize, Default::default());
        drop(st);
        Ok(Observer {
            inner: Arc::new(ObserverInner { raw, client: self.clone(), path: path.to_string(), seen: AtomicU64::new(0) }),
        })
    }
}

/// A participant in a leader election. Dropping it (the last clone) resigns
/// and leaves. Cloning shares the participant.
///
/// Campaigning has one meaning, blocking or async: join the election and
/// wait to be elected; when the wait ends without leadership (timeout,
/// cancel, close) the participant has LEFT the election again (no node of
/// its own remains), as a lock acquire that fails leaves no node. When
/// already leader a campaign returns at once with the current term. Once
/// elected it stays in the election until [`Election::resign`]: after a
/// loss it rejoins by itself when the session is back.
///
/// ```no_run
/// # use std::time::{Duration, Instant};
/// # let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
/// let election = client.election("/app/leader", "node-1")?;
/// let token = election.campaign_blocking(Duration::from_secs(30))?;
/// println!("leading with fencing token {token}");
/// // ... lead while the lease lasts; watch for loss:
/// if let Some(until) = election.valid_until() {
///     println!("provably leader until {until:?}");
/// }
/// if let Some(zkl::ElectionStatus::Lost(why)) = election.next_status(Duration::from_secs(1)) {
///     println!("lost leadership: {why}");
/// }
/// election.resign()?;
/// # Ok::<(), zkl::Error>(())
/// ```
#[derive(Clone)]
pub struct Election {
    pub(crate) inner: Arc<ElectionInner>,
}

pub(crate) struct ElectionInner {
    pub(crate) raw: *mut sys::zkl_election,
    pub(crate) client: Client,
    path: String,
    participant: String,
    kind: ElectionKind,
    /// Status generation this participant's user has seen.
    pub(crate) seen: AtomicU64,
}

// SAFETY: libzkl is thread-safe; `raw` is a checked handle destroyed in Drop.
unsafe impl Send for ElectionInner {}
unsafe impl Sync for ElectionInner {}

impl Drop for ElectionInner {
    fn drop(&mut self) {
        self.client.inner.remove_slot(self.raw as usize);
        unsafe { sys::zkl_election_destroy(self.raw) };
    }
}

impl std::fmt::Debug for Election {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Election")
            .field("path", &self.inner.path)
            .field("id", &self.inner.participant)
            .field("kind", &self.inner.kind)
            .field("leader", &self.is_leader())
            .finish()
    }
}

impl Election {
    pub(crate) fn raw(&self) -> *mut sys::zkl_election {
        self.inner.raw
    }

    /// The id events about this participant carry ([`crate::Source::Election`]).
    pub fn id(&self) -> HandleId {
        HandleId(self.inner.raw as usize)
    }

    /// The participant id given at creation.
    pub fn participant_id(&self) -> &str {
        &self.inner.participant
    }

    /// The election path.
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// Campaigns: joins the election and waits up to `timeout` to be
    /// elected (`Duration::MAX`: forever; `Duration::ZERO`: once, without
    /// waiting). Returns the term's fencing token; at once when already
    /// leader. `Err(Timeout)` / `Err(Canceled)` ([`Election::cancel`] from
    /// another thread) / `Err(Closed)`: the participant has left the
    /// election again. `Busy` while an async campaign is pending.
    pub fn campaign_blocking(&self, timeout: Duration) -> Result<u64> {
        check(unsafe { sys::zkl_election_acquire(self.raw(), timeout_ms(timeout)) }).at("campaign", self.path())?;
        self.fencing_token()
    }

    /// Starts a campaign and returns at once; the outcome arrives as
    /// statuses ([`Election::next_status`]) and events: `NotElected` when
    /// queued behind a leader, `Elected` when leader, `Left(Timeout)` when
    /// `timeout` passes first (it has then left; `Duration::MAX`: stays in
    /// line until elected). With the `tokio` feature prefer
    /// `election.campaign().await`.
    pub fn start_campaign(&self, timeout: Duration) -> Result<()> {
        check(unsafe { sys::zkl_election_acquire_async(self.raw(), timeout_ms(timeout)) })
            .at("start campaign", self.path())
            .map(drop)
    }

    /// Campaigns without waiting: `Some(token)` when leader now, `None`
    /// otherwise (then it has left the election again).
    pub fn try_campaign(&self) -> Result<Option<u64>> {
        match check(unsafe { sys::zkl_election_try_acquire(self.raw()) }) {
            Ok(_) => self.fencing_token().map(Some),
            Err(e) if e == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e.during("try campaign", Some(self.path()))),
        }
    }

    /// Ends a pending campaign (it leaves the line; a blocking campaign on
    /// another thread returns `Canceled`). Never resigns a leader: `NotHeld`
    /// when no campaign is waiting.
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::zkl_election_cancel(self.raw()) }).at("cancel", self.path()).map(drop)
    }

    /// Resigns: leaves the election, as leader or from the line (waits for
    /// the node's deletion, one round trip). `NotHeld` if not taking part.
    pub fn resign(&self) -> Result<()> {
        check(unsafe { sys::zkl_election_release(self.raw()) }).at("resign", self.path()).map(drop)
    }

    /// Leader, provably at this instant (computed at the call from the
    /// monotonic clock; false while suspended and after loss).
    pub fn is_leader(&self) -> bool {
        unsafe { sys::zkl_election_is_leader(self.raw()) == 1 }
    }

    /// How long from now the leadership stays provably valid; `None` when
    /// not leader (or suspended).
    pub fn valid_for(&self) -> Option<Duration> {
        let mut ms = 0i64;
        let rc = unsafe { sys::zkl_election_valid_for(self.raw(), &mut ms) };
        crate::lock::lease(rc, ms)
    }

    /// The lease deadline of the leadership; `None` when not leader.
    pub fn valid_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.valid_for().map(|d| now + d)
    }

    /// This participant's statistics as JSON (its entry of
    /// [`Client::stats`]).
    pub fn stats(&self) -> Result<String> {
        crate::client::take_json(|json, len| unsafe { sys::zkl_election_stats(self.raw(), json, len) })
            .at("stats", self.path())
    }

    /// Fencing token of the current term (`NotHeld` when not leader).
    pub fn fencing_token(&self) -> Result<u64> {
        let mut t = 0u64;
        check(unsafe { sys::zkl_election_fencing_token(self.raw(), &mut t) }).at("fencing token", self.path())?;
        Ok(t)
    }

    /// The latest status from events taken so far (`None` before any).
    pub fn status(&self) -> Option<ElectionStatus> {
        self.inner.client.inner.wait_until(Duration::ZERO, |st| Some(self.slot_status(st).1)).flatten()
    }

    fn slot_status(&self, st: &RouterState) -> (u64, Option<ElectionStatus>) {
        let named = |status| match status {
            ElectionStatus::Left(e) => ElectionStatus::Left(e.during("campaign", Some(self.path()))),
            ElectionStatus::Lost(e) => ElectionStatus::Lost(e.during("leadership", Some(self.path()))),
            other => other,
        };
        st.slots.get(&(self.raw() as usize)).map_or((0, None), |s| (s.election_gen, s.election.clone().map(named)))
    }

    pub(crate) fn take_status(&self, st: &RouterState) -> Option<ElectionStatus> {
        let (gen, status) = self.slot_status(st);
        let seen = self.inner.seen.load(Ordering::Acquire);
        if gen > seen {
            self.inner.seen.store(gen, Ordering::Release);
            status
        } else {
            None
        }
    }

    /// Waits up to `timeout` for a status this participant's user has not
    /// seen yet (the latest one, if several happened): elected, in line,
    /// suspended, restored, lost.
    pub fn next_status(&self, timeout: Duration) -> Option<ElectionStatus> {
        self.inner.client.inner.wait_until(timeout, |st| self.take_status(st))
    }
}

/// Watches the leader of an election without taking part.
///
/// ```no_run
/// # use std::time::{Duration, Instant};
/// # let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
/// let observer = client.observer("/app/leader", zkl::ElectionKind::Fair)?;
/// if let Some(leader) = observer.next_leader(Duration::from_secs(5)) {
///     println!("leader now: {leader:?}");
/// }
/// # Ok::<(), zkl::Error>(())
/// ```
pub struct Observer {
    pub(crate) inner: Arc<ObserverInner>,
}

pub(crate) struct ObserverInner {
    raw: *mut sys::zkl_observer,
    pub(crate) client: Client,
    path: String,
    seen: AtomicU64,
}

// SAFETY: libzkl is thread-safe; `raw` is a checked handle destroyed in Drop.
unsafe impl Send for ObserverInner {}
unsafe impl Sync for ObserverInner {}

impl Drop for ObserverInner {
    fn drop(&mut self) {
        self.client.inner.remove_slot(self.raw as usize);
        unsafe { sys::zkl_observer_destroy(self.raw) };
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer").field("path", &self.inner.path).finish()
    }
}

impl Observer {
    /// The id events about this observer carry ([`crate::Source::Observer`]).
    pub fn id(&self) -> HandleId {
        HandleId(self.inner.raw as usize)
    }

    /// The observed election path.
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// The current leader's participant id; `None` without a leader (or
    /// before the first read completed); `Err(Connection)` while the
    /// view cannot be proven current (disconnected, or not confirmed by the
    /// quorum in time).
    pub fn leader(&self) -> Result<Option<String>> {
        let mut buf = vec![0u8; 256];
        loop {
            let rc = unsafe { sys::zkl_observer_leader(self.inner.raw, buf.as_mut_ptr().cast(), buf.len()) };
            match check(rc) {
                Ok(n) if (n as usize) < buf.len() => {
                    buf.truncate(n as usize);
                    return Ok(Some(String::from_utf8_lossy(&buf).into_owned()));
                }
                Ok(n) => buf.resize(n as usize + 1, 0),
                Err(e) if e == ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e.during("leader", Some(self.path()))),
            }
        }
    }

    /// The current leader's term (its fencing token); `None` without a
    /// leader.
    pub fn term(&self) -> Result<Option<u64>> {
        let mut t = 0u64;
        match check(unsafe { sys::zkl_observer_term(self.inner.raw, &mut t) }) {
            Ok(_) => Ok(Some(t)),
            Err(e) if e == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.during("term", Some(self.path()))),
        }
    }

    pub(crate) fn take_change(&self, st: &RouterState) -> Option<Option<String>> {
        self.take_change_with_term(st).map(|l| l.map(|(id, _)| id))
    }

    pub(crate) fn take_change_with_term(&self, st: &RouterState) -> Option<Option<(String, u64)>> {
        let slot = st.slots.get(&(self.inner.raw as usize))?;
        let seen = self.inner.seen.load(Ordering::Acquire);
        if slot.leader_gen > seen {
            self.inner.seen.store(slot.leader_gen, Ordering::Release);
            Some(slot.leader.clone())
        } else {
            None
        }
    }

    /// As [`Observer::next_leader`], with the leader's term:
    /// `Some(Some((id, term)))`, `Some(None)` without leader, `None` on
    /// timeout.
    pub fn next_leader_term(&self, timeout: Duration) -> Option<Option<(String, u64)>> {
        self.inner.client.inner.wait_until(timeout, |st| self.take_change_with_term(st))
    }

    /// Waits up to `timeout` for a leader this observer's user has not seen
    /// yet (the first call reports the initial state): `Some(Some(id))`, or
    /// `Some(None)` when the election has no leader; `None` on timeout.
    pub fn next_leader(&self, timeout: Duration) -> Option<Option<String>> {
        self.inner.client.inner.wait_until(timeout, |st| self.take_change(st))
    }
}
