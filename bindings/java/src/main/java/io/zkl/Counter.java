package io.zkl;

/** Client counters ({@code ZKL_COUNTER_*}), monotonic since the client was created. */
public enum Counter {
  /** ZooKeeper requests sent. */
  REQUESTS(ZklNativeConstants.ZKL_COUNTER_REQUESTS),
  /** Node and child watch notifications seen. */
  WATCH_EVENTS(ZklNativeConstants.ZKL_COUNTER_WATCH_EVENTS),
  /** User events queued. */
  EVENTS(ZklNativeConstants.ZKL_COUNTER_EVENTS),
  /** Sessions established (1 + re-creates after loss). */
  SESSIONS(ZklNativeConstants.ZKL_COUNTER_SESSIONS),
  /** Heartbeat requests (sent while locks are held and the session is quiet). */
  HEARTBEATS(ZklNativeConstants.ZKL_COUNTER_HEARTBEATS);

  final int code;

  Counter(int code) {
    this.code = code;
  }
}
