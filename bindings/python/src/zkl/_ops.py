"""Guarded writes: the operations list (Ops) and a write's results (WriteResult).

A guarded write (Lock.write, MultiLock.write, Election.write and their
*_async forms) runs the operations in one ZooKeeper `multi` behind a check
that the holder's own node still exists: they are applied, all of them,
only while the hold is real at the quorum (docs/FENCING.md). Operations lie
strictly below the lock's (election's) path, e.g. PATH/state.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple, Union

from . import capi as _c
from ._errors import BadPath, ZklError, check, error_for
from ._events import CreateFlag

__all__ = ["Ops", "WriteResult", "ANY_VERSION"]

#: The version argument meaning "whatever the version" (ZKL_ANY_VERSION).
ANY_VERSION: int = _c.ZKL_ANY_VERSION

_ENOTFOUND = _c.ZKL_ENOTFOUND

Data = Union[bytes, bytearray, memoryview, str, None]


def _data(value: Data) -> bytes:
    """Node data as bytes: bytes-like as is, str as UTF-8, None as empty."""
    if value is None:
        return b""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"data must be bytes, bytearray, memoryview or str, not {type(value).__name__}")


def _op_path(path: Any) -> str:
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    if "\x00" in path:
        raise BadPath(f"path {path!r} contains a NUL byte")
    return path


def _version(version: Any) -> int:
    if isinstance(version, bool) or not isinstance(version, int):
        raise TypeError(f"version must be an int, not {type(version).__name__}")
    if not -2**31 <= version < 2**31:
        raise error_for(_c.ZKL_EINVAL, f"version out of range: {version}")
    return version


@dataclass(frozen=True)
class WriteResult:
    """What a guarded write did, operation by operation.

    failed    the index of the operation that failed, or None (applied, or
              refused for a reason of no one operation: NotHeld, LockLost...)
    paths     per operation: the path a create made (with its sequence
              number for a sequential create), None for the others
    versions  per operation: the node's data version after a create (0) or
              set, None for the others (and when nothing was applied)
    """
    failed: Optional[int]
    paths: Tuple[Optional[str], ...]
    versions: Tuple[Optional[int], ...]

    @staticmethod
    def _from_c(h) -> "WriteResult":
        """Reads the results out of a C zkl_ops (owned or an event's)."""
        n = check(_c.zkl_ops_count(h))
        failed = _c.zkl_ops_failed(h)
        paths: List[Optional[str]] = []
        versions: List[Optional[int]] = []
        for i in range(n):
            size = 256
            while True:
                rc, buf = _c.zkl_ops_path(h, i, size)
                if rc < 0 or rc < size:
                    break
                size = rc + 1
            paths.append(buf.decode("utf-8", "surrogateescape") if rc >= 0 else None)
            rc, v = _c.zkl_ops_version(h, i)
            versions.append(v if rc == 0 else None)
        return WriteResult(failed if failed >= 0 else None, tuple(paths), tuple(versions))


class Ops:
    """A list of operations for a guarded write, built by chaining:

        ops = zkl.Ops().create(f"{path}/state", b"v1").set(f"{path}/state", b"v2", version=0)
        result = lock.write(ops)

    Each method checks its operation at once (BadPath for a malformed path,
    InvalidArgument for bad flags or a version < -1, TooBig once the list
    exceeds one request, ZKL_OPS_MAX_BYTES); where it may go (below the
    lock's path) is checked by the write. Data is bytes, or str (UTF-8).
    An Ops is reusable and may be written by several threads: each write
    sends a copy and returns its own WriteResult.
    """

    def __init__(self) -> None:
        rc, h = _c.zkl_ops_new()
        check(rc, "ops")
        self._h = h
        self._mu = threading.Lock()
        # The operations as given, to send a fresh copy with each blocking
        # write (the C list keeps the results of its last write).
        self._specs: List[Tuple[str, str, bytes, int]] = []

    def _add(self, kind: str, path: Any, data: bytes, arg: int) -> "Ops":
        path = _op_path(path)
        with self._mu:
            rc = self._append(self._h, kind, path, data, arg)
            check(rc, f"ops {kind} {path}")
            self._specs.append((kind, path, data, arg))
        return self

    @staticmethod
    def _append(h, kind: str, path: str, data: bytes, arg: int) -> int:
        if kind == "create":
            return _c.zkl_ops_create(h, path, data, arg)
        if kind == "set":
            return _c.zkl_ops_set(h, path, data, arg)
        if kind == "delete":
            return _c.zkl_ops_delete(h, path, arg)
        return _c.zkl_ops_check(h, path, arg)

    def create(self, path: str, data: Data = b"",
               flags: Union[CreateFlag, int] = CreateFlag.PERSISTENT) -> "Ops":
        """Creates `path` with `data`. flags: CreateFlag.EPHEMERAL (dies with
        the session), CreateFlag.SEQUENTIAL (a sequence number is appended:
        the created name is in WriteResult.paths), or both (|)."""
        return self._add("create", path, _data(data), _version(int(flags)))

    def set(self, path: str, data: Data, version: int = ANY_VERSION) -> "Ops":
        """Sets the data of `path`, if its version is `version` (ANY_VERSION: any)."""
        return self._add("set", path, _data(data), _version(version))

    def delete(self, path: str, version: int = ANY_VERSION) -> "Ops":
        """Deletes `path` (no children), if its version is `version`."""
        return self._add("delete", path, b"", _version(version))

    def check(self, path: str, version: int = ANY_VERSION) -> "Ops":
        """Checks that `path` exists, with version `version` unless ANY_VERSION."""
        return self._add("check", path, b"", _version(version))

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return "<zkl.Ops " + ", ".join(f"{k} {p}" for k, p, _, _ in self._specs) + ">"

    # -- used by the handles' write methods ---------------------------------

    def _run_blocking(self, call, context: str) -> WriteResult:
        """call(c_ops) -> rc on a fresh copy of the list; its results."""
        with self._mu:
            specs = list(self._specs)
        rc, h = _c.zkl_ops_new()
        check(rc, context)
        try:
            for kind, path, data, arg in specs:
                check(self._append(h, kind, path, data, arg), context)
            rc = call(h)
            result = WriteResult._from_c(h)
        finally:
            _c.zkl_ops_free(h)
        if rc < 0:
            raise write_error(rc, context, result)
        return result

    def _send_async(self, call) -> int:
        """call(c_ops) -> request id or error (the C call copies the list)."""
        with self._mu:
            return call(self._h)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            self._h = None
            try:
                _c.zkl_ops_free(h)
            except Exception:
                pass


def write_error(rc: int, context: str, result: Optional[WriteResult], count: int = 0) -> ZklError:
    """The exception of a refused write, carrying its results."""
    err = error_for(rc, context)
    if result is None:
        result = WriteResult(None, (None,) * count, (None,) * count)
    err.result = result
    err.failed = result.failed
    return err
