"""The idiomatic layer over zkl.capi: Client, Lock, ReadWriteLock, Election,
Observer.

Threading rules (see README): no thread is created unless you call
Client.start_dispatcher(). Events are pulled from the client's queue by
Client.dispatch() -- on the asyncio loop when the client is attached to one
(Client.attach(), done implicitly by the *_async methods), else on whatever
thread calls dispatch()/poll(). Listeners run there. Blocking calls release
the GIL.
"""
from __future__ import annotations

import asyncio
import collections
import math
import secrets
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Deque, Dict, List, Optional, Union

from . import capi as _c
from ._errors import (
    BadPath, Closed, InvalidArgument, LockLost, NotHeld, NotFound, TimedOut, ZklError, check,
    error_for,
)
from ._events import (
    Acl, Counter, ElectionKind, Event, EventType, LockKind, SessionState, _enum_or_int,
)

__all__ = ["Client", "Lock", "ReadWriteLock", "Election", "Observer", "Participant",
           "library_version"]

Listener = Callable[[Event], Any]


class _Default:
    def __repr__(self) -> str:
        return "<default>"


_DEFAULT: Any = _Default()

_EAGAIN = _c.ZKL_EAGAIN
_ENOTHELD = _c.ZKL_ENOTHELD
_ENOTFOUND = _c.ZKL_ENOTFOUND


def library_version() -> str:
    """The version of the libzkl the module is linked against, e.g. "0.1.0"."""
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
    """Seconds (None = forever) -> the C API's milliseconds (-1 = forever)."""
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or None, not {timeout!r}")
    if math.isnan(timeout) or timeout < 0:
        raise ValueError(f"timeout must be >= 0 or None, not {timeout!r}")
    if math.isinf(timeout):
        return -1
    return min(int(math.ceil(timeout * 1000)), 2**62)


def _owner_token(owner: Any) -> int:
    if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < 2**64:
        raise ValueError(f"owner must be an int in [0, 2**64), not {owner!r}")
    return owner


def _new_owner() -> int:
    return secrets.randbits(63) | 1


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


