"""The idiomatic layer over zkl.capi: Client, Lock, MultiLock, ReadWriteLock,
Election, Observer.

Threading rules (see README): no thread is created unless you call
Client.start_dispatcher(). Events are pulled from the client's queue by
Client.dispatch() -- on the asyncio loop when the client is attached to one
(Client.attach(), done implicitly by the *_async methods), else on whatever
thread calls dispatch()/poll(). Listeners and log lines run there. Blocking
calls release the GIL.

Lifetime rule: a handle that holds (or is acquiring, or takes part in an
election) is kept alive by its client until it is released, lost, or the
client closes, so dropping the last reference never releases a lock. A
handle that is garbage-collected while it still holds (only possible when
its client is unreachable too) emits a ResourceWarning.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
import time
import warnings
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import capi as _c
from ._errors import BadPath, Closed, InvalidArgument, ZklError, check, error_for, strerror
from ._events import (
    Acl, ElectionKind, Event, EventType, LockKind, LogLevel, OnRevoke, SessionState, _enum_or_int,
)
from ._ops import ANY_VERSION, Data, Ops, WriteResult, _data, write_error

__all__ = ["Client", "Lock", "MultiLock", "ReadWriteLock", "Election", "Observer",
           "Participant", "library_version", "DEFAULT_OWNER", "Ops", "WriteResult",
           "ANY_VERSION"]

Listener = Callable[[Event], Any]


class _Default:
    def __repr__(self) -> str:
        return "<default>"


_DEFAULT: Any = _Default()

_EAGAIN = _c.ZKL_EAGAIN
_ENOTHELD = _c.ZKL_ENOTHELD
_ENOTFOUND = _c.ZKL_ENOTFOUND

#: The owner token used when the caller names none: the handle itself is the
#: owner, so any thread or task may release what another one acquired.
DEFAULT_OWNER: int = _c.ZKL_DEFAULT_OWNER

#: The logger zkl's log lines go to (levels mapped from ZKL_LOG_*).
_LOGGER = logging.getLogger("zkl")
_PY_LEVEL = {
    _c.ZKL_LOG_ERROR: logging.ERROR,
    _c.ZKL_LOG_WARN: logging.WARNING,
    _c.ZKL_LOG_INFO: logging.INFO,
    _c.ZKL_LOG_DEBUG: logging.DEBUG,
}


def _zkl_level(logger: logging.Logger) -> int:
    """The ZKL_LOG_* level that matches what `logger` lets through."""
    level = logger.getEffectiveLevel()
    if level <= logging.DEBUG:
        return _c.ZKL_LOG_DEBUG
    if level <= logging.INFO:
        return _c.ZKL_LOG_INFO
    if level <= logging.WARNING:
        return _c.ZKL_LOG_WARN
    return _c.ZKL_LOG_ERROR


def library_version() -> str:
    """The version of the libzkl the module is linked against, e.g. "0.2.0"."""
    return _c.zkl_version_string()


# ---------------------------------------------------------------------------
# Argument checks (before C sees anything)
# ---------------------------------------------------------------------------

def _check_path(path: Any) -> str:
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    if "\x00" in path:
        raise BadPath(f"path {path!r} contains a NUL byte")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BadPath(f"path {path!r} is not valid Unicode: {e}") from None
    return path


def _check_str(name: str, value: Any, optional: bool = False) -> Optional[str]:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if "\x00" in value:
        raise InvalidArgument(f"{name} contains a NUL byte")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgument(f"{name} is not valid Unicode: {e}") from None
    return value


def _ms(timeout: Optional[float]) -> int:
    """Seconds (None = forever) -> the C API's milliseconds (-1 = forever,
    0 = try once)."""
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or None, not {timeout!r}")
    if math.isnan(timeout) or timeout < 0:
        raise ValueError(f"timeout must be >= 0 or None, not {timeout!r}")
    if math.isinf(timeout):
        return -1
    return min(int(math.ceil(timeout * 1000)), 2**62)


def _ms_opt(name: str, seconds: Optional[float], limit: int = 2**31 - 1) -> int:
    """An optional duration option (None = the C default, 0)."""
    if seconds is None:
        return 0
    ms = _ms(seconds)
    if ms < 0 or ms > limit:
        raise InvalidArgument(f"{name} out of range: {seconds!r}")
    return ms


def _int32(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int")
    if not -2**31 <= value < 2**31:
        raise InvalidArgument(f"{name} out of range: {value}")
    return value


def _owner_token(owner: Any) -> int:
    if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < 2**64:
        raise ValueError(f"owner must be an int in [0, 2**64), not {owner!r}")
    return owner


def _json(rc_and_text, context: str) -> Dict[str, Any]:
    rc, text = rc_and_text
    check(rc, context)
    return json.loads(text)


# ---------------------------------------------------------------------------
# Client
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Participant:
    """One node under a lock or election path (Client.inspect), in queue order."""
    name: str
    is_holder: bool
    fencing_token: int
    session_id: int
    ctime_ms: int
    data: bytes
    leases: int = 1


def _inspect_options(kind: Union[LockKind, ElectionKind, int], timeout: Optional[float]):
    opts = _c.zkl_inspect_options()
    check(_c.zkl_inspect_options_init(opts, _c.ZKL_INSPECT_OPTIONS_VERSION))
    if isinstance(kind, ElectionKind):
        opts.election_kind = int(kind)
    else:
        opts.lock_kind = _int32("kind", int(kind))
    opts.timeout_ms = _ms(timeout)
    return opts


class Client:
    """A ZooKeeper session with zkl's recipes.

    Creating a client does not block: it connects in the background. Use
    wait_connected() (or Client.connect(), or `await wait_connected_async()`).
    The client is a context manager (sync and async); close() ends the session:
    every lock it holds is lost (LOST with error Closed is delivered).

    servers          "host:port,host:port"
    chroot           optional chroot path, e.g. "/apps/x" (must exist)
    session_timeout  requested session timeout in seconds
    connect_timeout  bound of the whole wait for a session in seconds (30; None
                     = no bound): the default timeout of Client.connect(),
                     wait_connected() and wait_connected_async()
    attempt_timeout  bound of one connection attempt in seconds, TLS
                     handshake included (None: libzkl's share, the session
                     timeout / max(3, servers of the list))
    lost_after       shortens the safety bound: a hold is given up after this
                     many seconds without hearing from the server
    digest_auth      optional "user:password" for digest authentication
    acl              Acl.OPEN or Acl.CREATOR (needs digest_auth or SASL)
    tls_*            TLS (tls_ca_file turns it on; PEM files)
    sasl_*           SASL (sasl_mechanism "DIGEST-MD5" or "GSSAPI" turns it on)
    log_level        LogLevel of the lines zkl emits (default: what the
                     `logger` lets through); they go to `logger`
    logger           a logging.Logger (default logging.getLogger("zkl"))
    stats_interval   seconds: a STATS event (event.stats) this often
    follow_ensemble  True: the server list follows the ensemble's
                     configuration (follow_ensemble(), called right after
                     the client is created)
    """

    def __init__(self, servers: str, *, chroot: Optional[str] = None,
                 session_timeout: float = 10.0, connect_timeout: Optional[float] = 30.0,
                 attempt_timeout: Optional[float] = None,
                 lost_after: Optional[float] = None, digest_auth: Optional[str] = None,
                 acl: Union[Acl, int] = Acl.OPEN,
                 tls_ca_file: Optional[str] = None, tls_cert_file: Optional[str] = None,
                 tls_key_file: Optional[str] = None, tls_key_password: Optional[str] = None,
                 tls_insecure_skip_hostname_check: bool = False,
                 sasl_mechanism: Optional[str] = None, sasl_user: Optional[str] = None,
                 sasl_password: Optional[str] = None, sasl_keytab: Optional[str] = None,
                 sasl_ccache: Optional[str] = None, sasl_service: Optional[str] = None,
                 sasl_host: Optional[str] = None,
                 log_level: Optional[Union[LogLevel, int]] = None,
                 logger: Optional[logging.Logger] = None,
                 stats_interval: Optional[float] = None,
                 follow_ensemble: bool = False):
        _check_str("servers", servers)
        if chroot is not None:
            _check_path(chroot)
        strings = dict(digest_auth=digest_auth, tls_ca_file=tls_ca_file,
                       tls_cert_file=tls_cert_file, tls_key_file=tls_key_file,
                       tls_key_password=tls_key_password, sasl_mechanism=sasl_mechanism,
                       sasl_user=sasl_user, sasl_password=sasl_password,
                       sasl_keytab=sasl_keytab, sasl_ccache=sasl_ccache,
                       sasl_service=sasl_service, sasl_host=sasl_host)
        for name, value in strings.items():
            _check_str(name, value, optional=True)
        self._logger = logger if logger is not None else _LOGGER
        if log_level is None:
            level = _zkl_level(self._logger)
        else:
            level = _int32("log_level", int(log_level))
        opts = _c.zkl_client_options()
        check(_c.zkl_client_options_init(opts, _c.ZKL_CLIENT_OPTIONS_VERSION))
        opts.servers = servers
        opts.chroot = chroot
        opts.session_timeout_ms = _ms_opt("session_timeout", session_timeout) or 10000
        _ms(connect_timeout)  # checked now (TypeError / ValueError), used by the waits
        opts.connect_timeout_ms = _ms_opt("attempt_timeout", attempt_timeout)
        opts.lost_after_ms = _ms_opt("lost_after", lost_after)
        opts.acl = int(acl)
        for name, value in strings.items():
            setattr(opts, name, value)
        opts.tls_insecure_skip_hostname_check = 1 if tls_insecure_skip_hostname_check else 0
        opts.log_level = level
        opts.set_log_events(1 if level != _c.ZKL_LOG_OFF else 0)
        opts.stats_interval_ms = _ms_opt("stats_interval", stats_interval)
        # why: libzkl's message (the option and the reason) when it fails.
        rc, h, why = _c.zkl_client_create(opts)
        del opts
        if rc < 0:
            raise error_for(rc, "new client", why)
        self._h = h
        self._handles: "weakref.WeakValueDictionary[int, _Handle]" = weakref.WeakValueDictionary()
        # Handles that hold, acquire or take part: kept alive (see the module doc).
        self._kept: Dict[int, _Handle] = {}
        self._listeners: List[Listener] = []
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._loop_thread: Optional[int] = None
        self._dispatcher: Optional[threading.Thread] = None
        self._stop_dispatcher = False
        self._session_waiters: List[asyncio.Future] = []
        # Pending *_write_async calls by the request id the C call returned;
        # the WRITTEN event carrying that id answers each.
        self._writes: Dict[int, Any] = {}
        self._close_lock = threading.Lock()
        self._connect_timeout = connect_timeout
        if follow_ensemble:
            try:
                self.follow_ensemble(True)
            except BaseException:
                self.close()
                raise

    @classmethod
    def connect(cls, servers: str, **kwargs) -> "Client":
        """Creates a client (kwargs: the options) and waits (blocking) until
        its session is up, at most connect_timeout seconds (default 30)."""
        client = cls(servers, **kwargs)
        try:
            client.wait_connected()
        except BaseException:
            client.close()
            raise
        return client

    # -- plumbing ----------------------------------------------------------

    def _handle(self):
        h = self._h
        if h is None:
            raise Closed("the client is closed")
        return h

    def _register(self, obj: "_Handle") -> None:
        self._handles[obj._key] = obj

    def __repr__(self) -> str:
        if self._h is None:
            return "<zkl.Client closed>"
        state = self.state
        return f"<zkl.Client state={getattr(state, 'name', state)} session=0x{self.session_id:x}>"

    # -- session -----------------------------------------------------------

    def _wait_ms(self, timeout: Optional[float]) -> int:
        return _ms(self._connect_timeout if timeout is _DEFAULT else timeout)

    def wait_connected(self, timeout: Optional[float] = _DEFAULT) -> None:
        """Blocks until the session is connected, at most `timeout` seconds
        (default: the client's connect_timeout; None: no bound); TimedOut,
        or why the attempts failed: AuthFailed, CertificateError,
        HostnameMismatch, ClientCertificateError at once when every server
        refused, a TLS error when the wait runs out. The message says how each
        server's last attempt failed."""
        rc = _c.zkl_client_wait_connected(self._handle(), self._wait_ms(timeout))
        if rc < 0:
            raise self._connect_failure(rc)

    async def wait_connected_async(self, timeout: Optional[float] = _DEFAULT) -> None:
        """Waits on the running loop until the session is connected, as
        wait_connected() (the same timeout and errors): it ends on the
        session's AUTH_FAILED with its reason (AuthFailed, or the certificate
        error every server answered with)."""
        loop = self.attach()
        ms = self._wait_ms(timeout)
        if self.connected:
            return
        if self.state == SessionState.AUTH_FAILED:
            # Why: libzkl's wait with a zero timeout (it does not block).
            rc = _c.zkl_client_wait_connected(self._handle(), 0)
            if rc == 0:
                return
            if rc != _c.ZKL_ETIMEDOUT:
                raise self._connect_failure(rc)
        fut = loop.create_future()
        self._session_waiters.append(fut)
        timer = None
        if ms >= 0:
            timer = loop.call_later(ms / 1000.0, _fail_future, fut, self._connect_error)
        try:
            if self.connected:  # connected between the check and now
                return
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            if fut in self._session_waiters:
                self._session_waiters.remove(fut)

    def _connect_error(self) -> ZklError:
        """The error of a connect wait that ran out: a failed TLS handshake is
        no session event, but libzkl's wait with a zero timeout (it does not
        block) says why the attempts failed (e.g. CertificateError)."""
        rc = _c.zkl_client_wait_connected(self._handle(), 0)
        return self._connect_failure(rc if rc < 0 else _c.ZKL_ETIMEDOUT)

    def _connect_failure(self, rc: int) -> ZklError:
        """The error of a failed connect wait: rc's exception, its text
        followed by how each server's last attempt failed when libzkl keeps
        that, e.g. "timed out (127.0.0.1:1 (tcp): connection refused)". The
        code stays rc: the failures are the message's detail only."""
        h, text = self._h, ""
        if h is not None:
            text = _c.zkl_client_connect_error(h, 1024)[1].decode("utf-8", "replace")
        return error_for(rc, "wait_connected", f"{strerror(rc)} ({text})" if text else None)

    def _handle_for(self, op: str):
        h = self._h
        if h is None:
            raise error_for(_c.ZKL_ECLOSED, op)
        return h

    def set_servers(self, servers: str) -> None:
        """Replaces the server list ("host:port,host:port", as the
        constructor's) of the running client; the chroot stays, and so do
        the session and its holds. When the current server is no longer
        listed (or, the list having grown, to spread clients evenly) the
        client moves: a disconnect, so holds see SUSPENDED then RESTORED with
        the same tokens. Raises InvalidArgument for an empty or malformed
        list, ConnectionLost (a ConnectionError) when no name of it
        resolves (the old list stays), Closed after close()."""
        op = "set servers"
        if not isinstance(servers, str):
            raise TypeError(f"servers must be a str, not {type(servers).__name__}")
        if "\x00" in servers:
            raise error_for(_c.ZKL_EINVAL, op, "servers contains a NUL byte")
        check(_c.zkl_client_set_servers(self._handle_for(op), servers), op)

    def follow_ensemble(self, on: bool = True) -> None:
        """on=True: the server list follows the ensemble's configuration
        (/zookeeper/config, ZooKeeper 3.5+ dynamic reconfiguration), so that
        servers can be added and removed without reconfiguring clients; a
        server without one (before 3.5, or a static configuration) leaves the
        list as it is, and stats()["client"]["ensemble"] says why. on=False:
        stop following (the list stays). Closed after close()."""
        op = "follow ensemble"
        check(_c.zkl_client_follow_ensemble(self._handle_for(op), 1 if on else 0), op)

    @property
    def state(self) -> SessionState:
        return _enum_or_int(SessionState, check(_c.zkl_client_state(self._handle())))

    @property
    def connected(self) -> bool:
        return self.state in (SessionState.CONNECTED, SessionState.RECONNECTED)

    @property
    def session_id(self) -> int:
        rc, sid = _c.zkl_client_session_id(self._handle())
        check(rc)
        return sid

    @property
    def session_password(self) -> bytes:
        """The session's password (a secret): with session_id it lets a tool
        re-attach to, or expire, the session (kazoo's client_id)."""
        rc, pw = _c.zkl_client_session_password(self._handle())
        check(rc)
        return pw

    @property
    def session_timeout(self) -> float:
        """The negotiated session timeout in seconds (0 while not connected)."""
        return check(_c.zkl_client_session_timeout(self._handle())) / 1000.0

    def stats(self) -> Dict[str, Any]:
        """Statistics of the client and its handles (docs/STATISTICS.md), parsed."""
        return _json(_c.zkl_client_stats(self._handle()), "stats")

    def fileno(self) -> int:
        """The event fd: readable while events are pending (level-triggered).
        Owned by the client: do not close it."""
        return check(_c.zkl_client_fd(self._handle()))

    # -- recipes -----------------------------------------------------------

    def lock(self, path: str, timeout: Optional[float] = None, *,
             kind: Union[LockKind, int] = LockKind.FAIR, **kw) -> "Lock":
        """A lock handle on `path` (fair by default). `timeout` (seconds, None =
        forever, 0 = try once) is the default of acquire() and of `with`.
        Options: max_leases, leases, data, owner, max_hold, on_revoke, listener."""
        return Lock(self, path, kind, timeout=timeout, **kw)

    def reentrant_lock(self, path: str, timeout: Optional[float] = None, **kw) -> "Lock":
        """A fair lock with a hold count per owner token."""
        return Lock(self, path, LockKind.REENTRANT, timeout=timeout, **kw)

    def nonfair_lock(self, path: str, timeout: Optional[float] = None, **kw) -> "Lock":
        return Lock(self, path, LockKind.NONFAIR, timeout=timeout, **kw)

    def read_lock(self, path: str, timeout: Optional[float] = None, **kw) -> "Lock":
        """The shared side of the read/write lock on `path`."""
        return Lock(self, path, LockKind.READ, timeout=timeout, **kw)

    def write_lock(self, path: str, timeout: Optional[float] = None, **kw) -> "Lock":
        """The exclusive side of the read/write lock on `path`."""
        return Lock(self, path, LockKind.WRITE, timeout=timeout, **kw)

    def read_write_lock(self, path: str, timeout: Optional[float] = None, **kw) -> "ReadWriteLock":
        return ReadWriteLock(self, path, timeout=timeout, **kw)

    def semaphore(self, path: str, max_leases: int, timeout: Optional[float] = None,
                  **kw) -> "Lock":
        """`leases` (default 1) of `max_leases` leases on `path` (all
        participants must agree on max_leases)."""
        return Lock(self, path, LockKind.SEMAPHORE, timeout=timeout, max_leases=max_leases, **kw)

    def multilock(self, locks: Sequence["Lock"], timeout: Optional[float] = None, *,
                  owner: Optional[int] = None,
                  listener: Optional[Listener] = None) -> "MultiLock":
        """Several idle lock handles of this client taken all or none (see MultiLock)."""
        return MultiLock(self, locks, timeout=timeout, owner=owner, listener=listener)

    def election(self, path: str, id: str, *, kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 timeout: Optional[float] = None, on_revoke: Union[OnRevoke, int] = OnRevoke.IGNORE,
                 listener: Optional[Listener] = None) -> "Election":
        """A participant `id` in the leader election on `path`."""
        return Election(self, path, id, kind=kind, timeout=timeout, on_revoke=on_revoke,
                        listener=listener)

    def observer(self, path: str, kind: Union[ElectionKind, int] = ElectionKind.FAIR, *,
                 listener: Optional[Listener] = None) -> "Observer":
        """Watches the leader of the election on `path` without taking part."""
        return Observer(self, path, kind, listener=listener)

    def inspect(self, path: str, kind: Union[LockKind, ElectionKind, int] = LockKind.FAIR,
                timeout: Optional[float] = 10.0) -> List[Participant]:
        """Who holds and who waits on `path`, in queue order (a lock kind, or an
        ElectionKind for elections)."""
        _check_path(path)
        opts = _inspect_options(kind, timeout)
        rc, parts = _c.zkl_inspect(self._handle(), path, opts)
        check(rc, f"inspect {path}")
        try:
            out = []
            for i in range(check(_c.zkl_participants_count(parts))):
                rc, name = _c.zkl_participants_name(parts, i)
                check(rc)
                holder = check(_c.zkl_participants_is_holder(parts, i))
                rc, token = _c.zkl_participants_fencing_token(parts, i)
                check(rc)
                rc, sid = _c.zkl_participants_session_id(parts, i)
                check(rc)
                rc, ctime = _c.zkl_participants_ctime_ms(parts, i)
                check(rc)
                rc, data = _c.zkl_participants_data(parts, i)
                check(rc)
                leases = check(_c.zkl_participants_leases(parts, i))
                out.append(Participant(name.decode("utf-8", "surrogateescape"), bool(holder),
                                       token, sid, ctime, data, leases))
            return out
        finally:
            _c.zkl_participants_free(parts)

    def revoke(self, path: str, holder: Optional[str] = None,
               kind: Union[LockKind, ElectionKind, int] = LockKind.FAIR,
               timeout: Optional[float] = 10.0) -> int:
        """Asks the holders of `path` (or the one node `holder`, as
        Participant.name) to let go (Curator's Revoker protocol). Returns the
        number of holders asked."""
        _check_path(path)
        _check_str("holder", holder, optional=True)
        opts = _inspect_options(kind, timeout)
        return check(_c.zkl_revoke(self._handle(), path, opts, holder), f"revoke {path}")

    def fence_check(self, path: str, token: int,
                    kind: Union[LockKind, ElectionKind, int] = LockKind.FAIR,
                    timeout: Optional[float] = 10.0) -> None:
        """For resources that are not ZooKeeper: returns if `token` is the
        fencing token of a current holder of `path` (a lock of `kind`, or an
        election when kind is an ElectionKind); raises StaleToken when it is
        not (a later holder has the path, or nobody), TimedOut /
        ConnectionLost when that cannot be answered. Read after a sync: at
        least as new as the quorum's state when the call began. A snapshot:
        a resource that must not accept a stale holder compares tokens itself
        (docs/FENCING.md) and uses this to refuse early or to audit."""
        _check_path(path)
        if isinstance(token, bool) or not isinstance(token, int) or not 0 <= token < 2**64:
            raise ValueError(f"token must be an int in [0, 2**64), not {token!r}")
        opts = _inspect_options(kind, timeout)
        check(_c.zkl_fence_check(self._handle(), path, opts, token), f"fence_check {path}")

    # -- guarded writes (the handles' write / write_async) -----------------

    def _write(self, ops: Ops, call: Callable[[Any], int], context: str) -> WriteResult:
        if not isinstance(ops, Ops):
            raise TypeError(f"ops must be a zkl.Ops, not {type(ops).__name__}")
        return ops._run_blocking(call, context)

    async def _write_async(self, ops: Ops, call: Callable[[Any], int], context: str) -> WriteResult:
        if not isinstance(ops, Ops):
            raise TypeError(f"ops must be a zkl.Ops, not {type(ops).__name__}")
        loop = self.attach()
        rc = ops._send_async(call)
        if rc < 0:
            raise write_error(rc, context, None, len(ops))
        # The WRITTEN event is dispatched on this loop, so it cannot come
        # before the future is registered.
        fut = loop.create_future()
        self._writes[rc] = (fut, context)
        return await fut

    def _on_written(self, event: Event) -> None:
        entry = self._writes.pop(event.request_id, None)
        if entry is None:
            return
        fut, context = entry
        if fut.done():  # the awaiting task was cancelled: the write went on
            return
        if event.error == 0:
            fut.set_result(event.write_result)
        else:
            fut.set_exception(write_error(event.error, context, event.write_result))

    # -- events ------------------------------------------------------------

    def add_listener(self, fn: Listener) -> None:
        """Calls fn(event) for every event of this client (session and stats
        events and those of its handles), on the dispatching thread."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Listener) -> None:
        self._listeners.remove(fn)

    def dispatch(self, max_events: Optional[int] = None) -> List[Event]:
        """Takes the pending events (never blocks), updates the state of their
        handles, calls the listeners, and returns the events. Log lines go to
        the logger (not returned)."""
        if (self._loop is not None and self._loop_thread is not None
                and threading.get_ident() != self._loop_thread and not self._loop.is_closed()):
            raise RuntimeError("this client is attached to an asyncio loop: its events are "
                               "dispatched there")
        out: List[Event] = []
        while max_events is None or len(out) < max_events:
            event = self._next()
            if event is None:
                break
            if self._deliver(event):
                out.append(event)
        return out

    def _next(self) -> Optional[Event]:
        h = self._h
        if h is None:
            return None
        rc, ev = _c.zkl_client_next_event(h)
        if rc == _EAGAIN:
            return None
        check(rc, "next_event")
        try:
            return self._convert(ev)
        finally:
            _c.zkl_event_free(ev)

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks (GIL released) until an event is pending (True), the timeout
        passes or wakeup() is called (False). Does not take events."""
        return check(_c.zkl_client_wait(self._handle(), _ms(timeout))) == 1

    def wakeup(self) -> None:
        """Makes one wait() (current or next) return False. Thread-safe."""
        check(_c.zkl_client_wakeup(self._handle()))

    def poll(self, timeout: Optional[float] = None) -> List[Event]:
        """wait(timeout), then dispatch(): the events delivered."""
        if self.wait(timeout):
            return self.dispatch()
        return []

    def _convert(self, ev) -> Event:
        source = None
        for getter in (_c.zkl_event_lock, _c.zkl_event_election, _c.zkl_event_observer,
                       _c.zkl_event_multilock):
            rc, ptr = getter(ev)
            if rc == 0 and ptr is not None:
                source = self._handles.get(int(ptr))
                break
        return Event._from_c(ev, source)

    def _deliver(self, event: Event) -> bool:
        """Delivers one event; False for a log line (it went to the logger)."""
        if event.type == EventType.LOG:
            self._logger.log(_PY_LEVEL.get(event.log_level, logging.INFO), "%s: %s",
                             event.component, event.message,
                             extra={"zkl_component": event.component})
            return False
        if event.type == EventType.SESSION:
            self._on_session(event)
        elif event.type == EventType.WRITTEN:
            self._on_written(event)
        src = event.source
        if src is not None:
            src._on_event(event)
            for fn in list(src._listeners):
                fn(event)
        for fn in list(self._listeners):
            fn(event)
        return True

    def _on_session(self, event: Event) -> None:
        state = event.session_state
        if state in (SessionState.CONNECTED, SessionState.RECONNECTED):
            result: Any = None
        elif state == SessionState.AUTH_FAILED:
            result = self._connect_failure(event.error or _c.ZKL_EAUTH)
        elif state == SessionState.CLOSED:
            result = Closed("the client is closed")
        else:
            return
        waiters, self._session_waiters = self._session_waiters, []
        for fut in waiters:
            if not fut.done():
                if isinstance(result, BaseException):
                    fut.set_exception(result)
                else:
                    fut.set_result(None)

    # -- asyncio -----------------------------------------------------------

    def attach(self, loop: Optional[asyncio.AbstractEventLoop] = None) -> asyncio.AbstractEventLoop:
        """Registers the event fd with the running asyncio loop (add_reader), so
        that events are dispatched on it. Idempotent; the *_async methods call
        it. Must be called from the loop's thread."""
        running = asyncio.get_running_loop()
        if loop is not None and loop is not running:
            raise RuntimeError("attach() must be called from the loop's own thread")
        if self._loop is running:
            return running
        if self._loop is not None and not self._loop.is_closed():
            raise RuntimeError("this client is attached to another event loop")
        if self._dispatcher is not None:
            raise RuntimeError("this client has a dispatcher thread; it cannot also be "
                               "dispatched by an event loop")
        running.add_reader(self.fileno(), self._on_readable)
        self._loop = running
        self._loop_thread = threading.get_ident()
        return running

    def detach(self) -> None:
        """Removes the event fd from the loop (events stay queued)."""
        loop, self._loop, self._loop_thread = self._loop, None, None
        if loop is not None and not loop.is_closed() and self._h is not None:
            loop.remove_reader(check(_c.zkl_client_fd(self._h)))

    def _on_readable(self) -> None:
        self.dispatch()

    # -- dispatcher thread (opt-in) ---------------------------------------

    def start_dispatcher(self, name: str = "zkl-dispatcher") -> threading.Thread:
        """Starts a daemon thread that dispatches events as they come (for
        blocking programs that want listeners called without polling). This
        is the binding's only thread, and only if you ask for it."""
        if self._loop is not None and not self._loop.is_closed():
            raise RuntimeError("this client is attached to an event loop")
        if self._dispatcher is not None:
            return self._dispatcher
        h = self._handle()
        self._stop_dispatcher = False

        def run():
            while not self._stop_dispatcher:
                rc = _c.zkl_client_wait(h, -1)
                if rc < 0 or self._stop_dispatcher:
                    break
                self.dispatch()

        t = threading.Thread(target=run, name=name, daemon=True)
        self._dispatcher = t
        t.start()
        return t

    def stop_dispatcher(self, timeout: Optional[float] = 10.0) -> None:
        t = self._dispatcher
        if t is None:
            return
        self._stop_dispatcher = True
        if self._h is not None:
            _c.zkl_client_wakeup(self._h)
        if t is not threading.current_thread():
            t.join(timeout)
        self._dispatcher = None

    # -- lifetime ----------------------------------------------------------

    def _keep(self, obj: "_Handle") -> None:
        self._kept[obj._key] = obj
        obj._kept = True

    def _unkeep(self, obj: "_Handle") -> None:
        self._kept.pop(obj._key, None)
        obj._kept = False

    def close(self) -> None:
        """Ends the session (its nodes go with it): pending acquires fail with
        Closed, every hold is lost (LOST with error Closed, delivered to the
        listeners and to until_lost() -- on the loop when attached), then
        every handle of this client is closed and the client freed.
        Idempotent."""
        with self._close_lock:
            h = self._h
            if h is None:
                return
            self.stop_dispatcher()
            _c.zkl_client_close(h)
            # What closing produced (LOST / ACQUIRE_FAILED with Closed), taken
            # now, delivered where this client's events are delivered.
            events: List[Event] = []
            while True:
                ev = self._next()
                if ev is None:
                    break
                events.append(ev)
            loop, loop_thread = self._loop, self._loop_thread
            self.detach()
            self._h = None
            _c.zkl_client_destroy(h)
            if (loop is not None and not loop.is_closed()
                    and loop_thread != threading.get_ident()):
                loop.call_soon_threadsafe(self._finish_close, events)
            else:
                self._finish_close(events)

    def _finish_close(self, events: List[Event]) -> None:
        try:
            for event in events:
                self._deliver(event)
        finally:
            for obj in list(self._handles.values()):
                obj._client_closed()
            self._kept.clear()
            waiters, self._session_waiters = self._session_waiters, []
            for fut in waiters:
                _fail_future(fut, lambda: Closed("the client is closed"))
            writes, self._writes = self._writes, {}
            for fut, context in writes.values():
                _fail_future(fut, lambda: error_for(_c.ZKL_ECLOSED, context))

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    async def __aenter__(self) -> "Client":
        self.attach()
        return self

    async def __aexit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            try:
                self._h = None
                _c.zkl_client_destroy(h)
            except Exception:
                pass


def _fail_future(fut: asyncio.Future, make_exc: Callable[[], BaseException]) -> None:
    if not fut.done():
        fut.set_exception(make_exc())


def _settle(waiters: List[asyncio.Future], result: Any = None,
            exc: Optional[BaseException] = None) -> None:
    """Answers every waiter not answered yet: with exc when given, else result."""
    for fut in waiters:
        if not fut.done():
            if exc is not None:
                fut.set_exception(exc)
            else:
                fut.set_result(result)


# ---------------------------------------------------------------------------
# Handles
# ---------------------------------------------------------------------------

class _Handle:
    _destroy = staticmethod(lambda h: None)
    _kept = False

    def __init__(self, client: Client, path: str, h, listener: Optional[Listener]):
        self._client = client
        self.path = path
        self._h = h
        self._key = int(h)
        self._listeners: List[Listener] = [listener] if listener is not None else []
        client._register(self)

    def _handle(self):
        h = self._h
        if h is None:
            if self._client._h is None:
                raise Closed("the client is closed")
            raise Closed(f"this {type(self).__name__.lower()} handle is closed")
        return h

    def add_listener(self, fn: Listener) -> None:
        """Calls fn(event) for this handle's events, on the dispatching thread."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Listener) -> None:
        self._listeners.remove(fn)

    def _on_event(self, event: Event) -> None:
        pass

    def _loop_for_loss(self) -> asyncio.AbstractEventLoop:
        """The running loop for until_lost(). A client closed from another
        thread has its LOST events still on their way to the loop, so a
        closed client is not an error here (the handle is not closed yet)."""
        loop = asyncio.get_running_loop()
        if getattr(self, "_lost", None) is None:
            self._handle()
        if self._client._h is not None:
            self._client.attach()
        return loop

    def _client_closed(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the handle (releasing or leaving first). Idempotent."""
        h, self._h = self._h, None
        self._client._unkeep(self)
        if h is not None:
            type(self)._destroy(h)
            self._closed()

    def _closed(self) -> None:
        pass

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            try:
                if self._kept:
                    warnings.warn(f"{type(self).__name__} {self.path!r} was garbage-collected "
                                  "while held or acquiring (its client is gone too); it is "
                                  "released now. Close the client or release explicitly.",
                                  ResourceWarning, source=self)
                self._h = None
                type(self)._destroy(h)
            except Exception:
                pass


class _Leased(_Handle):
    """What a hold (Lock, MultiLock) and a leadership (Election) share: the
    default timeout, the lease (valid_for / valid_until over one C call),
    cancel's answer, the async acquires (campaigns) answered by the events
    of their request ids, and until_lost()."""

    _valid_for_c = staticmethod(lambda h: (0, 0))
    _cancel_c = staticmethod(lambda h: 0)

    def __init__(self, client: Client, path: str, h, *, timeout: Optional[float],
                 listener: Optional[Listener]):
        self.timeout = timeout
        self._lost: Optional[Event] = None  # LOST of the current/last hold or term
        self._lost_waiters: List[asyncio.Future] = []
        # Pending async acquires by the request id the C call returned, with
        # their owner: the final event carrying that id (ACQUIRED / ELECTED or
        # ACQUIRE_FAILED) answers each, as WRITTEN answers a write.
        self._calls: Dict[int, Tuple[asyncio.Future, int]] = {}
        # The id of the last async acquire started: the only one the core may
        # still have pending (it refuses another while one is).
        self._latest = 0
        super().__init__(client, path, h, listener)

    def _timeout(self, timeout: Any) -> int:
        return _ms(self.timeout if timeout is _DEFAULT else timeout)

    def valid_for(self) -> float:
        """Seconds the hold (or leadership) stays provably valid from now even
        if the server is never heard from again (0.0 when not held, suspended
        or past the bound). Hand it to the protected work as its deadline."""
        h = self._h
        if h is None:
            return 0.0
        rc, ms = type(self)._valid_for_c(h)
        return ms / 1000.0 if rc == 0 else 0.0

    def valid_until(self) -> Optional[float]:
        """valid_for() as a time.monotonic() instant, None when not held."""
        h = self._h
        if h is None:
            return None
        now = time.monotonic()
        rc, ms = type(self)._valid_for_c(h)
        return now + ms / 1000.0 if rc == 0 and ms > 0 else None

    def _cancelled(self, rc: int) -> bool:
        """cancel()'s answer to the C call's rc: False when nothing was pending."""
        if rc == _ENOTHELD:
            return False
        check(rc, f"cancel {self.path}")
        return True

    async def until_lost(self) -> Event:
        """Waits (on the loop) until this hold (or leadership) is lost and
        returns the LOST event (event.exception: SessionLost, LockLost, Closed,
        MaxHoldExceeded, Revoked, ...); at once if the current one was lost
        already."""
        loop = self._loop_for_loss()
        if self._lost is not None:
            return self._lost
        fut = loop.create_future()
        self._lost_waiters.append(fut)
        try:
            return await fut
        finally:
            if fut in self._lost_waiters:
                self._lost_waiters.remove(fut)

    def _was_lost(self, event: Event) -> None:
        self._lost = event
        waiters, self._lost_waiters = self._lost_waiters, []
        _settle(waiters, event)

    # -- async acquires, matched to their events by request id -------------

    def _started(self) -> None:
        """An async acquire was started (kept alive from now on)."""

    def _acquired(self) -> None:
        """Held (or leader) now."""
        self._lost = None

    def _undo(self, owner: int) -> None:
        """Gives back a grant whose caller is gone."""

    async def _await_call(self, loop: asyncio.AbstractEventLoop, rc: int, owner: int,
                          context: str) -> int:
        """Awaits the answer to the async acquire that returned `rc` (its
        request id, or an error code): the fencing token. Cancelling the
        awaiting task cancels the acquire, and a grant that came meanwhile is
        given back (now, or when its event comes)."""
        if rc < 0:
            raise error_for(rc, context)
        # The answering event is dispatched on this loop, so it cannot come
        # before the future is registered.
        fut = loop.create_future()
        self._calls[rc] = (fut, owner)
        self._latest = rc
        self._started()
        try:
            return await fut
        except BaseException:
            if not fut.done():
                fut.cancel()  # its event, when it comes, finds nobody waiting
            elif not fut.cancelled() and fut.exception() is None:
                self._undo(owner)  # granted, but the caller is gone meanwhile
            if rc in self._calls and rc == self._latest and self._h is not None:
                # Unanswered: pending, or answered by an event still queued
                # (then the cancel finds nothing pending and its event is
                # the answer).
                type(self)._cancel_c(self._h)
            raise

    def _answer(self, event: Event, context: str) -> None:
        """Settles the async acquire that `event` (ACQUIRED / ELECTED /
        ACQUIRE_FAILED) answers: the one of its request id."""
        entry = self._calls.pop(event.request_id, None)
        if entry is None:
            return  # no awaited call (start(), a rejoin)
        fut, owner = entry
        if event.type == EventType.ACQUIRE_FAILED:
            if not fut.done():
                fut.set_exception(error_for(event.error, context))
        elif fut.done():
            self._undo(owner)  # granted, but the caller is gone
        else:
            self._acquired()
            fut.set_result(event.fencing_token)

    def _closed(self) -> None:
        calls, self._calls = self._calls, {}
        waiters, self._lost_waiters = self._lost_waiters, []
        for fut in [fut for fut, _ in calls.values()] + waiters:
            _fail_future(fut, lambda: Closed(f"{self.path}: handle closed"))


class _Acquirable(_Leased):
    """What Lock and MultiLock share: the lock verbs over one set of C calls."""

    _acquire_c = staticmethod(lambda h, o, ms: 0)
    _try_c = staticmethod(lambda h, o: 0)
    _acquire_async_c = staticmethod(lambda h, o, ms: 0)
    _release_c = staticmethod(lambda h, o: 0)
    _release_async_c = staticmethod(lambda h, o: 0)
    _is_held_c = staticmethod(lambda h: 0)
    _write_c = staticmethod(lambda h, o, ops: 0)
    _write_async_c = staticmethod(lambda h, o, ops: 0)

    def __init__(self, client: Client, path: str, h, *, timeout: Optional[float],
                 owner: Optional[int], listener: Optional[Listener]):
        self.owner = DEFAULT_OWNER if owner is None else _owner_token(owner)
        self._holding = False
        super().__init__(client, path, h, timeout=timeout, listener=listener)

    def _owner(self, owner: Optional[int]) -> int:
        return self.owner if owner is None else _owner_token(owner)

    def _still_holds(self) -> bool:
        return self._holding

    def _sync_keep(self) -> None:
        """Kept alive by the client while holding or acquiring."""
        if self._h is not None and (self._calls or self._still_holds()):
            self._client._keep(self)
        else:
            self._client._unkeep(self)

    _started = _sync_keep

    def _acquired(self) -> None:
        self._lost = None
        self._holding = True
        self._sync_keep()

    # -- blocking ----------------------------------------------------------

    def acquire(self, timeout: Optional[float] = _DEFAULT, *, owner: Optional[int] = None) -> int:
        """Blocks (GIL released) until held; returns the fencing token.
        timeout in seconds (None = forever, 0 = try once: TimedOut at once if
        taken); raises TimedOut, Deadlock (non-reentrant, already held by this
        owner), Busy (held or being acquired by another owner of this
        handle), Cancelled, Closed. No node is left behind on failure."""
        check(type(self)._acquire_c(self._handle(), self._owner(owner), self._timeout(timeout)),
              f"acquire {self.path}")
        self._acquired()
        return self._token_or_zero()

    def try_acquire(self, *, owner: Optional[int] = None) -> bool:
        """One round trip: True if acquired, False if someone is in the way."""
        rc = type(self)._try_c(self._handle(), self._owner(owner))
        if rc == _EAGAIN:
            return False
        check(rc, f"try_acquire {self.path}")
        self._acquired()
        return True

    def release(self, *, owner: Optional[int] = None, wait: bool = True) -> None:
        """Releases one hold. With wait=True (default) the last hold's node is
        deleted before this returns (one round trip); wait=False returns at
        once (a later acquire on this handle goes out after the delete; a
        RELEASED event reports the outcome). Raises NotHeld, NotOwner, or
        LockLost once if the lock was lost while held."""
        fn = type(self)._release_c if wait else type(self)._release_async_c
        rc = fn(self._handle(), self._owner(owner))  # wait=False: a request id (> 0)
        if rc >= 0 or rc in (_c.ZKL_ENOTHELD, _c.ZKL_ELOST):
            self._holding = self._hold_count_now() > 0
            self._sync_keep()
        check(rc, f"release {self.path}")

    def _hold_count_now(self) -> int:
        return 1 if type(self)._is_held_c(self._h) == 1 else 0

    def write(self, ops: Ops, *, owner: Optional[int] = None) -> WriteResult:
        """A guarded write: runs `ops` (operations strictly below the path,
        e.g. PATH/state) in one ZooKeeper multi that applies them, all or
        none, only while this hold is real at the quorum. Blocks (GIL
        released) for one round trip; returns the WriteResult. Nothing is
        applied on any error: NotHeld / NotOwner (not held by this owner),
        LockLost (the hold is gone at the quorum), SessionLost, BadPath (an
        operation outside the tree), NodeExists / BadVersion / NotEmpty /
        NotFound (an operation failed: err.failed is its index), TooBig; and
        InDoubt when the connection broke with the write in flight (it may
        have been applied: read back before retrying). The error carries
        err.result (a WriteResult)."""
        h, o = self._handle(), self._owner(owner)
        return self._client._write(ops, lambda c_ops: type(self)._write_c(h, o, c_ops),
                                   f"write {self.path}")

    async def write_async(self, ops: Ops, *, owner: Optional[int] = None) -> WriteResult:
        """write() on the loop: sends at once and resolves with the results
        when the WRITTEN event carrying this call's request id arrives (the
        same errors). Cancelling the awaiting task does not recall the write."""
        h, o = self._handle(), self._owner(owner)
        return await self._client._write_async(
            ops, lambda c_ops: type(self)._write_async_c(h, o, c_ops), f"write {self.path}")

    def cancel(self) -> bool:
        """Cancels a pending acquire (from another thread, or an async one);
        its node is deleted. False if no acquire was pending."""
        return self._cancelled(type(self)._cancel_c(self._handle()))

    @property
    def is_held(self) -> bool:
        """True only while held and provably valid at this instant (never
        while suspended, after loss, or once the handle or client is closed)."""
        h = self._h
        return h is not None and type(self)._is_held_c(h) == 1

    def _token_or_zero(self) -> int:
        return 0

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, wait=True)

    def _exit(self, exc_type, wait: bool) -> None:
        try:
            self.release(wait=wait)
        except Exception:
            if exc_type is None:
                raise

    # -- asyncio -----------------------------------------------------------

    async def acquire_async(self, timeout: Optional[float] = _DEFAULT, *,
                            owner: Optional[int] = None) -> int:
        """Acquires without blocking the loop; returns the fencing token.
        Cancelling the awaiting task cancels the acquire (no node is left
        behind; if the lock was granted meanwhile it is released)."""
        loop = self._client.attach()
        o = self._owner(owner)
        rc = type(self)._acquire_async_c(self._handle(), o, self._timeout(timeout))
        return await self._await_call(loop, rc, o, f"acquire {self.path}")

    def _undo(self, owner: int) -> None:
        if self._h is not None:
            type(self)._release_async_c(self._h, owner)  # errors: nothing left to undo
            self._holding = self._hold_count_now() > 0
            self._sync_keep()

    def _on_event(self, event: Event) -> None:
        t = event.type
        if t in (EventType.ACQUIRED, EventType.ACQUIRE_FAILED):
            self._answer(event, f"acquire {self.path}")
            self._sync_keep()
        elif t == EventType.LOST:
            self._holding = False
            self._sync_keep()
            self._was_lost(event)

    async def __aenter__(self):
        await self.acquire_async()
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, wait=False)

    def _closed(self) -> None:
        self._holding = False
        super()._closed()


