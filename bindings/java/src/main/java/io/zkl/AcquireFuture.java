package io.zkl;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The result of {@link ZklLock#acquireAsync}: completes with a {@link Hold},
 * or exceptionally with a ZklException (ZklTimeoutException, ClosedException,
 * ...), on the thread that dispatches the client's events. {@code get()} and
 * {@code join()} dispatch on the waiting thread (see {@link PumpingFuture}).
 *
 * <p>{@link #cancel(boolean)} cancels the acquire in libzkl: its node is
 * deleted. If the lock had just been granted (the event not yet dispatched),
 * that hold is released when the event is dispatched, so a cancelled future
 * never leaves the lock held.
 */
public final class AcquireFuture extends PumpingFuture<Hold> {
  private final ZklLock lock;
  private final long owner;
  private final AtomicBoolean settled = new AtomicBoolean();

  AcquireFuture(ZklLock lock, long owner) {
    super(lock.client);
    this.lock = lock;
    this.owner = owner;
  }

  public ZklLock lock() {
    return lock;
  }

  public long owner() {
    return owner;
  }

  /** ACQUIRED was dispatched. */
  boolean granted(long fencingToken) {
    if (!settled.compareAndSet(false, true)) return false;
    super.complete(new Hold(lock, owner, fencingToken));
    return true;
  }

  /** ACQUIRE_FAILED was dispatched, or the acquire could not start. */
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
