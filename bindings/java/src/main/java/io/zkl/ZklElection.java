package io.zkl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A participant in a leader election, with the lock verbs of zkl.h:
 * {@link #campaign(Duration)} is {@code zkl_election_acquire} (join and wait
 * to be elected; on timeout or cancel it has LEFT the election again, as a
 * lock acquire leaves no node; returns at once when already leader),
 * {@link #tryCampaign()}, {@link #campaignAsync(Duration)}, {@link #cancel()}
 * and {@link #resign()} ({@code zkl_election_release}). Once elected, a
 * participant stays in the election until it resigns: after a loss it
 * rejoins by itself when the session is back (listeners hear NOT_ELECTED /
 * ELECTED). Events reach {@link ElectionListener}s on the client's
 * dispatcher thread.
 */
public final class ZklElection extends Target implements AutoCloseable {
  private final String path;
  private final String participantId;
  private final ElectionKind kind;
  private final Object lock = new Object();
  /** The pending async campaign, if any. */
  private CompletableFuture<FencingToken> pendingCampaign;
  private final CopyOnWriteArrayList<ElectionListener> listeners = new CopyOnWriteArrayList<>();

  ZklElection(ZklClient client, String path, String participantId, ElectionKind kind) {
    super(client);
    this.path = path;
    this.participantId = participantId;
    this.kind = kind;
  }

  public String path() {
    return path;
  }

  public String participantId() {
    return participantId;
  }

  public ElectionKind kind() {
    return kind;
  }

  @Override
  String what() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " election " + path;
  }

  public ZklElection addListener(ElectionListener l) {
    listeners.add(Objects.requireNonNull(l));
    return this;
  }

  public void removeListener(ElectionListener l) {
    listeners.remove(l);
  }

  /** Campaigns without a bound. */
  public FencingToken campaign() {
    return campaign(null);
  }

  /**
   * Joins and waits up to {@code timeout} (null = forever, zero = try once)
   * to be elected; returns the term's fencing token. ZklTimeoutException
   * (or AcquireCanceledException after {@link #cancel()}) when not elected:
   * then this participant has left the election. Returns at once when
   * already leader; BusyException while an async campaign is pending.
   */
  public FencingToken campaign(Duration timeout) {
    ZklException.check(ZklNative.zkl_election_acquire(h(), Util.millis(timeout)), "campaign " + path);
    return termOfNewLeadership();
  }

  /** Leader now (its term), or empty (and not in the election). */
  public Optional<FencingToken> tryCampaign() {
    int rc = ZklNative.zkl_election_try_acquire(h());
    if (rc == ZklNativeConstants.ZKL_EAGAIN) return Optional.empty();
    ZklException.check(rc, "try-campaign " + path);
    return Optional.of(termOfNewLeadership());
  }

  private FencingToken termOfNewLeadership() {
    long[] out = new long[1];
    int rc = ZklNative.zkl_election_fencing_token(h(), out);
    if (rc == ZklNativeConstants.ZKL_ENOTHELD) {
      throw new LockLostException(ZklNativeConstants.ZKL_ELOST, "leadership of " + path + " lost at once");
    }
    ZklException.check(rc, "term of " + path);
    return new FencingToken(out[0]);
  }

  /**
   * Joins and returns at once. The future completes with the term when this
   * participant is elected (listeners hear NOT_ELECTED while it waits in
   * line), or fails with ZklTimeoutException when {@code timeout} passes
   * first (it has left), AcquireCanceledException on {@link #cancel()} or
   * {@link #resign()}, ClosedException on close. {@code cancel(true)} on
   * the future cancels the campaign.
   */
  public CompletableFuture<FencingToken> campaignAsync(Duration timeout) {
    CompletableFuture<FencingToken> f = new CompletableFuture<>() {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        boolean r = super.cancel(mayInterruptIfRunning);
        if (r && !closed.get()) ZklNative.zkl_election_cancel(handle);
        return r;
      }
    };
    synchronized (lock) {
      int rc = ZklNative.zkl_election_acquire_async(h(), Util.millis(timeout));
      if (rc < 0) {
        f.completeExceptionally(ZklException.of(rc, "campaign " + path));
      } else {
        pendingCampaign = f;
      }
    }
    return f;
  }

  /** Leaves the line while not yet elected. NotHeldException when not waiting. */
  public void cancel() {
    ZklException.check(ZklNative.zkl_election_cancel(h()), "cancel campaign " + path);
  }

  /**
   * Resigns: leaves the election, as leader or from the line (returns once
   * the node is deleted). NotHeldException when not taking part.
   */
  public void resign() {
    ZklException.check(ZklNative.zkl_election_release(h()), "resign " + path);
    fail(new AcquireCanceledException("resigned from " + path));
  }

  /** True while this participant leads, provably at this instant. Never throws. */
  public boolean isLeader() {
    if (closed.get()) return false;
    return ZklNative.zkl_election_is_leader(handle) == 1;
  }

  /** As {@link ZklLock#validFor()}, for the leadership ({@link Duration#ZERO} when not leader). */
  public Duration validFor() {
    if (closed.get()) return Duration.ZERO;
    long[] ms = new long[1];
    int rc = ZklNative.zkl_election_valid_for(handle, ms);
    return rc < 0 ? Duration.ZERO : Duration.ofMillis(ms[0]);
  }

  /** Fencing token of the current term; NotHeldException when not leader. */
  public FencingToken fencingToken() {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_election_fencing_token(h(), out), "fencing token of " + path);
    return new FencingToken(out[0]);
  }

  /** This handle's statistics as JSON. */
  public String stats() {
    byte[][] out = new byte[1][];
    ZklException.check(ZklNative.zkl_election_stats(h(), out), "statistics of " + path);
    return new String(out[0], StandardCharsets.UTF_8);
  }

  private void fail(ZklException e) {
    CompletableFuture<FencingToken> f;
    synchronized (lock) {
      f = pendingCampaign;
      pendingCampaign = null;
    }
    if (f != null) f.completeExceptionally(e);
  }

  @Override
  public void onEvent(Event e) {
    if (closed.get()) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ELECTED: {
        CompletableFuture<FencingToken> f;
        synchronized (lock) {
          f = pendingCampaign;
          pendingCampaign = null;
        }
        if (f != null) f.complete(e.token());
        for (ElectionListener l : listeners) call("election", () -> l.onElected(this, e.token()));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_NOT_ELECTED:
        for (ElectionListener l : listeners) call("election", () -> l.onNotElected(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_SUSPENDED:
        for (ElectionListener l : listeners) call("election", () -> l.onSuspended(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_RESTORED:
        for (ElectionListener l : listeners) call("election", () -> l.onRestored(this, e.token()));
        break;
      case ZklNativeConstants.ZKL_EVENT_REVOKE_REQUESTED:
        for (ElectionListener l : listeners) call("election", () -> l.onRevokeRequested(this, e.token()));
        break;
      case ZklNativeConstants.ZKL_EVENT_LOST: {
        ZklException cause = ZklException.of(e.error == 0 ? ZklNativeConstants.ZKL_ELOST : e.error,
            "leadership of " + path + " lost");
        for (ElectionListener l : listeners) call("election", () -> l.onLost(this, cause));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED:
        fail(ZklException.of(e.error, "campaign " + path));
        break;
      default:
        break;
    }
  }

  /** Resigns if taking part and frees the handle. Idempotent. */
  @Override
  public void close() {
    end(new ClosedException(what() + " closed"));
  }

  @Override
  void clientClosed(ClosedException e) {
    end(e);
  }

  private void end(ClosedException e) {
    if (!closed.compareAndSet(false, true)) return;
    client.unregister(this);
    ZklNative.zkl_election_destroy(handle);
    fail(e);
  }

  @Override
  public String toString() {
    return "ZklElection[" + what() + ", id=" + participantId + (closed.get() ? ", closed" : "") + "]";
  }
}
