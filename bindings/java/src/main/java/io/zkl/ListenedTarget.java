package io.zkl;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What a lock, election, multi-lock and observer handle share: their
 * listeners, their close (idempotent: unregister, destroy the native
 * handle, then end what is pending) and the native getters that answer
 * through an out-parameter.
 *
 * @param <S> the handle's own type (what {@link #addListener} returns)
 * @param <L> its listener type
 */
abstract class ListenedTarget<S extends ListenedTarget<S, L>, L> extends Target implements AutoCloseable {
  final CopyOnWriteArrayList<L> listeners = new CopyOnWriteArrayList<>();

  /** A native getter with one long out-parameter ({@code zkl_*_valid_for}, {@code zkl_*_fencing_token}). */
  interface LongOut {
    int call(long handle, long[] out);
  }

  ListenedTarget(ZklClient client) {
    super(client);
  }

  /** Adds a listener; it is called on the client's dispatcher thread. */
  @SuppressWarnings("unchecked")
  public S addListener(L l) {
    listeners.add(Objects.requireNonNull(l));
    return (S) this;
  }

  public void removeListener(L l) {
    listeners.remove(l);
  }

  /** Calls {@code c} with every listener; what one throws is logged as a {@code kind} listener's. */
  final void tell(String kind, Consumer<L> c) {
    for (L l : listeners) call(kind, () -> c.accept(l));
  }

  /** The cause a LOST event carries (ELOST when it names none). */
  static ZklException lostCause(Event e, String message) {
    return ZklException.of(e.error == 0 ? ZklNativeConstants.ZKL_ELOST : e.error, message);
  }

  /** The lease {@code validFor} reads ({@link Duration#ZERO} when closed or not held). */
  final Duration leaseOf(LongOut validFor) {
    if (closed.get()) return Duration.ZERO;
    long[] ms = new long[1];
    int rc = validFor.call(handle, ms);
    return rc < 0 ? Duration.ZERO : Duration.ofMillis(ms[0]);
  }

  /** The fencing token {@code get} reads; its error (NotHeldException...) as an exception naming {@code what}. */
  final FencingToken tokenOf(LongOut get, String what) {
    long[] out = new long[1];
    ZklException.check(get.call(h(), out), what);
    return new FencingToken(out[0]);
  }

  /** Releases or cancels what this handle holds or waits for, and frees it. Idempotent. */
  @Override
  public void close() {
    end(new ClosedException(what() + " closed"));
  }

  @Override
  final void clientClosed(ClosedException e) {
    end(e);
  }

  /** Marks this handle closed and unregisters it; false when it already was. */
  final boolean markClosed() {
    if (!closed.compareAndSet(false, true)) return false;
    client.unregister(this);
    return true;
  }

  private void end(ClosedException e) {
    if (!markClosed()) return;
    destroy();
    ended(e);
  }

  /** Frees the native handle ({@code zkl_*_destroy}). */
  abstract void destroy();

  /** After the destroy: fail (or complete) what was pending with {@code e}. */
  void ended(ClosedException e) {}
}