class Lock(_Acquirable):
    """A lock handle (any LockKind). One handle is held by at most one owner at
    a time; use one handle per concurrent contender (they are cheap).

    `with lock:` / `async with lock:` acquire (with the handle's default
    timeout) and release. Leaving the block raises LockLost if the lock was
    lost meanwhile (unless the block raised). Owner: DEFAULT_OWNER unless
    given, so any thread or task may release; pass owner= to acquire/release
    to use others, e.g. for a reentrant lock shared by several tasks.

    Options: max_leases / leases (SEMAPHORE), data (node data, bytes),
    max_hold (seconds: zkl releases after this long, LOST with
    MaxHoldExceeded), on_revoke (OnRevoke: NOTIFY gives REVOKE_REQUESTED
    events, RELEASE also releases: LOST with Revoked).
    """

    _destroy = staticmethod(_c.zkl_lock_destroy)
    _acquire_c = staticmethod(_c.zkl_lock_acquire)
    _try_c = staticmethod(_c.zkl_lock_try_acquire)
    _acquire_async_c = staticmethod(_c.zkl_lock_acquire_async)
    _cancel_c = staticmethod(_c.zkl_lock_cancel)
    _release_c = staticmethod(_c.zkl_lock_release)
    _release_async_c = staticmethod(_c.zkl_lock_release_async)
    _is_held_c = staticmethod(_c.zkl_lock_is_held)
    _valid_for_c = staticmethod(_c.zkl_lock_valid_for)
    _write_c = staticmethod(_c.zkl_lock_write)
    _write_async_c = staticmethod(_c.zkl_lock_write_async)

    def __init__(self, client: Client, path: str, kind: Union[LockKind, int] = LockKind.FAIR, *,
                 timeout: Optional[float] = None, max_leases: int = 1, leases: int = 1,
                 data: Optional[bytes] = None, owner: Optional[int] = None,
                 max_hold: Optional[float] = None,
                 on_revoke: Union[OnRevoke, int] = OnRevoke.IGNORE,
                 listener: Optional[Listener] = None):
        _check_path(path)
        _ms(timeout)
        if owner is not None:
            _owner_token(owner)
        kind = _enum_or_int(LockKind, int(kind))
        opts = _c.zkl_lock_options()
        check(_c.zkl_lock_options_init(opts, _c.ZKL_LOCK_OPTIONS_VERSION))
        opts.kind = int(kind)
        opts.max_leases = _int32("max_leases", max_leases)
        opts.leases = _int32("leases", leases)
        opts.max_hold_ms = _ms_opt("max_hold", max_hold, 2**62)
        opts.on_revoke = _int32("on_revoke", int(on_revoke))
        if data is not None:
            opts.set_data(bytes(data))
        rc, h = _c.zkl_lock_new(client._handle(), path, opts)
        del opts
        check(rc, f"lock {path}")
        self.kind = kind
        self.max_leases = max_leases
        self.leases = leases
        super().__init__(client, path, h, timeout=timeout, owner=owner, listener=listener)

    def __repr__(self) -> str:
        state = "closed" if self._h is None else ("held" if self.is_held else "not held")
        return f"<zkl.Lock {getattr(self.kind, 'name', self.kind)} {self.path!r} {state}>"

    def _still_holds(self) -> bool:
        return self._holding and self._h is not None and _c.zkl_lock_hold_count(self._h) > 0

    def _hold_count_now(self) -> int:
        h = self._h
        return max(_c.zkl_lock_hold_count(h), 0) if h is not None else 0

    @property
    def fencing_token(self) -> int:
        """The current hold's fencing token (strictly increasing across the
        successive holders of the path). Raises NotHeld."""
        rc, token = _c.zkl_lock_fencing_token(self._handle())
        check(rc, f"fencing_token {self.path}")
        return token

    @property
    def hold_count(self) -> int:
        """Holds of the current owner (0 when not held or closed)."""
        return self._hold_count_now()

    def stats(self) -> Dict[str, Any]:
        """This handle's statistics (its entry of the client's document)."""
        return _json(_c.zkl_lock_stats(self._handle()), f"stats {self.path}")

    def _token_or_zero(self) -> int:
        rc, token = _c.zkl_lock_fencing_token(self._handle())
        return token if rc == 0 else 0

    def _on_event(self, event: Event) -> None:
        super()._on_event(event)
        if event.type == EventType.RELEASED:
            self._holding = self._hold_count_now() > 0
            self._sync_keep()


