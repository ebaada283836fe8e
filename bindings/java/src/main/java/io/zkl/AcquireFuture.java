package io.zkl;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The result of {@link ZklLock#acquireAsync}: completes with a {@link Hold},
 * or exceptionally with a ZklException (ZklTimeoutException, ClosedException,
 * ...), on the client's dispatcher thread.
 *
 * <p>{@link #cancel(boolean)} cancels the acquire in libzkl: its node is
 * deleted. If the lock had just been granted (the event not yet delivered),
 * that hold is released when the event arrives, so a cancelled future never
 * leaves the lock held.
 */
public final class AcquireFuture extends CompletableFuture<Hold> {
  private final ZklLock lock;
  private final long owner;
  private final AtomicBoolean settled = new AtomicBoolean();

  AcquireFuture(ZklLock lock, long owner) {
    this.lock = lock;
    this.owner = owner;
  }

  public ZklLock lock() {
    return lock;
  }

  public long owner() {
    return owner;
  }

  /** ACQUIRED was delivered. */
  boolean granted(FencingToken token) {
    if (!settled.compareAndSet(false, true)) return false;
    super.complete(new Hold(lock, owner, token));
    return true;
  }

  /** ACQUIRE_FAILED was delivered, or the acquire could not start. */
  void failed(ZklException e) {
    if (settled.compareAndSet(false, true)) super.completeExceptionally(e);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    if (!settled.compareAndSet(false, true)) return false;
    lock.abandon(this);
    return super.cancel(mayInterruptIfRunning);
  }

  /** Completing it from outside abandons the acquire, as cancel does. */
  @Override
  public boolean completeExceptionally(Throwable ex) {
    if (!settled.compareAndSet(false, true)) return false;
    lock.abandon(this);
    return super.completeExceptionally(ex);
  }

  /** Not supported: a Hold comes only from libzkl. */
  @Override
  public boolean complete(Hold value) {
    throw new UnsupportedOperationException("an AcquireFuture is completed by libzkl only");
  }
}
