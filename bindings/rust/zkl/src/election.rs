use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use zkl_sys as sys;

use crate::client::RouterState;
use crate::error::check;
use crate::{c_path, timeout_ms, Client, Error, HandleId, Result};

/// The recipe of an [`Election`] or [`Observer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElectionKind {
    /// Leadership in arrival order (Curator `LeaderLatch`-style nodes).
    Fair,
    /// One ephemeral node; every participant races for it.
    Unfair,
}

impl ElectionKind {
    pub(crate) fn raw(self) -> i32 {
        match self {
            ElectionKind::Fair => sys::ZKL_ELECTION_FAIR,
            ElectionKind::Unfair => sys::ZKL_ELECTION_UNFAIR,
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
    /// Leadership or the place in line was lost (`Session`, `Lost`, `Auth`);
    /// the participant rejoins by itself once the session is back.
    Lost(Error),
}

impl Client {
    /// A participant with id `id` (stored as node data, shown to observers)
    /// in the fair election on `path`. It does not take part until
    /// [`Election::start`] or a campaign.
    pub fn election(&self, path: &str, id: &str) -> Result<Election> {
        self.election_of(path, id, ElectionKind::Fair)
    }

    /// A participant in an election of `kind`.
    pub fn election_of(&self, path: &str, id: &str, kind: ElectionKind) -> Result<Election> {
        let cpath = c_path(path)?;
        let cid = CString::new(id).map_err(|_| Error::InvalidArgument)?;
        let mut opts = std::mem::MaybeUninit::<sys::zkl_election_options>::zeroed();
        check(unsafe { sys::zkl_election_options_init(opts.as_mut_ptr(), sys::ZKL_ELECTION_OPTIONS_VERSION) })?;
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
        let cpath = c_path(path)?;
        let mut raw = std::ptr::null_mut();
        // The observer reads at once: file its slot before its first event
        // can be taken from the queue.
        let mut st = self.inner.router.lock();
        check(unsafe {
            sys::zkl_observer_new(self.raw(), cpath.as_ptr(), kind.raw(), None, std::ptr::null_mut(), &mut raw)
        })?;
        st.slots.insert(raw as usize, Default::default());
        drop(st);
        Ok(Observer {
            inner: Arc::new(ObserverInner { raw, client: self.clone(), path: path.to_string(), seen: AtomicU64::new(0) }),
        })
    }
}

/// A participant in a leader election. Dropping it resigns and leaves.
/// Cloning shares the participant.
///
/// ```no_run
/// # use std::time::Duration;
/// # let client = zkl::Client::connect("127.0.0.1:2181", Duration::from_secs(10))?;
/// let election = client.election("/app/leader", "node-1")?;
/// let token = election.campaign_blocking(Duration::from_secs(30))?;
/// println!("leading with fencing token {token}");
/// // ... lead; watch for loss:
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

    /// Joins the election without waiting; the outcome arrives as status
    /// changes ([`Election::next_status`]) and events. Joining again while
    /// in the race does nothing.
    pub fn start(&self) -> Result<()> {
        check(unsafe { sys::zkl_election_start(self.raw()) }).map(drop)
    }

    /// Joins (if needed) and waits up to `timeout` to be elected
    /// (`Duration::MAX`: forever). Returns the term's fencing token.
    /// `Timeout` leaves the participant in line; [`Election::resign`] leaves.
    pub fn campaign_blocking(&self, timeout: Duration) -> Result<u64> {
        check(unsafe { sys::zkl_election_campaign(self.raw(), timeout_ms(timeout)) })?;
        self.fencing_token()
    }

    /// Leaves the election, giving up leadership if held (waits for the
    /// server when leader).
    pub fn resign(&self) -> Result<()> {
        check(unsafe { sys::zkl_election_resign(self.raw()) }).map(drop)
    }

    /// Leader, and the session known to be good.
    pub fn is_leader(&self) -> bool {
        unsafe { sys::zkl_election_is_leader(self.raw()) == 1 }
    }

    /// Fencing token of the current term (`NotHeld` when not leader).
    pub fn fencing_token(&self) -> Result<u64> {
        let mut t = 0u64;
        check(unsafe { sys::zkl_election_fencing_token(self.raw(), &mut t) })?;
        Ok(t)
    }

    /// The latest status from events taken so far (`None` before any).
    pub fn status(&self) -> Option<ElectionStatus> {
        self.inner.client.inner.wait_until(Duration::ZERO, |st| Some(self.slot_status(st).1)).flatten()
    }

    fn slot_status(&self, st: &RouterState) -> (u64, Option<ElectionStatus>) {
        st.slots.get(&(self.raw() as usize)).map_or((0, None), |s| (s.election_gen, s.election.clone()))
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
    /// lost.
    pub fn next_status(&self, timeout: Duration) -> Option<ElectionStatus> {
        self.inner.client.inner.wait_until(timeout, |st| self.take_status(st))
    }
}

/// Watches the leader of an election without taking part.
///
/// ```no_run
/// # use std::time::Duration;
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
    /// before the first read completed).
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
                Err(Error::NotFound) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    pub(crate) fn take_change(&self, st: &RouterState) -> Option<Option<String>> {
        let slot = st.slots.get(&(self.inner.raw as usize))?;
        let seen = self.inner.seen.load(Ordering::Acquire);
        if slot.leader_gen > seen {
            self.inner.seen.store(slot.leader_gen, Ordering::Release);
            Some(slot.leader.clone())
        } else {
            None
        }
    }

    /// Waits up to `timeout` for a leader this observer's user has not seen
    /// yet (the first call reports the initial state): `Some(Some(id))`, or
    /// `Some(None)` when the election has no leader; `None` on timeout.
    pub fn next_leader(&self, timeout: Duration) -> Option<Option<String>> {
        self.inner.client.inner.wait_until(timeout, |st| self.take_change(st))
    }
}
