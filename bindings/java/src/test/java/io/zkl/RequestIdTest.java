package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.await;
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
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Asynchronous calls are answered by the events that carry their request
 * id (zkl_event_request_id), never by order: each future gets its own
 * call's answer.
 */
@ExtendWith(ZkServerExtension.class)
class RequestIdTest {

  /** Sleeps a moment during which no answer may come. */
  private static void quiet() throws InterruptedException {
    Thread.sleep(300);
  }

  @Test
  void acquiresOnOneClientEachGetTheirOwnAnswer() throws Exception {
    String path = uniquePath("ids-lock");
    String free = uniquePath("ids-free");
    try (ZklClient holderClient = connect(); ZklLock holder = holderClient.lock(path);
         ZklClient c = connect();
         ZklLock a = c.lock(path); ZklLock b = c.lock(path); ZklLock timed = c.lock(path);
         ZklLock cancelled = c.lock(path); ZklLock other = c.lock(free)) {
      Hold held = holder.acquire(T);
      AcquireFuture fa = a.acquireAsync(null);
      awaitChildren(path, 2);
      AcquireFuture fb = b.acquireAsync(null);
      awaitChildren(path, 3);
      AcquireFuture ft = timed.acquireAsync(Duration.ofSeconds(2));
      AcquireFuture fc = cancelled.acquireAsync(null);
      awaitChildren(path, 5);
      assertTrue(fc.cancel(true));
      assertThrows(ZklTimeoutException.class, () -> await(ft, T));
      // Again on the same handle, at once: a try that fails, then a wait in
      // line that the failures just delivered must not answer.
      assertThrows(ZklTimeoutException.class, () -> await(timed.acquireAsync(Duration.ZERO), T));
      AcquireFuture ft2 = timed.acquireAsync(null);
      Hold ho = await(other.acquireAsync(T), T);
      assertTrue(ho.fencingToken().bits() != 0);
      awaitChildren(path, 4);  // the holder, a, b and the new acquire of `timed`
      quiet();
      assertFalse(fa.isDone() || fb.isDone() || ft2.isDone(), "answered while the lock is held elsewhere");

      held.close();
      FencingToken last = held.fencingToken();
      for (AcquireFuture f : List.of(fa, fb, ft2)) {
        Hold h = await(f, T);
        assertTrue(h.fencingToken().isNewerThan(last), "FIFO: each grant after the previous one");
        assertEquals(h.fencingToken(), f.lock().fencingToken());
        last = h.fencingToken();
        h.close();
      }
      await(other.releaseAsync(), T);
      assertTrue(children(free).isEmpty());
    }
  }

  @Test
  void innerReleaseOfAReentrantLockIsAnsweredByItsOwnEvent() throws Exception {
    String path = uniquePath("ids-reentrant");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      for (int i = 0; i < 3; i++) await(lock.acquireAsync(9, T), T);
      CompletableFuture<Void> first = lock.releaseAsync(9);
      CompletableFuture<Void> second = lock.releaseAsync(9);
      await(first, T);
      await(second, T);
      assertEquals(1, lock.holdCount());
      assertEquals(1, children(path).size());
      CompletableFuture<Void> last = lock.releaseAsync(9);
      await(last, T);
      assertTrue(children(path).isEmpty(), "the last release completes once the node is gone");
      assertThrows(NotHeldException.class, () -> await(lock.releaseAsync(9), T));
    }
  }

  @Test
  void aCancelledCampaignsFailureDoesNotAnswerTheNextCampaign() throws Exception {
    String path = uniquePath("ids-election");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "alice"); ZklElection eb = b.election(path, "bob")) {
      FencingToken ta = ea.campaign(T);
      CompletableFuture<FencingToken> first = eb.campaignAsync(null);
      awaitChildren(path, 2);
      assertTrue(first.cancel(true));
      // At once, before the cancelled campaign's failure is delivered.
      CompletableFuture<FencingToken> second = eb.campaignAsync(null);
      quiet();
      assertFalse(second.isDone(), "the cancelled campaign's failure answered the next one");
      awaitChildren(path, 2);
      ea.resign();
      FencingToken tb = await(second, T);
      assertTrue(tb.isNewerThan(ta));
      assertTrue(eb.isLeader());
      // Campaigning while leader is answered at once, by its own event.
      assertEquals(tb, await(eb.campaignAsync(T), T));
    }
  }
}
