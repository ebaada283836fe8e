package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.await;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.children;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.expireSession;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The scenarios of bindings/CONFORMANCE.md, one test each, named by the scenario id. */
@ExtendWith(ZkServerExtension.class)
class ConformanceTest {

  private static LockListener onLost(CompletableFuture<ZklException> lost, CompletableFuture<String> thread) {
    return new LockListener() {
      @Override
      public void onLost(ZklLock l, ZklException cause) {
        if (thread != null) thread.complete(Thread.currentThread().getName());
        lost.complete(cause);
      }
    };
  }

  @Test
  void fair_lock_excludes() throws Exception {
    String path = uniquePath("fair_lock_excludes");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      Hold ha = la.acquire(T);
      WouldBlockException e = assertThrows(WouldBlockException.class, () -> lb.tryAcquireOrThrow(ZklLock.DEFAULT_OWNER));
      assertEquals(ZklError.EAGAIN, e.error());
      assertEquals(Optional.empty(), lb.tryAcquire());
      ha.release();
      try (Hold hb = lb.tryAcquireOrThrow(ZklLock.DEFAULT_OWNER)) {
        assertTrue(hb.isHeld());
      }
    }
  }

  @Test
  void timeout_zero_tries_once() throws Exception {
    String path = uniquePath("timeout_zero_tries_once");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      try (Hold h = la.acquire(Duration.ZERO)) {
        assertTrue(h.isHeld());
        long t0 = System.nanoTime();
        ZklTimeoutException e = assertThrows(ZklTimeoutException.class, () -> lb.acquire(Duration.ZERO));
        assertEquals(ZklError.ETIMEDOUT, e.error());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "at once");
        awaitChildren(path, 1);
      }
    }
  }

  @Test
  void acquire_timeout_leaves_no_node() throws Exception {
    String path = uniquePath("acquire_timeout_leaves_no_node");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path); Hold ha = la.acquire(T)) {
      long t0 = System.nanoTime();
      assertThrows(ZklTimeoutException.class, () -> lb.acquire(Duration.ofMillis(200)));
      assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(190), "waited");
      awaitChildren(path, 1);
      assertEquals(1, children(path).size());
    }
  }

  @Test
  void cancel_pending_acquire() throws Exception {
    String path = uniquePath("cancel_pending_acquire");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path); Hold ha = la.acquire(T)) {
      AcquireFuture f = lb.acquireAsync(null);
      awaitChildren(path, 2);
      lb.cancel();
      AcquireCanceledException e = assertThrows(AcquireCanceledException.class, () -> await(f, T));
      assertEquals(ZklError.ECANCELED, e.error());
      awaitChildren(path, 1);
      assertTrue(ha.isHeld());
    }
  }

  @Test
  void async_acquire_event() throws Exception {
    String path = uniquePath("async_acquire_event");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      Hold ha = la.acquire(T);
      AcquireFuture f = lb.acquireAsync(T);
      CompletableFuture<String> completedOn = f.thenApply(h -> Thread.currentThread().getName());
      awaitChildren(path, 2);
      assertFalse(f.isDone());
      ha.release();
      // Nobody pumps: the client's dispatcher thread completes the future.
      // (Wait on the dependent first: a thread waiting on f itself may run
      // f's dependents, and would then name itself.)
      assertTrue(await(completedOn, T).startsWith("zkl-dispatcher-"));
      Hold hb = await(f, T);
      assertEquals(lb.fencingToken(), hb.fencingToken());
      assertTrue(hb.fencingToken().isNewerThan(ha.fencingToken()));
      hb.release();
    }
  }

  @Test
  void reentrant_hold_count() throws Exception {
    String path = uniquePath("reentrant_hold_count");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      Hold h1 = lock.acquire(T);
      Hold h2 = lock.acquire(T);
      assertEquals(2, lock.holdCount());
      assertEquals(h1.fencingToken(), h2.fencingToken());
      h2.release();
      assertEquals(1, lock.holdCount());
      assertTrue(lock.isHeld());
      h1.release();
      assertFalse(lock.isHeld());
    }
  }

  @Test
  void release_twice_not_held() throws Exception {
    String path = uniquePath("release_twice_not_held");
    try (ZklClient c = connect()) {
      for (LockKind kind : new LockKind[] {LockKind.FAIR, LockKind.REENTRANT, LockKind.NONFAIR,
          LockKind.READ, LockKind.WRITE}) {
        try (ZklLock lock = c.lock(path + "-" + kind, kind)) {
          lock.acquire(T);
          lock.release();
          NotHeldException e = assertThrows(NotHeldException.class, lock::release, kind.toString());
          assertEquals(ZklError.ENOTHELD, e.error());
        }
      }
      try (ZklLock sem = c.semaphore(path + "-sem", 2)) {
        sem.acquire(T);
        sem.release();
        assertThrows(NotHeldException.class, sem::release);
      }
    }
  }

  @Test
  void release_wrong_owner() throws Exception {
    String path = uniquePath("release_wrong_owner");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      lock.acquire(7, T);
      NotOwnerException e = assertThrows(NotOwnerException.class, () -> lock.release(8));
      assertEquals(ZklError.ENOTOWNER, e.error());
      assertTrue(lock.isHeld());
      lock.release(7);
    }
  }

  @Test
  void default_owner_any_thread_releases() throws Exception {
    String path = uniquePath("default_owner_any_thread_releases");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      Hold h = lock.acquire(T);
      assertEquals(ZklNativeConstants.ZKL_DEFAULT_OWNER, h.owner());
      Thread t = new Thread(lock::release, "other-thread");
      CompletableFuture<Throwable> failed = new CompletableFuture<>();
      t.setUncaughtExceptionHandler((th, ex) -> failed.complete(ex));
      t.start();
      t.join(T.toMillis());
      assertFalse(failed.isDone(), () -> "release from another thread failed: " + failed.join());
      assertFalse(lock.isHeld());
      awaitChildren(path, 0);
    }
  }

  @Test
  void fencing_token_increases() throws Exception {
    String path = uniquePath("fencing_token_increases");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      FencingToken prev = null;
      for (int i = 0; i < 4; i++) {
        ZklLock l = i % 2 == 0 ? la : lb;
        try (Hold h = l.acquire(T)) {
          if (prev != null) {
            assertTrue(h.fencingToken().isNewerThan(prev), h.fencingToken() + " after " + prev);
            assertTrue(h.fencingToken().compareTo(prev) > 0);
          }
          prev = h.fencingToken();
        }
      }
    }
    // Unsigned: the top bit set is the largest, not negative.
    FencingToken big = new FencingToken(0x8000_0000_0000_0001L);
    FencingToken small = new FencingToken(2);
    assertTrue(big.isNewerThan(small));
    assertEquals("9223372036854775809", big.toString());
    assertEquals(big, FencingToken.parse(big.toString()));
  }

  @Test
  void valid_for_while_held() throws Exception {
    String path = uniquePath("valid_for_while_held");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      assertEquals(Duration.ZERO, lock.validFor());
      Hold h = lock.acquire(T);
      Duration v = lock.validFor();
      assertTrue(v.compareTo(Duration.ZERO) > 0, v.toString());
      assertTrue(v.compareTo(c.sessionTimeout()) < 0, v + " < " + c.sessionTimeout());
      assertTrue(h.validFor().compareTo(Duration.ZERO) > 0);
      h.release();
      assertEquals(Duration.ZERO, lock.validFor());
      assertEquals(Duration.ZERO, h.validFor());
    }
  }

  @Test
  void is_held_false_after_close() throws Exception {
    String path = uniquePath("is_held_false_after_close");
    ZklClient c = connect();
    ZklLock lock = c.lock(path);
    Hold h = lock.acquire(T);
    assertTrue(lock.isHeld());
    c.close();
    assertFalse(lock.isHeld());
    assertFalse(h.isHeld());
    assertEquals(Duration.ZERO, lock.validFor());
  }

  @Test
  void lost_on_session_expiry() throws Exception {
    String path = uniquePath("lost_on_session_expiry");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      CompletableFuture<String> thread = new CompletableFuture<>();
      lock.addListener(onLost(lost, thread));
      lock.acquire(T);
      expireSession(c);
      ZklException cause = await(lost, T);  // nobody pumps: the dispatcher thread delivers it
      assertInstanceOf(SessionLostException.class, cause);
      assertEquals(ZklError.ESESSION, cause.error());
      assertTrue(thread.join().startsWith("zkl-dispatcher-"));
      assertFalse(lock.isHeld());
    }
  }

  @Test
  void lost_on_client_close() throws Exception {
    String path = uniquePath("lost_on_client_close");
    ZklClient c = connect();
    ZklLock lock = c.lock(path);
    CompletableFuture<ZklException> lost = new CompletableFuture<>();
    lock.addListener(onLost(lost, null));
    lock.acquire(T);
    c.close();
    assertTrue(lost.isDone(), "loss delivered before close returns");
    ZklException cause = lost.join();
    assertInstanceOf(ClosedException.class, cause);
    assertEquals(ZklError.ECLOSED, cause.error());
    awaitChildren(path, 0);
  }

  @Test
  void campaign_timeout_leaves_election() throws Exception {
    String path = uniquePath("campaign_timeout_leaves_election");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      ea.campaign(T);
      ZklTimeoutException e = assertThrows(ZklTimeoutException.class, () -> eb.campaign(Duration.ofMillis(200)));
      assertEquals(ZklError.ETIMEDOUT, e.error());
      awaitChildren(path, 1);
      List<Participant> ps = a.inspectElection(path, ElectionKind.FAIR, T);
      assertEquals(1, ps.size());
      assertEquals("a", ps.get(0).dataAsString());
      assertFalse(eb.isLeader());
    }
  }

  @Test
  void campaign_when_leader_returns_at_once() throws Exception {
    String path = uniquePath("campaign_when_leader_returns_at_once");
    try (ZklClient a = connect(); ZklElection ea = a.election(path, "a")) {
      FencingToken t1 = ea.campaign(T);
      long t0 = System.nanoTime();
      FencingToken t2 = ea.campaign(Duration.ZERO);
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1));
      assertEquals(t1, t2);
      assertEquals(t1, ea.campaign(T));
      assertTrue(ea.isLeader());
    }
  }

  /** One observation of an observer: leader id and term, or empty when nobody leads. */
  private record Seen(Optional<String> leader, Optional<FencingToken> term) {}

  private static Seen awaitSeen(BlockingQueue<Seen> q, Predicate<Seen> p) throws InterruptedException {
    long deadline = System.nanoTime() + T.toNanos();
    for (;;) {
      Seen s = q.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      assertNotNull(s, "observer event in time");
      if (p.test(s)) return s;
    }
  }

  @Test
  void observer_leader_and_term() throws Exception {
    String path = uniquePath("observer_leader_and_term");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient o = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      FencingToken ta = ea.campaign(T);
      BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
      try (ZklObserver obs = o.observer(path, ElectionKind.FAIR, (ob, leader, term) -> seen.add(new Seen(leader, term)))) {
        Seen s1 = awaitSeen(seen, s -> s.leader().isPresent());
        assertEquals(Optional.of("a"), s1.leader());
        assertEquals(Optional.of(ta), s1.term());
        assertEquals(Optional.of("a"), obs.leader());
        assertEquals(Optional.of(ta), obs.term());

        CompletableFuture<FencingToken> bLeads = eb.campaignAsync(null);
        awaitChildren(path, 2);
        ea.resign();
        FencingToken tb = await(bLeads, T);
        Seen s2 = awaitSeen(seen, s -> s.leader().equals(Optional.of("b")));
        assertEquals(Optional.of(tb), s2.term());
        assertTrue(s2.term().get().isNewerThan(ta), "the term grows");

        eb.resign();
        awaitSeen(seen, s -> s.leader().isEmpty());
        assertEquals(Optional.empty(), obs.leader());
        assertEquals(Optional.empty(), obs.term());
      }
    }
  }

  @Test
  void semaphore_max_leases() throws Exception {
    String path = uniquePath("semaphore_max_leases");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient c = connect();
         ZklLock sa = a.semaphore(path, 2); ZklLock sb = b.semaphore(path, 2); ZklLock sc = c.semaphore(path, 2)) {
      Hold ha = sa.acquire(T);
      Hold hb = sb.acquire(T);
      assertTrue(ha.isHeld() && hb.isHeld());
      assertEquals(Optional.empty(), sc.tryAcquire());
      AcquireFuture f = sc.acquireAsync(T);
      awaitChildren(path, 3);
      assertFalse(f.isDone());
      ha.release();
      try (Hold hc = await(f, T)) {
        assertTrue(hc.isHeld());
      }
      hb.release();
    }
  }

  @Test
  void read_write_lock_shared() throws Exception {
    String path = uniquePath("read_write_lock_shared");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient c = connect();
         ZklLock r1 = a.readLock(path); ZklLock r2 = b.readLock(path); ZklLock w = c.writeLock(path)) {
      Hold h1 = r1.acquire(T);
      Hold h2 = r2.acquire(T);
      assertTrue(h1.isHeld() && h2.isHeld());
      AcquireFuture wf = w.acquireAsync(T);
      awaitChildren(path, 3);
      assertFalse(wf.isDone());
      h1.release();
      awaitChildren(path, 2);
      assertFalse(wf.isDone());
      h2.release();
      try (Hold hw = await(wf, T)) {
        assertTrue(hw.isHeld());
      }
    }
  }

  @Test
  void bad_path_rejected() throws Exception {
    try (ZklClient c = connect()) {
      for (String p : new String[] {"no-slash", "/trailing/", "/a//b", "/a/./b", "/a/../b", ""}) {
        BadPathException e = assertThrows(BadPathException.class, () -> c.lock(p), p);
        assertEquals(ZklError.EBADPATH, e.error());
      }
      assertThrows(BadPathException.class, () -> c.election("bad", "x"));
    }
  }

  @Test
  void destroyed_handle_errors() throws Exception {
    String path = uniquePath("destroyed_handle_errors");
    try (ZklClient c = connect()) {
      ZklLock lock = c.lock(path);
      lock.acquire(T);
      lock.close();
      lock.close();  // idempotent
      assertFalse(lock.isHeld());
      assertEquals(Duration.ZERO, lock.validFor());
      for (Runnable r : new Runnable[] {() -> lock.acquire(T), lock::release, lock::fencingToken,
          () -> lock.tryAcquire(), lock::stats}) {
        ZklException e = assertThrows(ClosedException.class, r::run);
        assertTrue(e.error() == ZklError.ECLOSED || e.error() == ZklError.EBADHANDLE, e.error().toString());
      }
      ZklElection e = c.election(path + "-e", "x");
      e.close();
      assertFalse(e.isLeader());
      assertThrows(ClosedException.class, () -> e.campaign(T));
      awaitChildren(path, 0);
    }
  }

  /** Acquires a lock and drops every reference to it. */
  private static void acquireAndForget(ZklClient c, String path) {
    c.lock(path).acquire(T);
  }

  @Test
  void held_lock_outlives_dropped_reference() throws Exception {
    String path = uniquePath("held_lock_outlives_dropped_reference");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklLock lb = b.lock(path)) {
      acquireAndForget(a, path);
      for (int i = 0; i < 3; i++) {
        System.gc();
        System.runFinalization();
      }
      // The dispatcher delivers whatever the collections triggered; a
      // release would show as the node going away.
      assertEquals(Optional.empty(), lb.tryAcquire(), "still held by the forgotten handle");
      // The try's own node is deleted in the background (one round trip).
      awaitChildren(path, 1);
      List<Participant> ps = b.inspect(path, LockKind.FAIR, T);
      assertTrue(ps.get(0).holder());
      assertEquals(a.sessionId(), ps.get(0).sessionId());
    }
  }

  @Test
  void stats_document() throws Exception {
    String path = uniquePath("stats_document");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> doc = (Map<String, Object>) MiniJson.parse(c.stats());
      assertEquals(1.0, doc.get("schema"));
      @SuppressWarnings("unchecked")
      Map<String, Object> client = (Map<String, Object>) doc.get("client");
      assertNotNull(client);
      for (String k : new String[] {"state", "requests", "events", "sessions", "heartbeats"}) {
        assertTrue(client.containsKey(k), k);
      }
      assertEquals(1.0, client.get("sessions"));
      assertTrue(((Double) client.get("requests")) > 0);
      @SuppressWarnings("unchecked")
      Map<String, Object> mine = (Map<String, Object>) MiniJson.parse(lock.stats());
      assertEquals(path, mine.get("path"));
      assertEquals(Boolean.TRUE, mine.get("held"));
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> clientStats(ZklClient c) {
    Map<String, Object> doc = (Map<String, Object>) MiniJson.parse(c.stats());
    return (Map<String, Object>) doc.get("client");
  }

  @Test
  void set_servers_keeps_session() throws Exception {
    // The suite's server and one that refuses (127.0.0.1:1); the new list
    // is the suite's server alone, the one the client is connected to.
    String path = uniquePath("set_servers_keeps_session");
    String servers = ZkServerExtension.connect();
    try (ZklClient c = ZklClient.builder(servers + ",127.0.0.1:1").connectTimeout(T).connect();
         ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      long session = c.sessionId();
      FencingToken token = lock.fencingToken();
      for (int i = 0; i < 2; i++) {  // the second time the list in force is given again
        c.setServers(servers);
        assertEquals(session, c.sessionId());
        assertTrue(lock.isHeld());
        assertTrue(h.isHeld());
        assertEquals(token, lock.fencingToken());
        assertEquals(servers, c.servers());
        Map<String, Object> client = clientStats(c);
        assertEquals(1.0, client.get("server_list_changes"), client.toString());
        assertEquals(servers, client.get("servers"));
      }
    }
  }

  @Test
  void set_servers_errors() throws Exception {
    ZklClient c = connect();
    for (String bad : new String[] {"", "nohostport", "a\0b", null}) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> c.setServers(bad));
      assertEquals(ZklNativeConstants.ZKL_EINVAL, e.code());
      assertTrue(e.getMessage().startsWith("set servers: "), e.getMessage());
    }
    assertTrue(c.sessionId() != 0);  // a bad list leaves the session alone
    c.close();
    ClosedException closed = assertThrows(ClosedException.class, () -> c.setServers(ZkServerExtension.connect()));
    assertEquals(ZklNativeConstants.ZKL_ECLOSED, closed.code());
    assertTrue(closed.getMessage().startsWith("set servers: "), closed.getMessage());
    closed = assertThrows(ClosedException.class, () -> c.followEnsemble(true));
    assertTrue(closed.getMessage().startsWith("follow ensemble: "), closed.getMessage());
  }

  @Test
  @SuppressWarnings("unchecked")
  void follow_ensemble_standalone() throws Exception {
    // A standalone server has no ensemble configuration to follow: the call
    // succeeds, the list stays the suite's server, and the statistics say
    // why it is not followed.
    String path = uniquePath("follow_ensemble_standalone");
    String servers = ZkServerExtension.connect();
    try (ZklClient c = connect(); ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      long session = c.sessionId();
      c.followEnsemble(true);
      long deadline = System.nanoTime() + T.toNanos();
      while (true) {
        Map<String, Object> e = (Map<String, Object>) clientStats(c).get("ensemble");
        Object why = e.get("not_followed");
        if (Boolean.TRUE.equals(e.get("following")) && why instanceof String && !((String) why).isEmpty()) break;
        assertTrue(System.nanoTime() < deadline, "ensemble " + e);
        Thread.sleep(20);
      }
      assertEquals(servers, clientStats(c).get("servers"));
      assertEquals(session, c.sessionId());
      assertTrue(lock.isHeld());
      c.followEnsemble(false);
      assertEquals(Boolean.FALSE, ((Map<String, Object>) clientStats(c).get("ensemble")).get("following"));
    }
    // The builder's option does the same right after creation.
    try (ZklClient f = ZklClient.builder(servers).followEnsemble(true).connectTimeout(T).connect()) {
      assertEquals(Boolean.TRUE, ((Map<String, Object>) clientStats(f).get("ensemble")).get("following"));
    }
  }

  @Test
  void constants_match_header() throws Exception {
    String header = Files.readString(TestSupport.sourceDir().resolve("include/zkl.h"));
    Matcher m = Pattern.compile("(?m)^#define (ZKL_[A-Z0-9_]+) (-?\\d+)").matcher(header);
    Map<String, Integer> defines = new HashMap<>();
    while (m.find()) defines.put(m.group(1), Integer.parseInt(m.group(2)));
    assertTrue(defines.size() > 60, "parsed " + defines.size());
    Map<String, Integer> mine = new HashMap<>();
    for (Field f : ZklNativeConstants.class.getFields()) mine.put(f.getName(), f.getInt(null));
    for (Map.Entry<String, Integer> d : defines.entrySet()) {
      assertEquals(d.getValue(), mine.get(d.getKey()), d.getKey());
    }
    // The Java enums carry the same numbers.
    for (ZklError e : ZklError.values()) {
      if (e != ZklError.UNKNOWN) assertEquals(defines.get("ZKL_" + e.name()), e.code(), e.name());
    }
    for (Map.Entry<String, Integer> d : defines.entrySet()) {
      if (d.getKey().matches("ZKL_E[A-Z]+")) {
        assertEquals(d.getKey(), "ZKL_" + ZklError.of(d.getValue()).name(), "every error code has its enum");
      }
    }
    for (LockKind k : LockKind.values()) assertEquals(defines.get("ZKL_LOCK_" + k.name()), k.code);
    for (ElectionKind k : ElectionKind.values()) assertEquals(defines.get("ZKL_ELECTION_" + k.name()), k.code);
    for (OnRevoke r : OnRevoke.values()) assertEquals(defines.get("ZKL_REVOKE_" + r.name()), r.code);
    for (SessionState s : SessionState.values()) assertEquals(defines.get("ZKL_SESSION_" + s.name()), s.code);
    assertEquals(defines.get("ZKL_DEFAULT_OWNER").longValue(), ZklLock.DEFAULT_OWNER);
  }
}
