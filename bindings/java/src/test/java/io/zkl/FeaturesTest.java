package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.await;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Log routing, multi-lock, revocation, max hold time, semaphore leases. */
@ExtendWith(ZkServerExtension.class)
class FeaturesTest {

  @Test
  void logLinesReachSystemLogger() throws Exception {
    // System.Logger is backed by java.util.logging in the tests.
    Logger jul = Logger.getLogger("io.zkl");
    CompletableFuture<String> line = new CompletableFuture<>();
    Handler h = new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getMessage() != null && r.getMessage().startsWith("[")) line.complete(r.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    jul.addHandler(h);
    try (ZklClient c = ZklClient.builder(ZkServerExtension.connect()).logLevel(System.Logger.Level.INFO)
        .connectTimeout(T).connect()) {
      String msg = await(line, T);
      assertTrue(msg.startsWith("[zkl]") || msg.startsWith("[zookeeper]"), msg);
    } finally {
      jul.removeHandler(h);
    }
  }

  @Test
  void multiLockAllOrNone() throws Exception {
    String p1 = uniquePath("multi-a");
    String p2 = uniquePath("multi-b");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklLock other = b.lock(p2)) {
      try (ZklMultiLock m = a.multiLock(a.lock(p1), a.lock(p2))) {
        Hold ho = other.acquire(T);
        assertFalse(m.tryAcquire());
        awaitChildren(p1, 0);  // none taken
        assertThrows(ZklTimeoutException.class, () -> m.acquire(Duration.ofMillis(200)));
        CompletableFuture<Void> f = m.acquireAsync(ZklLock.DEFAULT_OWNER, T);
        ho.release();
        await(f, T);
        assertTrue(m.isHeld());
        assertTrue(m.validFor().compareTo(Duration.ZERO) > 0);
        assertTrue(m.fencingToken(p2).isNewerThan(ho.fencingToken()));
        assertThrows(BusyException.class, () -> m.members().get(0).tryAcquire());
        m.release();
        assertFalse(m.isHeld());
      }
      awaitChildren(p1, 0);
      awaitChildren(p2, 0);
    }
  }

  @Test
  void revocationNotifiesAndReleases() throws Exception {
    String path = uniquePath("revoke");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock notify = a.lock(path, LockOptions.of(LockKind.FAIR).onRevoke(OnRevoke.NOTIFY))) {
      CompletableFuture<FencingToken> asked = new CompletableFuture<>();
      notify.addListener(new LockListener() {
        @Override
        public void onRevokeRequested(ZklLock l, FencingToken token) {
          asked.complete(token);
        }
      });
      Hold h = notify.acquire(T);
      assertEquals(1, b.revoke(path, LockKind.FAIR, null, T));
      assertEquals(h.fencingToken(), await(asked, T));
      assertTrue(notify.isHeld(), "NOTIFY: the holder decides");
      h.release();
    }
    String path2 = uniquePath("revoke-release");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock rel = a.lock(path2, LockOptions.of(LockKind.FAIR).onRevoke(OnRevoke.RELEASE))) {
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      rel.addListener(new LockListener() {
        @Override
        public void onLost(ZklLock l, ZklException cause) {
          lost.complete(cause);
        }
      });
      rel.acquire(T);
      List<Participant> ps = b.inspect(path2, LockKind.FAIR, T);
      assertEquals(1, b.revoke(path2, LockKind.FAIR, ps.get(0).name(), T));
      assertEquals(ZklError.EREVOKED, await(lost, T).error());
      assertFalse(rel.isHeld());
      awaitChildren(path2, 0);
    }
  }

  @Test
  void maxHoldEndsTheHold() throws Exception {
    String path = uniquePath("max-hold");
    try (ZklClient c = connect();
         ZklLock lock = c.lock(path, LockOptions.of(LockKind.FAIR).maxHold(Duration.ofMillis(300)))) {
      CompletableFuture<ZklException> lost = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onLost(ZklLock l, ZklException cause) {
          lost.complete(cause);
        }
      });
      lock.acquire(T);
      assertEquals(ZklError.EMAXHOLD, await(lost, T).error());
      assertFalse(lock.isHeld());
      awaitChildren(path, 0);
    }
  }

  @Test
  void semaphoreLeasesPerAcquisition() throws Exception {
    String path = uniquePath("sem-leases");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock two = a.lock(path, LockOptions.of(LockKind.SEMAPHORE).maxLeases(3).leases(2));
         ZklLock alsoTwo = b.lock(path, LockOptions.of(LockKind.SEMAPHORE).maxLeases(3).leases(2));
         ZklLock one = b.semaphore(path, 3)) {
      assertEquals(2, two.leases());
      Hold h = two.acquire(T);
      assertEquals(Optional.empty(), alsoTwo.tryAcquire(), "2 + 2 > 3");
      try (Hold h1 = one.tryAcquire().orElseThrow()) {
        assertTrue(h1.isHeld(), "2 + 1 <= 3");
      }
      List<Participant> ps = a.inspect(path, LockKind.SEMAPHORE, T);
      assertEquals(2, ps.get(0).leases());
      h.release();
      try (Hold h2 = alsoTwo.acquire(T)) {
        assertTrue(h2.isHeld());
      }
    }
  }
}
