package io.zkl;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches the leader of an election without taking part. {@link #leader()}
 * answers from libzkl's current knowledge; listeners hear every change (when
 * the client's events are dispatched).
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

  @Override
  void onEvent(Event e) {
    if (closed.get() || e.type != ZklNativeConstants.ZKL_EVENT_LEADER_CHANGED) return;
    Optional<String> leader = e.data == null || e.data.length == 0
        ? Optional.empty() : Optional.of(new String(e.data, StandardCharsets.UTF_8));
    for (LeaderListener l : listeners) {
      try {
        l.onLeaderChanged(this, leader);
      } catch (RuntimeException ex) {
        System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl leader listener threw", ex);
      }
    }
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
