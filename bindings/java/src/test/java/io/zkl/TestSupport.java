package io.zkl;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Shared helpers: clients, unique paths, a plain ZooKeeper client to look at nodes. */
final class TestSupport {
  static final Duration T = Duration.ofSeconds(15);
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static ZooKeeper zk;

  private TestSupport() {}

  static Path sourceDir() {
    return Path.of(System.getProperty("zkl.source.dir", "../..")).toAbsolutePath().normalize();
  }

  static Path workDir() {
    return Path.of(System.getProperty("zkl.test.workdir", "target/test-work")).toAbsolutePath();
  }

  static ZklClient connect() {
    return ZklClient.builder(ZkServerExtension.connect()).connectTimeout(T).connect();
  }

  /**
   * Waits (bounded by {@code timeout}) for a future completed by a client's
   * dispatcher thread; rethrows a ZklException it failed with.
   */
  static <V> V await(java.util.concurrent.CompletableFuture<V> f, Duration timeout) {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException) throw (RuntimeException) e.getCause();
      throw new AssertionError(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no result within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  static String uniquePath(String name) {
    return "/zkl-java-test/" + name + "-" + SEQ.incrementAndGet() + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A plain ZooKeeper client (shared), connected. */
  static synchronized ZooKeeper zk() throws Exception {
    if (zk == null || !zk.getState().isConnected()) {
      CountDownLatch up = new CountDownLatch(1);
      zk = new ZooKeeper(ZkServerExtension.connect(), 10_000, e -> {
        if (e.getState() == Watcher.Event.KeeperState.SyncConnected) up.countDown();
      });
      assertTrue(up.await(T.toMillis(), TimeUnit.MILLISECONDS), "plain ZooKeeper client connects");
    }
    return zk;
  }

  /** Children of path (empty when the path does not exist). */
  static List<String> children(String path) throws Exception {
    try {
      return zk().getChildren(path, false);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  /**
   * Waits (on ZooKeeper child watches, bounded) until path has exactly n
   * children (a missing path counts as none).
   */
  static void awaitChildren(String path, int n) throws Exception {
    awaitChildren(path, n, T);
  }

  static void awaitChildren(String path, int n, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (;;) {
      CountDownLatch changed = new CountDownLatch(1);
      Watcher w = (WatchedEvent e) -> changed.countDown();
      List<String> kids;
      try {
        kids = zk().getChildren(path, w);
      } catch (KeeperException.NoNodeException e) {
        if (zk().exists(path, w) == null) {
          kids = List.of();
        } else {
          continue;
        }
      }
      if (kids.size() == n) return;
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
        fail("expected " + n + " children under " + path + ", have " + kids);
      }
    }
  }

  /**
   * Expires the client's session for real: a second session with the same
   * id and password is opened and closed, so the server ends it. Taking the
   * session over makes the server drop the zkl client's connection; if that
   * client reconnects before our close goes out, it takes the session back
   * and the close is lost. So repeat until attaching is answered "expired".
   */
  static void expireSession(ZklClient c) throws Exception {
    long id = c.sessionId();
    byte[] pw = c.sessionPassword();
    long deadline = System.nanoTime() + T.toNanos();
    while (System.nanoTime() < deadline) {
      java.util.concurrent.CompletableFuture<Watcher.Event.KeeperState> state =
          new java.util.concurrent.CompletableFuture<>();
      ZooKeeper other = new ZooKeeper(ZkServerExtension.connect(), 10_000, e -> {
        if (e.getState() == Watcher.Event.KeeperState.SyncConnected
            || e.getState() == Watcher.Event.KeeperState.Expired) {
          state.complete(e.getState());
        }
      }, id, pw);
      Watcher.Event.KeeperState s;
      try {
        s = state.get(T.toMillis(), TimeUnit.MILLISECONDS);
      } finally {
        other.close();
      }
      if (s == Watcher.Event.KeeperState.Expired) return;
    }
    fail("could not expire session 0x" + Long.toHexString(id));
  }
}
