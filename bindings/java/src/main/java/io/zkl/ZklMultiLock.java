package io.zkl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Several locks taken all or none ({@code zkl_multilock_*}), made by
 * {@link ZklClient#multiLock}. Members are always taken in one canonical
 * order (by path), so overlapping multi-locks never deadlock; one deadline
 * covers them all; on timeout, cancel or the loss of a member every member
 * already taken is released. The multi-lock owns its member handles: only
 * their getters work while it lives, and {@link #close()} closes them too.
 * Owners and timeouts as on {@link ZklLock}.
 */
public final class ZklMultiLock extends ListenedTarget<ZklMultiLock, MultiLockListener> {
  private final List<ZklLock> members;
  /** Async acquires waiting for their ACQUIRED / ACQUIRE_FAILED event, by request id. */
  private final PendingCalls<CompletableFuture<Void>> acquires = new PendingCalls<>();
  private final GuardedWrites writes = new GuardedWrites();

  ZklMultiLock(ZklClient client, List<ZklLock> members) {
    super(client);
    this.members = List.copyOf(members);
  }

  @Override
  String what() {
    List<String> paths = new ArrayList<>();
    for (ZklLock l : members) paths.add(l.path());
    return "multi-lock " + paths;
  }

  /** The member handles (in the order given). */
  public List<ZklLock> members() {
    return members;
  }

  /** Acquires every member ({@link ZklLock#DEFAULT_OWNER}) within {@code timeout}. */
  public void acquire(Duration timeout) {
    acquire(ZklLock.DEFAULT_OWNER, timeout);
  }

  /** Acquires every member for {@code owner} within one deadline; on failure none is held. */
  public void acquire(long owner, Duration timeout) {
    ZklException.check(ZklNative.zkl_multilock_acquire(h(), owner, Util.millis(timeout)), "acquire " + what());
  }

  /** All members now (true), or none (false). */
  public boolean tryAcquire() {
    return tryAcquire(ZklLock.DEFAULT_OWNER);
  }

  public boolean tryAcquire(long owner) {
    int rc = ZklNative.zkl_multilock_try_acquire(h(), owner);
    if (rc == ZklNativeConstants.ZKL_EAGAIN) return false;
    ZklException.check(rc, "try-acquire " + what());
    return true;
  }

  /** Starts an acquire; the future completes on the dispatcher thread. */
  public CompletableFuture<Void> acquireAsync(long owner, Duration timeout) {
    return acquires.start(new CompletableFuture<>(),
        () -> ZklNative.zkl_multilock_acquire_async(h(), owner, Util.millis(timeout)), "acquire " + what());
  }

  /** Cancels a pending acquire. NotHeldException when none is pending. */
  public void cancel() {
    ZklException.check(ZklNative.zkl_multilock_cancel(h()), "cancel " + what());
  }

  public void release() {
    release(ZklLock.DEFAULT_OWNER);
  }

  /** Releases every member. NotHeldException when not held. */
  public void release(long owner) {
    ZklException.check(ZklNative.zkl_multilock_release(h(), owner), "release " + what());
  }

  /** True while every member is held and provably valid. Never throws. */
  public boolean isHeld() {
    if (closed.get()) return false;
    return ZklNative.zkl_multilock_is_held(handle) == 1;
  }

  /** The smallest lease of the members ({@link Duration#ZERO} when not held). */
  public Duration validFor() {
    return leaseOf(ZklNative::zkl_multilock_valid_for);
  }

  /** {@link #write(long, Ops)} for {@link ZklLock#DEFAULT_OWNER}. */
  public WriteResult write(Ops ops) {
    return write(ZklLock.DEFAULT_OWNER, ops);
  }

  /**
   * Runs {@code ops} guarded by every member's node, held by {@code owner}
   * (see {@link ZklLock#write(long, Ops)}); the operations lie below any
   * member's path.
   */
  public WriteResult write(long owner, Ops ops) {
    return GuardedWrites.blocking(ops, "write " + what(), o -> ZklNative.zkl_multilock_write(h(), owner, o));
  }

  /** {@link #writeAsync(long, Ops)} for {@link ZklLock#DEFAULT_OWNER}. */
  public CompletableFuture<WriteResult> writeAsync(Ops ops) {
    return writeAsync(ZklLock.DEFAULT_OWNER, ops);
  }

  /** As {@link ZklLock#writeAsync(long, Ops)}, guarded by every member's node. */
  public CompletableFuture<WriteResult> writeAsync(long owner, Ops ops) {
    return writes.start(ops, "write " + what(), o -> ZklNative.zkl_multilock_write_async(h(), owner, o));
  }

  /** The fencing token of the member on {@code path}. */
  public FencingToken fencingToken(String path) {
    byte[] p = Util.path(path);
    return tokenOf((h, out) -> ZklNative.zkl_multilock_fencing_token(h, p, out), "fencing token of " + path);
  }

  @Override
  public void onEvent(Event e) {
    if (closed.get()) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ACQUIRED:
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED: {
        CompletableFuture<Void> f = acquires.take(e.requestId);
        if (f == null) break;
        if (e.type == ZklNativeConstants.ZKL_EVENT_ACQUIRED) {
          f.complete(null);
        } else {
          f.completeExceptionally(ZklException.of(e.error, "acquire " + what()));
        }
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_WRITTEN:
        writes.answer(e, "write " + what());
        break;
      case ZklNativeConstants.ZKL_EVENT_SUSPENDED:
        tell("multi-lock", l -> l.onSuspended(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_RESTORED:
        tell("multi-lock", l -> l.onRestored(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_LOST: {
        ZklException cause = lostCause(e, what() + " lost");
        tell("multi-lock", l -> l.onLost(this, cause));
        break;
      }
      default:
        break;
    }
  }


  @Override
  void destroy() {
    ZklNative.zkl_multilock_destroy(handle);
    for (ZklLock m : members) m.detach();
  }

  @Override
  void ended(ClosedException e) {
    acquires.failAll(e);
    writes.fail(e);
  }

  @Override
  public String toString() {
    return "ZklMultiLock[" + what() + (closed.get() ? ", closed" : "") + "]";
  }
}
