"""Exceptions mapped from the ZKL_E* codes of zkl.h."""
from __future__ import annotations

import builtins
from typing import Any, Dict, List, Type

from . import capi as _c

__all__ = [
    "ZklError", "InvalidArgument", "BadPath", "BadHandle", "TimedOut", "WouldBlock",
    "Cancelled", "NotHeld", "NotOwner", "Busy", "Deadlock", "Closed", "ConnectionLost",
    "SessionLost", "LockLost", "Mismatch", "AuthFailed", "TooBig", "OutOfMemory",
    "ZooKeeperError", "VersionMismatch", "NotFound", "InternalError", "OutOfRange",
    "NotSupported", "MaxHoldExceeded", "Revoked", "TlsError", "CertificateError",
    "HostnameMismatch", "ClientCertificateError", "ProtocolError",
    "NodeExists", "BadVersion", "NotEmpty", "StaleToken", "InDoubt",
    "error_for", "check",
]


class ZklError(Exception):
    """Base of every zkl error. `code` is the negative ZKL_E* value."""

    code: int = 0
    #: A guarded write's error: the index of the operation that failed (None
    #: when no one operation did), and the write's results (a WriteResult).
    failed: "int | None" = None
    result: Any = None

    def __init__(self, message: str | None = None, code: int | None = None):
        if code is not None:
            self.code = code
        if message is None:
            message = strerror(self.code)
        super().__init__(message)

    @property
    def name(self) -> str:
        return _NAMES.get(self.code, "ZKL_E?")


# Errors of zkl only.
class BadHandle(ZklError):
    """The handle was destroyed (closed) or never valid."""
    code = _c.ZKL_EBADHANDLE


class WouldBlock(ZklError):
    """Not now: lock taken (try), nothing pending."""
    code = _c.ZKL_EAGAIN


class Cancelled(ZklError):
    """The acquire was cancelled (Lock.cancel from another thread)."""
    code = _c.ZKL_ECANCELED


class NotHeld(ZklError):
    """Not held (release, fencing token, valid_for)."""
    code = _c.ZKL_ENOTHELD


class NotOwner(ZklError):
    """Released by an owner that does not hold it."""
    code = _c.ZKL_ENOTOWNER


class Busy(ZklError):
    """The handle is held or being acquired by another owner."""
    code = _c.ZKL_EBUSY


class Deadlock(ZklError):
    """Re-acquire of a non-reentrant lock by its holder."""
    code = _c.ZKL_EDEADLK


class Closed(ZklError):
    """The client is closed."""
    code = _c.ZKL_ECLOSED


class SessionLost(ZklError):
    """The session was lost (expired or abandoned)."""
    code = _c.ZKL_ESESSION


class LockLost(ZklError):
    """The lock was lost while held: the protected work may have overlapped."""
    code = _c.ZKL_ELOST


class Mismatch(ZklError):
    """Participants disagree (e.g. a semaphore's lease count)."""
    code = _c.ZKL_EMISMATCH


class ZooKeeperError(ZklError):
    """An unexpected ZooKeeper error."""
    code = _c.ZKL_EZOOKEEPER


class VersionMismatch(ZklError):
    """The options version is not supported by this libzkl."""
    code = _c.ZKL_EVERSION


class NotFound(ZklError):
    """Nothing there (no leader, no such node)."""
    code = _c.ZKL_ENOTFOUND


class InternalError(ZklError):
    """A bug in zkl; please report it."""
    code = _c.ZKL_EINTERNAL


class OutOfRange(ZklError):
    """An index or buffer size out of range."""
    code = _c.ZKL_ERANGE


class NotSupported(ZklError):
    """Not supported by this build, by the server, or this combination of options."""
    code = _c.ZKL_ENOTSUP


class MaxHoldExceeded(ZklError):
    """The maximum hold time passed: zkl released the lock itself (LOST)."""
    code = _c.ZKL_EMAXHOLD


class Revoked(ZklError):
    """Released on a revocation request (LOST, with on_revoke=RELEASE)."""
    code = _c.ZKL_EREVOKED


