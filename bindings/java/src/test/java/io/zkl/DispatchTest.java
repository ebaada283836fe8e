package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class DispatchTest {

  @Test
  void userDrivenPoll() throws Exception {
    String path = uniquePath("poll");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      while (c.dispatch() > 0) {
        // session events
      }
      assertEquals(0, c.dispatch(), "nothing pending");
      assertEquals(0, c.poll(Duration.ZERO));
      AcquireFuture f = lock.acquireAsync(T);
      CompletableFuture<String> doneOn = f.thenApply(h -> Thread.currentThread().getName());
      long deadline = System.nanoTime() + T.toNanos();
      while (!f.isDone()) {
        assertTrue(System.nanoTime() < deadline);
        c.poll(Duration.ofMillis(500));
      }
      assertEquals(Thread.currentThread().getName(), doneOn.getNow(null),
          "completed on the polling thread");
      f.join().close();
    }
  }

  @Test
  void dispatcherThreadIsOptIn() throws Exception {
    String path = uniquePath("dispatcher");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path);
         ZklClient other = connect(); ZklLock blocker = other.lock(path)) {
      assertFalse(c.isDispatcherThreadRunning());
      c.startDispatcherThread();
      c.startDispatcherThread();  // idempotent
      assertTrue(c.isDispatcherThreadRunning());
      Hold blocking = blocker.acquire(T);
      AcquireFuture f = lock.acquireAsync(T);
      // A dependent stage, attached while the acquire waits and waited on
      // with a plain get: only the dispatcher thread can complete it.
      CompletableFuture<String> on0 = f.thenApply(h -> Thread.currentThread().getName());
      awaitChildren(path, 2);
      blocking.close();
      String on = on0.get(T.toMillis(), TimeUnit.MILLISECONDS);
      assertTrue(on.startsWith("zkl-dispatcher"), on);
      assertEquals(0, c.dispatch(), "the dispatcher thread owns the queue");
      assertEquals(0, c.poll(Duration.ofSeconds(30)), "poll returns at once");
      // Blocking calls just wait for the dispatcher.
      f.join().close();
      try (Hold h = lock.acquire(T)) {
        assertTrue(h.isHeld());
      }
      c.stopDispatcherThread();
      assertFalse(c.isDispatcherThreadRunning());
      try (Hold h = lock.acquire(T)) {  // back to dispatching on this thread
        assertTrue(h.isHeld());
      }
    }
  }

  @Test
  void severalThreadsWaitingOnOneClient() throws Exception {
    String base = uniquePath("threads");
    int n = 4;
    try (ZklClient holder = connect(); ZklClient c = connect()) {
      ZklLock[] blockers = new ZklLock[n];
      Hold[] held = new Hold[n];
      for (int i = 0; i < n; i++) {
        blockers[i] = holder.lock(base + "/l" + i);
        held[i] = blockers[i].acquire(T);
      }
      ExecutorService pool = Executors.newFixedThreadPool(n);
      try {
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          ZklLock l = c.lock(base + "/l" + i);
          results.add(pool.submit(() -> {
            try (Hold h = l.acquire(T)) {  // each thread pumps or waits for the pump
              return h.fencingToken();
            }
          }));
        }
        for (int i = 0; i < n; i++) awaitChildren(base + "/l" + i, 2);
        for (int i = n - 1; i >= 0; i--) held[i].close();
        for (int i = 0; i < n; i++) {
          assertTrue(results.get(i).get(T.toMillis(), TimeUnit.MILLISECONDS) > held[i].fencingToken());
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void listenerMayCallBlockingOperations() throws Exception {
    String path = uniquePath("reentrant-dispatch");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(uniquePath("inner"))) {
      // b's session listener acquires a lock while being dispatched.
      CompletableFuture<Long> inner = new CompletableFuture<>();
      b.addSessionListener((cl, s) -> {
        if (!inner.isDone()) {
          try (Hold h = lb.acquire(T)) {
            inner.complete(h.fencingToken());
          }
        }
      });
      ZklObserver o = b.observer(path);  // something to dispatch
      b.await(inner, T);
      assertTrue(inner.join() > 0);
      o.close();
      try (Hold h = la.acquire(T)) {
        assertTrue(h.isHeld());
      }
    }
  }
}
