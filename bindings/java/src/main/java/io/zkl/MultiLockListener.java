package io.zkl;

/** What happens to a held multi-lock; runs on the client's dispatcher thread. */
public interface MultiLockListener {
  /** A member MAY be lost: stop relying on the multi-lock until restored. */
  default void onSuspended(ZklMultiLock lock) {}

  /** Heard from the same session in time: held again. */
  default void onRestored(ZklMultiLock lock) {}

  /** A member was lost: the whole is lost (the others are released). Causes as {@link LockListener#onLost}. */
  default void onLost(ZklMultiLock lock, ZklException cause) {}
}
