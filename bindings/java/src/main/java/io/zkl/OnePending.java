package io.zkl;

import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/** The one async request a handle may have in flight (a campaign, a multi-lock acquire). */
final class OnePending<T> {
  private CompletableFuture<T> pending;

  /**
   * Sends the request ({@code start} returns its rc) and keeps {@code f} to
   * be answered by its event, or fails {@code f} at once with {@code what}.
   */
  synchronized CompletableFuture<T> start(CompletableFuture<T> f, IntSupplier start, String what) {
    int rc = start.getAsInt();
    if (rc < 0) {
      f.completeExceptionally(ZklException.of(rc, what));
    } else {
      pending = f;
    }
    return f;
  }

  /** The pending request (null when none), no longer pending. */
  synchronized CompletableFuture<T> take() {
    CompletableFuture<T> f = pending;
    pending = null;
    return f;
  }

  void fail(Throwable e) {
    CompletableFuture<T> f = take();
    if (f != null) f.completeExceptionally(e);
  }
}
