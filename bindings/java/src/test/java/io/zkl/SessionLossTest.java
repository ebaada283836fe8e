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
  void suspendedThenLostBeforeTheServerSaysSo() throws Exception {
    // A server of its own, paused: the client declares the session lost on
    // its own deadline (a quarter of the session timeout after the
    // disconnect), while the server (paused) has not expired anything.
    ZkServerExtension.Server server =
        ZkServerExtension.Server.start(TestSupport.workDir().resolve("zk-pause-" + ProcessHandle.current().pid()));
    try (ZklClient c = ZklClient.builder(server.connect).sessionTimeout(Duration.ofSeconds(4))
             .connectTimeout(T).connect();
         ZklLock lock = c.lock(uniquePath("suspend"))) {
      List<String> seen = new CopyOnWriteArrayList<>();
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onSuspended(ZklLock l) {
          seen.add("suspended");
        }

        @Override
        public void onLost(ZklLock l, ZklException cause) {
          seen.add("lost");
          lost.complete(cause);
        }
      });
      Hold h = lock.acquire(T);
      server.pause();
      try {
        long t0 = System.nanoTime();
        ZklException cause = TestSupport.await(lost, T);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertInstanceOf(SessionLostException.class, cause);
        assertEquals(List.of("suspended", "lost"), seen);
        // Detection (2/3 of the timeout) + the deadline (1/4 of it), with slack
        // for a loaded machine.
        assertTrue(ms < 4000 + 3000, "lost by the client-side deadline (took " + ms + " ms)");
        assertFalse(h.isHeld());
      } finally {
        server.resume();
      }
    } finally {
      server.close();
    }
  }
}