class MultiLock(_Acquirable):
    """Several lock handles of one client taken all or none, with one deadline,
    always in one canonical order (by path), so overlapping multi-locks never
    deadlock. The multi-lock takes over its members: close() closes them too.
    LOST of one member is LOST of the whole (the others are released)."""

    _destroy = staticmethod(_c.zkl_multilock_destroy)
    _acquire_c = staticmethod(_c.zkl_multilock_acquire)
    _try_c = staticmethod(_c.zkl_multilock_try_acquire)
    _acquire_async_c = staticmethod(_c.zkl_multilock_acquire_async)
    _cancel_c = staticmethod(_c.zkl_multilock_cancel)
    _release_c = staticmethod(_c.zkl_multilock_release)
    _release_async_c = staticmethod(_c.zkl_multilock_release_async)
    _is_held_c = staticmethod(_c.zkl_multilock_is_held)
    _valid_for_c = staticmethod(_c.zkl_multilock_valid_for)
    _write_c = staticmethod(_c.zkl_multilock_write)
    _write_async_c = staticmethod(_c.zkl_multilock_write_async)

    def __init__(self, client: Client, locks: Sequence[Lock], *, timeout: Optional[float] = None,
                 owner: Optional[int] = None, listener: Optional[Listener] = None):
        _ms(timeout)
        locks = list(locks)
        for lk in locks:
            if not isinstance(lk, Lock):
                raise TypeError("a multi-lock's members must be zkl.Lock handles")
            if lk._client is not client:
                raise InvalidArgument("a multi-lock's members must belong to its client")
        opts = _c.zkl_multilock_options()
        check(_c.zkl_multilock_options_init(opts, _c.ZKL_MULTILOCK_OPTIONS_VERSION))
        rc, h = _c.zkl_multilock_new(client._handle(), [lk._handle() for lk in locks], opts)
        del opts
        check(rc, "multilock")
        self.members = sorted(locks, key=lambda lk: lk.path)  # the canonical order
        for lk in locks:
            lk._owned_by = self
        super().__init__(client, ",".join(lk.path for lk in self.members), h,
                         timeout=timeout, owner=owner, listener=listener)

    def __repr__(self) -> str:
        state = "closed" if self._h is None else ("held" if self.is_held else "not held")
        return f"<zkl.MultiLock {self.path!r} {state}>"

    def fencing_token(self, path: str) -> int:
        """The fencing token of the member on `path`. Raises NotHeld / NotFound."""
        _check_path(path)
        rc, token = _c.zkl_multilock_fencing_token(self._handle(), path)
        check(rc, f"fencing_token {path}")
        return token

    @property
    def fencing_tokens(self) -> Dict[str, int]:
        """{path: fencing token} of every member. Raises NotHeld."""
        return {lk.path: self.fencing_token(lk.path) for lk in self.members}

    def _token_or_zero(self) -> int:
        return 0

    def close(self) -> None:
        """Releases or cancels, then frees the multi-lock and its members."""
        had = self._h is not None
        super().close()
        if had:
            for lk in self.members:
                lk._h = None  # destroyed with the multi-lock
                lk._closed()


