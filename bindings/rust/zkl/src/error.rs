use std::ffi::CStr;
use std::fmt;
use std::sync::Arc;

use zkl_sys as sys;

/// Result of every fallible zkl operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong: one variant per `ZKL_E*` code of `zkl.h` (and [`Io`]).
/// [`Error::kind`] gives it; match on it.
///
/// [`Io`]: ErrorKind::Io
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `ZKL_EINVAL`: invalid argument or option.
    InvalidArgument,
    /// `ZKL_EBADPATH`: malformed ZooKeeper path (also: an interior NUL byte).
    BadPath,
    /// `ZKL_EBADHANDLE`: the handle was destroyed.
    BadHandle,
    /// `ZKL_ETIMEDOUT`: the wait ran out.
    Timeout,
    /// `ZKL_EAGAIN`: not now (lock taken, no event pending).
    WouldBlock,
    /// `ZKL_ECANCELED`: the acquire was cancelled.
    Canceled,
    /// `ZKL_ENOTHELD`: not held (release, fencing token, lease).
    NotHeld,
    /// `ZKL_ENOTOWNER`: release by an owner token that does not hold it.
    NotOwner,
    /// `ZKL_EBUSY`: the handle is held or being acquired by another owner.
    Busy,
    /// `ZKL_EDEADLK`: re-acquire of a non-reentrant lock by its holder.
    Deadlock,
    /// `ZKL_ECLOSED`: the client is closed.
    Closed,
    /// `ZKL_ECONNECTION`: no connection to ZooKeeper right now.
    Connection,
    /// `ZKL_ESESSION`: the session was lost (expired or abandoned).
    Session,
    /// `ZKL_ELOST`: the lock was lost while held.
    Lost,
    /// `ZKL_EMISMATCH`: participants disagree (e.g. semaphore lease count).
    Mismatch,
    /// `ZKL_EAUTH`: authentication failed or not allowed by an ACL.
    Auth,
    /// `ZKL_ETOOBIG`: data larger than 1 MiB.
    TooBig,
    /// `ZKL_ENOMEM`: out of memory.
    NoMemory,
    /// `ZKL_EZOOKEEPER`: unexpected ZooKeeper error.
    ZooKeeper,
    /// `ZKL_EVERSION`: options struct version not supported.
    Version,
    /// `ZKL_ENOTFOUND`: nothing there (no leader, no such node).
    NotFound,
    /// `ZKL_EINTERNAL`: a bug in libzkl.
    Internal,
    /// `ZKL_ERANGE`: index or buffer size out of range.
    Range,
    /// `ZKL_ENOTSUP`: not supported (by this build, the server, or this
    /// combination of options).
    NotSupported,
    /// `ZKL_EMAXHOLD`: the maximum hold time passed; zkl released the lock.
    MaxHold,
    /// `ZKL_EREVOKED`: released on a revocation request.
    Revoked,
    /// `ZKL_ETLS`: the TLS handshake failed.
    Tls,
    /// `ZKL_ECERT`: the server certificate is not trusted, or a TLS file
    /// is unreadable.
    Cert,
    /// `ZKL_EHOSTNAME`: the server certificate does not name the host.
    Hostname,
    /// `ZKL_ECLIENTCERT`: the server requires or rejected the client
    /// certificate.
    ClientCert,
    /// `ZKL_EPROTOCOL`: the server broke off the session handshake.
    Protocol,
    /// `ZKL_EEXISTS`: a guarded write's create: the node exists.
    Exists,
    /// `ZKL_EBADVERSION`: a guarded write's set, delete or check: the
    /// node's version is not the one given.
    BadVersion,
    /// `ZKL_ENOTEMPTY`: a guarded write's delete: the node has children.
    NotEmpty,
    /// `ZKL_ESTALE`: a fencing token that is not the current holder's
    /// ([`crate::Client::fence_check`]).
    Stale,
    /// `ZKL_EINDOUBT`: the connection broke while a guarded write was in
    /// flight: it may or may not have been applied (read back before
    /// retrying).
    InDoubt,
    /// A negative code this version of the bindings does not know.
    Unknown(i32),
    /// The async runtime could not watch the client's fd (tokio feature):
    /// [`std::error::Error::source`] is the I/O error.
    Io,
}

/// An error from libzkl or from the async runtime integration: its
/// [`ErrorKind`] (the `ZKL_E*` code), and for the message the operation,
/// the path and libzkl's reason where there are.
///
/// Errors compare equal by kind (also to an [`ErrorKind`]); the message is
/// for people, not for parsing: `"acquire /app/lock: timed out"`, `"new
/// client: tls_key_file /etc/zk/client.key: cannot open: No such file or
/// directory"`, `"connect: timed out (127.0.0.1:2181 (tcp): connection
/// refused)"`.
///
/// ```
/// use zkl::{Error, ErrorKind};
/// let e = Error::from_code(-4);
/// assert_eq!(e, ErrorKind::Timeout);
/// assert_eq!(e.kind(), ErrorKind::Timeout);
/// assert_eq!(e.code(), Some(-4));
/// assert_eq!(e.to_string(), zkl::strerror(-4));
/// ```
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    op: Option<&'static str>,
    path: Option<String>,
    reason: Option<String>,
    io: Option<Arc<std::io::Error>>,
    failed_op: Option<usize>,
}

