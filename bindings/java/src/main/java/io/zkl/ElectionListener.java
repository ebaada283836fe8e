package io.zkl;

/** Election events; runs on the thread that dispatches the client's events. */
public interface ElectionListener {
  /** This participant leads (also after a reconnect in time). */
  default void onElected(ZklElection election, long fencingToken) {}

  /** Joined; another participant leads. */
  default void onNotElected(ZklElection election) {}

  /** Disconnected: leadership MAY be lost. */
  default void onSuspended(ZklElection election) {}

  /** Leadership (or the place in line) is lost; the participant rejoins by itself. */
  default void onLost(ZklElection election, ZklException cause) {}
}
