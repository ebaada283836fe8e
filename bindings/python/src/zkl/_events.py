"""Constants of zkl.h as enums, and the Event record."""
from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any, Optional

from . import capi as _c
from ._errors import ZklError, error_for

__all__ = ["EventType", "SessionState", "LockKind", "ElectionKind", "Acl", "LogLevel", "OnRevoke",
           "CreateFlag", "Event"]


class EventType(enum.IntEnum):
    SESSION = _c.ZKL_EVENT_SESSION
    ACQUIRED = _c.ZKL_EVENT_ACQUIRED
    ACQUIRE_FAILED = _c.ZKL_EVENT_ACQUIRE_FAILED
    SUSPENDED = _c.ZKL_EVENT_SUSPENDED
    RESTORED = _c.ZKL_EVENT_RESTORED
    LOST = _c.ZKL_EVENT_LOST
    RELEASED = _c.ZKL_EVENT_RELEASED
    ELECTED = _c.ZKL_EVENT_ELECTED
    NOT_ELECTED = _c.ZKL_EVENT_NOT_ELECTED
    LEADER_CHANGED = _c.ZKL_EVENT_LEADER_CHANGED
    NO_LEADER = _c.ZKL_EVENT_NO_LEADER
    REVOKE_REQUESTED = _c.ZKL_EVENT_REVOKE_REQUESTED
    STATS = _c.ZKL_EVENT_STATS
    LOG = _c.ZKL_EVENT_LOG
    WRITTEN = _c.ZKL_EVENT_WRITTEN


class SessionState(enum.IntEnum):
    CONNECTING = _c.ZKL_SESSION_CONNECTING
    CONNECTED = _c.ZKL_SESSION_CONNECTED
    SUSPENDED = _c.ZKL_SESSION_SUSPENDED
    RECONNECTED = _c.ZKL_SESSION_RECONNECTED
    LOST = _c.ZKL_SESSION_LOST
    CLOSED = _c.ZKL_SESSION_CLOSED
    AUTH_FAILED = _c.ZKL_SESSION_AUTH_FAILED


class LockKind(enum.IntEnum):
    FAIR = _c.ZKL_LOCK_FAIR
    REENTRANT = _c.ZKL_LOCK_REENTRANT
    NONFAIR = _c.ZKL_LOCK_NONFAIR
    READ = _c.ZKL_LOCK_READ
    WRITE = _c.ZKL_LOCK_WRITE
    SEMAPHORE = _c.ZKL_LOCK_SEMAPHORE


class ElectionKind(enum.IntEnum):
    FAIR = _c.ZKL_ELECTION_FAIR
    NONFAIR = _c.ZKL_ELECTION_NONFAIR


class Acl(enum.IntEnum):
    OPEN = _c.ZKL_ACL_OPEN
    CREATOR = _c.ZKL_ACL_CREATOR


class LogLevel(enum.IntEnum):
    OFF = _c.ZKL_LOG_OFF
    ERROR = _c.ZKL_LOG_ERROR
    WARN = _c.ZKL_LOG_WARN
    INFO = _c.ZKL_LOG_INFO
    DEBUG = _c.ZKL_LOG_DEBUG


class OnRevoke(enum.IntEnum):
    """What a holder does on a revocation request (Client.revoke)."""
    IGNORE = _c.ZKL_REVOKE_IGNORE
    NOTIFY = _c.ZKL_REVOKE_NOTIFY
    RELEASE = _c.ZKL_REVOKE_RELEASE


class CreateFlag(enum.IntFlag):
    """Create modes of a guarded write's create (Ops.create)."""
    PERSISTENT = _c.ZKL_CREATE_PERSISTENT
    EPHEMERAL = _c.ZKL_CREATE_EPHEMERAL
    SEQUENTIAL = _c.ZKL_CREATE_SEQUENTIAL


def _enum_or_int(cls, value):
    try:
        return cls(value)
    except ValueError:
        return value


