//! Guarded writes (`zkl.h`, "Guarded writes"): ZooKeeper writes that are
//! applied only while the hold is real at the quorum, the leader's
//! proclaim, and the fence check for resources that are not ZooKeeper.

use std::ffi::CString;
use std::time::Duration;

use zkl_sys as sys;

use crate::client::inspect_options;
use crate::error::{check, At};
use crate::{
    c_path, Client, Election, Error, InspectKind, Lock, LockGuard, MultiLock, MultiLockGuard, Result,
    DEFAULT_OWNER,
};

/// The version argument of [`Ops::set`], [`Ops::delete`] and
/// [`Ops::check`] that matches whatever version the node has
/// (`ZKL_ANY_VERSION`).
pub const ANY_VERSION: i32 = sys::ZKL_ANY_VERSION;

/// The most one write's operations may carry, paths and data together
/// (`ZKL_OPS_MAX_BYTES`).
pub const OPS_MAX_BYTES: usize = sys::ZKL_OPS_MAX_BYTES as usize;

/// The mode of a node [`Ops::create`] makes (`ZKL_CREATE_*`); combine with
/// `|` (`CreateMode::EPHEMERAL | CreateMode::SEQUENTIAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CreateMode(i32);

impl CreateMode {
    /// A plain node.
    pub const PERSISTENT: CreateMode = CreateMode(sys::ZKL_CREATE_PERSISTENT);
    /// Dies with this client's session.
    pub const EPHEMERAL: CreateMode = CreateMode(sys::ZKL_CREATE_EPHEMERAL);
    /// A sequence number is appended to the name: [`WriteResult::path`]
    /// has the name made.
    pub const SEQUENTIAL: CreateMode = CreateMode(sys::ZKL_CREATE_SEQUENTIAL);

    /// The `ZKL_CREATE_*` flags.
    pub fn raw(self) -> i32 {
        self.0
    }
}

impl std::ops::BitOr for CreateMode {
    type Output = CreateMode;
    fn bitor(self, other: CreateMode) -> CreateMode {
        CreateMode(self.0 | other.0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Create { path: String, data: Vec<u8>, mode: CreateMode },
    Set { path: String, data: Vec<u8>, version: i32 },
    Delete { path: String, version: i32 },
    Check { path: String, version: i32 },
}

/// The operations of one guarded write, built like a [`crate::LockBuilder`]:
///
/// ```
/// use zkl::{CreateMode, Ops, ANY_VERSION};
/// let ops = Ops::new()
///     .create("/locks/job/state", "v1", CreateMode::PERSISTENT)
///     .set("/locks/job/state", "v2", 0)
///     .check("/locks/job/config", ANY_VERSION);
/// assert_eq!(ops.len(), 3);
/// ```
///
/// Every path must lie strictly below the lock's (or election's) path, e.g.
/// `/locks/job/state` for the lock `/locks/job`: `Err(BadPath)` otherwise,
/// and nothing is sent. An operation libzkl refuses (a malformed path, a
/// bad mode or version, more than [`OPS_MAX_BYTES`]) makes the write fail
/// with that error before anything is sent. A list may be written again:
/// each write has its own results.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ops {
    ops: Vec<Op>,
}

impl Ops {
    /// An empty list.
    pub fn new() -> Ops {
        Ops::default()
    }

    /// Creates `path` with `data` (`Err(Exists)` when the node exists).
    pub fn create(mut self, path: impl Into<String>, data: impl Into<Vec<u8>>, mode: CreateMode) -> Ops {
        self.ops.push(Op::Create { path: path.into(), data: data.into(), mode });
        self
    }

    /// Replaces the data of `path` if its version is `version`
    /// ([`ANY_VERSION`]: whatever it is): `Err(BadVersion)`, `Err(NotFound)`.
    pub fn set(mut self, path: impl Into<String>, data: impl Into<Vec<u8>>, version: i32) -> Ops {
        self.ops.push(Op::Set { path: path.into(), data: data.into(), version });
        self
    }

    /// Deletes `path` if its version is `version` ([`ANY_VERSION`]: any):
    /// `Err(BadVersion)`, `Err(NotFound)`, `Err(NotEmpty)`.
    pub fn delete(mut self, path: impl Into<String>, version: i32) -> Ops {
        self.ops.push(Op::Delete { path: path.into(), version });
        self
    }

