package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.children;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class FairLockTest {

  @Test
  void acquireReleaseAndFencingTokensIncrease() throws Exception {
    String path = uniquePath("fair");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      FencingToken first;
      try (Hold h = lock.acquire(T)) {
        assertTrue(lock.isHeld());
        assertTrue(h.isHeld());
        assertEquals(1, lock.holdCount());
        first = h.fencingToken();
        assertEquals(first, lock.fencingToken());
        assertTrue(first.bits() != 0);
        List<String> kids = children(path);
        assertEquals(1, kids.size());
        assertTrue(kids.get(0).startsWith("_c_") && kids.get(0).contains("-lock-"), kids.toString());
      }
      assertFalse(lock.isHeld());
      assertEquals(0, lock.holdCount());
      assertTrue(children(path).isEmpty(), "release deletes the node before returning");
      assertThrows(NotHeldException.class, lock::fencingToken);
      try (Hold h = lock.acquire(T)) {
        assertTrue(h.fencingToken().isNewerThan(first), "tokens strictly increase");
      }
    }
  }

  @Test
  void secondClientWaitsTimesOutAndGetsItAfterRelease() throws Exception {
    String path = uniquePath("fair-two");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      Hold ha = la.acquire(T);
      assertEquals(Optional.empty(), lb.tryAcquire());
      awaitChildren(path, 1);  // a failed try leaves no node (deleted in the background)
      long t0 = System.nanoTime();
      assertThrows(ZklTimeoutException.class, () -> lb.acquire(Duration.ofMillis(300)));
      assertTrue(System.nanoTime() - t0 >= 250_000_000L, "waited for the timeout");
      awaitChildren(path, 1);  // nor does a timed out acquire

      AcquireFuture f = lb.acquireAsync(T);
      awaitChildren(path, 2);
      assertFalse(f.isDone());
      ha.close();
      Hold hb = f.get();  // dispatches b's events on this thread
      assertTrue(hb.fencingToken().isNewerThan(ha.fencingToken()));
      assertTrue(lb.isHeld());
      assertFalse(la.isHeld());
      hb.close();
    }
  }

  @Test
  void cancelLeavesNoNode() throws Exception {
    String path = uniquePath("fair-cancel");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      try (Hold ha = la.acquire(T)) {
        AcquireFuture f = lb.acquireAsync(null);
        awaitChildren(path, 2);
        assertTrue(f.cancel(true));
        assertTrue(f.isCancelled());
        assertThrows(CancellationException.class, f::join);
        awaitChildren(path, 1);
        assertEquals(1, children(path).size());
        assertTrue(ha.isHeld());
      }
      awaitChildren(path, 0);
      // The handle is usable again after a cancel (the stale failure event is
      // matched to the cancelled future, not to the next one).
      try (Hold hb = lb.acquire(T)) {
        assertTrue(lb.isHeld());
        assertTrue(hb.fencingToken().bits() != 0);
      }
    }
  }

  @Test
  void interruptCancelsABlockingAcquire() throws Exception {
    String path = uniquePath("fair-interrupt");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path);
         Hold ha = la.acquire(T)) {
      Thread me = Thread.currentThread();
      Thread interrupter = new Thread(() -> {
        try {
          awaitChildren(path, 2);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
        me.interrupt();
      });
      interrupter.start();
      assertThrows(AcquireCanceledException.class, () -> lb.acquire(null));
      assertTrue(Thread.interrupted(), "the interrupt flag is kept");
      interrupter.join();
      awaitChildren(path, 1);
      assertTrue(ha.isHeld());
    }
  }

  @Test
  void closingTheLockReleasesIt() throws Exception {
    String path = uniquePath("fair-close");
    try (ZklClient c = connect()) {
      ZklLock lock = c.lock(path);
      Hold h = lock.acquire(T);
      lock.close();
      assertFalse(lock.isHeld());
      h.close();  // no-op: the lock's close released it
      awaitChildren(path, 0);
      assertThrows(ClosedException.class, () -> lock.acquire(T));
    }
  }

  @Test
  void closingTheClientFailsPendingAcquires() throws Exception {
    String path = uniquePath("fair-client-close");
    try (ZklClient a = connect(); ZklLock la = a.lock(path); Hold ha = la.acquire(T)) {
      ZklClient b = connect();
      ZklLock lb = b.lock(path);
      AcquireFuture f = lb.acquireAsync(null);
      awaitChildren(path, 2);
      b.close();
      assertThrows(ClosedException.class, () -> c(f));
      assertThrows(ClosedException.class, () -> lb.tryAcquire());
      awaitChildren(path, 1);
      assertTrue(ha.isHeld());
    }
  }

  @Test
  void acquireRightAfterBuildLeavesOneNode() throws Exception {
    // The client connects in the background; an acquire made at once must
    // still create exactly one node.
    String path = uniquePath("early");
    try (ZklClient c = ZklClient.builder(ZkServerExtension.connect()).build(); ZklLock l = c.lock(path)) {
      try (Hold h = l.acquire(T)) {
        assertEquals(1, children(path).size(), children(path).toString());
      }
      awaitChildren(path, 0);
    }
  }

  private static Hold c(AcquireFuture f) {
    return TestSupport.await(f, T);
  }
}
