package io.zkl;

/** Session states ({@code ZKL_SESSION_*}). */
public enum SessionState {
  CONNECTING(ZklNativeConstants.ZKL_SESSION_CONNECTING),
  CONNECTED(ZklNativeConstants.ZKL_SESSION_CONNECTED),
  /** Disconnected; the session may still live. Held locks are not safe. */
  SUSPENDED(ZklNativeConstants.ZKL_SESSION_SUSPENDED),
  /** Reconnected to the same session in time. */
  RECONNECTED(ZklNativeConstants.ZKL_SESSION_RECONNECTED),
  /** Expired, or disconnected past the client-side deadline; a new session is being set up. */
  LOST(ZklNativeConstants.ZKL_SESSION_LOST),
  CLOSED(ZklNativeConstants.ZKL_SESSION_CLOSED),
  AUTH_FAILED(ZklNativeConstants.ZKL_SESSION_AUTH_FAILED);

  final int code;

  SessionState(int code) {
    this.code = code;
  }

  static SessionState of(int code) {
    for (SessionState s : values()) {
      if (s.code == code) return s;
    }
    throw new IllegalArgumentException("unknown session state " + code);
  }
}
