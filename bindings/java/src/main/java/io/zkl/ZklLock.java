package io.zkl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lock handle of any kind (fair, reentrant, non-fair, read, write,
 * semaphore) on one path. Cheap; use one per concurrent contender.
 *
 * <p>Owners: every acquisition is made by a 64-bit owner token. The methods
 * without one use {@link #DEFAULT_OWNER} ({@code ZKL_DEFAULT_OWNER}): the
 * handle itself is the owner, so any thread may release what another
 * acquired. Pass explicit tokens to tell owners apart on one handle (a
 * handle is held by at most one owner at a time: {@link BusyException}).
 *
 * <p>Timeouts: {@code null} or negative waits forever, zero tries once
 * (held by someone else: {@link ZklTimeoutException} at once, no node left),
 * positive waits at most that long. Interrupting a thread blocked in
 * {@link #acquire} cancels the acquire (AcquireCanceledException, the
 * interrupt flag stays set).
 *
 * <p>Lifetime: a handle stays registered with its client until
 * {@link #close()} (or the client's close), so dropping the last reference
 * to a held lock never releases it behind your back — the garbage collector
 * does not touch it. {@link #close()} releases (or cancels) and frees it.
 */
public final class ZklLock extends Holder<ZklLock, LockListener, LockKind> {
  /** The owner used when none is named ({@code ZKL_DEFAULT_OWNER}). */
  public static final long DEFAULT_OWNER = ZklNativeConstants.ZKL_DEFAULT_OWNER;

  private final int maxLeases;
  private final int leases;
  /** Async acquires waiting for their ACQUIRED / ACQUIRE_FAILED event, by request id. */
  private final PendingCalls<AcquireFuture> acquires = new PendingCalls<>();
  /** Async releases waiting for their RELEASED event, by request id. */
  private final PendingCalls<CompletableFuture<Void>> releases = new PendingCalls<>();
  /** Guarded writes waiting for their WRITTEN event, by request id. */
  private final GuardedWrites writes = new GuardedWrites();

  ZklLock(ZklClient client, String path, LockKind kind, int maxLeases, int leases) {
    super(client, path, kind);
    this.maxLeases = maxLeases;
    this.leases = leases;
  }

  /** The lease count of a semaphore (1 for the other kinds). */
  public int maxLeases() {
    return maxLeases;
  }

  /** Leases taken per acquisition (semaphore; 1 otherwise). */
  public int leases() {
    return leases;
  }

  public ZklClient client() {
    return client;
  }

  @Override
  String what() {
    return named("lock");
  }

  // ---------------------------------------------------------------------------
  // Acquire
  // ---------------------------------------------------------------------------

  /** Waits as long as it takes ({@link #DEFAULT_OWNER}). */
  public Hold acquire() {
    return acquire(DEFAULT_OWNER, null);
  }

  /** Waits up to {@code timeout}: ZklTimeoutException when it passes. */
  public Hold acquire(Duration timeout) {
    return acquire(DEFAULT_OWNER, timeout);
  }

  /**
   * Acquires for {@code owner}, waiting up to {@code timeout} (null =
   * forever). ZklTimeoutException when the time passes, DeadlockException
   * when a non-reentrant lock is already held by {@code owner},
   * BusyException when another owner holds or acquires this handle,
   * AcquireCanceledException when {@link #cancel()} is called meanwhile or
   * the thread is interrupted. On any failure no node is left behind.
   */
  public Hold acquire(long owner, Duration timeout) {
    long ms = Util.millis(timeout);
    if (client.isDispatcherThread()) {
      // Inside a listener: nobody else would deliver an async result.
      ZklException.check(ZklNative.zkl_lock_acquire(h(), owner, ms), "acquire " + path);
      return new Hold(this, owner, tokenOfNewHold());
    }
    AcquireFuture f = acquireAsync(owner, timeout);
    try {
      // libzkl's own timer ends the acquire; the margin only bounds the wait
      // should its event never come.
      if (ms < 0) {
        return f.get();
      }
      return f.get(ms + 30_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (f.cancel(true)) {
        AcquireCanceledException x = new AcquireCanceledException("acquire " + path + ": interrupted");
        x.initCause(e);
        throw x;
      }
      return f.join();  // granted (or failed) just before the interrupt; the flag stays set
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ZklException) throw ZklException.copyOf((ZklException) e.getCause());
      throw new CompletionException(e.getCause());
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new ZklTimeoutException("acquire " + path + ": no answer from libzkl");
    }
  }

  /**
   * Acquires without waiting (one round trip): empty when another holder is
   * in the way (its node is removed again).
   */
  public Optional<Hold> tryAcquire() {
    return tryAcquire(DEFAULT_OWNER);
  }

  /** As {@link #tryAcquire()}, for {@code owner}. */
  public Optional<Hold> tryAcquire(long owner) {
    int rc = ZklNative.zkl_lock_try_acquire(h(), owner);
    if (rc == ZklNativeConstants.ZKL_EAGAIN) return Optional.empty();
    ZklException.check(rc, "try-acquire " + path);
    return Optional.of(new Hold(this, owner, tokenOfNewHold()));
  }

  /** Acquires without waiting; {@link WouldBlockException} (EAGAIN) when another holder is in the way. */
  public Hold tryAcquireOrThrow(long owner) {
    ZklException.check(ZklNative.zkl_lock_try_acquire(h(), owner), "try-acquire " + path);
    return new Hold(this, owner, tokenOfNewHold());
  }

  private FencingToken tokenOfNewHold() {
    long[] out = new long[1];
    int rc = ZklNative.zkl_lock_fencing_token(h(), out);
    if (rc == ZklNativeConstants.ZKL_ENOTHELD) {
      throw new LockLostException(ZklNativeConstants.ZKL_ELOST, "lock " + path + " lost right after acquiring");
    }
    ZklException.check(rc, "fencing token of " + path);
    return new FencingToken(out[0]);
  }

  /** Starts an acquire ({@link #DEFAULT_OWNER}). */
  public AcquireFuture acquireAsync(Duration timeout) {
    return acquireAsync(DEFAULT_OWNER, timeout);
  }

  /**
   * Starts an acquire for {@code owner} and returns at once. The future
   * completes on the client's dispatcher thread with the Hold, or
   * exceptionally; {@code cancel(true)} cancels the acquire and leaves no node.
   */
  public AcquireFuture acquireAsync(long owner, Duration timeout) {
    return acquires.start(new AcquireFuture(this, owner),
        () -> ZklNative.zkl_lock_acquire_async(h(), owner, Util.millis(timeout)), "acquire " + path);
  }

  /**
   * A future gave up (cancel): if its acquire is the one pending on this
   * handle, cancel it in libzkl (its node is deleted). If libzkl had
   * already granted it, its ACQUIRED event is still to come and the hold is
   * released then.
   */
  void abandon(AcquireFuture f) {
    acquires.cancel(f, () -> {
      if (!closed.get()) ZklNative.zkl_lock_cancel(handle);
    });
  }

  /**
   * Cancels a pending acquire (blocking or async) on this handle: it fails
   * with AcquireCanceledException and its node is deleted. NotHeldException
   * when none is pending.
   */
  public void cancel() {
    ZklException.check(ZklNative.zkl_lock_cancel(h()), "cancel " + path);
  }

  // ---------------------------------------------------------------------------
  // Release
  // ---------------------------------------------------------------------------

  /** Releases one hold of {@link #DEFAULT_OWNER}. */
  public void release() {
    release(DEFAULT_OWNER);
  }

  /**
   * Releases one hold by {@code owner}; the last one deletes the node and
   * returns once the server confirmed it. NotHeldException when not held
   * (also a second release), NotOwnerException for another owner,
   * LockLostException (once) when the lock had been lost.
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
   * completes when the delete is confirmed (as soon as the dispatcher
   * delivers its answer when other holds of a reentrant lock remain). An
   * acquire on this handle after this call goes out after the delete.
   */
  public CompletableFuture<Void> releaseAsync(long owner) {
    return releases.start(new CompletableFuture<>(), () -> ZklNative.zkl_lock_release_async(h(), owner),
        "release " + path);
  }

  public CompletableFuture<Void> releaseAsync() {
    return releaseAsync(DEFAULT_OWNER);
  }

  // ---------------------------------------------------------------------------
  // Guarded writes
  // ---------------------------------------------------------------------------

  /** {@link #write(long, Ops)} for {@link #DEFAULT_OWNER}. */
  public WriteResult write(Ops ops) {
    return write(DEFAULT_OWNER, ops);
  }

  /**
   * Runs {@code ops} guarded by {@code owner}'s hold of this lock, all or
   * nothing, in one ZooKeeper multi behind a check that the holder's node
   * still exists, and returns once the server answered (one round trip).
   * On an exception nothing was applied: NotHeldException /
   * NotOwnerException (not held, by this owner), LockLostException (the
   * hold is gone at the quorum), SessionLostException, NodeExistsException,
   * BadVersionException, NotFoundException, NotEmptyException,
   * AuthException (an operation failed:
   * {@link ZklException#failedOperation()} says which), BadPathException
   * (an operation outside the lock's tree), BusyException (a member of a
   * multi-lock). WriteInDoubtException when the connection broke while the
   * write was in flight: it may have been applied (read back before
   * retrying). A write never retries itself.
   */
  public WriteResult write(long owner, Ops ops) {
    return GuardedWrites.blocking(ops, "write " + path, o -> ZklNative.zkl_lock_write(h(), owner, o));
  }

  /** {@link #writeAsync(long, Ops)} for {@link #DEFAULT_OWNER}. */
  public CompletableFuture<WriteResult> writeAsync(Ops ops) {
    return writeAsync(DEFAULT_OWNER, ops);
  }

  /**
   * Sends the write of {@link #write(long, Ops)} and returns at once: the
   * future completes on the client's dispatcher thread with the results, or
   * exceptionally as the blocking form throws (errors found before sending
   * included). Its answer is matched by the request id libzkl gave the
   * write. Cancelling the future does not take the write back.
   */
  public CompletableFuture<WriteResult> writeAsync(long owner, Ops ops) {
    return writes.start(ops, "write " + path, o -> ZklNative.zkl_lock_write_async(h(), owner, o));
  }

  // ---------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------

  /**
   * True only while held and provably valid at this instant (computed from
   * the monotonic clock: false while suspended, after a freeze past the
   * safety bound, after close). Never throws.
   */
  public boolean isHeld() {
    if (closed.get()) return false;
    return ZklNative.zkl_lock_is_held(handle) == 1;
  }

  /**
   * The lease: how long from now the hold stays provably valid even if the
   * server is never heard from again ({@link Duration#ZERO} when not held,
   * suspended or closed). Check it before a write, or hand it to the work as
   * its deadline; pass the fencing token to the resource either way.
   */
  public Duration validFor() {
    return leaseOf(ZklNative::zkl_lock_valid_for);
  }

  /** Fencing token of the current hold; NotHeldException when not held. */
  public FencingToken fencingToken() {
    return tokenOf(ZklNative::zkl_lock_fencing_token, "fencing token of " + path);
  }

  /** Current hold count (0 when not held). */
  public int holdCount() {
    if (closed.get()) return 0;
    int rc = ZklNative.zkl_lock_hold_count(handle);
    return Math.max(rc, 0);
  }

  /** This handle's statistics as JSON (its entry of {@link ZklClient#stats()}). */
  public String stats() {
    byte[][] out = new byte[1][];
    ZklException.check(ZklNative.zkl_lock_stats(h(), out), "statistics of " + path);
    return new String(out[0], StandardCharsets.UTF_8);
  }

  public boolean isClosed() {
    return closed.get();
  }

  // ---------------------------------------------------------------------------
  // Events (on the dispatcher thread)
  // ---------------------------------------------------------------------------

  @Override
  public void onEvent(Event e) {
    if (closed.get() || tellHolderEvent(e, "lock", "lock " + path + " lost")) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ACQUIRED: {
        AcquireFuture f = acquires.take(e.requestId);
        if (f != null && !f.granted(e.token()) && !closed.get()) {
          // Cancelled after libzkl granted it: give that hold back (its
          // RELEASED answers no future).
          ZklNative.zkl_lock_release_async(handle, f.owner());
        }
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED: {
        AcquireFuture f = acquires.take(e.requestId);
        if (f != null) f.failed(ZklException.of(e.error, "acquire " + path));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_WRITTEN:
        writes.answer(e, "write " + path);
        break;
      case ZklNativeConstants.ZKL_EVENT_RELEASED: {
        CompletableFuture<Void> r = releases.take(e.requestId);
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


  /** Its multi-lock destroyed the native handle: only mark this one closed. */
  void detach() {
    markClosed();
  }

  @Override
  void destroy() {
    ZklNative.zkl_lock_destroy(handle);
  }

  @Override
  void ended(ClosedException e) {
    for (AcquireFuture f : acquires.takeAll()) f.failed(e);
    writes.fail(e);
    for (CompletableFuture<Void> r : releases.takeAll()) r.complete(null);  // the destroy deletes the node
  }

  @Override
  public String toString() {
    return "ZklLock[" + what() + (closed.get() ? ", closed" : "") + "]";
  }
}
