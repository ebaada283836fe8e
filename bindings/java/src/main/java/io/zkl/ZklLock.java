package io.zkl;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A lock handle of any kind (fair, reentrant, non-fair, read, write,
 * semaphore) on one path. Cheap; use one per concurrent contender.
 *
 * <p>Owners: every acquisition is made by a 64-bit owner token. The methods
 * without one use the current thread's id, so a reentrant lock behaves like
 * {@link java.util.concurrent.locks.ReentrantLock}; pass explicit tokens to
 * acquire on one thread and release on another (or just close the
 * {@link Hold}, which remembers its owner). A handle is held by at most one
 * owner at a time ({@link BusyException} otherwise).
 *
 * <p>Timeouts: {@code null} or negative waits forever, zero does not wait.
 *
 * <p>{@link #close()} releases (or cancels) and frees the handle.
 */
public final class ZklLock extends Target implements AutoCloseable {
  private final String path;
  private final LockKind kind;
  private final int maxLeases;
  /** Async acquires in the order libzkl answers them (one event each). */
  private final ArrayDeque<AcquireFuture> pending = new ArrayDeque<>();
  /** Async releases waiting for their RELEASED event. */
  private final ArrayDeque<CompletableFuture<Void>> releasing = new ArrayDeque<>();
  private final CopyOnWriteArrayList<LockListener> listeners = new CopyOnWriteArrayList<>();

  ZklLock(ZklClient client, String path, LockKind kind, int maxLeases) {
    super(client);
    this.path = path;
    this.kind = kind;
    this.maxLeases = maxLeases;
  }

  public String path() {
    return path;
  }

  public LockKind kind() {
    return kind;
  }

  /** The lease count of a semaphore (1 for the other kinds). */
  public int maxLeases() {
    return maxLeases;
  }

  public ZklClient client() {
    return client;
  }

  @Override
  String what() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " lock " + path;
  }

  /** The owner token of the calling thread: its thread id. */
  public static long currentThreadOwner() {
    @SuppressWarnings("deprecation")
    long id = Thread.currentThread().getId();
    return id;
  }

  public ZklLock addListener(LockListener l) {
    listeners.add(Objects.requireNonNull(l));
    return this;
  }

  public void removeListener(LockListener l) {
    listeners.remove(l);
  }

  // ---------------------------------------------------------------------------
  // Acquire
  // ---------------------------------------------------------------------------

  /** Waits as long as it takes (the calling thread's owner token). */
  public Hold acquire() {
    return acquire(currentThreadOwner(), null);
  }

  /** Waits up to {@code timeout}: ZklTimeoutException when it passes. */
  public Hold acquire(Duration timeout) {
    return acquire(currentThreadOwner(), timeout);
  }

  /**
   * Acquires for {@code owner}, waiting up to {@code timeout} (null =
   * forever) and dispatching the client's events on this thread meanwhile.
   * ZklTimeoutException when the time passes, DeadlockException when a
   * non-reentrant lock is already held by {@code owner}, BusyException when
   * another owner holds or acquires this handle. An interrupt cancels the
   * acquire (AcquireCanceledException, interrupt flag kept). On any failure
   * no node is left behind.
   */
  public Hold acquire(long owner, Duration timeout) {
    AcquireFuture f = acquireAsync(owner, timeout);
    long ms = Util.millis(timeout);
    try {
      // libzkl's own timer ends the acquire; the margin only bounds the wait
      // should its event never come.
      if (!client.awaitDone(f, ms < 0 ? -1 : ms + 30_000) && f.cancel(true)) {
        throw new ZklTimeoutException("acquire " + path + ": no answer from libzkl");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (f.cancel(true)) {
        AcquireCanceledException x = new AcquireCanceledException("acquire " + path + ": interrupted");
        x.initCause(e);
        throw x;
      }
      // Granted just before the interrupt: return the hold (flag stays set).
    }
    return f.result();
  }

  /**
   * Acquires without waiting (one round trip): empty when another holder is
   * in the way (its node is removed again).
   */
  public Optional<Hold> tryAcquire() {
    return tryAcquire(currentThreadOwner());
  }

  public Optional<Hold> tryAcquire(long owner) {
    int rc = ZklNative.zkl_lock_try_acquire(h(), owner);
    if (rc == ZklNativeConstants.ZKL_EAGAIN) return Optional.empty();
    ZklException.check(rc, "try-acquire " + path);
    return Optional.of(new Hold(this, owner, tokenOfNewHold()));
  }

  private long tokenOfNewHold() {
    long[] out = new long[1];
    int rc = ZklNative.zkl_lock_fencing_token(h(), out);
    if (rc == ZklNativeConstants.ZKL_ENOTHELD) {
      throw new LockLostException(ZklNativeConstants.ZKL_ELOST, "lock " + path + " lost right after acquiring");
    }
    ZklException.check(rc, "fencing token of " + path);
    return out[0];
  }

  /** Starts an acquire with the calling thread's owner token. */
  public AcquireFuture acquireAsync(Duration timeout) {
    return acquireAsync(currentThreadOwner(), timeout);
  }

  /**
   * Starts an acquire for {@code owner} and returns at once. The future
   * completes (when events are dispatched) with the Hold, or exceptionally;
   * {@code cancel(true)} cancels the acquire and leaves no node. (While the
   * client has no session yet, this first waits for it, within the timeout:
   * a work-around for a libzkl 0.1.0 bug, see ZklClient.)
   */
  public AcquireFuture acquireAsync(long owner, Duration timeout) {
    AcquireFuture f = new AcquireFuture(this, owner);
    long ms;
    try {
      ms = client.awaitSessionBeforeSubmit(Util.millis(timeout));
    } catch (ZklException e) {
      f.failed(e);
      return f;
    }
    synchronized (pending) {
      int rc;
      try {
        rc = ZklNative.zkl_lock_acquire_async(h(), owner, ms);
      } catch (ZklException e) {
        f.failed(e);
        return f;
      }
      if (rc < 0) {
        f.failed(ZklException.of(rc, "acquire " + path));
      } else {
        pending.addLast(f);
      }
    }
    return f;
  }

  /**
   * A future gave up (cancel): if it is the newest request, cancel it in
   * libzkl (its node is deleted). If libzkl had already granted it, its
   * ACQUIRED event is still to be dispatched and the hold is released then
   * (see onEvent): events answer requests in order, so this is exact even
   * with reentrant holds of the same owner.
   */
  void abandon(AcquireFuture f) {
    synchronized (pending) {
      if (closed.get() || pending.peekLast() != f) return;
      ZklNative.zkl_lock_cancel(handle);
    }
  }

  // ---------------------------------------------------------------------------
  // Release
  // ---------------------------------------------------------------------------

  /** Releases one hold of the calling thread's owner token. */
  public void release() {
    release(currentThreadOwner());
  }

  /**
   * Releases one hold by {@code owner}; the last one deletes the node and
   * returns once the server confirmed it. NotHeldException when not held,
   * NotOwnerException for another owner, LockLostException (once) when the
   * lock had been lost.
   */
  public void release(long owner) {
    ZklException.check(ZklNative.zkl_lock_release(h(), owner), "release " + path);
  }

  /** Hold.release(): lost/not held become LockLostException; closed is a no-op. */
  void releaseHold(long owner) {
    if (closed.get() || client.isClosed()) return;
    int rc = ZklNative.zkl_lock_release(handle, owner);
    if (rc == ZklNativeConstants.ZKL_ELOST || rc == ZklNativeConstants.ZKL_ENOTHELD) {
      throw new LockLostException(ZklNativeConstants.ZKL_ELOST,
          "release " + path + ": the hold had been lost before it was released");
    }
    if (rc == ZklNativeConstants.ZKL_EBADHANDLE || rc == ZklNativeConstants.ZKL_ECLOSED) return;
    ZklException.check(rc, "release " + path);
  }

  /**
   * Releases one hold without waiting for the server: the returned future
   * completes when the delete is confirmed (at once when other holds of a
   * reentrant lock remain). An acquire on the same client after this call
   * is ordered after the delete by ZooKeeper.
   */
  public CompletableFuture<Void> releaseAsync(long owner) {
    PumpingFuture<Void> r = new PumpingFuture<>(client);
    synchronized (releasing) {
      try {
        long h = h();
        int before = ZklNative.zkl_lock_hold_count(h);
        int rc = ZklNative.zkl_lock_release_async(h, owner);
        if (rc < 0) {
          r.completeExceptionally(ZklException.of(rc, "release " + path));
        } else if (before > 1) {
          r.complete(null);
        } else {
          releasing.addLast(r);
        }
      } catch (ZklException e) {
        r.completeExceptionally(e);
      }
    }
    return r;
  }

  public CompletableFuture<Void> releaseAsync() {
    return releaseAsync(currentThreadOwner());
  }

  // ---------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------

  /** True only while held and the session is known to be good (never while suspended). */
  public boolean isHeld() {
    if (closed.get()) return false;
    return ZklNative.zkl_lock_is_held(handle) == 1;
  }

  /** Fencing token of the current hold; NotHeldException when not held. */
  public long fencingToken() {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_lock_fencing_token(h(), out), "fencing token of " + path);
    return out[0];
  }

  /** Current hold count (0 when not held). */
  public int holdCount() {
    if (closed.get()) return 0;
    int rc = ZklNative.zkl_lock_hold_count(handle);
    return Math.max(rc, 0);
  }

  public boolean isClosed() {
    return closed.get();
  }

  // ---------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------

  @Override
  void onEvent(Event e) {
    if (closed.get()) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ACQUIRED: {
        AcquireFuture f;
        synchronized (pending) {
          f = pending.pollFirst();
        }
        if (f != null && !f.granted(e.fencingToken) && !closed.get()) {
          // Cancelled after libzkl granted it: give that hold back.
          ZklNative.zkl_lock_release(handle, f.owner());
        }
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED: {
        AcquireFuture f;
        synchronized (pending) {
          f = pending.pollFirst();
        }
        if (f != null) f.failed(ZklException.of(e.error, "acquire " + path));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_SUSPENDED:
        for (LockListener l : listeners) call(() -> l.onSuspended(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_RESTORED:
        for (LockListener l : listeners) call(() -> l.onRestored(this, e.fencingToken));
        break;
      case ZklNativeConstants.ZKL_EVENT_LOST: {
        ZklException cause = ZklException.of(e.error == 0 ? ZklNativeConstants.ZKL_ELOST : e.error,
            "lock " + path + " lost");
        for (LockListener l : listeners) call(() -> l.onLost(this, cause));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_RELEASED: {
        CompletableFuture<Void> r;
        synchronized (releasing) {
          r = releasing.pollFirst();
        }
        if (r != null) {
          if (e.error == 0) {
            r.complete(null);
          } else {
            r.completeExceptionally(ZklException.of(e.error, "release " + path));
          }
        }
        break;
      }
      default:
        break;
    }
  }

  private static void call(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException ex) {
      System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl lock listener threw", ex);
    }
  }

  // ---------------------------------------------------------------------------
  // Close
  // ---------------------------------------------------------------------------

  /**
   * Releases (if held) or cancels (if acquiring) and frees the handle; the
   * node is deleted in the background. Pending futures fail with
   * ClosedException. Idempotent.
   */
  @Override
  public void close() {
    end(new ClosedException(what() + " closed"));
  }

  @Override
  void clientClosed(ClosedException e) {
    end(e);
  }

  private void end(ClosedException e) {
    if (!closed.compareAndSet(false, true)) return;
    client.unregister(this);
    ZklNative.zkl_lock_destroy(handle);
    List<AcquireFuture> fs;
    List<CompletableFuture<Void>> rs;
    synchronized (pending) {
      fs = new ArrayList<>(pending);
      pending.clear();
    }
    synchronized (releasing) {
      rs = new ArrayList<>(releasing);
      releasing.clear();
    }
    for (AcquireFuture f : fs) f.failed(e);
    for (CompletableFuture<Void> r : rs) r.complete(null);  // the destroy deletes the node
  }

  @Override
  public String toString() {
    return "ZklLock[" + what() + (closed.get() ? ", closed" : "") + "]";
  }
}