class Client:
    """A ZooKeeper session with zkl's recipes.

    Creating a client does not block: it connects in the background. Use
    wait_connected() (or Client.connect(), or `await wait_connected_async()`).
    The client is a context manager (sync and async); close() ends the session
    and so every lock it holds.

    servers          "host:port,host:port"
    chroot           optional chroot path, e.g. "/apps/x"
    session_timeout  requested session timeout in seconds
    lost_after       client-side deadline (seconds) after which a disconnected
                     session is declared lost (default: a quarter of the
                     negotiated timeout; larger values are clamped to that)
    digest_auth      optional "user:password" for digest authentication
    acl              Acl.OPEN or Acl.CREATOR (needs digest_auth)
    """

    def __init__(self, servers: str, *, chroot: Optional[str] = None,
                 session_timeout: float = 10.0, lost_after: Optional[float] = None,
                 digest_auth: Optional[str] = None, acl: Union[Acl, int] = Acl.OPEN):
        _check_str("servers", servers)
        if chroot is not None:
            _check_path(chroot)
        _check_str("digest_auth", digest_auth, optional=True)
        opts = _c.zkl_client_options()
        check(_c.zkl_client_options_init(opts, _c.ZKL_CLIENT_OPTIONS_VERSION))
        opts.servers = servers
        opts.chroot = chroot
        opts.session_timeout_ms = _ms(session_timeout) if session_timeout is not None else 10000
        opts.lost_after_ms = 0 if lost_after is None else _ms(lost_after)
        opts.digest_auth = digest_auth
        opts.acl = int(acl)
        rc, h = _c.zkl_client_new(opts)
        del opts
        check(rc, "zkl_client_new")
        self._h = h
        self._handles: "weakref.WeakValueDictionary[int, _Handle]" = weakref.WeakValueDictionary()
        self._listeners: List[Listener] = []
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._loop_thread: Optional[int] = None
        self._dispatcher: Optional[threading.Thread] = None
        self._stop_dispatcher = False
        self._session_waiters: List[asyncio.Future] = []
        self._close_lock = threading.Lock()

    @classmethod
    def connect(cls, servers: str, timeout: Optional[float] = 30.0, **kwargs) -> "Client":
        """Creates a client and waits (blocking) until its session is up."""
        client = cls(servers, **kwargs)
        try:
            client.wait_connected(timeout)
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
        return f"<zkl.Client state={self.state.name if isinstance(self.state, SessionState) else self.state} session=0x{self.session_id:x}>"

    # -- session -----------------------------------------------------------

    def wait_connected(self, timeout: Optional[float] = 30.0) -> None:
        """Blocks until the session is connected; TimedOut / AuthFailed."""
        check(_c.zkl_client_wait_connected(self._handle(), _ms(timeout)), "wait_connected")

    async def wait_connected_async(self, timeout: Optional[float] = 30.0) -> None:
        """Waits on the running loop until the session is connected."""
        loop = self.attach()
        ms = _ms(timeout)
        if self.connected:
            return
        if self.state == SessionState.AUTH_FAILED:
            raise error_for(_c.ZKL_EAUTH, "wait_connected")
        fut = loop.create_future()
        self._session_waiters.append(fut)
        timer = None
        if ms >= 0:
            timer = loop.call_later(ms / 1000.0, _fail_future, fut,
                                    lambda: error_for(_c.ZKL_ETIMEDOUT, "wait_connected"))
        try:
            if self.connected:  # connected between the check and now
                return
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            if fut in self._session_waiters:
                self._session_waiters.remove(fut)

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

    def counter(self, which: Union[Counter, int]) -> int:
        rc, value = _c.zkl_client_counter(self._handle(), int(which))
        check(rc)
        return value

    def fileno(self) -> int:
        """The event fd: readable while events are pending (level-triggered).
        Owned by the client: do not close it."""
        return check(_c.zkl_client_fd(self._handle()))

    # -- recipes -----------------------------------------------------------

    def lock(self, path: str, timeout: Optional[float] = None, *,
             kind: Union[LockKind, int] = LockKind.FAIR, max_leases: int = 1,
             data: Optional[bytes] = None, owner: Optional[int] = None,
             listener: Optional[Listener] = None) -> "Lock":
        """A lock handle on `path` (fair by default). `timeout` (seconds, None =
        forever) is the default of acquire() and of `with`."""
        return Lock(self, path, kind, timeout=timeout, max_leases=max_leases, data=data,
                    owner=owner, listener=listener)

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
        """One of `max_leases` leases on `path` (all participants must agree)."""
        return Lock(self, path, LockKind.SEMAPHORE, timeout=timeout, max_leases=max_leases, **kw)

    def election(self, path: str, id: str, *, kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 timeout: Optional[float] = None,
                 listener: Optional[Listener] = None) -> "Election":
        """A participant `id` in the leader election on `path`."""
        return Election(self, path, id, kind=kind, timeout=timeout, listener=listener)

    def observer(self, path: str, kind: Union[ElectionKind, int] = ElectionKind.FAIR, *,
                 listener: Optional[Listener] = None) -> "Observer":
        """Watches the leader of the election on `path` without taking part."""
        return Observer(self, path, kind, listener=listener)

    def inspect(self, path: str, kind: Union[LockKind, ElectionKind, int] = LockKind.FAIR,
                timeout: Optional[float] = 10.0) -> List[Participant]:
        """Who holds and who waits on `path`, in queue order (a lock kind, or an
        ElectionKind for elections)."""
        _check_path(path)
        k = int(kind)
        if isinstance(kind, ElectionKind):
            k += _c.ZKL_INSPECT_ELECTION_BASE
        rc, parts = _c.zkl_inspect(self._handle(), path, k, _ms(timeout))
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
                out.append(Participant(name.decode("utf-8", "surrogateescape"), bool(holder),
                                       token, sid, ctime, data))
            return out
        finally:
            _c.zkl_participants_free(parts)

    # -- events ------------------------------------------------------------

    def add_listener(self, fn: Listener) -> None:
        """Calls fn(event) for every event of this client (session events and
        those of its locks, elections, observers), on the dispatching thread."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Listener) -> None:
        self._listeners.remove(fn)

    def dispatch(self, max_events: Optional[int] = None) -> List[Event]:
        """Takes the pending events (never blocks), updates the state of their
        handles, calls the listeners, and returns the events."""
        if (self._loop is not None and self._loop_thread is not None
                and threading.get_ident() != self._loop_thread and not self._loop.is_closed()):
            raise RuntimeError("this client is attached to an asyncio loop: its events are "
                               "dispatched there")
        out: List[Event] = []
        while max_events is None or len(out) < max_events:
            h = self._h
            if h is None:
                break
            rc, ev = _c.zkl_client_next_event(h)
            if rc == _EAGAIN:
                break
            check(rc, "next_event")
            try:
                event = self._convert(ev)
            finally:
                _c.zkl_event_free(ev)
            out.append(event)
            self._deliver(event)
        return out

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
        for getter in (_c.zkl_event_lock, _c.zkl_event_election, _c.zkl_event_observer):
            rc, ptr = getter(ev)
            if rc == 0 and ptr is not None:
                source = self._handles.get(int(ptr))
                break
        return Event._from_c(ev, source)

    def _deliver(self, event: Event) -> None:
        if event.type == EventType.SESSION:
            self._on_session(event)
        src = event.source
        if src is not None:
            src._on_event(event)
            for fn in list(src._listeners):
                fn(event)
        for fn in list(self._listeners):
            fn(event)

    def _on_session(self, event: Event) -> None:
        state = event.session_state
        if state in (SessionState.CONNECTED, SessionState.RECONNECTED):
            result: Any = None
        elif state == SessionState.AUTH_FAILED:
            result = error_for(_c.ZKL_EAUTH, "session")
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

    # -- closing -----------------------------------------------------------

    def close(self) -> None:
        """Ends the session (its nodes go with it), fails pending acquires with
        Closed, closes every handle of this client and frees it. Idempotent."""
        with self._close_lock:
            h = self._h
            if h is None:
                return
            self.stop_dispatcher()
            _c.zkl_client_close(h)
            try:
                # Deliver what closing produced (pending acquires end with
                # Closed), so that awaiting tasks see it.
                if self._loop is None or self._loop_thread == threading.get_ident():
                    self.dispatch()
            finally:
                self.detach()
                for obj in list(self._handles.values()):
                    obj._client_closed()
                waiters, self._session_waiters = self._session_waiters, []
                for fut in waiters:
                    _fail_future(fut, lambda: Closed("the client is closed"))
                self._h = None
                _c.zkl_client_destroy(h)

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


# ---------------------------------------------------------------------------
# Handles
# ---------------------------------------------------------------------------

class _Handle:
    _destroy = staticmethod(lambda h: None)

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

    def _client_closed(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the handle (releasing or leaving first). Idempotent."""
        h, self._h = self._h, None
        if h is not None:
            type(self)._destroy(h)
            self._closed()

    def _closed(self) -> None:
        pass

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            try:
                self._h = None
                type(self)._destroy(h)
            except Exception:
                pass


