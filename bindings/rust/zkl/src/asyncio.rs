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

use crate::client::{Answer, Call, ClientInner, Contender, RouterState, Slot};
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

/// The one async call (acquire, campaign, guarded write) of a future of
/// this crate: sent on the first poll, under the router lock together with
/// the filing of its request id in the handle's slot, so that its answer,
/// which carries that id, cannot be filed before the id is known and can
/// reach no other call.
pub(crate) struct Request {
    key: usize,
    state: RequestState,
    /// The handle's loss count when the call started (see
    /// `ClientInner::lost_gen`).
    lost_gen: u64,
    /// What a drop before the answer cancels and gives back (an acquire or
    /// campaign); a guarded write cannot be taken back.
    contender: Option<Contender>,
    waiter: Waiter,
}

#[derive(Clone, Copy)]
enum RequestState {
    Init,
    Waiting(u64),
    Done,
}

impl Request {
    /// A call on the handle whose slot key is `key`.
    pub(crate) fn new(client: &Client, key: usize) -> Request {
        Request { key, state: RequestState::Init, lost_gen: 0, contender: None, waiter: Waiter::new(client) }
    }

    pub(crate) fn started(&self) -> bool {
        !matches!(self.state, RequestState::Init)
    }

    /// The handle's loss count when the call started.
    pub(crate) fn lost_gen(&self) -> u64 {
        self.lost_gen
    }

    /// Starts the call with `send` (its request id, or an error code) on
    /// the first poll, then waits for its answer; `take` reads it under the
    /// router lock, with the handle's slot.
    pub(crate) fn poll<T>(
        &mut self,
        cx: &mut Context<'_>,
        contender: Option<Contender>,
        send: impl FnOnce() -> Result<i32>,
        take: impl FnOnce(&Slot, Answer) -> T,
    ) -> Poll<Result<T>> {
        if let RequestState::Init = self.state {
            self.state = RequestState::Done;
            let inner = &self.waiter.client.inner;
            let mut st = inner.router.lock();
            inner.drain(&mut st); // see ClientInner::lost_gen
            let id = match send().and_then(crate::error::check) {
                Ok(id) => id as u64,
                Err(e) => return Poll::Ready(Err(e)),
            };
            let Some(slot) = st.slots.get_mut(&self.key) else {
                return Poll::Ready(Err(ErrorKind::BadHandle.into()));
            };
            slot.calls.insert(id, Call::Waiting);
            self.lost_gen = slot.lost_gen;
            self.contender = contender;
            self.state = RequestState::Waiting(id);
        }
        let RequestState::Waiting(id) = self.state else {
            panic!("future polled after completion");
        };
        let key = self.key;
        let r = self.waiter.poll(cx, |st| {
            let slot = st.slots.get_mut(&key)?;
            match slot.calls.remove(&id)? {
                Call::Answered(answer) => Some(take(slot, answer)),
                waiting => {
                    slot.calls.insert(id, waiting);
                    None
                }
            }
        });
        if let Poll::Ready(Ok(_)) = r {
            self.state = RequestState::Done;
        }
        r // an error of the wait keeps Waiting: the drop cancels
    }

    /// [`Request::poll`] of an acquire or campaign: the fencing token.
    pub(crate) fn poll_acquire(
        &mut self,
        cx: &mut Context<'_>,
        contender: Contender,
        timeout_ms: i64,
        take: impl FnOnce(&Slot, &Result<u64>),
    ) -> Poll<Result<u64>> {
        let key = self.key;
        let send = || Ok(contender.acquire_async(key, timeout_ms));
        let r = self.poll(cx, Some(contender), send, |slot, answer| {
            let held = answer.held();
            take(slot, &held);
            held
        });
        r.map(|r| r.and_then(|held| held))
    }
}

impl Drop for Request {
    /// A call still waiting for its answer is forgotten: a guarded write's
    /// answer then reaches the event queue; an acquire or campaign is
    /// cancelled, and a success, answered already or later, given back.
    fn drop(&mut self) {
        let RequestState::Waiting(id) = self.state else { return };
        let inner = &self.waiter.client.inner;
        let mut st = inner.router.lock();
        inner.drain(&mut st);
        let Some(slot) = st.slots.get_mut(&self.key) else { return };
        let call = slot.calls.remove(&id);
        let Some(contender) = self.contender else { return };
        match call {
            Some(Call::Answered(Answer::Held(Ok(_)))) => contender.give_back(self.key),
            Some(Call::Waiting) => {
                // Still pending in libzkl (no other async acquire of this
                // handle can be: libzkl refuses a second one while ours
                // runs), or answered but not yet taken from the queue. The
                // answer is ours by its id whenever it is filed: a success
                // is given back then. libzkl queues the answer in the same
                // step that ends the request, so after the cancel it is in
                // the queue whatever the race: file it now.
                slot.calls.insert(id, Call::Abandoned(contender));
                contender.cancel(self.key);
                inner.drain(&mut st);
            }
            _ => {}
        }
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
            request: Request::new(self.client(), self.raw() as usize),
        }
    }
}

/// Future of [`Lock::acquire`].
#[must_use = "futures do nothing unless awaited"]
pub struct Acquire {
    lock: Lock,
    owner: u64,
    timeout_ms: i64,
    request: Request,
}

impl Acquire {
    owner_and_timeout!(
        "Acquire for this owner token (reentrant locks count holds per owner).",
        "no node is left behind."
    );
}

impl Future for Acquire {
    type Output = Result<LockGuard>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<LockGuard>> {
        let this = self.get_mut();
        let (owner, timeout) = (this.owner, this.timeout_ms);
        let r = this.request.poll_acquire(cx, Contender::Lock(owner), timeout, |_, _| ());
        let lost_gen = this.request.lost_gen();
        r.map(|r| r.map(|token| this.lock.guard(owner, token, lost_gen)).at("acquire", this.lock.path()))
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
        let request = Request::new(self.client(), self.raw() as usize);
        Campaign { election: self.clone(), timeout_ms: -1, request }
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
    request: Request,
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
        let election = &this.election;
        if !this.request.started() && election.is_leader() {
            // Leader already: the current term, without a call.
            return Poll::Ready(election.fencing_token());
        }
        let r = this.request.poll_acquire(cx, Contender::Election, this.timeout_ms, |slot, held| {
            if held.is_ok() {
                // The status it reports is this answer: seen.
                election.inner.seen.store(slot.election_gen, Ordering::Release);
            }
        });
        r.map(|r| r.at("campaign", election.path()))
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
