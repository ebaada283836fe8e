package io.zkl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A ZooKeeper session and the factory of locks, elections and observers.
 *
 * <h2>The dispatcher thread</h2>
 * libzkl queues everything a user observes (async acquire results, lost
 * locks, session changes, leader changes) and delivers it only inside
 * {@code zkl_client_dispatch}. Java has no event loop of its own, so every
 * client runs ONE daemon thread, {@code zkl-dispatcher-<id>}, that blocks in
 * {@code zkl_client_wait} and calls {@code zkl_client_dispatch}: listeners
 * run and futures of async acquires complete there, without the user doing
 * anything. Keep listeners short, and never block the dispatcher thread
 * waiting for another event of the same client (e.g. {@code future.get()}
 * of an async acquire inside a listener): that event would never come.
 *
 * <p>libzkl's log lines go to the {@link System.Logger} named "io.zkl"
 * (component in brackets), on the dispatcher thread: WARNING and ERROR by
 * default, everything when that logger has DEBUG enabled when the client is
 * built ({@link Builder#logLevel} overrides it).
 *
 * <p>All methods are thread-safe. {@link #close()} ends the session: the
 * server deletes its nodes, pending acquires fail with {@link ClosedException},
 * and every hold is reported LOST with {@link ClosedException} (listeners'
 * {@code onLost}) before close returns — a close is never a silent release.
 * A client that is not closed lives as long as the JVM (its dispatcher
 * thread and handles stay registered); so do lock handles that are not
 * closed: a held lock is never released by the garbage collector.
 */
public final class ZklClient implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.zkl");

  final long handle;
  final long id;
  private volatile String servers;
  private final Duration connectTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ConcurrentHashMap<Long, Target> targets = new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<SessionListener> sessionListeners = new CopyOnWriteArrayList<>();
  private final Thread dispatcher;
  private volatile boolean stopping;

  static {
    NativeLoader.load();
    Dispatch.ensureInitialized();
  }

  private ZklClient(long id, long handle, String servers, Duration connectTimeout,
                    List<SessionListener> listeners) {
    this.id = id;
    this.handle = handle;
    this.servers = servers;
    this.connectTimeout = connectTimeout;
    this.sessionListeners.addAll(listeners);
    Dispatch.register(id, new Dispatch.Sink() {
      @Override
      public void onEvent(Event e) {
        onClientEvent(e);
      }

      @Override
      public void onLog(int level, String component, String message) {
        log(level, component, message);
      }
    });
    this.dispatcher = new Thread(this::dispatchLoop, "zkl-dispatcher-" + id);
    dispatcher.setDaemon(true);
    dispatcher.start();
  }

  /** A builder for a client of {@code servers} ("host:port,host:port"). */
  public static Builder builder(String servers) {
    return new Builder(servers);
  }

  /** Connects with default options and waits (up to 30 s) for the session. */
  public static ZklClient connect(String servers) {
    return builder(servers).connect();
  }

  /** The libzkl version string, e.g. "0.2.0". */
  public static String libraryVersion() {
    return ZklNative.zkl_version_string();
  }

  /** Options of a client. */
  public static final class Builder {
    private final String servers;
    private String chroot;
    private Duration sessionTimeout;
    private Duration attemptTimeout;
    private Duration lostAfter;
    private String digestAuth;
    private Acl acl = Acl.OPEN;
    private Duration connectTimeout = Duration.ofSeconds(30);
    private String tlsCaFile;
    private String tlsCertFile;
    private String tlsKeyFile;
    private String tlsKeyPassword;
    private boolean tlsInsecureSkipHostnameCheck;
    private String saslMechanism;
    private String saslUser;
    private String saslPassword;
    private String saslKeytab;
    private String saslCcache;
    private String saslService;
    private String saslHost;
    private System.Logger.Level logLevel;
    private boolean followEnsemble;
    private final List<SessionListener> listeners = new ArrayList<>();

    private Builder(String servers) {
      this.servers = Objects.requireNonNull(servers, "servers");
    }

    /** A chroot such as "/apps/x" for every path of this client (it must exist). */
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
     * Bound of one connection attempt, TLS handshake included (zkl's
     * connect_timeout_ms; default: libzkl's share, the session timeout /
     * max(3, servers of the list)).
     */
    public Builder attemptTimeout(Duration d) {
      this.attemptTimeout = d;
      return this;
    }

    /**
     * The former name of {@link #attemptTimeout}.
     *
     * @deprecated use {@link #attemptTimeout}, the same in every binding
     */
    @Deprecated
    public Builder connectAttemptTimeout(Duration d) {
      return attemptTimeout(d);
    }

    /**
     * The safety bound: shortens how long a hold counts as provably valid
     * without hearing from the server (default and upper bound: 3/4 of the
     * negotiated session timeout).
     */
    public Builder lostAfter(Duration d) {
      this.lostAfter = d;
      return this;
    }

    /** Digest authentication "user:password" (a secret: copied, never logged). */
    public Builder digestAuth(String userPassword) {
      this.digestAuth = userPassword;
      return this;
    }

    /** ACL of created nodes ({@link Acl#CREATOR} needs digest auth or SASL). */
    public Builder acl(Acl acl) {
      this.acl = Objects.requireNonNull(acl, "acl");
      return this;
    }

    /** TLS: the CA bundle (PEM) the server's chain must end in; turns TLS on. */
    public Builder tlsCaFile(String file) {
      this.tlsCaFile = file;
      return this;
    }

    /** TLS client certificate and key (PEM) for mutual TLS; password for an encrypted key (may be null). */
    public Builder tlsClientCert(String certFile, String keyFile, String keyPassword) {
      this.tlsCertFile = certFile;
      this.tlsKeyFile = keyFile;
      this.tlsKeyPassword = keyPassword;
      return this;
    }

    /** Dangerous: accept a certificate for any host name (the chain is still checked). */
    public Builder tlsInsecureSkipHostnameCheck(boolean skip) {
      this.tlsInsecureSkipHostnameCheck = skip;
      return this;
    }

    /** SASL DIGEST-MD5 with a user and password. */
    public Builder saslDigestMd5(String user, String password) {
      this.saslMechanism = "DIGEST-MD5";
      this.saslUser = user;
      this.saslPassword = password;
      return this;
    }

    /** SASL GSSAPI (Kerberos): principal, keytab and credential cache (each may be null). */
    public Builder saslGssapi(String principal, String keytab, String ccache) {
      this.saslMechanism = "GSSAPI";
      this.saslUser = principal;
      this.saslKeytab = keytab;
      this.saslCcache = ccache;
      return this;
    }

    /** SASL service name and server host of its principal (defaults: "zookeeper", see zkl.h). */
    public Builder saslService(String service, String host) {
      this.saslService = service;
      this.saslHost = host;
      return this;
    }

    /**
     * Up to which level libzkl produces log lines for the "io.zkl" logger
     * (default: WARNING, or everything when that logger has DEBUG enabled;
     * {@code OFF}: none).
     */
    public Builder logLevel(System.Logger.Level level) {
      this.logLevel = level;
      return this;
    }

    /**
     * Bound of the whole wait for a session: of {@link #connect()} and of
     * {@link ZklClient#awaitConnected()} (default 30 s; {@code null}: no bound).
     */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    /**
     * Let the server list follow the ensemble's configuration (ZooKeeper
     * 3.5+ dynamic reconfiguration): {@link ZklClient#followEnsemble} right
     * after the client is created (default false).
     */
    public Builder followEnsemble(boolean on) {
      this.followEnsemble = on;
      return this;
    }

    /** A listener registered before the first event can be dispatched. */
    public Builder sessionListener(SessionListener l) {
      listeners.add(Objects.requireNonNull(l));
      return this;
    }

    /** Creates the client; it connects in the background. */
    public ZklClient build() {
      NativeLoader.load();
      Dispatch.ensureInitialized();
      long id = Dispatch.newId();
      long[] out = new long[1];
      byte[] why = new byte[512];  // libzkl's message: the option and the reason
      int rc = ZklNative.zklj_client_new(Util.cstr(servers, "servers"), Util.cstr(chroot, "chroot"),
          (int) clampMillis(sessionTimeout), (int) clampMillis(attemptTimeout),
          (int) clampMillis(lostAfter), acl.code, Util.cstr(digestAuth, "digest auth"),
          Util.cstr(tlsCaFile, "TLS CA file"), Util.cstr(tlsCertFile, "TLS certificate file"),
          Util.cstr(tlsKeyFile, "TLS key file"), Util.cstr(tlsKeyPassword, "TLS key password"),
          tlsInsecureSkipHostnameCheck ? 1 : 0,
          Util.cstr(saslMechanism, "SASL mechanism"), Util.cstr(saslUser, "SASL user"),
          Util.cstr(saslPassword, "SASL password"), Util.cstr(saslKeytab, "SASL keytab"),
          Util.cstr(saslCcache, "SASL ccache"), Util.cstr(saslService, "SASL service"),
          Util.cstr(saslHost, "SASL host"), nativeLogLevel(logLevel), 0, id, out, why);
      if (rc < 0) throw ZklException.of(rc, "new client for " + servers, Util.ctext(why));
      ZklClient c = new ZklClient(id, out[0], servers, connectTimeout, listeners);
      if (followEnsemble) {
        try {
          c.followEnsemble(true);
        } catch (RuntimeException e) {
          c.close();
          throw e;
        }
      }
      return c;
    }

    /**
     * Creates the client and waits for its session, at most
     * {@link #connectTimeout} (closing it on failure).
     */
    public ZklClient connect() {
      ZklClient c = build();
      try {
        c.awaitConnected();
        return c;
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
    }

    private static long clampMillis(Duration d) {
      if (d == null) return 0;
      long ms = Util.millis(d);
      return ms < 0 || ms > Integer.MAX_VALUE ? Integer.MAX_VALUE : ms;
    }
  }

  // ---------------------------------------------------------------------------
  // Logging
  // ---------------------------------------------------------------------------

  static int nativeLogLevel(System.Logger.Level level) {
    if (level == null) {
      // libzkl's default with a log callback is WARN; a logger configured
      // for DEBUG asks for everything.
      if (LOG.isLoggable(System.Logger.Level.DEBUG)) return ZklNativeConstants.ZKL_LOG_DEBUG;
      return ZklNativeConstants.ZKL_LOG_WARN;
    }
    switch (level) {
      case OFF: return ZklNativeConstants.ZKL_LOG_OFF;
      case ERROR: return ZklNativeConstants.ZKL_LOG_ERROR;
      case WARNING: return ZklNativeConstants.ZKL_LOG_WARN;
      case INFO: return ZklNativeConstants.ZKL_LOG_INFO;
      default: return ZklNativeConstants.ZKL_LOG_DEBUG;  // DEBUG, TRACE, ALL
    }
  }

  /** One libzkl log line to the "io.zkl" System.Logger. */
  static void log(int level, String component, String message) {
    System.Logger.Level l;
    switch (level) {
      case ZklNativeConstants.ZKL_LOG_ERROR: l = System.Logger.Level.ERROR; break;
      case ZklNativeConstants.ZKL_LOG_WARN: l = System.Logger.Level.WARNING; break;
      case ZklNativeConstants.ZKL_LOG_INFO: l = System.Logger.Level.INFO; break;
      default: l = System.Logger.Level.DEBUG; break;
    }
    if (LOG.isLoggable(l)) LOG.log(l, "[" + component + "] " + message);
  }

  // ---------------------------------------------------------------------------
  // Session
  // ---------------------------------------------------------------------------

  long h() {
    if (closed.get()) throw new ClosedException("client of " + servers + " is closed");
    return handle;
  }

  /**
   * Waits until the session is connected, at most the builder's
   * {@link Builder#connectTimeout} (default 30 s), as
   * {@link #awaitConnected(Duration)}.
   */
  public void awaitConnected() {
    awaitConnected(connectTimeout);
  }

  /**
   * Waits until the session is connected, at most {@code timeout}
   * ({@code null}: no bound); ZklTimeoutException, or why the attempts
   * failed: AuthException or the certificate error (ZKL_ECERT, ZKL_EHOSTNAME,
   * ZKL_ECLIENTCERT) at once when every server refused, a TLS error when the
   * wait runs out. The message says how each server's last attempt failed
   * ("connect to 127.0.0.1:2181: timed out (127.0.0.1:2181 (tcp): connection
   * refused) (ZKL_ETIMEDOUT)").
   */
  public void awaitConnected(Duration timeout) {
    int rc = ZklNative.zkl_client_wait_connected(h(), Util.millis(timeout));
    if (rc < 0) throw connectError(rc);
  }

  /**
   * The error of a failed connect: {@code code}, its text followed by why
   * libzkl's attempts failed, server by server, when it keeps that. The code
   * stays {@code code}: the failures are the message's detail only.
   */
  private ZklException connectError(int code) {
    byte[] buf = new byte[1024];
    ZklNative.zkl_client_connect_error(handle, buf);
    String detail = Util.ctext(buf);
    return ZklException.of(code, "connect to " + servers,
        detail.isEmpty() ? null : ZklNative.zkl_strerror(code) + " (" + detail + ")");
  }

  public SessionState state() {
    if (closed.get()) return SessionState.CLOSED;
    int rc = ZklNative.zkl_client_state(handle);
    return rc < 0 ? SessionState.CLOSED : SessionState.of(rc);
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

  /**
   * Statistics of the client and each of its handles as one JSON document
   * (schema in docs/STATISTICS.md; its "schema" field is versioned).
   */
  public String stats() {
    byte[][] out = new byte[1][];
    ZklException.check(ZklNative.zkl_client_stats(h(), out), "statistics");
    return new String(out[0], StandardCharsets.UTF_8);
  }

  /** The server list given to the builder, or to the last successful {@link #setServers}. */
  public String servers() {
    return servers;
  }

  /**
   * Replaces the server list ("host:port,host:port", as the builder's) of
   * the running client; the chroot stays, and so do the session and its
   * holds. When the current server is no longer listed (or, the list having
   * grown, to spread clients evenly) the client moves: a disconnect, so
   * holds see onSuspended then onRestored with the same tokens. Throws
   * InvalidArgumentException for a null, empty or malformed list,
   * ConnectionException when no name of it resolves (the old list stays),
   * ClosedException after {@link #close}.
   */
  public void setServers(String servers) {
    String op = "set servers";
    if (servers != null && servers.indexOf('\0') >= 0) {
      throw ZklException.of(ZklNativeConstants.ZKL_EINVAL, op, "servers contains a NUL character");
    }
    checkOpen(ZklNative.zkl_client_set_servers(openHandle(op), Util.cstr(servers, "servers")), op);
    this.servers = servers;
  }

  /**
   * {@code true}: the server list follows the ensemble's configuration
   * (/zookeeper/config, ZooKeeper 3.5+ dynamic reconfiguration), so that
   * servers can be added and removed without reconfiguring clients; a server
   * without one (before 3.5, or a static configuration) leaves the list as it
   * is, and the statistics' "ensemble" says why. {@code false}: stop
   * following (the list stays). ClosedException after {@link #close}.
   */
  public void followEnsemble(boolean on) {
    String op = "follow ensemble";
    checkOpen(ZklNative.zkl_client_follow_ensemble(openHandle(op), on ? 1 : 0), op);
  }

  /** The handle, or ClosedException ("op: ...") once closed. */
  private long openHandle(String op) {
    if (closed.get()) throw ZklException.of(ZklNativeConstants.ZKL_ECLOSED, op);
    return handle;
  }

  /** check(rc, op), a handle freed by a concurrent close reading as closed. */
  private void checkOpen(int rc, String op) {
    if (rc == ZklNativeConstants.ZKL_EBADHANDLE && closed.get()) rc = ZklNativeConstants.ZKL_ECLOSED;
    ZklException.check(rc, op);
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
    return lock(path, LockOptions.of(LockKind.SEMAPHORE).maxLeases(maxLeases));
  }

  public ZklLock lock(String path, LockKind kind) {
    return lock(path, LockOptions.of(kind));
  }

  /** A lock handle of any kind, with all options. */
  public ZklLock lock(String path, LockOptions o) {
    Objects.requireNonNull(o, "options");
    byte[] p = Util.path(path);
    ZklLock l = new ZklLock(this, path, o.kind, o.maxLeases, o.leases);
    register(l, "lock " + path, out ->
        ZklNative.zklj_lock_new(h(), p, o.kind.code, o.maxLeases, o.leases, o.maxHoldMs, o.onRevoke.code,
            o.data, l.id, out));
    return l;
  }

  /**
   * Groups idle lock handles of this client (any mix of kinds, distinct
   * paths) into one lock taken all or none; the multi-lock takes them over.
   */
  public ZklMultiLock multiLock(ZklLock... members) {
    long[] hs = new long[members.length];
    for (int i = 0; i < members.length; i++) {
      if (members[i].client != this) {
        throw new InvalidArgumentException(ZklNativeConstants.ZKL_EINVAL, "a member of another client");
      }
      hs[i] = members[i].h();
    }
    ZklMultiLock m = new ZklMultiLock(this, java.util.Arrays.asList(members));
    register(m, "multi-lock", out -> ZklNative.zklj_multilock_new(h(), hs, m.id, out));
    return m;
  }

  /** A fair election at {@code path}; {@code participantId} is what observers see. */
  public ZklElection election(String path, String participantId) {
    return election(path, participantId, ElectionKind.FAIR);
  }

  public ZklElection election(String path, String participantId, ElectionKind kind) {
    return election(path, participantId, kind, OnRevoke.IGNORE);
  }

  public ZklElection election(String path, String participantId, ElectionKind kind, OnRevoke onRevoke) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(onRevoke, "onRevoke");
    byte[] p = Util.path(path);
    byte[] pid = Util.cstr(participantId, "participant id");
    ZklElection e = new ZklElection(this, path, participantId, kind);
    register(e, "election " + path, out ->
        ZklNative.zklj_election_new(h(), p, kind.code, pid, onRevoke.code, e.id, out));
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
    register(o, "observer " + path, out -> ZklNative.zklj_observer_new(h(), p, kind.code, o.id, out));
    return o;
  }

  private interface NativeNew {
    int create(long[] out);
  }

  private void register(Target t, String what, NativeNew f) {
    targets.put(t.id, t);
    Dispatch.register(t.id, t);
    long[] out = new long[1];
    int rc;
    try {
      rc = f.create(out);
    } catch (RuntimeException e) {
      unregister(t);
      throw e;
    }
    if (rc < 0) {
      unregister(t);
      throw ZklException.of(rc, what);
    }
    t.handle = out[0];
  }

  void unregister(Target t) {
    targets.remove(t.id, t);
    Dispatch.unregister(t.id);
  }

  // ---------------------------------------------------------------------------
  // Inspection and revocation
  // ---------------------------------------------------------------------------

  /** Who holds and who waits on a lock, in queue order (one round trip per node). */
  public List<Participant> inspect(String path, LockKind kind, Duration timeout) {
    return inspect(path, kind.code, 0, timeout);
  }

  /** The participants of an election, in queue order. */
  public List<Participant> inspectElection(String path, ElectionKind kind, Duration timeout) {
    return inspect(path, 0, kind.code, timeout);
  }

  /**
   * Asks the holders of the lock at {@code path} to let go (Curator's
   * Revoker protocol): {@code holder} is a node name from {@link #inspect},
   * or null for every current holder. Returns how many were asked.
   */
  public int revoke(String path, LockKind kind, String holder, Duration timeout) {
    return ZklException.check(ZklNative.zklj_revoke(h(), Util.path(path), kind.code, 0, Util.millis(timeout),
        Util.cstr(holder, "holder")), "revoke " + path);
  }

  /** As {@link #revoke(String, LockKind, String, Duration)}, for the leader of an election. */
  public int revokeElection(String path, ElectionKind kind, String holder, Duration timeout) {
    return ZklException.check(ZklNative.zklj_revoke(h(), Util.path(path), 0, kind.code, Util.millis(timeout),
        Util.cstr(holder, "holder")), "revoke " + path);
  }

  /**
   * For resources that are not ZooKeeper: is {@code token} the fencing token
   * of a current holder of the lock at {@code path}? Returns normally when
   * it is; StaleTokenException when it is not (a later holder has it, or
   * nobody); ZklTimeoutException, ConnectionException... when the question
   * could not be answered within {@code timeout} (null: no bound). The
   * answer is read after a sync, so it is at least as new as the quorum's
   * state when the call began. A snapshot: a resource that must not accept
   * a stale holder compares tokens itself, and uses this to refuse early or
   * to audit.
   */
  public void fenceCheck(String path, LockKind kind, FencingToken token, Duration timeout) {
    ZklException.check(ZklNative.zklj_fence_check(h(), Util.path(path), kind.code, 0, Util.millis(timeout),
        token.bits()), "fence check " + path);
  }

  /** As {@link #fenceCheck(String, LockKind, FencingToken, Duration)}, for the leader of an election. */
  public void fenceCheckElection(String path, ElectionKind kind, FencingToken token, Duration timeout) {
    ZklException.check(ZklNative.zklj_fence_check(h(), Util.path(path), 0, kind.code, Util.millis(timeout),
        token.bits()), "fence check " + path);
  }

  private List<Participant> inspect(String path, int lockKind, int electionKind, Duration timeout) {
    long[] out = new long[1];
    ZklException.check(ZklNative.zklj_inspect(h(), Util.path(path), lockKind, electionKind,
        Util.millis(timeout), out), "inspect " + path);
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
        FencingToken token = new FencingToken(v[0]);
        ZklNative.zkl_participants_session_id(p, i, v);
        long session = v[0];
        ZklNative.zkl_participants_ctime_ms(p, i, v);
        long ctime = v[0];
        int leases = Math.max(1, ZklNative.zkl_participants_leases(p, i));
        bytes[0] = null;
        ZklNative.zkl_participants_data(p, i, bytes);
        byte[] data = bytes[0] == null ? new byte[0] : bytes[0];
        list.add(new Participant(name, holder, token, session, ctime, leases, data));
      }
      return list;
    } finally {
      ZklNative.zkl_participants_free(p);
    }
  }

  // ---------------------------------------------------------------------------
  // Dispatch
  // ---------------------------------------------------------------------------

  private void onClientEvent(Event e) {
    if (e.type != ZklNativeConstants.ZKL_EVENT_SESSION) return;
    SessionState s = SessionState.of(e.sessionState);
    for (SessionListener l : sessionListeners) Target.call("session", () -> l.onSessionState(this, s));
  }

  /** Whether the calling thread is this client's dispatcher thread. */
  public boolean isDispatcherThread() {
    return Thread.currentThread() == dispatcher;
  }

  private void dispatchLoop() {
    try {
      while (!stopping) {
        ZklNative.zkl_client_wait(handle, 1000);
        ZklNative.zkl_client_dispatch(handle, 0);
      }
      // Closing: deliver what zkl_client_close queued (LOST with CLOSED,
      // acquires failed with CLOSED) before the handles go.
      while (ZklNative.zkl_client_dispatch(handle, 0) > 0) {
        // more
      }
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.ERROR, "zkl dispatcher thread died", t);
    }
  }

  // ---------------------------------------------------------------------------
  // Close
  // ---------------------------------------------------------------------------

  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Closes the session (the server deletes its nodes): pending acquires
   * fail with ClosedException, every hold is reported lost with
   * ClosedException (listeners run before this returns), and every handle
   * of this client is freed. Idempotent. Called from a listener (the
   * dispatcher thread), it closes on another thread and returns at once.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    if (isDispatcherThread()) {
      Thread t = new Thread(this::doClose, "zkl-close-" + id);
      t.setDaemon(true);
      t.start();
      return;
    }
    doClose();
  }

  private void doClose() {
    ZklNative.zkl_client_close(handle);
    stopping = true;
    ZklNative.zkl_client_wakeup(handle);
    boolean interrupted = false;
    while (dispatcher.isAlive()) {
      try {
        dispatcher.join(1000);
      } catch (InterruptedException e) {
        interrupted = true;
      }
      ZklNative.zkl_client_wakeup(handle);
    }
    ClosedException ex = new ClosedException("client of " + servers + " closed");
    for (Target t : new ArrayList<>(targets.values())) {
      try {
        t.clientClosed(ex);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "zkl: close of a handle failed", e);
      }
    }
    targets.clear();
    Dispatch.unregister(id);
    ZklNative.zkl_client_destroy(handle);
    if (interrupted) Thread.currentThread().interrupt();
  }

  @Override
  public String toString() {
    return "ZklClient[" + servers + (closed.get() ? ", closed" : "") + "]";
  }
}
