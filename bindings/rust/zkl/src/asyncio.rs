//! The async API (feature `tokio`): the client's event fd is watched with
//! [`tokio::io::unix::AsyncFd`] and drained by whichever future is polled;
//! the crate spawns no task and no thread.

use std::future::Future;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use zkl_sys as sys;

use crate::client::{ClientInner, RouterState};
use crate::error::At;
use crate::{
    timeout_ms, Client, ClientBuilder, Election, ElectionStatus, Error, ErrorKind, Event, Lock, LockGuard, Observer,
    Result, SessionState, DEFAULT_OWNER,
};

/// Our own duplicate of libzkl's event fd (the same open file description):
/// the `AsyncFd` owns it and closes it on drop, so it stays open for the
/// whole registration whatever libzkl does with the original.
pub(crate) type EventFd = AsyncFd<OwnedFd>;

type Pump = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

impl ClientInner {
    /// The client's fd registered with the current tokio reactor (once).
    fn async_fd(&self) -> Result<Arc<EventFd>> {
        let mut slot = self.async_fd.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fd) = &*slot {
            return Ok(fd.clone());
        }
        let raw = unsafe { sys::zkl_client_fd(self.raw) };
        crate::error::check(raw)?;
        // SAFETY: `raw` is libzkl's event fd, open for as long as the client
        // (closed only by zkl_client_destroy, after this borrow ends).
        let owned = unsafe { BorrowedFd::borrow_raw(raw) }.try_clone_to_owned()?;
        // SAFETY: an OwnedFd is a valid open fd that nobody else closes, and
        // its as_raw_fd() is the same number until it is dropped, which only
        // the AsyncFd does (I/O safety, as tokio's register requires).
        let fd = unsafe { AsyncFd::register_with_interest(owned, Interest::READABLE) }
            .map_err(|e| e.into_parts().1)?;
        let fd = Arc::new(fd);
        *slot = Some(fd.clone());
        Ok(fd)
    }
}

/// Waits for the fd, files what it delivers (waking every registered
/// future), and clears the readiness only after the queue was seen empty:
/// an event queued meanwhile makes the fd readable again, which tokio
/// records as a new readiness that the clear does not erase.
fn pump(client: Arc<ClientInner>) -> Result<Pump> {
    let fd = client.async_fd()?;
    Ok(Box::pin(async move {
        loop {
            let mut ready = fd.readable().await?;
            {
                let mut st = client.router.lock();
                client.drain(&mut st);
            }
            ready.clear_ready();
        }
    }))
}

/// What every future of this module does while it waits: look (after
/// draining) under the router lock, register its waker there, and poll its
/// pump, so that it is woken both by the fd and by anybody else's filing.
pub(crate) struct Waiter {
    client: Client,
    id: u64,
    pump: Option<Pump>,
}

impl Waiter {
    pub(crate) fn new(client: &Client) -> Waiter {
        let id = {
            let mut st = client.inner.router.lock();
            st.next_waiter += 1;
            st.next_waiter
        };
        Waiter { client: client.clone(), id, pump: None }
    }

    pub(crate) fn poll<T>(
        &mut self,
        cx: &mut Context<'_>,
        check: impl FnOnce(&mut RouterState) -> Option<T>,
    ) -> Poll<Result<T>> {
        {
            let inner = &self.client.inner;
            let mut st = inner.router.lock();
            inner.drain(&mut st);
            if let Some(v) = check(&mut st) {
                st.wakers.remove(&self.id);
                return Poll::Ready(Ok(v));
            }
            st.wakers.insert(self.id, cx.waker().clone());
        }
        // A pump that fails (e.g. the runtime its fd was registered with is
        // gone) is replaced once, registered with the current runtime.
        for retry in [false, true] {
            if self.pump.is_none() {
                match pump(self.client.inner.clone()) {
                    Ok(p) => self.pump = Some(p),
                    Err(e) => return Poll::Ready(Err(e)),
                }
            }
            match self.pump.as_mut().map(|p| p.as_mut().poll(cx)) {
                Some(Poll::Ready(Err(e))) => {
                    self.pump = None;
                    *self.client.inner.async_fd.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    if retry {
                        return Poll::Ready(Err(e.into()));
                    }
                }
                _ => return Poll::Pending,
            }
        }
        Poll::Pending
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.client.inner.router.lock().wakers.remove(&self.id);
    }
}

// ---------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------

