package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class SemaphoreTest {

  @Test
  void twoLeasesOfTwo() throws Exception {
    String path = uniquePath("sem");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient c = connect();
         ZklLock sa = a.semaphore(path, 2); ZklLock sb = b.semaphore(path, 2);
         ZklLock sc = c.semaphore(path, 2)) {
      Hold la = sa.acquire(T);
      Hold lb = sb.acquire(T);
      assertNotEquals(la.fencingToken(), lb.fencingToken());
      assertTrue(sc.tryAcquire().isEmpty(), "no third lease");
      assertThrows(ZklTimeoutException.class, () -> sc.acquire(Duration.ofMillis(200)));
      AcquireFuture f = sc.acquireAsync(T);
      awaitChildren(path, 3);
      la.close();
      try (Hold lc = f.get()) {
        assertTrue(lc.fencingToken().isNewerThan(lb.fencingToken()));
        assertTrue(lb.isHeld());
      }
      lb.close();
      awaitChildren(path, 0);
    }
  }

  @Test
  void leaseCountMismatchIsReported() throws Exception {
    String path = uniquePath("sem-mismatch");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock two = a.semaphore(path, 2); ZklLock three = b.semaphore(path, 3);
         Hold h = two.acquire(T)) {
      assertThrows(MismatchException.class, () -> three.acquire(T));
      assertTrue(h.isHeld());
    }
  }

  @Test
  void zeroLeasesIsInvalid() throws Exception {
    try (ZklClient c = connect()) {
      assertThrows(InvalidArgumentException.class, () -> c.semaphore(uniquePath("sem0"), 0));
    }
  }
}
