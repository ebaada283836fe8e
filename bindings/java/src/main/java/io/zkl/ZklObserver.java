package io.zkl;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches the leader of an election without taking part. {@link #leader()}
 * and {@link #term()} answer from libzkl's current knowledge; listeners hear
 * every change (LEADER_CHANGED with id and term, NO_LEADER as empty) on the
 * client's dispatcher thread.
 */
public final class ZklObserver extends Target implements AutoCloseable {
  private final String path;
  private final ElectionKind kind;
  private final CopyOnWriteArrayList<LeaderListener> listeners = new CopyOnWriteArrayList<>();

  ZklObserver(ZklClient client, String path, ElectionKind kind) {
    super(client);
    this.path = path;
    this.kind = kind;
  }

  public String path() {
    return path;
  }

  public ElectionKind kind() {
    return kind;
  }

  @Override
  String what() {
    return "observer of " + path;
  }

  public ZklObserver addListener(LeaderListener l) {
    listeners.add(Objects.requireNonNull(l));
    return this;
  }

  public void removeListener(LeaderListener l) {
    listeners.remove(l);
  }

  /** The current leader's participant id; empty when there is none (or not known yet). */
  public Optional<String> leader() {
    byte[] buf = new byte[128];
    for (;;) {
      int rc = ZklNative.zkl_observer_leader(h(), buf);
      if (rc == ZklNativeConstants.ZKL_ENOTFOUND) return Optional.empty();
      ZklException.check(rc, "leader of " + path);
      if (rc < buf.length) return Optional.of(new String(buf, 0, rc, StandardCharsets.UTF_8));
      buf = new byte[rc + 1];
    }
  }

  /** The current leader's term (its fencing token); empty when there is no leader. */
  public Optional<FencingToken> term() {
    long[] out = new long[1];
    int rc = ZklNative.zkl_observer_term(h(), out);
    if (rc == ZklNativeConstants.ZKL_ENOTFOUND) return Optional.empty();
    ZklException.check(rc, "term of " + path);
    return Optional.of(new FencingToken(out[0]));
  }

  @Override
  public void onEvent(Event e) {
    if (closed.get()) return;
    Optional<String> leader;
    Optional<FencingToken> term;
    if (e.type == ZklNativeConstants.ZKL_EVENT_LEADER_CHANGED) {
      leader = Optional.of(e.data == null ? "" : new String(e.data, StandardCharsets.UTF_8));
      term = Optional.of(e.token());
    } else if (e.type == ZklNativeConstants.ZKL_EVENT_NO_LEADER) {
      leader = Optional.empty();
      term = Optional.empty();
    } else {
      return;
    }
    for (LeaderListener l : listeners) call("leader", () -> l.onLeaderChanged(this, leader, term));
  }

  /** Stops watching and frees the handle. Idempotent. */
  @Override
  public void close() {
    end();
  }

  @Override
  void clientClosed(ClosedException e) {
    end();
  }

  private void end() {
    if (!closed.compareAndSet(false, true)) return;
    client.unregister(this);
    ZklNative.zkl_observer_destroy(handle);
  }

  @Override
  public String toString() {
    return "ZklObserver[" + path + (closed.get() ? ", closed" : "") + "]";
  }
}
