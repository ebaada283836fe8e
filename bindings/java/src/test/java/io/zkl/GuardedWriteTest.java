package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.await;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static io.zkl.TestSupport.zk;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The guarded-write, proclaim and fence-check scenarios of bindings/CONFORMANCE.md. */
@ExtendWith(ZkServerExtension.class)
class GuardedWriteTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] data(String path) throws Exception {
    return zk().getData(path, false, null);
  }

  private static void eventually(java.util.function.BooleanSupplier cond) throws Exception {
    long end = System.nanoTime() + T.toNanos();
    while (System.nanoTime() < end) {
      try {
        if (cond.getAsBoolean()) return;
      } catch (ConnectionException e) {
        // not provably current yet
      }
      Thread.sleep(20);
    }
    throw new AssertionError("condition not met within " + T);
  }

  private static boolean exists(String path) throws Exception {
    return zk().exists(path, false) != null;
  }

  @Test
  void guarded_write_applies() throws Exception {
    String path = uniquePath("guarded_write_applies");
    String state = path + "/state";
    try (ZklClient c = connect(); ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      Ops ops = new Ops()
          .create(state, b("v1"))
          .set(state, b("v2"), 0)
          .create(state + "/item-", b("x"), CreateMode.SEQUENTIAL);
      assertEquals(3, ops.size());
      WriteResult r = lock.write(ops);
      assertEquals(OptionalInt.empty(), r.failed());
      assertEquals(Optional.of(state), r.path(0));
      assertEquals(Optional.empty(), r.path(1));
      String item = r.path(2).orElseThrow();
      assertTrue(item.startsWith(state + "/item-") && item.length() > (state + "/item-").length(), item);
      assertEquals(OptionalInt.of(0), r.version(0));
      assertEquals(OptionalInt.of(1), r.version(1));
      assertArrayEquals(b("v2"), data(state));
      assertTrue(exists(item));
      lock.write(new Ops().check(state, 1));  // the set applied: version 1

      // The async form, answered by request id on the dispatcher thread.
      CompletableFuture<WriteResult> first = lock.writeAsync(new Ops().create(path + "/async", b("a")));
      CompletableFuture<WriteResult> second = lock.writeAsync(new Ops().create(path + "/async", b("b")));
      NodeExistsException e = assertThrows(NodeExistsException.class, () -> await(second, T));
      assertEquals(OptionalInt.of(0), e.failedOperation());
      WriteResult a = await(first, T);
      assertEquals(Optional.of(path + "/async"), a.path(0));
      assertArrayEquals(b("a"), data(path + "/async"));
    }
  }

  @Test
  void guarded_write_refused() throws Exception {
    String path = uniquePath("guarded_write_refused");
    try (ZklClient c = connect(); ZklLock lock = c.lock(path)) {
      NotHeldException nh = assertThrows(NotHeldException.class,
          () -> lock.write(new Ops().create(path + "/x", b("1"))));
      assertEquals(ZklError.ENOTHELD, nh.error());
      assertThrows(NotHeldException.class, () -> await(lock.writeAsync(new Ops().create(path + "/x", b("1"))), T));
      try (Hold h = lock.acquire(T)) {
        String elsewhere = uniquePath("guarded_write_refused_elsewhere");
        assertThrows(BadPathException.class,
            () -> lock.write(new Ops().create(path + "/ok", b("fine")).create(elsewhere, b("no"))));
        lock.write(new Ops().create(path + "/data", b("0")));
        NodeExistsException ex = assertThrows(NodeExistsException.class,
            () -> lock.write(new Ops().create(path + "/data", b("again")).create(path + "/first", b("no"))));
        assertEquals(OptionalInt.of(0), ex.failedOperation());
        ex = assertThrows(NodeExistsException.class,
            () -> lock.write(new Ops().create(path + "/first", b("no")).create(path + "/data", b("again"))));
        assertEquals(OptionalInt.of(1), ex.failedOperation());
        assertEquals(ZklError.EEXISTS, ex.error());
        BadVersionException bv = assertThrows(BadVersionException.class,
            () -> lock.write(new Ops().set(path + "/data", b("x"), 41)));
        assertEquals(OptionalInt.of(0), bv.failedOperation());
        assertTrue(!exists(path + "/first") && !exists(path + "/ok") && !exists(elsewhere) && !exists(path + "/x"));
        assertArrayEquals(b("0"), data(path + "/data"));
        assertThrows(InvalidArgumentException.class, () -> lock.write(new Ops()));
        assertThrows(BadPathException.class, () -> lock.write(new Ops().create("relative", null)));
      }
      assertThrows(NotHeldException.class, () -> lock.write(new Ops().create(path + "/after", b("1"))));
      assertTrue(!exists(path + "/after"));
    }
  }

  @Test
  void guarded_write_multilock_election() throws Exception {
    String p1 = uniquePath("guarded_write_multilock_election_a");
    String p2 = uniquePath("guarded_write_multilock_election_b");
    try (ZklClient c = connect(); ZklMultiLock m = c.multiLock(c.lock(p1), c.lock(p2))) {
      Ops ops = new Ops().create(p1 + "/x", b("1")).create(p2 + "/y", b("2"));
      assertThrows(NotHeldException.class, () -> m.write(ops));
      m.acquire(T);
      WriteResult r = m.write(ops);
      assertEquals(Optional.of(p1 + "/x"), r.path(0));
      assertEquals(Optional.of(p2 + "/y"), r.path(1));
      assertArrayEquals(b("1"), data(p1 + "/x"));
      assertArrayEquals(b("2"), data(p2 + "/y"));
      NodeExistsException e = assertThrows(NodeExistsException.class, () -> await(m.writeAsync(ops), T));
      assertEquals(OptionalInt.of(0), e.failedOperation());
      m.release();
    }
    String path = uniquePath("guarded_write_multilock_election");
    try (ZklClient a = connect(); ZklClient f = connect();
         ZklElection leader = a.election(path, "alpha"); ZklElection follower = f.election(path, "beta")) {
      leader.campaign(T);
      follower.campaignAsync(null);
      WriteResult r = leader.write(new Ops().create(path + "/config", b("from alpha")));
      assertEquals(Optional.of(path + "/config"), r.path(0));
      assertArrayEquals(b("from alpha"), data(path + "/config"));
      assertThrows(NotHeldException.class, () -> follower.write(new Ops().create(path + "/other", b("beta"))));
      assertThrows(NotHeldException.class,
          () -> await(follower.writeAsync(new Ops().create(path + "/other", b("beta"))), T));
      WriteResult ra = await(leader.writeAsync(new Ops().set(path + "/config", b("v2"), 0)), T);
      assertEquals(OptionalInt.of(1), ra.version(0));
      assertNull(zk().exists(path + "/other", false));
    }
  }

  @Test
  void proclaim_same_term() throws Exception {
    String path = uniquePath("proclaim_same_term");
    try (ZklClient a = connect(); ZklClient f = connect(); ZklClient o = connect();
         ZklElection leader = a.election(path, "alpha"); ZklElection follower = f.election(path, "beta");
         ZklObserver obs = o.observer(path)) {
      FencingToken term = leader.campaign(T);
      follower.campaignAsync(null);
      eventually(() -> obs.leader().equals(Optional.of("alpha")));
      leader.proclaim("alpha@v2");
      eventually(() -> obs.leader().equals(Optional.of("alpha@v2")));
      assertEquals(Optional.of(term), obs.term());
      assertTrue(leader.isLeader());
      NotHeldException e = assertThrows(NotHeldException.class, () -> follower.proclaim("beta@v2"));
      assertEquals(ZklError.ENOTHELD, e.error());
    }
  }

  @Test
  void fence_check_current_and_stale() throws Exception {
    String path = uniquePath("fence_check_current_and_stale");
    try (ZklClient a = connect(); ZklClient b = connect(); ZklLock la = a.lock(path); ZklLock lb = b.lock(path)) {
      Hold ha = la.acquire(T);
      FencingToken t1 = ha.fencingToken();
      b.fenceCheck(path, LockKind.FAIR, t1, T);
      ha.release();
      try (Hold hb = lb.acquire(T)) {
        FencingToken t2 = hb.fencingToken();
        assertTrue(t2.isNewerThan(t1));
        StaleTokenException e = assertThrows(StaleTokenException.class, () -> a.fenceCheck(path, LockKind.FAIR, t1, T));
        assertEquals(ZklError.ESTALE, e.error());
        a.fenceCheck(path, LockKind.FAIR, t2, T);
        assertThrows(BadPathException.class, () -> a.fenceCheck("bad", LockKind.FAIR, t2, T));
      }
    }
  }

  @Test
  void constants_of_guarded_writes_match_header() {
    assertEquals(ZklNativeConstants.ZKL_ANY_VERSION, Ops.ANY_VERSION);
    assertEquals(ZklNativeConstants.ZKL_CREATE_SEQUENTIAL, CreateMode.SEQUENTIAL.flags());
    assertEquals(3, CreateMode.EPHEMERAL_SEQUENTIAL.flags());
    assertEquals(ZklNativeConstants.ZKL_EVENT_WRITTEN, 15);
    assertNotNull(ZklError.of(ZklNativeConstants.ZKL_EINDOUBT));
    assertEquals(ZklError.EINDOUBT, ZklException.of(ZklNativeConstants.ZKL_EINDOUBT, "x").error());
    assertTrue(ZklException.of(ZklNativeConstants.ZKL_EINDOUBT, "x") instanceof WriteInDoubtException);
  }
}