impl ErrorKind {
    /// The kind of a negative `ZKL_E*` code.
    pub fn from_code(code: i32) -> ErrorKind {
        match code {
            sys::ZKL_EINVAL => ErrorKind::InvalidArgument,
            sys::ZKL_EBADPATH => ErrorKind::BadPath,
            sys::ZKL_EBADHANDLE => ErrorKind::BadHandle,
            sys::ZKL_ETIMEDOUT => ErrorKind::Timeout,
            sys::ZKL_EAGAIN => ErrorKind::WouldBlock,
            sys::ZKL_ECANCELED => ErrorKind::Canceled,
            sys::ZKL_ENOTHELD => ErrorKind::NotHeld,
            sys::ZKL_ENOTOWNER => ErrorKind::NotOwner,
            sys::ZKL_EBUSY => ErrorKind::Busy,
            sys::ZKL_EDEADLK => ErrorKind::Deadlock,
            sys::ZKL_ECLOSED => ErrorKind::Closed,
            sys::ZKL_ECONNECTION => ErrorKind::Connection,
            sys::ZKL_ESESSION => ErrorKind::Session,
            sys::ZKL_ELOST => ErrorKind::Lost,
            sys::ZKL_EMISMATCH => ErrorKind::Mismatch,
            sys::ZKL_EAUTH => ErrorKind::Auth,
            sys::ZKL_ETOOBIG => ErrorKind::TooBig,
            sys::ZKL_ENOMEM => ErrorKind::NoMemory,
            sys::ZKL_EZOOKEEPER => ErrorKind::ZooKeeper,
            sys::ZKL_EVERSION => ErrorKind::Version,
            sys::ZKL_ENOTFOUND => ErrorKind::NotFound,
            sys::ZKL_EINTERNAL => ErrorKind::Internal,
            sys::ZKL_ERANGE => ErrorKind::Range,
            sys::ZKL_ENOTSUP => ErrorKind::NotSupported,
            sys::ZKL_EMAXHOLD => ErrorKind::MaxHold,
            sys::ZKL_EREVOKED => ErrorKind::Revoked,
            sys::ZKL_ETLS => ErrorKind::Tls,
            sys::ZKL_ECERT => ErrorKind::Cert,
            sys::ZKL_EHOSTNAME => ErrorKind::Hostname,
            sys::ZKL_ECLIENTCERT => ErrorKind::ClientCert,
            sys::ZKL_EPROTOCOL => ErrorKind::Protocol,
            sys::ZKL_EEXISTS => ErrorKind::Exists,
            sys::ZKL_EBADVERSION => ErrorKind::BadVersion,
            sys::ZKL_ENOTEMPTY => ErrorKind::NotEmpty,
            sys::ZKL_ESTALE => ErrorKind::Stale,
            sys::ZKL_EINDOUBT => ErrorKind::InDoubt,
            other => ErrorKind::Unknown(other),
        }
    }

    /// The raw `ZKL_E*` code; `None` only for [`ErrorKind::Io`].
    pub fn code(self) -> Option<i32> {
        Some(match self {
            ErrorKind::InvalidArgument => sys::ZKL_EINVAL,
            ErrorKind::BadPath => sys::ZKL_EBADPATH,
            ErrorKind::BadHandle => sys::ZKL_EBADHANDLE,
            ErrorKind::Timeout => sys::ZKL_ETIMEDOUT,
            ErrorKind::WouldBlock => sys::ZKL_EAGAIN,
            ErrorKind::Canceled => sys::ZKL_ECANCELED,
            ErrorKind::NotHeld => sys::ZKL_ENOTHELD,
            ErrorKind::NotOwner => sys::ZKL_ENOTOWNER,
            ErrorKind::Busy => sys::ZKL_EBUSY,
            ErrorKind::Deadlock => sys::ZKL_EDEADLK,
            ErrorKind::Closed => sys::ZKL_ECLOSED,
            ErrorKind::Connection => sys::ZKL_ECONNECTION,
            ErrorKind::Session => sys::ZKL_ESESSION,
            ErrorKind::Lost => sys::ZKL_ELOST,
            ErrorKind::Mismatch => sys::ZKL_EMISMATCH,
            ErrorKind::Auth => sys::ZKL_EAUTH,
            ErrorKind::TooBig => sys::ZKL_ETOOBIG,
            ErrorKind::NoMemory => sys::ZKL_ENOMEM,
            ErrorKind::ZooKeeper => sys::ZKL_EZOOKEEPER,
            ErrorKind::Version => sys::ZKL_EVERSION,
            ErrorKind::NotFound => sys::ZKL_ENOTFOUND,
            ErrorKind::Internal => sys::ZKL_EINTERNAL,
            ErrorKind::Range => sys::ZKL_ERANGE,
            ErrorKind::NotSupported => sys::ZKL_ENOTSUP,
            ErrorKind::MaxHold => sys::ZKL_EMAXHOLD,
            ErrorKind::Revoked => sys::ZKL_EREVOKED,
            ErrorKind::Tls => sys::ZKL_ETLS,
            ErrorKind::Cert => sys::ZKL_ECERT,
            ErrorKind::Hostname => sys::ZKL_EHOSTNAME,
            ErrorKind::ClientCert => sys::ZKL_ECLIENTCERT,
            ErrorKind::Protocol => sys::ZKL_EPROTOCOL,
            ErrorKind::Exists => sys::ZKL_EEXISTS,
            ErrorKind::BadVersion => sys::ZKL_EBADVERSION,
            ErrorKind::NotEmpty => sys::ZKL_ENOTEMPTY,
            ErrorKind::Stale => sys::ZKL_ESTALE,
            ErrorKind::InDoubt => sys::ZKL_EINDOUBT,
            ErrorKind::Unknown(c) => c,
            ErrorKind::Io => return None,
        })
    }
}