impl ClientBuilder {
    /// Creates the client and waits (asynchronously) for its session, at
    /// most the connect timeout ([`ClientBuilder::connect_timeout`], default
    /// 30 s): `Err(Timeout)` when it is not up by then, or why the attempts
    /// failed, as [`ClientBuilder::connect`]. Needs a tokio runtime with the
    /// time driver enabled.
    pub async fn connect_async(self) -> Result<Client> {
        let timeout = self.connect_timeout_value();
        let client = self.build()?;
        match tokio::time::Instant::now().checked_add(timeout) {
            Some(deadline) => match tokio::time::timeout_at(deadline, client.connected()).await {
                Ok(connected) => connected?,
                // Why the attempts failed (a TLS error...), else Timeout: a
                // failed handshake is no session event to wake `connected`.
                Err(_) => client.wait_connected(Duration::ZERO)?,
            },
            None => client.connected().await?,
        }
        Ok(client)
    }
}

impl Client {
    /// [`Client::connect`] without blocking the thread: connects to
    /// `servers` with default options and waits up to `timeout`.
    pub async fn connect_async(servers: &str, timeout: Duration) -> Result<Client> {
        ClientBuilder::new(servers).connect_timeout(timeout).connect_async().await
    }

    /// Waits until the session is connected, without a bound of its own
    /// (wrap it in `tokio::time::timeout`, or use
    /// [`ClientBuilder::connect_async`]). It ends at once when every server
    /// refused (the session's `AuthFailed`): `Auth`, or the verification
    /// error `Cert`, `Hostname`, `ClientCert`, with why when libzkl says;
    /// `Closed` if the client was closed.
    pub fn connected(&self) -> impl Future<Output = Result<()>> + Send + 'static {
        let client = self.clone();
        let mut waiter = Waiter::new(&client);
        async move {
            std::future::poll_fn(|cx| {
                waiter.poll(cx, |_| match client.state() {
                    s if s.is_connected() => Some(Ok(())),
                    // Why: libzkl's wait with a zero timeout (it does not block).
                    SessionState::AuthFailed => match client.wait_connected(Duration::ZERO) {
                        Err(e) if e.kind() == ErrorKind::Timeout => None, // trying again
                        done => Some(done),
                    },
                    SessionState::Closed => Some(Err(Error::from(ErrorKind::Closed).during("connect", None))),
                    _ => None,
                })
            })
            .await?
        }
    }

    /// The next event of the client's queue (lost locks, session changes,
    /// election results, leader changes). Cancel-safe: dropping the future
    /// loses no event.
    pub fn recv_event(&self) -> impl Future<Output = Result<Event>> + Send + 'static {
        let mut waiter = Waiter::new(self);
        std::future::poll_fn(move |cx| waiter.poll(cx, |st| st.events.pop_front()))
    }
}

// ---------------------------------------------------------------------------
// Locks
// ---------------------------------------------------------------------------

impl Lock {
    /// Acquires without blocking the thread: `lock.acquire().await`.
    ///
    /// Waits forever unless bounded with [`Acquire::timeout`] (libzkl's own
    /// timer: `Err(Timeout)`) or `tokio::time::timeout`. Dropping the future
    /// before it completes cancels the acquire: its node is deleted, and a
    /// hold granted meanwhile is released.
    ///
    /// ```no_run
    /// # async fn f(client: zkl::Client) -> zkl::Result<()> {
    /// use std::time::Duration;
    /// let lock = client.lock("/app/lock")?;
    /// let guard = lock.acquire().timeout(Duration::from_secs(5)).await?;
    /// println!("token {}", guard.fencing_token());
    /// # Ok(()) }
    /// ```
    pub fn acquire(&self) -> Acquire {
        Acquire {
            lock: self.clone(),
            owner: DEFAULT_OWNER,
            timeout_ms: -1,
            state: AcquireState::Init,
            waiter: Waiter::new(self.client()),
        }
    }
}

/// Future of [`Lock::acquire`].
#[must_use = "futures do nothing unless awaited"]
pub struct Acquire {
    lock: Lock,
    owner: u64,
    timeout_ms: i64,
    state: AcquireState,
    waiter: Waiter,
}

enum AcquireState {
    Init,
    Waiting { ticket: u64, lost_gen: u64 },
    Done,
}

impl Acquire {
    owner_and_timeout!(
        "Acquire for this owner token (reentrant locks count holds per owner).",
        "no node is left behind."
    );

    fn key(&self) -> usize {
        self.lock.raw() as usize
    }
}

impl Future for Acquire {
    type Output = Result<LockGuard>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<LockGuard>> {
        let this = self.get_mut();
        this.poll_acquire(cx).map(|r| r.at("acquire", this.lock.path()))
    }
}

