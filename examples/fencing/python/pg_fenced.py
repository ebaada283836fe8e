#!/usr/bin/env python3
"""A PostgreSQL row guarded by a zkl fencing token (docs/FENCING.md).

    pg_fenced.py SERVERS PG_URL [KEY [VALUE]]
        take the lock /zkl-examples/fencing/KEY, write VALUE to row KEY of
        table `fenced` through the fence, release. Exit 0: written;
        3: refused (a newer holder wrote the row: stop).
    pg_fenced.py SERVERS PG_URL --stale-demo KEY
        A acquires (token tA) and loses the lock (its client is closed);
        B acquires (tB > tA) and writes; A's write with tA must be refused.

PG_URL: postgres://USER@HOST:PORT/DB (pg8000, pinned in requirements.txt).
"""
import sys
from urllib.parse import urlparse

import pg8000.native
import zkl

SCHEMA = """CREATE TABLE IF NOT EXISTS fenced (
    key   text   PRIMARY KEY,
    value text   NOT NULL,
    fence bigint NOT NULL)"""

# Insert, or update only if the stored token is not newer than ours ("<=":
# the same holder writes again and again with its token).
WRITE = """INSERT INTO fenced AS f (key, value, fence) VALUES (:key, :value, :fence)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence
           WHERE f.fence <= excluded.fence"""


def fenced_write(db: pg8000.native.Connection, key: str, value: str, token: int) -> bool:
    """True: written. False: the row has a newer token; the holder must stop."""
    db.run(WRITE, key=key, value=value, fence=token)
    return db.row_count == 1  # rows affected: 1 or 0


def connect_db(url: str) -> pg8000.native.Connection:
    u = urlparse(url)
    db = pg8000.native.Connection(user=u.username or "postgres", password=u.password,
                                  host=u.hostname or "127.0.0.1", port=u.port or 5432,
                                  database=(u.path or "/postgres")[1:] or "postgres", timeout=30)
    db.run(SCHEMA)
    return db


def run_once(servers: str, url: str, key: str, value: str) -> int:
    db = connect_db(url)
    try:
        with zkl.Client.connect(servers, connect_timeout=20) as client:
            lock = client.lock(f"/zkl-examples/fencing/{key}", timeout=30)
            token = lock.acquire()
            print(f"acquired, fencing token {token}")
            try:
                if not lock.is_held:  # ask, then write with the token
                    print("no longer held: not writing")
                    return 3
                if not fenced_write(db, key, value, token):
                    print(f"refused: token {token} is stale, stopping")
                    return 3
                print(f"written: {key}={value} with token {token}")
                return 0
            finally:
                lock.release()
    finally:
        db.close()


def stale_demo(servers: str, url: str, key: str) -> int:
    path = f"/zkl-examples/fencing/{key}"
    db = connect_db(url)
    try:
        a = zkl.Client.connect(servers, connect_timeout=20)
        ta = a.lock(path, timeout=30).acquire()
        print(f"A acquired, token {ta}")
        a.close()  # A's session and node are gone; A still has its token
        with zkl.Client.connect(servers, connect_timeout=20) as b:
            lock = b.lock(path, timeout=30)
            tb = lock.acquire()
            print(f"B acquired, token {tb}")
            assert tb > ta, f"B's token {tb} is not above A's {ta}"
            assert fenced_write(db, key, "B", tb), "B's write was refused"
            lock.release()
        accepted = fenced_write(db, key, "A", ta)
        assert not accepted, f"A's stale write (token {ta}) was ACCEPTED"
        print(f"A's write with token {ta} refused: 0 rows affected")
        rows = db.run("SELECT value, fence FROM fenced WHERE key = :key", key=key)
        assert rows == [["B", tb]], f"row {key} is {rows}, not B's write"
        print(f"row {key}: value B, fence {tb}: stale holder refused")
        return 0
    finally:
        db.close()


def main(argv) -> int:
    if len(argv) == 5 and argv[3] == "--stale-demo":
        return stale_demo(argv[1], argv[2], argv[4])
    if not 3 <= len(argv) <= 5:
        print(__doc__, file=sys.stderr)
        return 2
    key = argv[3] if len(argv) > 3 else "report"
    value = argv[4] if len(argv) > 4 else "hello"
    return run_once(argv[1], argv[2], key, value)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
