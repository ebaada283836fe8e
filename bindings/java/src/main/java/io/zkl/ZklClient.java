package io.zkl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A ZooKeeper session and the factory of locks, elections and observers.
 *
 * <h2>Dispatch (no foreign fd in Java)</h2>
 * libzkl queues everything a user observes (async acquire results, lost
 * locks, session changes, leader changes) on the client's event queue. Java
 * cannot poll that queue's file descriptor, so events are dispatched — routed
 * to futures and listeners — by whichever Java thread pumps the queue:
 * <ul>
 *   <li>a thread blocked in a call of this binding: {@link ZklLock#acquire},
 *       {@link ZklElection#campaign}, and {@code get()}/{@code join()} of the
 *       futures it returns ({@link PumpingFuture}), {@link #await};</li>
 *   <li>{@link #dispatch()} (non-blocking) and {@link #poll(Duration)}, driven
 *       by the user's own loop;</li>
 *   <li>a background thread, only if the user starts it with
 *       {@link #startDispatcherThread()}.</li>
 * </ul>
 * One thread pumps at a time; other waiters wait for their future (or for the
 * pump to be free). Listeners and future completions run on the pumping
 * thread: keep them short. Lost-lock listeners only run when someone pumps,
 * so a program that holds a lock for long without blocking in zkl should
 * poll or start the dispatcher thread. {@link ZklLock#isHeld()} asks libzkl
 * directly and is always current.
 *
 * <p>All methods are thread-safe. {@link #close()} ends the session: the
 * server deletes its nodes, pending acquires fail with {@link ClosedException}.
 */
public final class ZklClient implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.zkl");
  /** Longest stay in one native wait while pumping (to notice interrupts and close). */
  private static final long SLICE_MS = 200;
  private static final int MAX_BATCH = 1024;
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  final long handle;
  private final String servers;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ReentrantLock pumpLock = new ReentrantLock();
  /** Completed when the current (outermost) pumper stops pumping. */
  private volatile CompletableFuture<Void> pumpReleased = DONE;
  private final ConcurrentHashMap<Long, Target> targets = new ConcurrentHashMap<>();
  private final AtomicLong nextTargetId = new AtomicLong(1);
  private final CopyOnWriteArrayList<SessionListener> sessionListeners = new CopyOnWriteArrayList<>();
  private final Object dispatcherLock = new Object();
  private Thread dispatcher;
  private volatile boolean stopDispatcher;

  private ZklClient(long handle, String servers) {
    this.handle = handle;
    this.servers = servers;
  }

  /** A builder for a client of {@code servers} ("host:port,host:port"). */
  public static Builder builder(String servers) {
    return new Builder(servers);
  }

  /** Connects with default options and waits (up to 30 s) for the session. */
  public static ZklClient connect(String servers) {
    return builder(servers).connect();
  }

  /** The libzkl version string, e.g. "0.1.0". */
  public static String libraryVersion() {
    return ZklNative.zkl_version_string();
  }

  /** Options of a client. */
  public static final class Builder {
    private final String servers;
    private String chroot;
    private Duration sessionTimeout;
    private Duration lostAfter;
    private String digestAuth;
    private Acl acl = Acl.OPEN;
    private Duration connectTimeout = Duration.ofSeconds(30);
    private final List<SessionListener> listeners = new ArrayList<>();

    private Builder(String servers) {
      this.servers = Objects.requireNonNull(servers, "servers");
    }

    /** A chroot such as "/apps/x" for every path of this client. */
    public Builder chroot(String chroot) {
      this.chroot = chroot;
      return this;
    }

    /** Requested session timeout (default 10 s; the server may adjust it). */
    public Builder sessionTimeout(Duration d) {
      this.sessionTimeout = d;
      return this;
    }

    /**
     * Client-side deadline: a suspended session is declared lost after this
     * long without a reconnect (default, and upper bound: a quarter of the
     * negotiated session timeout).
     */
    public Builder lostAfter(Duration d) {
      this.lostAfter = d;
      return this;
    }

    /** Digest authentication "user:password". */
    public Builder digestAuth(String userPassword) {
      this.digestAuth = userPassword;
      return this;
    }

    /** ACL of created nodes ({@link Acl#CREATOR} needs digest auth). */
    public Builder acl(Acl acl) {
      this.acl = Objects.requireNonNull(acl, "acl");
      return this;
    }

    /** How long {@link #connect()} waits for the session (default 30 s). */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    /** A listener registered before the first event can be dispatched. */
    public Builder sessionListener(SessionListener l) {
      listeners.add(Objects.requireNonNull(l));
      return this;
    }

    /** Creates the client; it connects in the background. */
    public ZklClient build() {
      long[] out = new long[1];
      int rc = ZklNative.zklj_client_new(Util.cstr(servers, "servers"), Util.cstr(chroot, "chroot"),
          (int) clampMillis(sessionTimeout, 0), (int) clampMillis(lostAfter, 0),
          Util.cstr(digestAuth, "digest auth"), acl.code, out);
      ZklException.check(rc, "client for " + servers);
      ZklClient c = new ZklClient(out[0], servers);
      c.sessionListeners.addAll(listeners);
      return c;
    }

    /** Creates the client and waits for its session (closing it on failure). */
    public ZklClient connect() {
      ZklClient c = build();
      try {
        c.awaitConnected(connectTimeout);
        return c;
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
    }

    private static long clampMillis(Duration d, long dflt) {
      if (d == null) return dflt;
      long ms = Util.millis(d);
      return ms < 0 || ms > Integer.MAX_VALUE ? Integer.MAX_VALUE : ms;
    }
  }

  // ---------------------------------------------------------------------------
  // Session
  // ---------------------------------------------------------------------------

  private long h() {
    if (closed.get()) throw new ClosedException("client of " + servers + " is closed");
    return handle;
  }

  /** Waits until the session is connected; ZklTimeoutException, AuthException. */
  public void awaitConnected(Duration timeout) {
    ZklException.check(ZklNative.zkl_client_wait_connected(h(), Util.millis(timeout)),
        "connect to " + servers);
  }

  public SessionState state() {
    if (closed.get()) return SessionState.CLOSED;
    int rc = ZklNative.zkl_client_state(handle);
    return rc < 0 ? SessionState.CLOSED : SessionState.of(rc);
  }

  /**
   * Work-around for a libzkl 0.1.0 bug: an acquire (or election join)
   * submitted while there is no session (still connecting, or a lost session
   * being replaced) creates its node twice, and one of them stays until the
   * session ends. So wait for the session first, within the caller's
   * timeout; returns the time left (ms; -1 = forever).
   */
  long awaitSessionBeforeSubmit(long timeoutMs) {
    int st = ZklNative.zkl_client_state(h());
    if (st != ZklNativeConstants.ZKL_SESSION_CONNECTING && st != ZklNativeConstants.ZKL_SESSION_LOST) {
      return timeoutMs;
    }
    long t0 = System.nanoTime();
    int rc = ZklNative.zkl_client_wait_connected(handle, timeoutMs);
    if (rc == ZklNativeConstants.ZKL_ETIMEDOUT) return 0;  // the acquire itself times out
    ZklException.check(rc, "connect to " + servers);
    if (timeoutMs < 0) return -1;
    return Math.max(0, timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /** The current session id (0 while there is none). */
  public long sessionId() {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_client_session_id(h(), out), "session id");
    return out[0];
  }

  /**
   * The session password (16 bytes): with {@link #sessionId()} it lets a tool
   * re-attach to, or expire, the session. Treat it as a secret.
   */
  public byte[] sessionPassword() {
    byte[] buf = new byte[16];
    int n = ZklException.check(ZklNative.zkl_client_session_password(h(), buf), "session password");
    return n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
  }

  /** The negotiated session timeout (zero while not connected). */
  public Duration sessionTimeout() {
    return Duration.ofMillis(ZklException.check(ZklNative.zkl_client_session_timeout(h()), "session timeout"));
  }

  /** A counter of this client (for tests and benchmarks). */
  public long counter(Counter which) {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_client_counter(h(), which.code, out), "counter " + which);
    return out[0];
  }

  public String servers() {
    return servers;
  }

  public ZklClient addSessionListener(SessionListener l) {
    sessionListeners.add(Objects.requireNonNull(l));
    return this;
  }

  public void removeSessionListener(SessionListener l) {
    sessionListeners.remove(l);
  }

  // ---------------------------------------------------------------------------
  // Factories
  // ---------------------------------------------------------------------------

  /** A fair (FIFO) lock, compatible with Curator's InterProcessMutex. */
  public ZklLock lock(String path) {
    return lock(path, LockKind.FAIR);
  }

  /** A reentrant fair lock: one hold count per owner token. */
  public ZklLock reentrantLock(String path) {
    return lock(path, LockKind.REENTRANT);
  }

  /** A non-fair lock (one node; waiters race when it goes). */
  public ZklLock nonFairLock(String path) {
    return lock(path, LockKind.NONFAIR);
  }

  /** The shared side of the read/write lock at {@code path}. */
  public ZklLock readLock(String path) {
    return lock(path, LockKind.READ);
  }

  /** The exclusive side of the read/write lock at {@code path}. */
  public ZklLock writeLock(String path) {
    return lock(path, LockKind.WRITE);
  }

  /** A semaphore of {@code maxLeases} leases; every participant must agree on the number. */
  public ZklLock semaphore(String path, int maxLeases) {
    return lock(path, LockKind.SEMAPHORE, maxLeases, null);
  }

  public ZklLock lock(String path, LockKind kind) {
    return lock(path, kind, 1, null);
  }

  /**
   * A lock handle of any kind. {@code data} (optional, up to 1 MiB) is stored
   * in the node, e.g. a holder id shown by {@link #inspect}.
   */
  public ZklLock lock(String path, LockKind kind, int maxLeases, byte[] data) {
    Objects.requireNonNull(kind, "kind");
    byte[] p = Util.path(path);
    ZklLock l = new ZklLock(this, path, kind, maxLeases);
    register(l, "lock " + path, out ->
        ZklNative.zklj_lock_new(h(), p, kind.code, maxLeases, data, l.id, out));
    return l;
  }

  /** A fair election at {@code path}; {@code participantId} is what observers see. */
  public ZklElection election(String path, String participantId) {
    return election(path, participantId, ElectionKind.FAIR);
  }

  public ZklElection election(String path, String participantId, ElectionKind kind) {
    Objects.requireNonNull(kind, "kind");
    byte[] p = Util.path(path);
    byte[] id = Util.cstr(participantId, "participant id");
    ZklElection e = new ZklElection(this, path, participantId, kind);
    register(e, "election " + path, out -> ZklNative.zklj_election_new(h(), p, kind.code, id, e.id, out));
    return e;
  }

  /** Watches the leader of the fair election at {@code path} without taking part. */
  public ZklObserver observer(String path) {
    return observer(path, ElectionKind.FAIR, null);
  }

  /** Watches the leader; {@code listener} (optional) is registered before any event. */
  public ZklObserver observer(String path, ElectionKind kind, LeaderListener listener) {
    Objects.requireNonNull(kind, "kind");
    byte[] p = Util.path(path);
    ZklObserver o = new ZklObserver(this, path, kind);
    if (listener != null) o.addListener(listener);
    register(o, "observer " + path, out -> ZklNative.zkl_observer_new(h(), p, kind.code, o.id, out));
    return o;
  }

  private interface NativeNew {
    int create(long[] out);
  }

  private void register(Target t, String what, NativeNew f) {
    targets.put(t.id, t);
    long[] out = new long[1];
    int rc;
    try {
      rc = f.create(out);
    } catch (RuntimeException e) {
      targets.remove(t.id);
      throw e;
    }
    if (rc < 0) {
      targets.remove(t.id);
      throw ZklException.of(rc, what);
    }
    t.handle = out[0];
  }

  long newTargetId() {
    return nextTargetId.getAndIncrement();
  }

  void unregister(Target t) {
    targets.remove(t.id, t);
  }

  // ---------------------------------------------------------------------------
  // Inspection
  // ---------------------------------------------------------------------------

  /** Who holds and who waits on a lock, in queue order (one round trip per node). */
  public List<Participant> inspect(String path, LockKind kind, Duration timeout) {
    return inspect(path, kind.code, timeout);
  }

  /** The participants of an election, in queue order. */
  public List<Participant> inspectElection(String path, ElectionKind kind, Duration timeout) {
    return inspect(path, ZklNativeConstants.ZKL_INSPECT_ELECTION_BASE + kind.code, timeout);
  }

  private List<Participant> inspect(String path, int kind, Duration timeout) {
    long[] out = new long[1];
    ZklException.check(ZklNative.zkl_inspect(h(), Util.path(path), kind, Util.millis(timeout), out),
        "inspect " + path);
    long p = out[0];
    try {
      int n = ZklException.check(ZklNative.zkl_participants_count(p), "inspect");
      List<Participant> list = new ArrayList<>(n);
      byte[][] bytes = new byte[1][];
      long[] v = new long[1];
      for (int i = 0; i < n; i++) {
        ZklNative.zkl_participants_name(p, i, bytes);
        String name = Util.utf8(bytes[0]);
        boolean holder = ZklNative.zkl_participants_is_holder(p, i) == 1;
        ZklNative.zkl_participants_fencing_token(p, i, v);
        long token = v[0];
        ZklNative.zkl_participants_session_id(p, i, v);
        long session = v[0];
        ZklNative.zkl_participants_ctime_ms(p, i, v);
        long ctime = v[0];
        bytes[0] = null;
        ZklNative.zkl_participants_data(p, i, bytes);
        byte[] data = bytes[0] == null ? new byte[0] : bytes[0];
        list.add(new Participant(name, holder, token, session, ctime, data));
      }
      return list;
    } finally {
      ZklNative.zkl_participants_free(p);
    }
  }

  // ---------------------------------------------------------------------------
  // Dispatch
  // ---------------------------------------------------------------------------

  /**
   * Dispatches the events pending now on this thread (listeners run, futures
   * complete) and returns how many. Never blocks; returns 0 when another
   * thread is dispatching (e.g. the dispatcher thread).
   */
  public int dispatch() {
    if (closed.get() || !enterPump(0)) return 0;
    try {
      return drain();
    } finally {
      exitPump();
    }
  }

  /**
   * Waits up to {@code timeout} (null = forever) for events and dispatches
   * them on this thread; returns how many (0 when none came, or the thread
   * is interrupted: its flag stays set). While another thread dispatches,
   * it waits for that thread to finish (within the timeout); while the
   * dispatcher thread runs, it returns 0 at once.
   */
  public int poll(Duration timeout) {
    if (isDispatcherThreadRunning()) return 0;
    long ms = Util.millis(timeout);
    long deadline = ms < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    if (closed.get() || !enterPump(ms)) return 0;
    try {
      for (;;) {
        long left = ms < 0 ? SLICE_MS : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        int n = pumpOnce(Math.max(0, Math.min(left, SLICE_MS)));
        if (n > 0 || left <= 0 || closed.get() || Thread.currentThread().isInterrupted()) return n;
      }
    } finally {
      exitPump();
    }
  }

  /**
   * Waits for {@code future} while dispatching events on this thread (when no
   * other thread does), and returns its value. A ZklException it failed with
   * is rethrown; ZklTimeoutException when {@code timeout} (null = forever)
   * passes first (the future is left as it is); an interrupt gives
   * AcquireCanceledException with the thread's interrupt flag set.
   */
  public <T> T await(CompletableFuture<T> future, Duration timeout) {
    try {
      if (!awaitDone(future, Util.millis(timeout))) {
        throw new ZklTimeoutException("await: no result within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      AcquireCanceledException x = new AcquireCanceledException("await: interrupted");
      x.initCause(e);
      throw x;
    }
    try {
      return future.get();
    } catch (ExecutionException | CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof ZklException) throw ZklException.copyOf((ZklException) c);
      if (c instanceof RuntimeException) throw (RuntimeException) c;
      if (c instanceof Error) throw (Error) c;
      throw new CompletionException(c);
    } catch (CancellationException e) {
      AcquireCanceledException x = new AcquireCanceledException("await: cancelled");
      x.initCause(e);
      throw x;
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);  // cannot happen: the future is done
    }
  }

  /**
   * Waits until {@code f} is done, dispatching on this thread when the pump
   * is free; false when {@code timeoutMs} (< 0: forever) passes first.
   */
  boolean awaitDone(CompletableFuture<?> f, long timeoutMs) throws InterruptedException {
    long deadline = timeoutMs < 0 ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (;;) {
      if (f.isDone()) return true;
      if (Thread.interrupted()) throw new InterruptedException();
      long left = timeoutMs < 0 ? SLICE_MS : leftMillis(deadline);
      if (!closed.get() && enterPump(0)) {
        try {
          for (;;) {
            pumpOnce(Math.max(0, Math.min(left, SLICE_MS)));  // 0: dispatch what is pending
            if (f.isDone()) return true;
            if (closed.get() || Thread.currentThread().isInterrupted()) break;
            left = timeoutMs < 0 ? SLICE_MS : leftMillis(deadline);
            if (left <= 0) break;
          }
        } finally {
          exitPump();
        }
      } else if (left > 0) {
        // Someone else pumps (or the client is closed and its futures are
        // being failed): wait for the result or for the pump to be free.
        CompletableFuture<Void> released = closed.get() ? null : pumpReleased;
        try {
          (released == null ? f : CompletableFuture.anyOf(f, released))
              .get(Math.min(left, SLICE_MS), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException | CancellationException ignored) {
          // re-check below
        }
      }
      if (timeoutMs >= 0 && leftMillis(deadline) <= 0) return f.isDone();
    }
  }

  /** Whole milliseconds until deadline, rounded up; <= 0 once it passed. */
  private static long leftMillis(long deadline) {
    long ns = deadline - System.nanoTime();
    return ns <= 0 ? 0 : (ns + 999_999) / 1_000_000;
  }

  /** Takes the pump (waiting up to waitMs; < 0 forever). */
  private boolean enterPump(long waitMs) {
    boolean got;
    if (waitMs == 0) {
      got = pumpLock.tryLock();
    } else {
      try {
        got = waitMs < 0 ? lockInterruptibly() : pumpLock.tryLock(waitMs, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    if (got && pumpLock.getHoldCount() == 1) pumpReleased = new CompletableFuture<>();
    return got;
  }

  private boolean lockInterruptibly() throws InterruptedException {
    pumpLock.lockInterruptibly();
    return true;
  }

  private void exitPump() {
    CompletableFuture<Void> released = null;
    if (pumpLock.getHoldCount() == 1) {
      released = pumpReleased;
      pumpReleased = DONE;
    }
    pumpLock.unlock();
    if (released != null) released.complete(null);
  }

  /** With the pump held: dispatch what is pending, else wait up to waitMs and dispatch. */
  private int pumpOnce(long waitMs) {
    int n = drain();
    if (n > 0 || waitMs == 0 || closed.get()) return n;
    int w = ZklNative.zkl_client_wait(handle, waitMs);
    if (w < 0) {
      if (closed.get()) return 0;
      throw ZklException.of(w, "wait for events");
    }
    return drain();
  }

  private int drain() {
    int n = 0;
    long[] out = new long[1];
    while (n < MAX_BATCH && !closed.get()) {
      int rc = ZklNative.zkl_client_next_event(handle, out);
      if (rc == ZklNativeConstants.ZKL_EAGAIN) break;
      if (rc < 0) {
        if (closed.get()) break;
        throw ZklException.of(rc, "next event");
      }
      deliver(Event.take(out[0]));
      n++;
    }
    return n;
  }

  private void deliver(Event e) {
    try {
      if (e.type == ZklNativeConstants.ZKL_EVENT_SESSION) {
        SessionState s = SessionState.of(e.sessionState);
        for (SessionListener l : sessionListeners) {
          try {
            l.onSessionState(this, s);
          } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "zkl session listener threw", ex);
          }
        }
        return;
      }
      Target t = targets.get(e.userData);
      if (t != null) t.onEvent(e);
    } catch (RuntimeException ex) {
      LOG.log(System.Logger.Level.WARNING, "zkl: event delivery failed", ex);
    }
  }

  /**
   * Starts a daemon thread that dispatches this client's events as they
   * come (futures complete and listeners run there). Opt-in; idempotent.
   * While it runs, {@link #dispatch()} and {@link #poll} return 0 and
   * blocking calls simply wait for it.
   */
  public void startDispatcherThread() {
    synchronized (dispatcherLock) {
      h();
      if (dispatcher != null) return;
      stopDispatcher = false;
      Thread t = new Thread(this::dispatchLoop, "zkl-dispatcher-" + Long.toHexString(handle));
      t.setDaemon(true);
      dispatcher = t;
      t.start();
    }
  }

  /** Stops the dispatcher thread (if running) and waits for it to exit. */
  public void stopDispatcherThread() {
    Thread t;
    synchronized (dispatcherLock) {
      t = dispatcher;
      dispatcher = null;
      if (t == null) return;
      stopDispatcher = true;
    }
    ZklNative.zkl_client_wakeup(handle);
    if (t == Thread.currentThread()) return;
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join(SLICE_MS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
      ZklNative.zkl_client_wakeup(handle);
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  /** Whether the dispatcher thread runs. */
  public boolean isDispatcherThreadRunning() {
    synchronized (dispatcherLock) {
      return dispatcher != null;
    }
  }

  private void dispatchLoop() {
    pumpLock.lock();
    pumpReleased = new CompletableFuture<>();
    try {
      while (!stopDispatcher && !closed.get()) {
        try {
          pumpOnce(1000);
        } catch (ZklException e) {
          if (closed.get()) break;
          LOG.log(System.Logger.Level.WARNING, "zkl dispatcher", e);
        }
      }
    } finally {
      exitPump();
    }
  }

  // ---------------------------------------------------------------------------
  // Close
  // ---------------------------------------------------------------------------

  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Closes the session (the server deletes its nodes), fails pending
   * acquires with ClosedException and frees every handle of this client.
   * Idempotent. Do not call it from a listener while another thread waits
   * for that listener's dispatch to finish.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    stopDispatcherThread();
    ZklNative.zkl_client_close(handle);
    ZklNative.zkl_client_wakeup(handle);
    ClosedException ex = new ClosedException("client of " + servers + " closed");
    for (Target t : new ArrayList<>(targets.values())) {
      try {
        t.clientClosed(ex);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "zkl: close of a handle failed", e);
      }
    }
    targets.clear();
    ZklNative.zkl_client_destroy(handle);
  }

  @Override
  public String toString() {
    return "ZklClient[" + servers + (closed.get() ? ", closed" : "") + "]";
  }
}