    /// Writes nothing: the write fails (`Err(BadVersion)`, `Err(NotFound)`)
    /// unless `path` exists with `version` ([`ANY_VERSION`]: any).
    pub fn check(mut self, path: impl Into<String>, version: i32) -> Ops {
        self.ops.push(Op::Check { path: path.into(), version });
        self
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// No operation yet (a write of an empty list fails with
    /// `InvalidArgument`).
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The C list (an operation libzkl refuses: its error, on its path).
    pub(crate) fn to_raw(&self) -> Result<RawOps> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::zkl_ops_new(&mut raw) }).op("write")?;
        let list = RawOps(raw);
        for op in &self.ops {
            let (path, rc) = match op {
                Op::Create { path, data, mode } => {
                    let p = c_path(path).at("write", path)?;
                    let rc = unsafe { sys::zkl_ops_create(raw, p.as_ptr(), data.as_ptr().cast(), data.len(), mode.0) };
                    (path, rc)
                }
                Op::Set { path, data, version } => {
                    let p = c_path(path).at("write", path)?;
                    let rc = unsafe { sys::zkl_ops_set(raw, p.as_ptr(), data.as_ptr().cast(), data.len(), *version) };
                    (path, rc)
                }
                Op::Delete { path, version } => {
                    let p = c_path(path).at("write", path)?;
                    (path, unsafe { sys::zkl_ops_delete(raw, p.as_ptr(), *version) })
                }
                Op::Check { path, version } => {
                    let p = c_path(path).at("write", path)?;
                    (path, unsafe { sys::zkl_ops_check(raw, p.as_ptr(), *version) })
                }
            };
            check(rc).at("write", path)?;
        }
        Ok(list)
    }
}

/// An owned C operations list.
pub(crate) struct RawOps(pub(crate) *mut sys::zkl_ops);

// SAFETY: a plain owned object, used by one thread at a time.
unsafe impl Send for RawOps {}
unsafe impl Sync for RawOps {}

impl Drop for RawOps {
    fn drop(&mut self) {
        unsafe { sys::zkl_ops_free(self.0) };
    }
}

/// What a guarded write did, operation by operation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WriteResult {
    /// The index of the operation that failed (`Exists`, `BadVersion`,
    /// `NotFound`, `NotEmpty`, `Auth`); `None` when every operation was
    /// applied, or the write failed for no one operation's reason.
    pub failed: Option<usize>,
    /// For each operation, the path a create made (with its sequence
    /// number); `None` for the others and when nothing was applied.
    pub paths: Vec<Option<String>>,
    /// For each operation, the node's data version after a create (0) or
    /// set; `None` for the others and when nothing was applied.
    pub versions: Vec<Option<i32>>,
}

impl WriteResult {
    /// The path operation `i` created, if it created one.
    pub fn path(&self, i: usize) -> Option<&str> {
        self.paths.get(i)?.as_deref()
    }

    /// The data version after operation `i` (a create or set).
    pub fn version(&self, i: usize) -> Option<i32> {
        *self.versions.get(i)?
    }

    /// Reads the results of a C list.
    ///
    /// # Safety
    /// `ops` is NULL or a valid list.
    pub(crate) unsafe fn from_raw(ops: *const sys::zkl_ops) -> WriteResult {
        if ops.is_null() {
            return WriteResult::default();
        }
        // SAFETY: a valid list; buffers are ours.
        unsafe {
            let failed = sys::zkl_ops_failed(ops);
            let n = sys::zkl_ops_count(ops).max(0) as usize;
            let mut r = WriteResult {
                failed: usize::try_from(failed).ok(),
                paths: Vec::with_capacity(n),
                versions: Vec::with_capacity(n),
            };
            for i in 0..n {
                let len = sys::zkl_ops_path(ops, i, std::ptr::null_mut(), 0);
                r.paths.push(if len >= 0 {
                    let mut buf = vec![0u8; len as usize + 1];
                    sys::zkl_ops_path(ops, i, buf.as_mut_ptr().cast(), buf.len());
                    buf.truncate(len as usize);
                    Some(String::from_utf8_lossy(&buf).into_owned())
                } else {
                    None
                });
                let mut v = 0i32;
                r.versions.push((sys::zkl_ops_version(ops, i, &mut v) == 0).then_some(v));
            }
            r
        }
    }
}

/// A write's return code and results as a result.
pub(crate) fn outcome(rc: i32, r: WriteResult) -> Result<WriteResult> {
    if rc < 0 {
        Err(Error::from_code(rc).at_op(r.failed))
    } else {
        Ok(r)
    }
}

/// Runs a blocking `zkl_*_write` call on `ops`.
fn blocking(ops: &Ops, call: impl FnOnce(*mut sys::zkl_ops) -> i32) -> Result<WriteResult> {
    let raw = ops.to_raw()?;
    let rc = call(raw.0);
    outcome(rc, unsafe { WriteResult::from_raw(raw.0) })
}