impl Error {
    /// The error for a negative `ZKL_E*` code (no operation, no reason).
    pub fn from_code(code: i32) -> Error {
        ErrorKind::from_code(code).into()
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The raw `ZKL_E*` code; `None` only for [`ErrorKind::Io`].
    pub fn code(&self) -> Option<i32> {
        self.kind.code()
    }

    /// The operation that failed (`"acquire"`, `"new client"`,
    /// `"connect"`, ...), if known.
    pub fn op(&self) -> Option<&str> {
        self.op
    }

    /// The ZooKeeper path the operation was on, if any.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// A guarded write that failed because of one of its operations
    /// (`Exists`, `BadVersion`, `NotFound`, `NotEmpty`, `Auth`): that
    /// operation's index in the [`crate::Ops`]; `None` otherwise (the write
    /// failed for no one operation's reason, or this is no write's error).
    pub fn failed_op(&self) -> Option<usize> {
        self.failed_op
    }

    /// Says which operation of a guarded write failed.
    pub(crate) fn at_op(mut self, index: Option<usize>) -> Error {
        self.failed_op = index;
        self
    }

    /// Names the operation (and path) that failed, unless already named.
    pub(crate) fn during(mut self, op: &'static str, path: Option<&str>) -> Error {
        if self.op.is_none() {
            self.op = Some(op);
            self.path = path.map(str::to_string);
        }
        self
    }

    /// libzkl's reason, said in place of the code's text.
    pub(crate) fn because(mut self, reason: String) -> Error {
        if !reason.is_empty() {
            self.reason = Some(reason);
        }
        self
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error { kind, op: None, path: None, reason: None, io: None, failed_op: None }
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        match (&self.io, &other.io) {
            (Some(a), Some(b)) => a.kind() == b.kind(),
            _ => self.kind == other.kind,
        }
    }
}
impl Eq for Error {}

impl PartialEq<ErrorKind> for Error {
    fn eq(&self, other: &ErrorKind) -> bool {
        self.kind == *other
    }
}

impl PartialEq<Error> for ErrorKind {
    fn eq(&self, other: &Error) -> bool {
        *self == other.kind
    }
}

impl fmt::Display for Error {
    /// `op path: reason`, the reason being libzkl's when it gave one, else
    /// the code's text (`zkl_strerror`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(op) = self.op {
            f.write_str(op)?;
            if let Some(path) = &self.path {
                write!(f, " {path}")?;
            }
            f.write_str(": ")?;
        }
        match (&self.reason, &self.io) {
            (Some(reason), _) => f.write_str(reason),
            (None, Some(e)) => write!(f, "event fd: {e}"),
            (None, None) => f.write_str(&strerror(self.code().unwrap_or(sys::ZKL_EINTERNAL))),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error { io: Some(Arc::new(e)), ..ErrorKind::Io.into() }
    }
}

/// libzkl's description of a code (`zkl_strerror`).
pub fn strerror(code: i32) -> String {
    // SAFETY: zkl_strerror returns a static NUL-terminated string, never NULL.
    unsafe { CStr::from_ptr(sys::zkl_strerror(code)) }.to_string_lossy().into_owned()
}

/// Maps a C return value: negative is an error, the rest is the value.
pub(crate) fn check(rc: i32) -> Result<i32> {
    if rc < 0 {
        Err(Error::from_code(rc))
    } else {
        Ok(rc)
    }
}

/// Names the failed operation of a result (see `Error::during`).
pub(crate) trait At<T> {
    /// The operation, on no path.
    fn op(self, op: &'static str) -> Result<T>;
    /// The operation on `path`.
    fn at(self, op: &'static str, path: &str) -> Result<T>;
}

impl<T> At<T> for Result<T> {
    fn op(self, op: &'static str) -> Result<T> {
        self.map_err(|e| e.during(op, None))
    }

    fn at(self, op: &'static str, path: &str) -> Result<T> {
        self.map_err(|e| e.during(op, Some(path)))
    }
}
