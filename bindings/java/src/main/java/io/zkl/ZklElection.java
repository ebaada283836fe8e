package io.zkl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
public final class ZklElection extends Holder<ZklElection, ElectionListener, ElectionKind> {
  private final String participantId;
  /** Async campaigns waiting for their ELECTED / ACQUIRE_FAILED event, by request id. */
  private final PendingCalls<CompletableFuture<FencingToken>> campaigns = new PendingCalls<>();
  private final GuardedWrites writes = new GuardedWrites();

  ZklElection(ZklClient client, String path, String participantId, ElectionKind kind) {
    super(client, path, kind);
    this.participantId = participantId;
  }

  public String participantId() {
    return participantId;
  }

  @Override
  String what() {
    return named("election");
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
        // Cancels its own campaign in libzkl, never a later one.
        if (r) {
          campaigns.cancel(this, () -> {
            if (!closed.get()) ZklNative.zkl_election_cancel(handle);
          });
        }
        return r;
      }
    };
    return campaigns.start(f, () -> ZklNative.zkl_election_acquire_async(h(), Util.millis(timeout)),
        "campaign " + path);
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
    campaigns.failAll(new AcquireCanceledException("resigned from " + path));
  }

  /**
   * Runs {@code ops} guarded by this participant's leadership
   * (NotHeldException when it does not lead); see
   * {@link ZklLock#write(long, Ops)}. The operations lie below the
   * election's path.
   */
  public WriteResult write(Ops ops) {
    return GuardedWrites.blocking(ops, "write " + path, o -> ZklNative.zkl_election_write(h(), o));
  }

  /** As {@link ZklLock#writeAsync(long, Ops)}, guarded by the leadership. */
  public CompletableFuture<WriteResult> writeAsync(Ops ops) {
    return writes.start(ops, "write " + path, o -> ZklNative.zkl_election_write_async(h(), o));
  }

  /**
   * The leader replaces the value it publishes (its id, the node's data)
   * without leaving the election (etcd's Proclaim): observers report the
   * new value with the same term. One round trip, guarded as a write:
   * NotHeldException when not leader, LockLostException,
   * WriteInDoubtException. A later rejoin publishes the new value too
   * ({@link #participantId()} still says the id given at creation).
   */
  public void proclaim(String value) {
    byte[] v = Util.cstr(value, "proclaimed value");
    ZklException.check(ZklNative.zkl_election_proclaim(h(), v == null ? new byte[0] : v), "proclaim " + path);
  }

  /** True while this participant leads, provably at this instant. Never throws. */
  public boolean isLeader() {
    if (closed.get()) return false;
    return ZklNative.zkl_election_is_leader(handle) == 1;
  }

  /** As {@link ZklLock#validFor()}, for the leadership ({@link Duration#ZERO} when not leader). */
  public Duration validFor() {
    return leaseOf(ZklNative::zkl_election_valid_for);
  }

  /** Fencing token of the current term; NotHeldException when not leader. */
  public FencingToken fencingToken() {
    return tokenOf(ZklNative::zkl_election_fencing_token, "fencing token of " + path);
  }

  /** This handle's statistics as JSON. */
  public String stats() {
    byte[][] out = new byte[1][];
    ZklException.check(ZklNative.zkl_election_stats(h(), out), "statistics of " + path);
    return new String(out[0], StandardCharsets.UTF_8);
  }

  @Override
  public void onEvent(Event e) {
    if (closed.get() || tellHolderEvent(e, "election", "leadership of " + path + " lost")) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ELECTED: {
        CompletableFuture<FencingToken> f = campaigns.take(e.requestId);  // none for a rejoin (id 0)
        if (f != null) f.complete(e.token());
        tell("election", l -> l.onElected(this, e.token()));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_WRITTEN:
        writes.answer(e, "write " + path);
        break;
      case ZklNativeConstants.ZKL_EVENT_NOT_ELECTED:
        tell("election", l -> l.onNotElected(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED:
        CompletableFuture<FencingToken> failed = campaigns.take(e.requestId);
        if (failed != null) failed.completeExceptionally(ZklException.of(e.error, "campaign " + path));
        break;
      default:
        break;
    }
  }


  @Override
  void destroy() {
    ZklNative.zkl_election_destroy(handle);
  }

  @Override
  void ended(ClosedException e) {
    campaigns.failAll(e);
    writes.fail(e);
  }

  @Override
  public String toString() {
    return "ZklElection[" + what() + ", id=" + participantId + (closed.get() ? ", closed" : "") + "]";
  }
}