impl Lock {
    /// Runs `ops` guarded by the hold of [`DEFAULT_OWNER`] (see
    /// [`Lock::write_blocking_as`]).
    pub fn write_blocking(&self, ops: &Ops) -> Result<WriteResult> {
        self.write_blocking_as(DEFAULT_OWNER, ops)
    }

    /// Runs `ops` guarded by `owner`'s hold of this lock, all or nothing, in
    /// one ZooKeeper `multi` behind a check that the holder's node still
    /// exists, and waits for the server's answer (one round trip; blocks the
    /// thread: in async code use [`Lock::write_as`]). On an error nothing
    /// was applied: `NotHeld` / `NotOwner` (not held, by this owner),
    /// `Lost` (the hold is gone at the quorum), `Session`, `Exists`,
    /// `BadVersion`, `NotFound`, `NotEmpty`, `Auth` (an operation failed:
    /// [`Error::failed_op`] says which), `BadPath` (an operation outside the
    /// lock's tree), `TooBig`, `Busy` (a member of a multi-lock). `InDoubt`
    /// when the connection broke while the write was in flight: it may
    /// have been applied (read back before retrying). Never retried.
    pub fn write_blocking_as(&self, owner: u64, ops: &Ops) -> Result<WriteResult> {
        blocking(ops, |o| unsafe { sys::zkl_lock_write(self.raw(), owner, o) }).at("write", self.path())
    }
}

impl LockGuard {
    /// [`Lock::write_blocking_as`] for this hold's owner.
    pub fn write_blocking(&self, ops: &Ops) -> Result<WriteResult> {
        self.lock().write_blocking_as(self.owner(), ops)
    }
}

impl MultiLock {
    /// Runs `ops` guarded by every member's node (see
    /// [`Lock::write_blocking_as`]) for [`DEFAULT_OWNER`].
    pub fn write_blocking(&self, ops: &Ops) -> Result<WriteResult> {
        self.write_blocking_as(DEFAULT_OWNER, ops)
    }

    /// Runs `ops` guarded by every member's node, held by `owner`; the
    /// operations lie below any member's path.
    pub fn write_blocking_as(&self, owner: u64, ops: &Ops) -> Result<WriteResult> {
        blocking(ops, |o| unsafe { sys::zkl_multilock_write(self.raw(), owner, o) }).op("write")
    }
}

impl MultiLockGuard {
    /// [`MultiLock::write_blocking_as`] for this hold's owner.
    pub fn write_blocking(&self, ops: &Ops) -> Result<WriteResult> {
        self.multilock().write_blocking_as(self.owner(), ops)
    }
}

impl Election {
    /// Runs `ops` guarded by this participant's leadership (`NotHeld` when
    /// it does not lead); see [`Lock::write_blocking_as`]. The operations
    /// lie below the election's path.
    pub fn write_blocking(&self, ops: &Ops) -> Result<WriteResult> {
        blocking(ops, |o| unsafe { sys::zkl_election_write(self.raw(), o) }).at("write", self.path())
    }

    /// The leader replaces the value it publishes (its id, the node's data)
    /// without leaving the election (etcd's Proclaim): observers report the
    /// new value with the same term. One round trip, guarded as a write:
    /// `NotHeld` when not leader, `Lost`, `InDoubt`, `TooBig`. A later
    /// rejoin publishes the new value too ([`Election::participant_id`]
    /// still says the id given at creation).
    pub fn proclaim(&self, value: impl AsRef<[u8]>) -> Result<()> {
        let v = value.as_ref();
        check(unsafe { sys::zkl_election_proclaim(self.raw(), v.as_ptr().cast(), v.len()) })
            .at("proclaim", self.path())
            .map(drop)
    }
}

impl Client {
    /// For resources that are not ZooKeeper: is `token` the fencing token
    /// of a current holder of `path` (a lock, or an election's leader, of
    /// `kind`)? `Ok(())` when it is, `Err(Stale)` when it is not (a later
    /// holder has it, or nobody); `Timeout` (after `timeout`),
    /// `Connection`... when the question could not be answered. The answer
    /// is read after a `sync`, so it is at least as new as the quorum's
    /// state when the call began. A snapshot: a resource that must not
    /// accept a stale holder compares tokens itself, and uses this to
    /// refuse early or to audit. Blocks the thread.
    pub fn fence_check(&self, path: &str, kind: InspectKind, token: u64, timeout: Duration) -> Result<()> {
        self.fence_check_at(path, kind, token, timeout).at("fence check", path)
    }

    fn fence_check_at(&self, path: &str, kind: InspectKind, token: u64, timeout: Duration) -> Result<()> {
        let cpath: CString = c_path(path)?;
        let opts = inspect_options(kind, timeout)?;
        check(unsafe { sys::zkl_fence_check(self.raw(), cpath.as_ptr(), &opts, token) }).map(drop)
    }
}
