package io.zkl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * A handle's asynchronous calls (acquires, campaigns, releases, guarded
 * writes) waiting for the event that answers them, matched by the request
 * id libzkl returned for each call and the event carries (never by order).
 *
 * @param <F> the future a call's answer completes
 */
final class PendingCalls<F extends CompletableFuture<?>> {
  private final Map<Long, F> waiting = new HashMap<>();
  /** The request id of the newest call started (0: none yet). */
  private long newest;

  /**
   * Makes a call with {@code send} (a zkl_*_async call: its request id, or
   * an error code) and registers {@code f} under the id, before the
   * dispatcher can look for it. {@code f} fails at once with the call's
   * error ({@code what} names it), a ClosedException for a closed handle
   * included.
   */
  F start(F f, IntSupplier send, String what) {
    int id;
    try {
      synchronized (this) {
        id = send.getAsInt();
        if (id > 0) {
          waiting.put((long) id, f);
          newest = id;
        }
      }
    } catch (ZklException e) {
      f.completeExceptionally(e);
      return f;
    }
    if (id < 0) f.completeExceptionally(ZklException.of(id, what));
    return f;
  }

  /** The call an event with request id {@code id} answers (null: none, e.g. id 0), no longer pending. */
  synchronized F take(long id) {
    return waiting.remove(id);
  }

  /**
   * Runs {@code cancel} (a zkl_*_cancel call) when {@code f} is the newest
   * call and still waits for its answer: the handle's pending call is then
   * f's, not a later one's. No call starts meanwhile.
   */
  synchronized void cancel(F f, Runnable cancel) {
    if (newest != 0 && waiting.get(newest) == f) cancel.run();
  }

  /** Every call still waiting, no longer pending (the handle was closed). */
  synchronized List<F> takeAll() {
    List<F> fs = new ArrayList<>(waiting.values());
    waiting.clear();
    return fs;
  }

  /** Fails every call still waiting with {@code e}. */
  void failAll(Throwable e) {
    for (F f : takeAll()) f.completeExceptionally(e);
  }
}
