"""A contender process for test_interop: takes the lock ROUNDS times and,
while holding it, appends "start NAME TOKEN" and "end NAME TOKEN" to LOG.

    python contender.py SERVERS PATH LOG ROUNDS HOLD_MS NAME
"""
import os
import sys
import time

import zkl


def append(log, line):
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def main():
    servers, path, log, rounds, hold_ms, name = sys.argv[1:7]
    with zkl.Client.connect(servers, connect_timeout=20) as client:
        lock = client.lock(path, timeout=60)
        for _ in range(int(rounds)):
            with lock as held:
                token = held.fencing_token
                append(log, f"start {name} {token}")
                time.sleep(int(hold_ms) / 1000.0)  # the critical section's work
                append(log, f"end {name} {token}")
    print(f"{name} done", flush=True)


if __name__ == "__main__":
    main()
