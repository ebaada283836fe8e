package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class ReadWriteLockTest {

  @Test
  void readersShareWritersExclude() throws Exception {
    String path = uniquePath("rw");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient w = connect();
         ZklLock ra = a.readLock(path); ZklLock rb = b.readLock(path); ZklLock wl = w.writeLock(path)) {
      Hold h1 = ra.acquire(T);
      Hold h2 = rb.acquire(T);  // readers share
      assertTrue(ra.isHeld() && rb.isHeld());
      assertTrue(wl.tryAcquire().isEmpty(), "a writer waits for readers");

      AcquireFuture wf = wl.acquireAsync(T);
      awaitChildren(path, 3);
      h1.close();
      assertFalse(wf.isDone() && !wf.isCompletedExceptionally() && wl.isHeld());
      h2.close();
      Hold hw = wf.get();
      assertTrue(hw.fencingToken().isNewerThan(h2.fencingToken()));

      // A reader that comes after the writer waits for it.
      assertTrue(ra.tryAcquire().isEmpty());
      AcquireFuture rf = ra.acquireAsync(T);
      awaitChildren(path, 2);
      hw.close();
      try (Hold h3 = rf.get()) {
        assertTrue(h3.fencingToken().isNewerThan(hw.fencingToken()));
      }
      awaitChildren(path, 0);
    }
  }

  @Test
  void readerBehindWriterDoesNotDeadlock() throws Exception {
    // kazoo#649: reader R1 holds, writer W waits on R1, reader R2 waits on W
    // (not on R1): when R1 goes, W gets it, then R2.
    String path = uniquePath("rw-649");
    try (ZklClient c1 = connect(); ZklClient c2 = connect(); ZklClient c3 = connect();
         ZklLock r1 = c1.readLock(path); ZklLock wl = c2.writeLock(path); ZklLock r2 = c3.readLock(path)) {
      Hold hr1 = r1.acquire(T);
      AcquireFuture wf = wl.acquireAsync(T);
      awaitChildren(path, 2);
      AcquireFuture rf = r2.acquireAsync(T);
      awaitChildren(path, 3);
      hr1.close();
      Hold hw = wf.get();
      assertFalse(r2.isHeld());
      hw.close();
      rf.get().close();
    }
  }
}
