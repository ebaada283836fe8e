#!/usr/bin/env python3
"""Acquire a lock, write a value under it with a guarded write, release.

    python examples/guarded_write.py 127.0.0.1:2181 --path /zkl-examples/job --value done

The write (PATH/state = VALUE) is applied only while the lock is really held
at the ZooKeeper quorum: a holder that was paused, cut off or expired writes
nothing, whatever it believes (docs/FENCING.md). The first write creates the
node; later ones set it, checking the version read back from the results.
"""
import argparse
import sys

import zkl


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("servers", help="ZooKeeper connect string, e.g. 127.0.0.1:2181")
    ap.add_argument("--path", default="/zkl-examples/guarded-write", help="the lock's path")
    ap.add_argument("--value", default="hello", help="what to write into PATH/state")
    args = ap.parse_args()
    state = f"{args.path}/state"

    with zkl.Client.connect(args.servers, connect_timeout=20) as client:
        with client.lock(args.path, timeout=30) as lock:
            try:  # first time: create the node
                result = lock.write(zkl.Ops().create(state, args.value))
            except zkl.NodeExists:  # it exists: replace its value
                result = lock.write(zkl.Ops().set(state, args.value))
            print(f"wrote {args.value!r} to {state} (data version {result.versions[0]}) "
                  f"under fencing token {lock.fencing_token}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