impl Acquire {
    fn poll_acquire(&mut self, cx: &mut Context<'_>) -> Poll<Result<LockGuard>> {
        let this = self;
        let key = this.key();
        if let AcquireState::Init = this.state {
            let inner = &this.lock.client().inner;
            let mut st = inner.router.lock();
            inner.drain(&mut st); // see ClientInner::lost_gen
            // Start and take a ticket atomically with respect to other
            // starts: answers come back in start order.
            let rc = unsafe { sys::zkl_lock_acquire_async(this.lock.raw(), this.owner, this.timeout_ms) };
            if rc < 0 {
                this.state = AcquireState::Done;
                return Poll::Ready(Err(Error::from_code(rc)));
            }
            let Some(slot) = st.slots.get_mut(&key) else {
                this.state = AcquireState::Done;
                return Poll::Ready(Err(ErrorKind::BadHandle.into()));
            };
            slot.issued += 1;
            this.state = AcquireState::Waiting { ticket: slot.issued, lost_gen: slot.lost_gen };
        }
        let AcquireState::Waiting { ticket, lost_gen } = this.state else {
            panic!("Acquire polled after completion");
        };
        match this.waiter.poll(cx, |st| st.slots.get_mut(&key)?.results.remove(&ticket)) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)), // keeps Waiting: Drop cancels
            Poll::Ready(Ok(result)) => {
                this.state = AcquireState::Done;
                Poll::Ready(result.map(|token| this.lock.guard(this.owner, token, lost_gen)))
            }
        }
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        let AcquireState::Waiting { ticket, .. } = self.state else { return };
        let raw = self.lock.raw();
        // SAFETY (both): raw is the live handle the acquire was made on.
        abandon(
            &self.lock.client().inner,
            self.key(),
            ticket,
            self.owner,
            || unsafe { sys::zkl_lock_release_async(raw, self.owner) },
            || unsafe { sys::zkl_lock_cancel(raw) },
        );
    }
}

/// The drop of an acquire future (a lock's or a multi-lock's) still
/// waiting for answer `ticket` of handle `key`: a grant is given back with
/// `release`; a pending request is marked abandoned and `cancel`led.
pub(crate) fn abandon<R, C>(inner: &ClientInner, key: usize, ticket: u64, owner: u64, release: R, cancel: C)
where
    R: FnOnce() -> i32,
    C: FnOnce() -> i32,
{
    let mut st = inner.router.lock();
    inner.drain(&mut st);
    let Some(slot) = st.slots.get_mut(&key) else { return };
    match slot.results.remove(&ticket) {
        // Granted, but nobody is left to hold it.
        Some(Ok(_)) => {
            release();
        }
        Some(Err(_)) => {}
        None => {
            // Still pending in libzkl (no other acquire of this handle can
            // have started: starts take the router lock, and libzkl refuses
            // a second one while ours runs) — or answered but not yet taken
            // from the queue. Either way the next answer filed for this
            // handle is ours: mark it abandoned (a success is then released
            // by the router), cancel, and file again. libzkl queues the
            // answer in the same step that ends the request, so after the
            // cancel it is in the queue whatever the race.
            slot.abandoned.insert(ticket, owner);
            cancel();
            inner.drain(&mut st);
        }
    }
}

impl LockGuard {
    /// Resolves when the lock is lost, with the loss as the error:
    /// `Err(Session)` (expired, or disconnected past the safety bound),
    /// `Err(Closed)` (the client was closed while holding), `Err(Lost)`
    /// (node deleted), `Err(MaxHold)`, `Err(Revoked)`, `Err(Auth)`. Never
    /// `Ok`: pending forever while the lock stays held.
    ///
    /// ```no_run
    /// # async fn f(guard: zkl::LockGuard) {
    /// let why = guard.lost().await.unwrap_err();
    /// eprintln!("lock lost: {why}");
    /// # }
    /// ```
    pub fn lost(&self) -> impl Future<Output = Result<std::convert::Infallible>> + Send + '_ {
        let mut waiter = Waiter::new(self.lock().client());
        async move {
            let why = std::future::poll_fn(move |cx| waiter.poll(cx, |st| self.lost_in(st))).await?;
            Err(why)
        }
    }
}

// ---------------------------------------------------------------------------
// Elections and observers
// ---------------------------------------------------------------------------

impl Election {
    /// Campaigns without blocking the thread: joins the election and waits
    /// to be elected; returns the term's fencing token, at once when
    /// already leader. The same meaning as [`Election::campaign_blocking`]:
    /// bounded with [`Campaign::timeout`] (libzkl's timer) it fails with
    /// `Err(Timeout)` and has then LEFT the election (no node of its own).
    /// Dropping the future before it completes cancels the campaign (it
    /// leaves the line) — a cancel never resigns: if it was elected in the
    /// meantime it stays leader ([`Election::is_leader`]; resign with
    /// [`Election::resign`]).
    ///
    /// ```no_run
    /// # async fn f(client: zkl::Client) -> zkl::Result<()> {
    /// use std::time::Duration;
    /// let election = client.election("/app/leader", "node-1")?;
    /// let term = election.campaign().timeout(Duration::from_secs(30)).await?;
    /// println!("leader, term {term}");
    /// # Ok(()) }
    /// ```
    pub fn campaign(&self) -> Campaign {
        Campaign { election: self.clone(), timeout_ms: -1, state: CampaignState::Init, waiter: Waiter::new(self.client()) }
    }

