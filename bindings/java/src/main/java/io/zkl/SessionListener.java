package io.zkl;

/** Session state changes; runs on the thread that dispatches the client's events. */
@FunctionalInterface
public interface SessionListener {
  void onSessionState(ZklClient client, SessionState state);
}
