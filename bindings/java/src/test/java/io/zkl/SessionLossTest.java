package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.expireSession;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class SessionLossTest {

  @Test
  void lostOnRealSessionExpiry() throws Exception {
    String path = uniquePath("expiry");
    List<SessionState> states = new CopyOnWriteArrayList<>();
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      c.addSessionListener((cl, s) -> states.add(s));
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onLost(ZklLock l, ZklException cause) {
          lost.complete(cause);
        }
      });
      Hold h = lock.acquire(T);
      long oldSession = c.sessionId();
      expireSession(c);
      ZklException cause = TestSupport.await(lost, T);  // the dispatcher thread delivers it
      assertInstanceOf(SessionLostException.class, cause);
      assertFalse(lock.isHeld());
      assertFalse(h.isHeld());
      assertThrows(LockLostException.class, h::close, "releasing a lost hold says so");
      assertTrue(states.contains(SessionState.LOST), states.toString());

      // The client carries on with a new session.
      c.awaitConnected(T);
      try (Hold h2 = lock.acquire(T)) {
        assertNotEquals(oldSession, c.sessionId());
        assertTrue(h2.fencingToken().isNewerThan(h.fencingToken()));
      }
      awaitChildren(path, 0);
    }
  }

  @Test
  void lostIsDeliveredByTheDispatcherThread() throws Exception {
    String path = uniquePath("expiry-thread");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      CompletableFuture<String> lostOn = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onLost(ZklLock l, ZklException cause) {
          lostOn.complete(Thread.currentThread().getName());
        }
      });
      Hold h = lock.acquire(T);
      expireSession(c);
      // A plain get: nothing on this thread dispatches.
      assertTrue(lostOn.get(T.toMillis(), TimeUnit.MILLISECONDS).startsWith("zkl-dispatcher"));
      assertFalse(h.isHeld());
    }
  }

  @Test
  void leadershipLostOnExpiryPassesOnAndTheLoserRejoins() throws Exception {
    String path = uniquePath("expiry-election");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      CompletableFuture<Void> requeued = new CompletableFuture<>();
      ea.addListener(new ElectionListener() {
        @Override
        public void onLost(ZklElection e, ZklException cause) {
          lost.complete(cause);
        }

        @Override
        public void onNotElected(ZklElection e) {
          if (lost.isDone()) requeued.complete(null);
        }
      });
      FencingToken ta = ea.campaign(T);
      CompletableFuture<FencingToken> bLeads = eb.campaignAsync(null);
      expireSession(a);
      assertInstanceOf(SessionLostException.class, TestSupport.await(lost, T));
      assertFalse(ea.isLeader());
      assertTrue(TestSupport.await(bLeads, T).isNewerThan(ta), "b leads with a larger token");
      TestSupport.await(requeued, T);  // a rejoined by itself, behind b
      assertEquals(2, b.inspectElection(path, ElectionKind.FAIR, T).size());
    }
  }

  @Test
  void semaphoreLeaseFreedBySessionLoss() throws Exception {
    String path = uniquePath("expiry-sem");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock sa = a.semaphore(path, 1); ZklLock sb = b.semaphore(path, 1)) {
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      sa.addListener(new LockListener() {
        @Override
        public void onLost(ZklLock l, ZklException cause) {
          lost.complete(cause);
        }
      });
      Hold ha = sa.acquire(T);
      AcquireFuture fb = sb.acquireAsync(T);
      awaitChildren(path, 2);
      expireSession(a);
      try (Hold hb = fb.get()) {
        assertTrue(hb.fencingToken().isNewerThan(ha.fencingToken()));
      }
      // a learns it when its client reconnects (b may be told first: that
      // window is what fencing tokens are for).
      assertInstanceOf(SessionLostException.class, TestSupport.await(lost, T));
      assertFalse(ha.isHeld());
    }
  }

  @Test
  void frozen_server_suspends_then_loses() throws Exception {
    // Suspended is not lost. A server of its own, paused (SIGSTOP): the hold
    // is SUSPENDED, and isHeld says no, before a session timeout T has passed
    // since the freeze (3/4 T after the last quorum proof at the latest), so
    // before the server could expire the session and grant the lock to
    // another. The C client notices the silence 2/3 T after the server's
    // last answer; zkl keeps resuming the same session and gives it up
    // (LOST, SessionLostException) a session timeout after that: between T
    // and 5/3 T (+ slack) after the freeze, while the server (paused) has
    // not expired anything.
    ZkServerExtension.Server server =
        ZkServerExtension.Server.start(TestSupport.workDir().resolve("zk-pause-" + ProcessHandle.current().pid()));
    try (ZklClient c = ZklClient.builder(server.connect).sessionTimeout(Duration.ofSeconds(4))
             .connectTimeout(T).connect();
         ZklLock lock = c.lock(uniquePath("suspend"))) {
      List<String> seen = new CopyOnWriteArrayList<>();
      CompletableFuture<Boolean> suspended = new CompletableFuture<>();
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onSuspended(ZklLock l) {
          seen.add("suspended");
          suspended.complete(l.isHeld());
        }

        @Override
        public void onLost(ZklLock l, ZklException cause) {
          seen.add("lost");
          lost.complete(cause);
        }
      });
      Hold h = lock.acquire(T);
      long timeout = c.sessionTimeout().toMillis();
      long t0 = System.nanoTime();
      server.pause();
      long frozenAt = System.nanoTime();  // the freeze is between t0 and here
      try {
        assertFalse(TestSupport.await(suspended, T), "isHeld while suspended");
        long suspendedMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(suspendedMs < timeout, "suspended " + suspendedMs + " ms after the freeze (T " + timeout + " ms)");
        ZklException cause = TestSupport.await(lost, T);
        long lostAt = System.nanoTime();
        assertInstanceOf(SessionLostException.class, cause);
        assertEquals(List.of("suspended", "lost"), seen);
        long sinceFreeze = (lostAt - frozenAt) / 1_000_000;
        long ms = (lostAt - t0) / 1_000_000;
        assertTrue(sinceFreeze >= timeout, "lost " + sinceFreeze + " ms after the freeze, before T (" + timeout + " ms)");
        assertTrue(ms <= timeout * 5 / 3 + 1500, "lost only " + ms + " ms after the freeze (T " + timeout + " ms)");
        assertFalse(h.isHeld());
      } finally {
        server.resume();
      }
    } finally {
      server.close();
    }
  }
}
