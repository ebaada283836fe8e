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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** zkl locks and Apache Curator's recipes on the same paths exclude each other. */
@ExtendWith(ZkServerExtension.class)
class CuratorInteropTest {
  private CuratorFramework curator;
  private ExecutorService curatorThread;

  @BeforeEach
  void start() throws Exception {
    curator = CuratorFrameworkFactory.newClient(ZkServerExtension.connect(), 10_000, 10_000,
        new RetryOneTime(100));
    curator.start();
    assertTrue(curator.blockUntilConnected((int) T.toSeconds(), TimeUnit.SECONDS));
    // Curator's locks belong to threads: acquire and release on this one.
    curatorThread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stop() {
    curatorThread.shutdownNow();
    curator.close();
  }

  private <V> V onCurator(java.util.concurrent.Callable<V> c) throws Exception {
    return curatorThread.submit(c).get(T.toMillis() + 5000, TimeUnit.MILLISECONDS);
  }

  @Test
  void mutexAndFairLockExcludeEachOther() throws Exception {
    String path = uniquePath("curator-mutex");
    InterProcessMutex mutex = new InterProcessMutex(curator, path);
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      // Curator holds: zkl waits.
      assertTrue(onCurator(() -> mutex.acquire(5, TimeUnit.SECONDS)));
      assertTrue(lock.tryAcquire().isEmpty());
      assertFalse(lock.isHeld());
      AcquireFuture f = lock.acquireAsync(T);
      awaitChildren(path, 2);
      onCurator(() -> {
        mutex.release();
        return null;
      });
      Hold h = f.get();
      assertTrue(lock.isHeld());

      // zkl holds: Curator waits, and gets it after zkl's release.
      assertFalse(onCurator(() -> mutex.acquire(300, TimeUnit.MILLISECONDS)));
      Future<Boolean> curatorGets = curatorThread.submit(() -> mutex.acquire(15, TimeUnit.SECONDS));
      awaitChildren(path, 2);
      assertFalse(curatorGets.isDone());
      h.close();
      assertTrue(curatorGets.get(T.toMillis(), TimeUnit.MILLISECONDS));
      assertTrue(lock.tryAcquire().isEmpty());
      onCurator(() -> {
        mutex.release();
        return null;
      });
      awaitChildren(path, 0);
    }
  }

  @Test
  void readWriteLocksExcludeEachOther() throws Exception {
    String path = uniquePath("curator-rw");
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(curator, path);
    InterProcessMutex cRead = rw.readLock();
    InterProcessMutex cWrite = rw.writeLock();
    try (ZklClient c = connect(); ZklLock zRead = c.readLock(path); ZklLock zWrite = c.writeLock(path)) {
      // Curator reader: zkl reader shares, zkl writer waits.
      assertTrue(onCurator(() -> cRead.acquire(5, TimeUnit.SECONDS)));
      try (Hold r = zRead.tryAcquire().orElseThrow()) {
        assertTrue(r.isHeld());
      }
      assertTrue(zWrite.tryAcquire().isEmpty());
      onCurator(() -> {
        cRead.release();
        return null;
      });

      // Curator writer: zkl reader and writer wait.
      assertTrue(onCurator(() -> cWrite.acquire(5, TimeUnit.SECONDS)));
      assertTrue(zRead.tryAcquire().isEmpty());
      assertTrue(zWrite.tryAcquire().isEmpty());
      onCurator(() -> {
        cWrite.release();
        return null;
      });

      // zkl writer: Curator reader and writer wait.
      try (Hold w = zWrite.acquire(T)) {
        assertFalse(onCurator(() -> cRead.acquire(300, TimeUnit.MILLISECONDS)));
        assertFalse(onCurator(() -> cWrite.acquire(300, TimeUnit.MILLISECONDS)));
      }

      // zkl reader: Curator reader shares, Curator writer waits until zkl lets go.
      Hold r = zRead.acquire(T);
      assertTrue(onCurator(() -> cRead.acquire(5, TimeUnit.SECONDS)));
      onCurator(() -> {
        cRead.release();
        return null;
      });
      Future<Boolean> writer = curatorThread.submit(() -> cWrite.acquire(15, TimeUnit.SECONDS));
      awaitChildren(path, 2);
      assertFalse(writer.isDone());
      r.close();
      assertTrue(writer.get(T.toMillis(), TimeUnit.MILLISECONDS));
      assertThrows(ZklTimeoutException.class, () -> zRead.acquire(Duration.ofMillis(300)),
          "zkl reader waits for Curator's writer");
      onCurator(() -> {
        cWrite.release();
        return null;
      });
      awaitChildren(path, 0);
    }
  }

  /** Curator's Revoker asks a revocable zkl holder to let go: zkl hears it. */
  @Test
  void curatorRevokerReachesAZklHolder() throws Exception {
    String path = uniquePath("curator-revokes-zkl");
    try (ZklClient c = connect();
         ZklLock lock = c.lock(path, LockOptions.of(LockKind.FAIR).onRevoke(OnRevoke.NOTIFY))) {
      CompletableFuture<FencingToken> asked = new CompletableFuture<>();
      lock.addListener(new LockListener() {
        @Override
        public void onRevokeRequested(ZklLock l, FencingToken token) {
          asked.complete(token);
        }
      });
      Hold h = lock.acquire(T);
      List<String> nodes = curator.getChildren().forPath(path);
      assertEquals(1, nodes.size());
      Revoker.attemptRevoke(curator, path + "/" + nodes.get(0));
      assertEquals(h.fencingToken(), await(asked, T));
      assertTrue(lock.isHeld(), "cooperative: the holder decides");
      h.close();
      awaitChildren(path, 0);
    }
  }

  /** zkl's revoke asks a revocable Curator InterProcessMutex holder to let go. */
  @Test
  void zklRevokeReachesACuratorHolder() throws Exception {
    String path = uniquePath("zkl-revokes-curator");
    InterProcessMutex mutex = new InterProcessMutex(curator, path);
    CompletableFuture<Boolean> asked = new CompletableFuture<>();
    mutex.makeRevocable(m -> asked.complete(true));
    assertTrue(onCurator(() -> mutex.acquire(5, TimeUnit.SECONDS)));
    try (ZklClient c = connect()) {
      assertEquals(1, c.revoke(path, LockKind.FAIR, null, T));
      assertTrue(await(asked, T));
    } finally {
      onCurator(() -> {
        mutex.release();
        return null;
      });
    }
    awaitChildren(path, 0);
  }
}