    /// Waits for a status this participant's user has not seen yet (see
    /// [`Election::next_status`]).
    pub fn status_changed(&self) -> impl Future<Output = Result<ElectionStatus>> + Send + '_ {
        let mut waiter = Waiter::new(self.client());
        std::future::poll_fn(move |cx| waiter.poll(cx, |st| self.take_status(st)))
    }
}

/// Future of [`Election::campaign`].
#[must_use = "futures do nothing unless awaited"]
pub struct Campaign {
    election: Election,
    timeout_ms: i64,
    state: CampaignState,
    waiter: Waiter,
}

enum CampaignState {
    Init,
    Waiting { ticket: u64 },
    Done,
}

impl Campaign {
    /// Gives up after `timeout` with `Err(Timeout)`, having left the
    /// election (`Duration::MAX`: never; `Duration::ZERO`: one try).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = timeout_ms(timeout);
        self
    }
}

impl Future for Campaign {
    type Output = Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<u64>> {
        let this = self.get_mut();
        this.poll_campaign(cx).map(|r| r.at("campaign", this.election.path()))
    }
}

impl Campaign {
    fn poll_campaign(&mut self, cx: &mut Context<'_>) -> Poll<Result<u64>> {
        let this = self;
        let key = this.election.raw() as usize;
        if let CampaignState::Init = this.state {
            if this.election.is_leader() {
                this.state = CampaignState::Done;
                return Poll::Ready(this.election.fencing_token());
            }
            let inner = &this.election.client().inner;
            let mut st = inner.router.lock();
            inner.drain(&mut st);
            // Start and take a ticket atomically with respect to other
            // starts: answers (ELECTED or ACQUIRE_FAILED) come in order.
            let rc = unsafe { sys::zkl_election_acquire_async(this.election.raw(), this.timeout_ms) };
            if rc < 0 {
                this.state = CampaignState::Done;
                return Poll::Ready(Err(Error::from_code(rc)));
            }
            let Some(slot) = st.slots.get_mut(&key) else {
                this.state = CampaignState::Done;
                return Poll::Ready(Err(ErrorKind::BadHandle.into()));
            };
            slot.issued += 1;
            this.state = CampaignState::Waiting { ticket: slot.issued };
        }
        let CampaignState::Waiting { ticket } = this.state else {
            panic!("Campaign polled after completion");
        };
        let election = &this.election;
        let r = this.waiter.poll(cx, |st| {
            let slot = st.slots.get_mut(&key)?;
            let result = slot.results.remove(&ticket)?;
            if result.is_ok() {
                // The status it reports is this answer: seen.
                election.inner.seen.store(slot.election_gen, Ordering::Release);
            }
            Some(result)
        });
        match r {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)), // keeps Waiting: Drop cancels
            Poll::Ready(Ok(result)) => {
                this.state = CampaignState::Done;
                Poll::Ready(result)
            }
        }
    }
}

impl Drop for Campaign {
    fn drop(&mut self) {
        let CampaignState::Waiting { ticket } = self.state else { return };
        let key = self.election.raw() as usize;
        let inner = &self.election.client().inner;
        let mut st = inner.router.lock();
        inner.drain(&mut st);
        let Some(slot) = st.slots.get_mut(&key) else { return };
        if slot.results.remove(&ticket).is_none() {
            // Still waiting (or answered, not yet taken): the next answer
            // filed for this participant is ours and nobody wants it. Cancel
            // leaves the line; an election won meanwhile is kept (a cancel
            // never resigns).
            slot.abandoned.insert(ticket, 0);
            unsafe { sys::zkl_election_cancel(self.election.raw()) };
            inner.drain(&mut st);
        }
    }
}

impl Observer {
    /// Waits for a leader this observer's user has not seen yet (the first
    /// call reports the initial state): `Some(id)` or `None` without leader.
    pub fn leader_changed(&self) -> impl Future<Output = Result<Option<String>>> + Send + '_ {
        let mut waiter = Waiter::new(&self.inner.client);
        std::future::poll_fn(move |cx| waiter.poll(cx, |st| self.take_change(st)))
    }
}
