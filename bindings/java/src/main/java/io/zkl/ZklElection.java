package io.zkl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A participant in a leader election. {@link #start()} joins and reports
 * through {@link ElectionListener}s; {@link #campaign(Duration)} joins and
 * waits to be elected; {@link #leadership()} is the same as a future. After
 * losing leadership (session loss) the participant rejoins by itself until
 * it {@link #resign()}s or is closed.
 */
public final class ZklElection extends Target implements AutoCloseable {
  private final String path;
  private final String participantId;
  private final ElectionKind kind;
  private final AtomicBoolean running = new AtomicBoolean();
  private final List<PumpingFuture<Long>> waiters = new ArrayList<>();
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

  /** Joins the election (idempotent); results arrive as listener events. */
  public void start() {
    if (!running.get()) client.awaitSessionBeforeSubmit(-1);  // libzkl 0.1.0 work-around (ZklClient)
    ZklException.check(ZklNative.zkl_election_start(h()), "join " + path);
    running.set(true);
  }

  /**
   * Joins (if needed) and returns a future that completes with the fencing
   * token of the term once this participant leads (at once if it does).
   * Cancelling the future only stops that wait.
   */
  public PumpingFuture<Long> leadership() {
    PumpingFuture<Long> f = new PumpingFuture<>(client) {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        synchronized (waiters) {
          waiters.remove(this);
        }
        return super.cancel(mayInterruptIfRunning);
      }
    };
    synchronized (waiters) {
      waiters.add(f);
    }
    try {
      start();
      long[] token = new long[1];
      if (ZklNative.zkl_election_is_leader(handle) == 1
          && ZklNative.zkl_election_fencing_token(handle, token) == 0) {
        complete(f, token[0]);
      }
    } catch (ZklException e) {
      synchronized (waiters) {
        waiters.remove(f);
      }
      f.completeExceptionally(e);
    }
    return f;
  }

  private void complete(PumpingFuture<Long> f, long token) {
    synchronized (waiters) {
      waiters.remove(f);
    }
    f.complete(token);
  }

  /**
   * Joins (if needed) and waits up to {@code timeout} (null = forever) to be
   * elected, dispatching events on this thread; returns the fencing token.
   * On timeout (ZklTimeoutException) a participant that this call joined
   * leaves again, as zkl_election_campaign does; one joined before by
   * {@link #start()} stays in line. An interrupt is handled the same way
   * (AcquireCanceledException, interrupt flag kept).
   */
  public long campaign(Duration timeout) {
    boolean joinedHere = !running.get();
    PumpingFuture<Long> f = leadership();
    boolean done;
    InterruptedException interrupted = null;
    try {
      done = client.awaitDone(f, Util.millis(timeout));
    } catch (InterruptedException e) {
      interrupted = e;
      done = false;
    }
    if (!done) {
      f.cancel(false);
      if (!f.isDone() || f.isCancelled()) {
        if (joinedHere) resignQuietly();
        if (interrupted != null) {
          Thread.currentThread().interrupt();
          AcquireCanceledException x = new AcquireCanceledException("campaign " + path + ": interrupted");
          x.initCause(interrupted);
          throw x;
        }
        throw new ZklTimeoutException("campaign " + path + ": not elected within " + timeout);
      }
      if (interrupted != null) Thread.currentThread().interrupt();
    }
    return f.result();
  }

  private void resignQuietly() {
    try {
      resign();
    } catch (ZklException ignored) {
      // closed meanwhile
    }
  }

  /** Leaves the election (giving up leadership if held). Pending leadership futures fail. */
  public void resign() {
    running.set(false);
    ZklException.check(ZklNative.zkl_election_resign(h()), "resign " + path);
    failWaiters(new AcquireCanceledException("resigned from " + path));
  }

  /** True while this participant leads and the session is known good. */
  public boolean isLeader() {
    if (closed.get()) return false;
    return ZklNative.zkl_election_is_leader(handle) == 1;
  }

  /** Fencing token of the current term; NotHeldException when not leader. */
  public long fencingToken() {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_election_fencing_token(h(), out), "fencing token of " + path);
    return out[0];
  }

  private void failWaiters(ZklException e) {
    List<PumpingFuture<Long>> ws;
    synchronized (waiters) {
      ws = new ArrayList<>(waiters);
      waiters.clear();
    }
    for (PumpingFuture<Long> w : ws) w.completeExceptionally(e);
  }

  @Override
  void onEvent(Event e) {
    if (closed.get()) return;
    switch (e.type) {
      case ZklNativeConstants.ZKL_EVENT_ELECTED: {
        List<PumpingFuture<Long>> ws;
        synchronized (waiters) {
          ws = new ArrayList<>(waiters);
          waiters.clear();
        }
        for (PumpingFuture<Long> w : ws) w.complete(e.fencingToken);
        for (ElectionListener l : listeners) call(() -> l.onElected(this, e.fencingToken));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_NOT_ELECTED:
        for (ElectionListener l : listeners) call(() -> l.onNotElected(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_SUSPENDED:
        for (ElectionListener l : listeners) call(() -> l.onSuspended(this));
        break;
      case ZklNativeConstants.ZKL_EVENT_LOST: {
        ZklException cause = ZklException.of(e.error == 0 ? ZklNativeConstants.ZKL_ELOST : e.error,
            "leadership of " + path + " lost");
        for (ElectionListener l : listeners) call(() -> l.onLost(this, cause));
        break;
      }
      case ZklNativeConstants.ZKL_EVENT_ACQUIRE_FAILED: {
        // ECANCELED answers our own resign (its waiters already failed, and
        // a later campaign must not see it); other errors mean the
        // participant could not stay in the election (e.g. ACL, closed).
        if (e.error == ZklNativeConstants.ZKL_ECANCELED) break;
        running.set(false);
        ZklException cause = ZklException.of(e.error, "election " + path);
        failWaiters(cause);
        for (ElectionListener l : listeners) call(() -> l.onLost(this, cause));
        break;
      }
      default:
        break;
    }
  }

  private static void call(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException ex) {
      System.getLogger("io.zkl").log(System.Logger.Level.WARNING, "zkl election listener threw", ex);
    }
  }

  /** Resigns if leader, leaves the election and frees the handle. Idempotent. */
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
    running.set(false);
    client.unregister(this);
    ZklNative.zkl_election_destroy(handle);
    failWaiters(e);
  }

  @Override
  public String toString() {
    return "ZklElection[" + what() + ", id=" + participantId + (closed.get() ? ", closed" : "") + "]";
  }
}
