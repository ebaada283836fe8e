//! Guarded writes as futures (feature `tokio`): the write is sent with
//! `zkl_*_write_async` on the first poll, and its one WRITTEN event is
//! matched to it by the request id that call returned.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use zkl_sys as sys;

use crate::asyncio::Request;
use crate::error::At;
use crate::{Election, Lock, LockGuard, MultiLock, MultiLockGuard, Ops, Result, WriteResult, DEFAULT_OWNER};

enum Target {
    Lock(Lock, u64),
    MultiLock(MultiLock, u64),
    Election(Election),
}

impl Target {
    fn key(&self) -> usize {
        match self {
            Target::Lock(l, _) => l.raw() as usize,
            Target::MultiLock(m, _) => m.raw() as usize,
            Target::Election(e) => e.raw() as usize,
        }
    }

    fn client(&self) -> &crate::Client {
        match self {
            Target::Lock(l, _) => l.client(),
            Target::MultiLock(m, _) => m.client(),
            Target::Election(e) => e.client(),
        }
    }

    fn path(&self) -> Option<&str> {
        match self {
            Target::Lock(l, _) => Some(l.path()),
            Target::MultiLock(..) => None,
            Target::Election(e) => Some(e.path()),
        }
    }

    /// Sends the write: a request id (> 0) or an error code.
    fn send(&self, ops: *const sys::zkl_ops) -> i32 {
        // SAFETY: live handles; libzkl copies the list.
        unsafe {
            match self {
                Target::Lock(l, owner) => sys::zkl_lock_write_async(l.raw(), *owner, ops),
                Target::MultiLock(m, owner) => sys::zkl_multilock_write_async(m.raw(), *owner, ops),
                Target::Election(e) => sys::zkl_election_write_async(e.raw(), ops),
            }
        }
    }
}

/// Future of a guarded write ([`Lock::write`], [`LockGuard::write`],
/// [`MultiLock::write`], [`Election::write`]): resolves to the write's
/// results, or why nothing was applied (as [`Lock::write_blocking_as`]).
///
/// The write is sent on the first poll. Once sent it cannot be taken back:
/// dropping the future stops waiting for the answer (which then reaches
/// [`crate::Client::next_event`] as [`crate::EventKind::Written`]), but the
/// write may still be applied.
#[must_use = "futures do nothing unless awaited"]
pub struct Write {
    target: Target,
    ops: Ops,
    request: Request,
}

impl Write {
    fn new(target: Target, ops: &Ops) -> Write {
        let request = Request::new(target.client(), target.key());
        Write { target, ops: ops.clone(), request }
    }
}

impl Future for Write {
    type Output = Result<WriteResult>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<WriteResult>> {
        let this = self.get_mut();
        let (target, ops) = (&this.target, &this.ops);
        let r = this.request.poll(cx, None, || Ok(target.send(ops.to_raw()?.0)), |_, answer| answer.written());
        r.map(|r| {
            let r = r.and_then(|written| written);
            match target.path() {
                Some(path) => r.at("write", path),
                None => r.op("write"),
            }
        })
    }
}

impl Lock {
    /// [`Lock::write_as`] for [`DEFAULT_OWNER`].
    pub fn write(&self, ops: &Ops) -> Write {
        self.write_as(DEFAULT_OWNER, ops)
    }

    /// [`Lock::write_blocking_as`] without blocking the thread:
    /// `lock.write_as(owner, &ops).await`. The answer is matched to this
    /// write by its request id.
    ///
    /// ```no_run
    /// # async fn f(client: zkl::Client) -> zkl::Result<()> {
    /// use zkl::{CreateMode, Ops};
    /// let lock = client.lock("/app/lock")?;
    /// let guard = lock.acquire().await?;
    /// let done = guard.write(&Ops::new().create("/app/lock/state", "v1", CreateMode::PERSISTENT)).await?;
    /// println!("created {:?}", done.path(0));
    /// # Ok(()) }
    /// ```
    pub fn write_as(&self, owner: u64, ops: &Ops) -> Write {
        Write::new(Target::Lock(self.clone(), owner), ops)
    }
}

impl LockGuard {
    /// [`Lock::write_as`] for this hold's owner.
    pub fn write(&self, ops: &Ops) -> Write {
        self.lock().write_as(self.owner(), ops)
    }
}

impl MultiLock {
    /// [`MultiLock::write_as`] for [`DEFAULT_OWNER`].
    pub fn write(&self, ops: &Ops) -> Write {
        self.write_as(DEFAULT_OWNER, ops)
    }

    /// [`MultiLock::write_blocking_as`] without blocking the thread.
    pub fn write_as(&self, owner: u64, ops: &Ops) -> Write {
        Write::new(Target::MultiLock(self.clone(), owner), ops)
    }
}

impl MultiLockGuard {
    /// [`MultiLock::write_as`] for this hold's owner.
    pub fn write(&self, ops: &Ops) -> Write {
        self.multilock().write_as(self.owner(), ops)
    }
}

impl Election {
    /// [`Election::write_blocking`] without blocking the thread.
    pub fn write(&self, ops: &Ops) -> Write {
        Write::new(Target::Election(self.clone()), ops)
    }
}
