package io.zkl;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One successful acquisition of a {@link ZklLock} (for a semaphore: its
 * leases; for a reentrant lock: one hold count). Closing it releases it, so
 * try-with-resources gives the lock back:
 *
 * <pre>{@code
 * try (Hold h = lock.acquire(Duration.ofSeconds(5))) {
 *   storage.write(data, h.fencingToken());
 * }
 * }</pre>
 *
 * A Hold may be closed from any thread (it releases with its own owner token).
 */
public final class Hold implements AutoCloseable {
  private final ZklLock lock;
  private final long owner;
  private final FencingToken fencingToken;
  private final AtomicBoolean released = new AtomicBoolean();

  Hold(ZklLock lock, long owner, FencingToken fencingToken) {
    this.lock = lock;
    this.owner = owner;
    this.fencingToken = fencingToken;
  }

  /**
   * The fencing token of this acquisition: strictly increasing (unsigned)
   * across successive holders of the path. Pass it to the resource you protect.
   */
  public FencingToken fencingToken() {
    return fencingToken;
  }

  /** The owner token the lock was acquired with. */
  public long owner() {
    return owner;
  }

  public ZklLock lock() {
    return lock;
  }

  /** Not yet released, and the lock is provably held at this instant. */
  public boolean isHeld() {
    return !released.get() && lock.isHeld();
  }

  /** How long the hold stays provably valid ({@link ZklLock#validFor()}); zero once released. */
  public Duration validFor() {
    return released.get() ? Duration.ZERO : lock.validFor();
  }

  /**
   * Releases this hold (once; later calls do nothing). Throws
   * {@link LockLostException} when the lock had been lost before the release:
   * what it protected may have been used by another holder meanwhile.
   * Nothing happens when the lock or its client is already closed (the loss
   * was reported to the listeners as such).
   */
  public void release() {
    if (!released.compareAndSet(false, true)) return;
    lock.releaseHold(owner);
  }

  /** Same as {@link #release()}. */
  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "Hold[" + lock.path() + ", token=" + fencingToken + ", owner=" + owner
        + (released.get() ? ", released" : "") + "]";
  }
}