class _Pending:
    """One zkl_lock_acquire_async call: exactly one ACQUIRED or ACQUIRE_FAILED
    event answers it, in call order."""
    __slots__ = ("fut", "owner", "routed", "abandoned", "undone")

    def __init__(self, fut: asyncio.Future, owner: int):
        self.fut = fut
        self.owner = owner
        self.routed = False
        self.abandoned = False
        self.undone = False


class Lock(_Handle):
    """A lock handle (any LockKind). One handle is held by at most one owner at
    a time; use one handle per concurrent contender (they are cheap).

    `with lock:` / `async with lock:` acquire (with the handle's default
    timeout) and release. Leaving the block raises LockLost if the lock was
    lost meanwhile (unless the block raised). Owner tokens: every handle has
    its own (`owner`); pass owner= to acquire/release to use others, e.g. for
    a reentrant lock shared by several threads or tasks.
    """

    _destroy = staticmethod(_c.zkl_lock_destroy)

    def __init__(self, client: Client, path: str, kind: Union[LockKind, int] = LockKind.FAIR, *,
                 timeout: Optional[float] = None, max_leases: int = 1,
                 data: Optional[bytes] = None, owner: Optional[int] = None,
                 listener: Optional[Listener] = None):
        _check_path(path)
        _ms(timeout)
        kind = _enum_or_int(LockKind, int(kind))
        if isinstance(max_leases, bool) or not isinstance(max_leases, int):
            raise TypeError("max_leases must be an int")
        if not -2**31 <= max_leases < 2**31:
            raise InvalidArgument(f"max_leases out of range: {max_leases}")
        opts = _c.zkl_lock_options()
        check(_c.zkl_lock_options_init(opts, _c.ZKL_LOCK_OPTIONS_VERSION))
        opts.kind = int(kind)
        opts.max_leases = max_leases
        if data is not None:
            opts.set_data(bytes(data))
        rc, h = _c.zkl_lock_new(client._handle(), path, opts)
        del opts
        check(rc, f"lock {path}")
        self.kind = kind
        self.max_leases = max_leases
        self.timeout = timeout
        self.owner = _new_owner() if owner is None else _owner_token(owner)
        self._pending: Deque[_Pending] = collections.deque()
        self._lost_waiters: List[asyncio.Future] = []
        self._lost: Optional[Event] = None  # LOST of the current/last hold
        super().__init__(client, path, h, listener)

    def __repr__(self) -> str:
        state = "closed" if self._h is None else ("held" if self.is_held else "not held")
        return f"<zkl.Lock {self.kind.name if isinstance(self.kind, LockKind) else self.kind} {self.path!r} {state}>"

    def _owner(self, owner: Optional[int]) -> int:
        return self.owner if owner is None else _owner_token(owner)

    def _timeout(self, timeout: Any) -> int:
        return _ms(self.timeout if timeout is _DEFAULT else timeout)

    # -- blocking ----------------------------------------------------------

    def acquire(self, timeout: Optional[float] = _DEFAULT, *, owner: Optional[int] = None) -> int:
        """Blocks (GIL released) until held; returns the fencing token.
        timeout in seconds (None = forever, 0 = do not wait); raises TimedOut,
        Deadlock (non-reentrant, already held by this owner), Busy (held or
        being acquired by another owner of this handle), Cancelled, Closed.
        No node is left behind on failure."""
        check(_c.zkl_lock_acquire(self._handle(), self._owner(owner), self._timeout(timeout)),
              f"acquire {self.path}")
        self._lost = None
        return self._token_or_zero()

    def try_acquire(self, *, owner: Optional[int] = None) -> bool:
        """One round trip: True if acquired, False if someone is in the way."""
        rc = _c.zkl_lock_try_acquire(self._handle(), self._owner(owner))
        if rc == _EAGAIN:
            return False
        check(rc, f"try_acquire {self.path}")
        self._lost = None
        return True

    def release(self, *, owner: Optional[int] = None, wait: bool = True) -> None:
        """Releases one hold. With wait=True (default) the last hold's node is
        deleted before this returns (one round trip); wait=False returns at
        once (a later acquire on this client is ordered after the delete; a
        RELEASED event reports the outcome). Raises NotHeld, NotOwner, or
        LockLost once if the lock was lost while held."""
        fn = _c.zkl_lock_release if wait else _c.zkl_lock_release_async
        check(fn(self._handle(), self._owner(owner)), f"release {self.path}")

    def cancel(self) -> bool:
        """Cancels a pending acquire (from another thread, or an async one);
        its node is deleted. False if no acquire was pending."""
        rc = _c.zkl_lock_cancel(self._handle())
        if rc == _ENOTHELD:
            return False
        check(rc, f"cancel {self.path}")
        return True

    @property
    def is_held(self) -> bool:
        """True only while held and the session is known to be good (never
        while suspended or after loss)."""
        return check(_c.zkl_lock_is_held(self._handle())) == 1

    @property
    def fencing_token(self) -> int:
        """The current hold's fencing token (strictly increasing across the
        successive holders of the path). Raises NotHeld."""
        rc, token = _c.zkl_lock_fencing_token(self._handle())
        check(rc, f"fencing_token {self.path}")
        return token

    @property
    def hold_count(self) -> int:
        return check(_c.zkl_lock_hold_count(self._handle()))

    def _token_or_zero(self) -> int:
        rc, token = _c.zkl_lock_fencing_token(self._handle())
        return token if rc == 0 else 0

    def __enter__(self) -> "Lock":
        self.acquire()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, wait=True)

    def _exit(self, exc_type, wait: bool) -> None:
        try:
            self.release(wait=wait)
        except ZklError:
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
        ms = self._timeout(timeout)
        h = self._handle()
        slot = _Pending(loop.create_future(), o)
        self._pending.append(slot)
        rc = _c.zkl_lock_acquire_async(h, o, ms)
        if rc < 0:
            self._pending.remove(slot)
            raise error_for(rc, f"acquire {self.path}")
        try:
            return await slot.fut
        except BaseException:
            fut = slot.fut
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                # Granted, but the caller is gone (cancelled meanwhile): undo.
                self._undo(o)
            elif not slot.routed:
                slot.abandoned = True
                self._abandon(slot)
            raise

    def _abandon(self, slot: _Pending) -> None:
        h = self._h
        if h is None:
            return
        rc = _c.zkl_lock_cancel(h)
        if rc == _ENOTHELD and _c.zkl_lock_hold_count(h) > 0:
            # Already granted (its ACQUIRED event is still queued): release.
            slot.undone = True
            self._undo(slot.owner)

    def _undo(self, owner: int) -> None:
        if self._h is not None:
            _c.zkl_lock_release_async(self._h, owner)  # errors: nothing left to undo

    def _on_event(self, event: Event) -> None:
        t = event.type
        if t in (EventType.ACQUIRED, EventType.ACQUIRE_FAILED) and self._pending:
            slot = self._pending.popleft()
            slot.routed = True
            fut = slot.fut
            if slot.abandoned or fut.done():
                if t == EventType.ACQUIRED and not slot.undone:
                    self._undo(slot.owner)
            elif t == EventType.ACQUIRED:
                self._lost = None
                fut.set_result(event.fencing_token)
            else:
                fut.set_exception(error_for(event.error, f"acquire {self.path}"))
        elif t == EventType.LOST:
            self._lost = event
            waiters, self._lost_waiters = self._lost_waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result(event)

    async def until_lost(self) -> Event:
        """Waits (on the loop) until this lock is lost and returns the LOST
        event; at once if the current hold was lost already."""
        loop = self._client.attach()
        self._handle()
        if self._lost is not None:
            return self._lost
        fut = loop.create_future()
        self._lost_waiters.append(fut)
        try:
            return await fut
        finally:
            if fut in self._lost_waiters:
                self._lost_waiters.remove(fut)

    async def __aenter__(self) -> "Lock":
        await self.acquire_async()
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        self._exit(exc_type, wait=False)

    def _closed(self) -> None:
        closed = Closed(f"lock {self.path}: handle closed")
        while self._pending:
            slot = self._pending.popleft()
            if not slot.fut.done():
                slot.fut.set_exception(closed)
        waiters, self._lost_waiters = self._lost_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_exception(closed)


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


