#!/usr/bin/env python3
"""A file replaced only by a holder whose fencing token is not older than
the last one that replaced it (docs/FENCING.md; the C twin is file_fenced.c).

    file_fenced.py SERVERS FILE [CONTENT]
        take the lock /zkl-examples/fencing-file/<basename>, replace FILE with
        CONTENT through the fence, release. Exit 0: replaced; 3: refused.
    file_fenced.py SERVERS FILE --stale-demo
        A acquires (tA) and loses the lock; B acquires (tB > tA) and replaces
        FILE; A's replace with tA must be refused.

FILE.fence holds the newest token that replaced FILE; the comparison, the
token update and the rename happen under flock(2) of FILE.fence.
"""
import fcntl
import os
import sys
import tempfile

import zkl


def fenced_replace(file: str, content: bytes, token: int) -> bool:
    """True: replaced. False: a newer token replaced FILE; the holder must stop."""
    d = os.path.dirname(os.path.abspath(file))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(file) + ".tmp.", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:  # the new content, complete and on disk
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        side = os.open(file + ".fence", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(side, fcntl.LOCK_EX)
            stored = os.pread(side, 32, 0).strip()
            if stored and token < int(stored):
                return False  # stale: the finally below deletes tmp
            # The token first, then the rename (a crash in between refuses
            # stale holders and lets this one retry).
            data = b"%d\n" % token
            os.pwrite(side, data, 0)
            os.ftruncate(side, len(data))
            os.fsync(side)
            os.rename(tmp, file)
            tmp = None
            return True
        finally:
            os.close(side)  # releases the flock
    finally:
        if tmp is not None:
            os.unlink(tmp)


def main(argv) -> int:
    if not 3 <= len(argv) <= 4:
        print(__doc__, file=sys.stderr)
        return 2
    servers, file = argv[1], argv[2]
    path = "/zkl-examples/fencing-file/" + os.path.basename(file)
    if len(argv) == 4 and argv[3] == "--stale-demo":
        a = zkl.Client.connect(servers, connect_timeout=20)
        ta = a.lock(path, timeout=30).acquire()
        print(f"A acquired, token {ta}")
        a.close()  # A's session and node are gone; A still has its token
        with zkl.Client.connect(servers, connect_timeout=20) as b:
            lock = b.lock(path, timeout=30)
            tb = lock.acquire()
            print(f"B acquired, token {tb}")
            assert tb > ta, f"B's token {tb} is not above A's {ta}"
            assert fenced_replace(file, b"written by B\n", tb), "B's replace was refused"
            lock.release()
        assert not fenced_replace(file, b"written by A\n", ta), "A's stale replace was ACCEPTED"
        with open(file, "rb") as f:
            assert f.read() == b"written by B\n", f"{file} lost B's content"
        print(f"A's replace with token {ta} refused; {file} keeps B's content")
        return 0
    content = (argv[3] if len(argv) == 4 else "hello\n").encode()
    with zkl.Client.connect(servers, connect_timeout=20) as client:
        lock = client.lock(path, timeout=30)
        token = lock.acquire()
        print(f"acquired, fencing token {token}")
        try:
            if not lock.is_held:
                print("no longer held: not writing")
                return 3
            if not fenced_replace(file, content, token):
                print(f"refused: token {token} is stale, stopping")
                return 3
            print(f"replaced {file} with token {token}")
            return 0
        finally:
            lock.release()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
