//! The multi-lock's futures (feature `tokio`), on the same event routing as
//! [`crate::Acquire`]: one ticket per started acquire, answered in start
//! order by the multi-lock's ACQUIRED / ACQUIRE_FAILED events.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use zkl_sys as sys;

use crate::asyncio::Waiter;
use crate::error::At;
use crate::{timeout_ms, Error, ErrorKind, MultiLock, MultiLockGuard, Result, DEFAULT_OWNER};

impl MultiLock {
    /// Acquires every member without blocking the thread:
    /// `multilock.acquire().await`.
    ///
    /// Waits forever unless bounded with [`MultiAcquire::timeout`]
    /// (libzkl's timer, one deadline for all members: `Err(Timeout)` and
    /// none held) or `tokio::time::timeout`. Dropping the future before it
    /// completes cancels the acquire: members taken so far are released,
    /// and a hold granted meanwhile is released too.
    pub fn acquire(&self) -> MultiAcquire {
        MultiAcquire {
            ml: self.clone(),
            owner: DEFAULT_OWNER,
            timeout_ms: -1,
            state: State::Init,
            waiter: Waiter::new(self.client()),
        }
    }
}

/// Future of [`MultiLock::acquire`].
#[must_use = "futures do nothing unless awaited"]
pub struct MultiAcquire {
    ml: MultiLock,
    owner: u64,
    timeout_ms: i64,
    state: State,
    waiter: Waiter,
}

enum State {
    Init,
    Waiting { ticket: u64, lost_gen: u64 },
    Done,
}

impl MultiAcquire {
    owner_and_timeout!("Acquire for this owner token.", "none is left held.");

    fn key(&self) -> usize {
        self.ml.raw() as usize
    }
}

impl Future for MultiAcquire {
    type Output = Result<MultiLockGuard>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<MultiLockGuard>> {
        self.get_mut().poll_acquire(cx).map(|r| r.op("acquire"))
    }
}

impl MultiAcquire {
    fn poll_acquire(&mut self, cx: &mut Context<'_>) -> Poll<Result<MultiLockGuard>> {
        let this = self;
        let key = this.key();
        if let State::Init = this.state {
            let inner = &this.ml.client().inner;
            let mut st = inner.router.lock();
            inner.drain(&mut st);
            let rc = unsafe { sys::zkl_multilock_acquire_async(this.ml.raw(), this.owner, this.timeout_ms) };
            if rc < 0 {
                this.state = State::Done;
                return Poll::Ready(Err(Error::from_code(rc)));
            }
            let Some(slot) = st.slots.get_mut(&key) else {
                this.state = State::Done;
                return Poll::Ready(Err(ErrorKind::BadHandle.into()));
            };
            slot.issued += 1;
            this.state = State::Waiting { ticket: slot.issued, lost_gen: slot.lost_gen };
        }
        let State::Waiting { ticket, lost_gen } = this.state else {
            panic!("MultiAcquire polled after completion");
        };
        match this.waiter.poll(cx, |st| st.slots.get_mut(&key)?.results.remove(&ticket)) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)), // keeps Waiting: Drop cancels
            Poll::Ready(Ok(result)) => {
                this.state = State::Done;
                Poll::Ready(result.map(|_| this.ml.guard(this.owner, lost_gen)))
            }
        }
    }
}

impl Drop for MultiAcquire {
    fn drop(&mut self) {
        let State::Waiting { ticket, .. } = self.state else { return };
        let raw = self.ml.raw();
        // SAFETY (both): raw is the live handle the acquire was made on.
        crate::asyncio::abandon(
            &self.ml.client().inner,
            self.key(),
            ticket,
            self.owner,
            || unsafe { sys::zkl_multilock_release_async(raw, self.owner) },
            || unsafe { sys::zkl_multilock_cancel(raw) },
        );
    }
}

impl MultiLockGuard {
    /// Resolves when the multi-lock is lost (the loss of any member), with
    /// the loss as the error: `Err(Session)`, `Err(Closed)`, `Err(Lost)`,
    /// `Err(MaxHold)`, `Err(Revoked)`, `Err(Auth)`. Never `Ok`.
    pub fn lost(&self) -> impl Future<Output = Result<std::convert::Infallible>> + Send + '_ {
        let mut waiter = Waiter::new(self.multilock().client());
        async move {
            let why = std::future::poll_fn(move |cx| waiter.poll(cx, |st| self.lost_in(st))).await?;
            Err(why)
        }
    }
}