class ReadWriteLock:
    """The two sides of the read/write lock on `path`: `.read` (shared) and
    `.write` (exclusive), each a Lock handle."""

    def __init__(self, client: Client, path: str, timeout: Optional[float] = None, **kw):
        self.path = path
        self.read = Lock(client, path, LockKind.READ, timeout=timeout, **kw)
        try:
            self.write = Lock(client, path, LockKind.WRITE, timeout=timeout, **kw)
        except BaseException:
            self.read.close()
            raise

    def close(self) -> None:
        self.read.close()
        self.write.close()

    def __enter__(self) -> "ReadWriteLock":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Election(_Leased):
    """A participant in a leader election.

    campaign(timeout) joins and blocks until elected: on timeout or cancel it
    has left the election again (as a lock acquire leaves no node); when
    already leader it returns at once. start() joins without waiting:
    NOT_ELECTED / ELECTED events follow. Once elected, a participant stays in
    the election until it resigns: after LOST it rejoins by itself when the
    session is back. `with election:` campaigns and resigns.
    """

    _destroy = staticmethod(_c.zkl_election_destroy)
    _valid_for_c = staticmethod(_c.zkl_election_valid_for)
    _cancel_c = staticmethod(_c.zkl_election_cancel)

    def __init__(self, client: Client, path: str, id: str, *,
                 kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 timeout: Optional[float] = None,
                 on_revoke: Union[OnRevoke, int] = OnRevoke.IGNORE,
                 listener: Optional[Listener] = None):
        _check_path(path)
        _check_str("id", id)
        _ms(timeout)
        kind = _enum_or_int(ElectionKind, int(kind))
        opts = _c.zkl_election_options()
        check(_c.zkl_election_options_init(opts, _c.ZKL_ELECTION_OPTIONS_VERSION))
        opts.kind = _int32("kind", int(kind))
        opts.id = id
        opts.on_revoke = _int32("on_revoke", int(on_revoke))
        rc, h = _c.zkl_election_new(client._handle(), path, opts)
        del opts
        check(rc, f"election {path}")
        self.id = id
        self.kind = kind
        self._joined = False
        super().__init__(client, path, h, timeout=timeout, listener=listener)

    def __repr__(self) -> str:
        state = "closed" if self._h is None else ("leader" if self.is_leader else "not leader")
        return f"<zkl.Election {self.path!r} id={self.id!r} {state}>"

    def _set_joined(self, joined: bool) -> None:
        self._joined = joined and self._h is not None
        if self._joined:
            self._client._keep(self)
        else:
            self._client._unkeep(self)

    def _started(self) -> None:
        self._set_joined(True)

    def start(self, timeout: Optional[float] = None) -> None:
        """Joins the election and returns at once: NOT_ELECTED when queued
        behind a leader, ELECTED when leader, ACQUIRE_FAILED (left again) if
        `timeout` passes first (None: stays in line until elected)."""
        self._latest = check(_c.zkl_election_acquire_async(self._handle(), _ms(timeout)),
                             f"election start {self.path}")
        self._set_joined(True)

    def campaign(self, timeout: Optional[float] = _DEFAULT) -> int:
        """Joins and blocks until elected; returns the term's fencing token. At
        once when already leader. TimedOut / Cancelled / Closed: this call has
        left the election again. Busy while a start()/campaign_async() is
        pending."""
        h = self._handle()
        rc = _c.zkl_election_acquire(h, self._timeout(timeout))
        if rc != _c.ZKL_EBUSY:
            self._latest = 0  # an earlier async campaign's failure is no news now
            self._set_joined(rc == 0)
        check(rc, f"campaign {self.path}")
        rc, token = _c.zkl_election_fencing_token(h)
        check(rc, f"campaign {self.path}")
        return token

    def try_campaign(self) -> bool:
        """Leader now (True), or False (and not in the election)."""
        rc = _c.zkl_election_try_acquire(self._handle())
        if rc != _c.ZKL_EBUSY:
            self._latest = 0
        if rc == _EAGAIN:
            self._set_joined(False)
            return False
        check(rc, f"try_campaign {self.path}")
        self._set_joined(True)
        return True

    async def campaign_async(self, timeout: Optional[float] = _DEFAULT) -> int:
        """campaign() on the loop: joins and waits until elected; returns the
        fencing token (at once when already leader). On timeout (TimedOut) the
        core has left the election; when the awaiting task is cancelled it
        leaves the line (and resigns a leadership granted meanwhile that the
        caller never saw)."""
        loop = self._client.attach()
        h = self._handle()
        ms = self._timeout(timeout)
        if _c.zkl_election_is_leader(h) == 1:
            rc, token = _c.zkl_election_fencing_token(h)
            if rc == 0:
                return token
        return await self._await_call(loop, _c.zkl_election_acquire_async(h, ms), 0,
                                      f"campaign {self.path}")

    def _undo(self, owner: int) -> None:
        if self._h is not None:
            _c.zkl_election_release(self._h)  # resigns quietly
            self._set_joined(False)

    def cancel(self) -> bool:
        """Leaves the line while not yet elected. False if not waiting."""
        cancelled = self._cancelled(_c.zkl_election_cancel(self._handle()))
        if cancelled:
            self._set_joined(False)
        return cancelled

    def resign(self) -> None:
        """Leaves the election, as leader or from the line (blocks for the
        node's deletion). Raises NotHeld if not taking part."""
        rc = _c.zkl_election_release(self._handle())
        if rc in (0, _ENOTHELD):
            self._set_joined(False)
        check(rc, f"resign {self.path}")

    release = resign

    @property
    def is_leader(self) -> bool:
        """True only while leader and provably valid at this instant (False
        once the handle or client is closed)."""
        h = self._h
        return h is not None and _c.zkl_election_is_leader(h) == 1

    @property
    def fencing_token(self) -> int:
        """The current term's fencing token. Raises NotHeld when not leader."""
        rc, token = _c.zkl_election_fencing_token(self._handle())
        check(rc, f"fencing_token {self.path}")
        return token

    def stats(self) -> Dict[str, Any]:
        """This handle's statistics (its entry of the client's document)."""
        return _json(_c.zkl_election_stats(self._handle()), f"stats {self.path}")

    def write(self, ops: Ops) -> WriteResult:
        """A guarded write by the leader: `ops` (strictly below the election's
        path) are applied, all or none, only while this participant leads at
        the quorum. Blocks for one round trip; the errors of Lock.write
        (NotHeld when not leader)."""
        h = self._handle()
        return self._client._write(ops, lambda c_ops: _c.zkl_election_write(h, c_ops),
                                   f"write {self.path}")

    async def write_async(self, ops: Ops) -> WriteResult:
        """write() on the loop, answered by the WRITTEN event of its request id."""
        h = self._handle()
        return await self._client._write_async(
            ops, lambda c_ops: _c.zkl_election_write_async(h, c_ops), f"write {self.path}")

    def proclaim(self, value: Data) -> None:
        """The leader replaces the value it publishes (its id: the node's
        data; str as UTF-8, or bytes) without leaving the election: observers
        report the new value with the same term, and a later rejoin publishes
        it too. One round trip; NotHeld when not leader, else the errors of
        a guarded write (LockLost, InDoubt...)."""
        check(_c.zkl_election_proclaim(self._handle(), _data(value)), f"proclaim {self.path}")

    def _on_event(self, event: Event) -> None:
        t = event.type
        if t == EventType.ELECTED:
            self._lost = None  # also a rejoin's (request id 0)
            self._answer(event, f"campaign {self.path}")
        elif t == EventType.ACQUIRE_FAILED:
            if event.request_id in (0, self._latest):  # not an older campaign's
                self._set_joined(False)
            self._answer(event, f"campaign {self.path}")
        elif t == EventType.LOST:
            self._was_lost(event)

    def _closed(self) -> None:
        self._joined = False
        super()._closed()

    def __enter__(self) -> "Election":
        self.campaign()
        return self

    def __exit__(self, *exc) -> None:
        if self._h is not None:
            self.resign()

    async def __aenter__(self) -> "Election":
        await self.campaign_async()
        return self

    async def __aexit__(self, *exc) -> None:
        if self._h is not None:
            self.resign()


