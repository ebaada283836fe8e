package io.zkl;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Watches the leader of an election without taking part. {@link #leader()}
 * and {@link #term()} answer from libzkl's current knowledge; listeners hear
 * every change (LEADER_CHANGED with id and term, NO_LEADER as empty) on the
 * client's dispatcher thread.
 */
public final class ZklObserver extends OnPath<ZklObserver, LeaderListener, ElectionKind> {

  ZklObserver(ZklClient client, String path, ElectionKind kind) {
    super(client, path, kind);
  }

  @Override
  String what() {
    return "observer of " + path;
  }

  /**
   * The current leader's participant id; empty when there is none (or not known yet). Throws the
   * CONNECTION {@link ZklException} while the view cannot be proven current (disconnected, or not
   * confirmed by the quorum in time).
   */
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
    tell("leader", l -> l.onLeaderChanged(this, leader, term));
  }


  @Override
  void destroy() {
    ZklNative.zkl_observer_destroy(handle);
  }

  @Override
  public String toString() {
    return "ZklObserver[" + path + (closed.get() ? ", closed" : "") + "]";
  }
}
