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

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class ReentrantLockTest {

  @Test
  void holdCountPerOwnerToken() throws Exception {
    String path = uniquePath("reentrant");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      Hold h1 = lock.acquire(7L, T);
      Hold h2 = lock.acquire(7L, T);  // no round trip: count 2
      assertEquals(2, lock.holdCount());
      assertEquals(h1.fencingToken(), h2.fencingToken());
      assertEquals(1, children(path).size());
      assertThrows(BusyException.class, () -> lock.acquire(8L, T));
      assertThrows(NotOwnerException.class, () -> lock.release(8L));
      Hold h3 = lock.acquireAsync(7L, T).get();  // async re-entry too
      assertEquals(3, lock.holdCount());
      h3.close();
      h2.close();
      assertTrue(lock.isHeld());
      assertEquals(1, children(path).size());
      h1.close();
      assertFalse(lock.isHeld());
      assertTrue(children(path).isEmpty());
      assertThrows(NotHeldException.class, () -> lock.release(7L));
    }
  }

  @Test
  void releaseFromAnotherThreadWithTheOwnerToken() throws Exception {
    String path = uniquePath("reentrant-thread");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      long owner = 0x1234_5678_9abc_def0L;
      lock.acquire(owner, T);
      CompletableFuture<Void> done = CompletableFuture.runAsync(() -> lock.release(owner));
      done.get();
      assertFalse(lock.isHeld());
      awaitChildren(path, 0);
    }
  }

  @Test
  void defaultOwnerIsTheHandle() throws Exception {
    String path = uniquePath("reentrant-default");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      try (Hold a = lock.acquire(T); Hold b = lock.acquire(T)) {
        assertEquals(ZklLock.DEFAULT_OWNER, a.owner());
        assertEquals(2, lock.holdCount());
        // Another thread is the same (default) owner: one more hold.
        Hold c3 = CompletableFuture.supplyAsync(() -> lock.tryAcquire().orElseThrow()).get();
        assertEquals(3, lock.holdCount());
        c3.close();
        // An explicit other owner is another owner.
        assertThrows(BusyException.class, () -> lock.tryAcquire(42));
      }
      assertFalse(lock.isHeld());
    }
  }

  @Test
  void nonReentrantReacquireIsADeadlock() throws Exception {
    String path = uniquePath("fair-deadlock");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      assertThrows(DeadlockException.class, () -> lock.acquire(T));
      assertThrows(DeadlockException.class, () -> lock.tryAcquire());
      assertTrue(h.isHeld());
    }
  }
}
