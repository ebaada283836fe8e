package io.zkl;

/**
 * What happens to a held lock. Runs on the thread that dispatches the
 * client's events (see {@link ZklClient}); keep it short.
 */
public interface LockListener {
  /** Disconnected: the lock MAY be lost; stop relying on it until restored. */
  default void onSuspended(ZklLock lock) {}

  /** Reconnected in time: held again (same fencing token). */
  default void onRestored(ZklLock lock, long fencingToken) {}

  /**
   * The lock is lost: stop using it. {@code cause} is a
   * {@link SessionLostException} (session expired or past the client-side
   * deadline), a {@link LockLostException} (node deleted) or an
   * {@link AuthException}.
   */
  default void onLost(ZklLock lock, ZklException cause) {}
}