@dataclass(frozen=True)
class Event:
    """One event of the client's queue, copied out of the C event.

    `source` is the Lock, MultiLock, Election or Observer it is about (None
    for session and stats events, or when that object is gone). For
    LEADER_CHANGED the fencing token is the leader's term."""

    type: EventType
    error: int = 0
    session_state: Any = 0
    owner: int = 0
    fencing_token: int = 0
    data: bytes = b""
    source: Optional[Any] = field(default=None, compare=False)
    log_level: int = 0
    component: str = ""
    #: The request id the async call this event answers returned
    #: (acquire_async / campaign_async / start: ACQUIRED, ELECTED,
    #: NOT_ELECTED, ACQUIRE_FAILED; release(wait=False): RELEASED;
    #: write_async: WRITTEN); 0 for events that answer no call (SUSPENDED,
    #: RESTORED, LOST, an election's rejoin, ...).
    request_id: int = 0
    #: WRITTEN: the write's results (a WriteResult).
    write_result: Optional[Any] = field(default=None, compare=False)

    @property
    def exception(self) -> Optional[ZklError]:
        """The error carried by ACQUIRE_FAILED, LOST, RELEASED, as an exception."""
        return error_for(self.error) if self.error < 0 else None

    @property
    def leader(self) -> Optional[str]:
        """LEADER_CHANGED: the new leader's id (None when there is none)."""
        if self.type != EventType.LEADER_CHANGED or not self.data:
            return None
        return self.data.decode("utf-8", "surrogateescape")

    @property
    def term(self) -> int:
        """LEADER_CHANGED: the leader's term (its fencing token)."""
        return self.fencing_token

    @property
    def stats(self) -> Optional[dict]:
        """STATS: the statistics document, parsed (docs/STATISTICS.md)."""
        if self.type != EventType.STATS:
            return None
        return json.loads(self.data.decode("utf-8", "surrogateescape"))

    @property
    def message(self) -> str:
        """LOG: the log line."""
        return self.data.decode("utf-8", "replace")

    @staticmethod
    def _from_c(ev, source=None) -> "Event":
        t = _c.zkl_event_type(ev)
        _, owner = _c.zkl_event_owner(ev)
        _, token = _c.zkl_event_fencing_token(ev)
        _, data = _c.zkl_event_data(ev)
        level, component = 0, b""
        if t == _c.ZKL_EVENT_LOG:
            _, level, component = _c.zkl_event_log(ev)
        _, request_id = _c.zkl_event_request_id(ev)
        write_result = None
        if t == _c.ZKL_EVENT_WRITTEN:
            from ._ops import WriteResult  # (imports this module)
            rc, ops = _c.zkl_event_ops(ev)
            if rc == 0 and ops is not None:  # borrowed: read before the event is freed
                write_result = WriteResult._from_c(ops)
        return Event(
            type=_enum_or_int(EventType, t),
            error=_c.zkl_event_error(ev),
            session_state=_enum_or_int(SessionState, _c.zkl_event_session_state(ev)),
            owner=owner,
            fencing_token=token,
            data=data,
            source=source,
            log_level=level,
            component=component.decode("utf-8", "replace"),
            request_id=request_id,
            write_result=write_result,
        )

    def __repr__(self) -> str:
        parts = [f"type={getattr(self.type, 'name', self.type)}"]
        if self.error:
            parts.append(f"error={error_for(self.error).name}")
        if self.type == EventType.SESSION:
            parts.append(f"session_state={getattr(self.session_state, 'name', self.session_state)}")
        if self.fencing_token:
            parts.append(f"fencing_token={self.fencing_token}")
        if self.data:
            parts.append(f"data={self.data!r}")
        if self.request_id:
            parts.append(f"request_id={self.request_id}")
        if self.source is not None:
            parts.append(f"source={self.source!r}")
        return f"Event({', '.join(parts)})"
