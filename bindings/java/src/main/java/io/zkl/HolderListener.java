package io.zkl;

/**
 * What a lock and an election participant report alike about what they hold
 * (the lock, or leadership). Runs on the client's dispatcher thread (see
 * {@link ZklClient}); keep it short and do not block there waiting for
 * another event of the same client.
 *
 * @param <H> the handle: {@link ZklLock} or {@link ZklElection}
 */
public interface HolderListener<H> {
  /**
   * Disconnected, or not heard from the server for as long as is safe: the
   * lock or leadership MAY be lost; stop relying on it until restored.
   */
  default void onSuspended(H holder) {}

  /** Heard from the same session in time: held (leader) again, same fencing token (term). */
  default void onRestored(H holder, FencingToken token) {}

  /**
   * Lost: stop using it. {@code cause} says why:
   * {@link SessionLostException} (session expired or given up),
   * {@link ClosedException} (the client was closed while holding),
   * {@link LockLostException} (node deleted), {@link AuthException}, or a
   * ZklException with {@link ZklError#EMAXHOLD} / {@link ZklError#EREVOKED}.
   * An election participant rejoins by itself after a session loss until it resigns.
   */
  default void onLost(H holder, ZklException cause) {}

  /** Someone asked this holder to let go (only with {@link OnRevoke#NOTIFY} or RELEASE). */
  default void onRevokeRequested(H holder, FencingToken token) {}
}
