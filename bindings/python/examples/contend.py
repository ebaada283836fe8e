#!/usr/bin/env python3
"""Two processes contending for one ZooKeeper lock, printing fencing tokens.

    python examples/contend.py 127.0.0.1:2181            # starts two contenders
    python examples/contend.py 127.0.0.1:2181 --name A   # one contender

Each contender takes the lock a few times, holds it briefly and prints the
fencing token of every hold: tokens strictly increase across both processes,
so a resource that remembers the highest token it has seen can refuse a
stale holder.
"""
import argparse
import os
import subprocess
import sys
import time

import zkl


def contend(servers: str, path: str, name: str, rounds: int, hold: float) -> None:
    with zkl.Client.connect(servers, connect_timeout=20) as client:
        lock = client.lock(path, timeout=60)
        for _ in range(rounds):
            with lock:
                print(f"{name} (pid {os.getpid()}) holds {path}, fencing token {lock.fencing_token}",
                      flush=True)
                time.sleep(hold)  # the protected work
            print(f"{name} released", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("servers", help="ZooKeeper connect string, e.g. 127.0.0.1:2181")
    ap.add_argument("--path", default="/zkl-examples/contend")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--hold", type=float, default=0.2, help="seconds to hold each time")
    ap.add_argument("--name", help="run one contender with this name")
    args = ap.parse_args()
    if args.name:
        contend(args.servers, args.path, args.name, args.rounds, args.hold)
        return 0
    procs = [
        subprocess.Popen([sys.executable, __file__, args.servers, "--path", args.path,
                          "--rounds", str(args.rounds), "--hold", str(args.hold), "--name", name])
        for name in ("A", "B")
    ]
    return max(p.wait() for p in procs)


if __name__ == "__main__":
    sys.exit(main())
