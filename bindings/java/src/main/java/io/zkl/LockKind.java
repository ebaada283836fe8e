package io.zkl;

/** The lock recipes ({@code ZKL_LOCK_*}). */
public enum LockKind {
  /** FIFO mutex; Curator InterProcessMutex-compatible nodes. */
  FAIR(ZklNativeConstants.ZKL_LOCK_FAIR),
  /** FAIR with a hold count per owner token. */
  REENTRANT(ZklNativeConstants.ZKL_LOCK_REENTRANT),
  /** One ephemeral node; waiters race again when it goes (not FIFO). */
  NONFAIR(ZklNativeConstants.ZKL_LOCK_NONFAIR),
  /** Shared side of a read/write lock (Curator __READ__ nodes). */
  READ(ZklNativeConstants.ZKL_LOCK_READ),
  /** Exclusive side of a read/write lock (Curator __WRIT__ nodes). */
  WRITE(ZklNativeConstants.ZKL_LOCK_WRITE),
  /** One of N leases; see {@link ZklClient#semaphore}. */
  SEMAPHORE(ZklNativeConstants.ZKL_LOCK_SEMAPHORE);

  final int code;

  LockKind(int code) {
    this.code = code;
  }
}
