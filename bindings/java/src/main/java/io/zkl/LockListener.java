package io.zkl;

/**
 * What happens to a held lock. Runs on the client's dispatcher thread (see
 * {@link ZklClient}); keep it short and do not block there waiting for
 * another event of the same client.
 */
public interface LockListener {
  /** Disconnected, or not heard from the server for as long as is safe: the lock MAY be lost. */
  default void onSuspended(ZklLock lock) {}

  /** Heard from the same session in time: held again (same fencing token). */
  default void onRestored(ZklLock lock, FencingToken token) {}

  /**
   * The lock is lost: stop using it. {@code cause} says why:
   * {@link SessionLostException} (session expired or given up),
   * {@link ClosedException} (the client was closed while holding),
   * {@link LockLostException} (node deleted), {@link AuthException}, or a
   * ZklException with {@link ZklError#EMAXHOLD} / {@link ZklError#EREVOKED}.
   */
  default void onLost(ZklLock lock, ZklException cause) {}

  /** Someone asked this holder to let go (only with {@link OnRevoke#NOTIFY} or RELEASE). */
  default void onRevokeRequested(ZklLock lock, FencingToken token) {}
}
