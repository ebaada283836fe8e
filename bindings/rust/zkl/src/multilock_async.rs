//! The multi-lock's futures (feature `tokio`), on the same event routing as
//! [`crate::Acquire`]: the acquire's ACQUIRED / ACQUIRE_FAILED event is
//! matched to it by the request id `zkl_multilock_acquire_async` returned.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::asyncio::{Request, Waiter};
use crate::client::Contender;
use crate::error::At;
use crate::{timeout_ms, MultiLock, MultiLockGuard, Result, DEFAULT_OWNER};

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
            request: Request::new(self.client(), self.raw() as usize),
        }
    }
}

/// Future of [`MultiLock::acquire`].
#[must_use = "futures do nothing unless awaited"]
pub struct MultiAcquire {
    ml: MultiLock,
    owner: u64,
    timeout_ms: i64,
    request: Request,
}

impl MultiAcquire {
    owner_and_timeout!("Acquire for this owner token.", "none is left held.");
}

impl Future for MultiAcquire {
    type Output = Result<MultiLockGuard>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<MultiLockGuard>> {
        let this = self.get_mut();
        let (owner, timeout) = (this.owner, this.timeout_ms);
        let r = this.request.poll_acquire(cx, Contender::MultiLock(owner), timeout, |_, _| ());
        let lost_gen = this.request.lost_gen();
        r.map(|r| r.map(|_| this.ml.guard(owner, lost_gen)).op("acquire"))
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
