package io.zkl;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongToIntFunction;

/**
 * A handle's guarded writes: the blocking call, and the asynchronous ones
 * waiting for their WRITTEN event, matched by the request id libzkl
 * returned for each (never by order).
 */
final class GuardedWrites {
  private final PendingCalls<CompletableFuture<WriteResult>> pending = new PendingCalls<>();

  /** A blocking zkl_*_write call on {@code ops}: its results, or its exception. */
  static WriteResult blocking(Ops ops, String what, LongToIntFunction call) {
    long h = ops.toNative(what);
    try {
      int rc = call.applyAsInt(h);
      WriteResult r = WriteResult.ofNative(h);
      if (rc < 0) throw ZklException.of(rc, what).failedAt(r.failed());
      return r;
    } finally {
      ZklNative.zkl_ops_free(h);
    }
  }

  /**
   * Sends a write with {@code send} (a zkl_*_write_async call: a request id
   * or an error code) and returns the future its event completes. The id is
   * registered before the dispatcher can look for it.
   */
  CompletableFuture<WriteResult> start(Ops ops, String what, LongToIntFunction send) {
    CompletableFuture<WriteResult> f = new CompletableFuture<>();
    long h;
    try {
      h = ops.toNative(what);
    } catch (ZklException e) {
      f.completeExceptionally(e);
      return f;
    }
    try {
      return pending.start(f, () -> send.applyAsInt(h), what);
    } finally {
      ZklNative.zkl_ops_free(h);
    }
  }

  /** A WRITTEN event (dispatcher thread): completes the write it answers. */
  void answer(Event e, String what) {
    CompletableFuture<WriteResult> f = pending.take(e.requestId);
    if (f == null) return;
    WriteResult r = e.written != null ? e.written : new WriteResult(-1, new String[0], new int[0]);
    if (e.error < 0) {
      f.completeExceptionally(ZklException.of(e.error, what).failedAt(r.failed()));
    } else {
      f.complete(r);
    }
  }

  /** The handle was closed: its answers will not come. */
  void fail(ZklException e) {
    pending.failAll(e);
  }
}