class Election(_Handle):
    """A participant in a leader election.

    campaign() blocks until elected; start() joins and reports ELECTED /
    NOT_ELECTED / LOST events; after LOST the participant rejoins by itself
    when the session is back. `with election:` campaigns and resigns.
    """

    _destroy = staticmethod(_c.zkl_election_destroy)

    def __init__(self, client: Client, path: str, id: str, *,
                 kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 timeout: Optional[float] = None, listener: Optional[Listener] = None):
        _check_path(path)
        _check_str("id", id)
        _ms(timeout)
        kind = _enum_or_int(ElectionKind, int(kind))
        opts = _c.zkl_election_options()
        check(_c.zkl_election_options_init(opts, _c.ZKL_ELECTION_OPTIONS_VERSION))
        opts.kind = int(kind)
        opts.id = id
        rc, h = _c.zkl_election_new(client._handle(), path, opts)
        del opts
        check(rc, f"election {path}")
        self.id = id
        self.kind = kind
        self.timeout = timeout
        self._elected_waiters: List[asyncio.Future] = []
        super().__init__(client, path, h, listener)

    def __repr__(self) -> str:
        state = "closed" if self._h is None else ("leader" if self.is_leader else "not leader")
        return f"<zkl.Election {self.path!r} id={self.id!r} {state}>"

    def start(self) -> None:
        """Joins the election (events: NOT_ELECTED, ELECTED, LOST)."""
        check(_c.zkl_election_start(self._handle()), f"election start {self.path}")

    def campaign(self, timeout: Optional[float] = _DEFAULT) -> int:
        """Joins (if needed) and blocks until elected; returns the term's
        fencing token. Raises TimedOut (and leaves the election)."""
        ms = _ms(self.timeout if timeout is _DEFAULT else timeout)
        h = self._handle()
        check(_c.zkl_election_campaign(h, ms), f"campaign {self.path}")
        rc, token = _c.zkl_election_fencing_token(h)
        if rc == _ENOTHELD:
            # libzkl 0.1.0 answers 0 at once when the participant was start()ed
            # and is still queued (its "already leader" check also matches a
            # pending campaign). Leave and campaign again, blocking this time.
            check(_c.zkl_election_resign(h), f"campaign {self.path}")
            check(_c.zkl_election_campaign(h, ms), f"campaign {self.path}")
            rc, token = _c.zkl_election_fencing_token(h)
        check(rc, f"campaign {self.path}")
        return token

    async def campaign_async(self, timeout: Optional[float] = _DEFAULT) -> int:
        """Joins (if needed) and waits on the loop until elected; returns the
        fencing token. On timeout (TimedOut) or cancellation it resigns."""
        loop = self._client.attach()
        ms = _ms(self.timeout if timeout is _DEFAULT else timeout)
        h = self._handle()
        fut = loop.create_future()
        self._elected_waiters.append(fut)
        timer = None
        try:
            check(_c.zkl_election_start(h), f"campaign {self.path}")
            if _c.zkl_election_is_leader(h) == 1:
                rc, token = _c.zkl_election_fencing_token(h)
                if rc == 0:
                    return token
            if ms >= 0:
                timer = loop.call_later(ms / 1000.0, _fail_future, fut,
                                        lambda: error_for(_c.ZKL_ETIMEDOUT, f"campaign {self.path}"))
            return await fut
        except BaseException:
            # Timed out, cancelled (even if elected meanwhile) or closed: the
            # caller does not lead, so leave the election.
            self._resign_quietly()
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if fut in self._elected_waiters:
                self._elected_waiters.remove(fut)

    def _resign_quietly(self) -> None:
        if self._h is not None:
            _c.zkl_election_resign(self._h)

    def resign(self) -> None:
        """Leaves the election (gives up leadership if held)."""
        check(_c.zkl_election_resign(self._handle()), f"resign {self.path}")

    @property
    def is_leader(self) -> bool:
        return check(_c.zkl_election_is_leader(self._handle())) == 1

    @property
    def fencing_token(self) -> int:
        """The current term's fencing token. Raises NotHeld when not leader."""
        rc, token = _c.zkl_election_fencing_token(self._handle())
        check(rc, f"fencing_token {self.path}")
        return token

    def _on_event(self, event: Event) -> None:
        if event.type == EventType.ELECTED:
            waiters, self._elected_waiters = self._elected_waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result(event.fencing_token)

    def _closed(self) -> None:
        waiters, self._elected_waiters = self._elected_waiters, []
        for fut in waiters:
            _fail_future(fut, lambda: Closed(f"election {self.path}: handle closed"))

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
    """Reports the leader of an election without taking part: `leader`, and
    LEADER_CHANGED events (event.leader)."""

    _destroy = staticmethod(_c.zkl_observer_destroy)

    def __init__(self, client: Client, path: str, kind: Union[ElectionKind, int] = ElectionKind.FAIR,
                 *, listener: Optional[Listener] = None):
        _check_path(path)
        kind = _enum_or_int(ElectionKind, int(kind))
        rc, h = _c.zkl_observer_new(client._handle(), path, int(kind))
        check(rc, f"observer {path}")
        self.kind = kind
        self._change_waiters: List[asyncio.Future] = []
        super().__init__(client, path, h, listener)

    def __repr__(self) -> str:
        return f"<zkl.Observer {self.path!r}>"

    @property
    def leader_bytes(self) -> Optional[bytes]:
        """The current leader's id as bytes, None without a leader."""
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

    async def wait_change(self, timeout: Optional[float] = None) -> Optional[str]:
        """Waits on the loop for the next LEADER_CHANGED event; returns the new
        leader (None: no leader). Raises TimedOut."""
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
        if event.type == EventType.LEADER_CHANGED:
            waiters, self._change_waiters = self._change_waiters, []
            for fut in waiters:
                if not fut.done():
                    fut.set_result(event.leader)

    def _closed(self) -> None:
        waiters, self._change_waiters = self._change_waiters, []
        for fut in waiters:
            _fail_future(fut, lambda: Closed(f"observer {self.path}: handle closed"))

    def __enter__(self) -> "Observer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