class Observer(_Handle):
    """Reports the leader of an election without taking part: `leader`,
    `term`, and LEADER_CHANGED / NO_LEADER events."""

    _destroy = staticmethod(_c.zkl_observer_destroy)

    def __init__(self, client: Client, path: str, kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 *, listener: Optional[Listener] = None):
        _check_path(path)
        kind = _enum_or_int(ElectionKind, int(kind))
        opts = _c.zkl_observer_options()
        check(_c.zkl_observer_options_init(opts, _c.ZKL_OBSERVER_OPTIONS_VERSION))
        opts.kind = _int32("kind", int(kind))
        rc, h = _c.zkl_observer_new(client._handle(), path, opts)
        del opts
        check(rc, f"observer {path}")
        self.kind = kind
        self._change_waiters: List[asyncio.Future] = []
        super().__init__(client, path, h, listener)

    def __repr__(self) -> str:
        return f"<zkl.Observer {self.path!r}>"

    @property
    def leader_bytes(self) -> Optional[bytes]:
        """The current leader's id as bytes, None without a leader. Raises
        zkl.ConnectionLost while the view cannot be proven current (see
        docs/SAFETY.md)."""
        h = self._handle()
        size = 256
        while True:
            rc, buf = _c.zkl_observer_leader(h, size)
            if rc == _ENOTFOUND:
                return None
            check(rc, f"observer {self.path}")
            if rc < size:
                return buf
            size = rc + 1

    @property
    def leader(self) -> Optional[str]:
        """The current leader's id, None without a leader."""
        b = self.leader_bytes
        return None if b is None else b.decode("utf-8", "surrogateescape")

    @property
    def term(self) -> Optional[int]:
        """The current leader's term (its fencing token), None without a leader."""
        rc, term = _c.zkl_observer_term(self._handle())
        if rc == _ENOTFOUND:
            return None
        check(rc, f"observer {self.path}")
        return term

    async def wait_change(self, timeout: Optional[float] = None) -> Optional[str]:
        """Waits on the loop for the next LEADER_CHANGED / NO_LEADER event;
        returns the new leader (None: no leader). Raises TimedOut."""
        loop = self._client.attach()
        self._handle()
        ms = _ms(timeout)
        fut = loop.create_future()
        self._change_waiters.append(fut)
        timer = None
        if ms >= 0:
            timer = loop.call_later(ms / 1000.0, _fail_future, fut,
                                    lambda: error_for(_c.ZKL_ETIMEDOUT, f"observer {self.path}"))
        try:
            return await fut
        finally:
            if timer is not None:
                timer.cancel()
            if fut in self._change_waiters:
                self._change_waiters.remove(fut)

    def _on_event(self, event: Event) -> None:
        if event.type in (EventType.LEADER_CHANGED, EventType.NO_LEADER):
            waiters, self._change_waiters = self._change_waiters, []
            _settle(waiters, event.leader)

    def _closed(self) -> None:
        waiters, self._change_waiters = self._change_waiters, []
        for fut in waiters:
            _fail_future(fut, lambda: Closed(f"observer {self.path}: handle closed"))

    def __enter__(self) -> "Observer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
