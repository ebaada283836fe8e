package io.zkl;

/** Election events; runs on the client's dispatcher thread (see {@link ZklClient}). */
public interface ElectionListener {
  /** This participant leads. */
  default void onElected(ZklElection election, FencingToken term) {}

  /** Joined; another participant leads. */
  default void onNotElected(ZklElection election) {}

  /** Disconnected: leadership MAY be lost; stop acting as leader until restored. */
  default void onSuspended(ZklElection election) {}

  /** Heard from the same session in time: leader again (same term). */
  default void onRestored(ZklElection election, FencingToken term) {}

  /**
   * Leadership is lost (error as for {@link LockListener#onLost}); after a
   * session loss the participant rejoins by itself until it resigns.
   */
  default void onLost(ZklElection election, ZklException cause) {}

  /** Someone asked this leader to let go (only with {@link OnRevoke#NOTIFY} or RELEASE). */
  default void onRevokeRequested(ZklElection election, FencingToken term) {}
}
