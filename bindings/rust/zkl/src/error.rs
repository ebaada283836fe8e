use std::ffi::CStr;
use std::fmt;
use std::sync::Arc;

use zkl_sys as sys;

/// Result of every fallible zkl operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error from libzkl (one variant per `ZKL_E*` code) or from the async
/// runtime integration.
///
/// [`Error::code`] gives the raw C code.
///
/// ```
/// use zkl::Error;
/// let e = Error::from_code(-4);
/// assert_eq!(e, Error::Timeout);
/// assert_eq!(e.code(), Some(-4));
/// assert_eq!(e.to_string(), zkl::strerror(-4));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
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
    /// A negative code this version of the bindings does not know.
    Unknown(i32),
    /// The async runtime could not watch the client's fd (tokio feature).
    Io(Arc<std::io::Error>),
}

impl Error {
    /// The error for a negative `ZKL_E*` code.
    pub fn from_code(code: i32) -> Error {
        match code {
            sys::ZKL_EINVAL => Error::InvalidArgument,
            sys::ZKL_EBADPATH => Error::BadPath,
            sys::ZKL_EBADHANDLE => Error::BadHandle,
            sys::ZKL_ETIMEDOUT => Error::Timeout,
            sys::ZKL_EAGAIN => Error::WouldBlock,
            sys::ZKL_ECANCELED => Error::Canceled,
            sys::ZKL_ENOTHELD => Error::NotHeld,
            sys::ZKL_ENOTOWNER => Error::NotOwner,
            sys::ZKL_EBUSY => Error::Busy,
            sys::ZKL_EDEADLK => Error::Deadlock,
            sys::ZKL_ECLOSED => Error::Closed,
            sys::ZKL_ECONNECTION => Error::Connection,
            sys::ZKL_ESESSION => Error::Session,
            sys::ZKL_ELOST => Error::Lost,
            sys::ZKL_EMISMATCH => Error::Mismatch,
            sys::ZKL_EAUTH => Error::Auth,
            sys::ZKL_ETOOBIG => Error::TooBig,
            sys::ZKL_ENOMEM => Error::NoMemory,
            sys::ZKL_EZOOKEEPER => Error::ZooKeeper,
            sys::ZKL_EVERSION => Error::Version,
            sys::ZKL_ENOTFOUND => Error::NotFound,
            sys::ZKL_EINTERNAL => Error::Internal,
            sys::ZKL_ERANGE => Error::Range,
            sys::ZKL_ENOTSUP => Error::NotSupported,
            sys::ZKL_EMAXHOLD => Error::MaxHold,
            sys::ZKL_EREVOKED => Error::Revoked,
            sys::ZKL_ETLS => Error::Tls,
            sys::ZKL_ECERT => Error::Cert,
            sys::ZKL_EHOSTNAME => Error::Hostname,
            sys::ZKL_ECLIENTCERT => Error::ClientCert,
            sys::ZKL_EPROTOCOL => Error::Protocol,
            other => Error::Unknown(other),
        }
    }

    /// The raw `ZKL_E*` code; `None` only for [`Error::Io`].
    pub fn code(&self) -> Option<i32> {
        Some(match self {
            Error::InvalidArgument => sys::ZKL_EINVAL,
            Error::BadPath => sys::ZKL_EBADPATH,
            Error::BadHandle => sys::ZKL_EBADHANDLE,
            Error::Timeout => sys::ZKL_ETIMEDOUT,
            Error::WouldBlock => sys::ZKL_EAGAIN,
            Error::Canceled => sys::ZKL_ECANCELED,
            Error::NotHeld => sys::ZKL_ENOTHELD,
            Error::NotOwner => sys::ZKL_ENOTOWNER,
            Error::Busy => sys::ZKL_EBUSY,
            Error::Deadlock => sys::ZKL_EDEADLK,
            Error::Closed => sys::ZKL_ECLOSED,
            Error::Connection => sys::ZKL_ECONNECTION,
            Error::Session => sys::ZKL_ESESSION,
            Error::Lost => sys::ZKL_ELOST,
            Error::Mismatch => sys::ZKL_EMISMATCH,
            Error::Auth => sys::ZKL_EAUTH,
            Error::TooBig => sys::ZKL_ETOOBIG,
            Error::NoMemory => sys::ZKL_ENOMEM,
            Error::ZooKeeper => sys::ZKL_EZOOKEEPER,
            Error::Version => sys::ZKL_EVERSION,
            Error::NotFound => sys::ZKL_ENOTFOUND,
            Error::Internal => sys::ZKL_EINTERNAL,
            Error::Range => sys::ZKL_ERANGE,
            Error::NotSupported => sys::ZKL_ENOTSUP,
            Error::MaxHold => sys::ZKL_EMAXHOLD,
            Error::Revoked => sys::ZKL_EREVOKED,
            Error::Tls => sys::ZKL_ETLS,
            Error::Cert => sys::ZKL_ECERT,
            Error::Hostname => sys::ZKL_EHOSTNAME,
            Error::ClientCert => sys::ZKL_ECLIENTCERT,
            Error::Protocol => sys::ZKL_EPROTOCOL,
            Error::Unknown(c) => *c,
            Error::Io(_) => return None,
        })
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        match (self, other) {
            (Error::Io(a), Error::Io(b)) => a.kind() == b.kind(),
            _ => self.code() == other.code(),
        }
    }
}
impl Eq for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "event fd: {e}"),
            other => f.write_str(&strerror(other.code().unwrap_or(sys::ZKL_EINTERNAL))),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(&**e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(Arc::new(e))
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