# Errors of a guarded write (Lock.write & co.) and of a fence check. A
# write's error carries the write's results: `failed` (the index of the
# operation that failed, or None) and `result` (a WriteResult), both None
# for errors not raised by a write.
class NodeExists(ZklError):
    """A guarded create: the node exists (nothing of the write was applied)."""
    code = _c.ZKL_EEXISTS


class BadVersion(ZklError):
    """A guarded set, delete or check: the node's version is not the one given."""
    code = _c.ZKL_EBADVERSION


class NotEmpty(ZklError):
    """A guarded delete: the node has children."""
    code = _c.ZKL_ENOTEMPTY


class StaleToken(ZklError):
    """A fencing token that is not the current holder's (Client.fence_check)."""
    code = _c.ZKL_ESTALE


class InDoubt(ZklError):
    """The connection broke while a guarded write was in flight: it may or may
    not have been applied (read back before retrying)."""
    code = _c.ZKL_EINDOUBT


# Errors that are also ValueError.
class InvalidArgument(ZklError, ValueError):
    """An invalid argument: a NULL-like value or a bad option."""
    code = _c.ZKL_EINVAL


class BadPath(ZklError, ValueError):
    """A malformed ZooKeeper path."""
    code = _c.ZKL_EBADPATH


class TooBig(ZklError, ValueError):
    """Data larger than 1 MiB."""
    code = _c.ZKL_ETOOBIG


# Connection errors (also ConnectionError).
class ConnectionLost(ZklError, builtins.ConnectionError):
    """No connection to ZooKeeper right now."""
    code = _c.ZKL_ECONNECTION


class TlsError(ZklError, builtins.ConnectionError):
    """The TLS handshake failed (e.g. the server does not speak TLS there)."""
    code = _c.ZKL_ETLS


class ProtocolError(ZklError, builtins.ConnectionError):
    """The server broke off the session handshake (e.g. plaintext on a TLS port)."""
    code = _c.ZKL_EPROTOCOL


# Kinds of TLS error.
class CertificateError(TlsError):
    """The server certificate is not trusted, or a TLS file is unreadable."""
    code = _c.ZKL_ECERT


class HostnameMismatch(TlsError):
    """The server certificate does not name the host."""
    code = _c.ZKL_EHOSTNAME


class ClientCertificateError(TlsError):
    """The server requires a client certificate, or rejected the one given."""
    code = _c.ZKL_ECLIENTCERT


# Errors that are also a builtin error of their kind.
class TimedOut(ZklError, builtins.TimeoutError):
    """The wait ran out."""
    code = _c.ZKL_ETIMEDOUT


class AuthFailed(ZklError, builtins.PermissionError):
    """Authentication failed, or the ACL does not allow it."""
    code = _c.ZKL_EAUTH


class OutOfMemory(ZklError, MemoryError):
    """Out of memory."""
    code = _c.ZKL_ENOMEM


def _subclasses(cls: Type[ZklError]) -> List[Type[ZklError]]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub] + _subclasses(sub)
    return found


_BY_CODE: Dict[int, Type[ZklError]] = {cls.code: cls for cls in _subclasses(ZklError)}

_NAMES: Dict[int, str] = {
    getattr(_c, n): n for n in dir(_c) if n.startswith("ZKL_E") and isinstance(getattr(_c, n), int)
}


def strerror(code: int) -> str:
    return _c.zkl_strerror(code)


def error_for(code: int, context: str | None = None, reason: str | None = None) -> ZklError:
    """The exception for a negative ZKL_E* code: "context: reason", where
    reason (libzkl's account of why, when it gave one) defaults to the
    code's text."""
    cls = _BY_CODE.get(code, ZklError)
    msg = reason or strerror(code)
    if context:
        msg = f"{context}: {msg}"
    err = cls(msg)  # one argument: some bases are OSError, whose __new__ parses args
    err.code = code
    return err


def check(rc: int, context: str | None = None) -> int:
    """Returns rc if >= 0, else raises the mapped exception."""
    if rc < 0:
        raise error_for(rc, context)
    return rc
