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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class NonFairLockTest {

  @Test
  void excludesAndHandsOver() throws Exception {
    String path = uniquePath("nonfair");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.nonFairLock(path); ZklLock lb = b.nonFairLock(path)) {
      Hold ha = la.acquire(T);
      assertEquals(List.of("lock"), children(path));
      assertTrue(lb.tryAcquire().isEmpty());
      assertThrows(ZklTimeoutException.class, () -> lb.acquire(Duration.ofMillis(200)));
      AcquireFuture f = lb.acquireAsync(T);
      ha.close();
      Hold hb = f.get();
      assertTrue(hb.fencingToken().isNewerThan(ha.fencingToken()));
      assertFalse(la.isHeld());
      hb.close();
      awaitChildren(path, 0);
    }
  }
}
