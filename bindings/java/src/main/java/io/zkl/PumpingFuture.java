package io.zkl;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A CompletableFuture whose blocking getters ({@link #get()}, {@link #join()},
 * ...) dispatch the client's events on the waiting thread, so that waiting on
 * it makes progress without a dispatcher thread. Dependent stages
 * ({@code thenApply}, ...) are plain CompletableFutures: they complete when
 * this one does, on the thread that dispatched the event.
 */
public class PumpingFuture<T> extends CompletableFuture<T> {
  final ZklClient client;

  PumpingFuture(ZklClient client) {
    this.client = client;
  }

  @Override
  public T get() throws InterruptedException, ExecutionException {
    client.awaitDone(this, -1);
    return super.get();
  }

  @Override
  public T get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (!client.awaitDone(this, Math.max(0, unit.toMillis(timeout)))) {
      throw new TimeoutException();
    }
    return super.get();
  }

  @Override
  public T join() {
    boolean interrupted = false;
    for (;;) {
      try {
        client.awaitDone(this, -1);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
    return super.join();
  }

  /**
   * Waits (dispatching) and returns the value, or throws the ZklException it
   * failed with (a copy, with this thread's stack); a cancelled future gives
   * AcquireCanceledException.
   */
  T result() {
    try {
      return join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof ZklException) throw ZklException.copyOf((ZklException) e.getCause());
      throw e;
    } catch (CancellationException e) {
      AcquireCanceledException x = new AcquireCanceledException("cancelled");
      x.initCause(e);
      throw x;
    }
  }
}
