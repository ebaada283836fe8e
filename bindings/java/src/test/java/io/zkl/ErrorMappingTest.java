package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(ZkServerExtension.class)
class ErrorMappingTest {

  @ParameterizedTest
  @ValueSource(strings = {"relative", "/trailing/", "/a//b", "/a/./b", "/a/../b", "", "/nul\0inside",
      "/ctrl\u0001char"})
  void badPaths(String path) {
    try (ZklClient c = connect()) {
      BadPathException e = assertThrows(BadPathException.class, () -> c.lock(path));
      assertEquals(-2, e.code());
      assertEquals(ZklError.EBADPATH, e.error());
      assertThrows(BadPathException.class, () -> c.election(path, "x"));
      assertThrows(BadPathException.class, () -> c.observer(path));
    }
  }

  @Test
  void invalidArguments() {
    try (ZklClient c = connect()) {
      assertThrows(InvalidArgumentException.class, () -> c.lock(null));
      assertThrows(InvalidArgumentException.class, () -> c.election(uniquePath("e"), null));
      InvalidArgumentException big = assertThrows(InvalidArgumentException.class,
          () -> c.lock(uniquePath("big"), LockOptions.of(LockKind.FAIR).data(new byte[1024 * 1024 + 1])));
      assertEquals(ZklError.ETOOBIG, big.error());
      assertThrows(InvalidArgumentException.class, () -> c.election(uniquePath("e"), "nul\0id"));
    }
  }

  @Test
  void releaseErrors() throws Exception {
    try (ZklClient c = connect(); ZklLock lock = c.lock(uniquePath("rel"))) {
      NotHeldException e = assertThrows(NotHeldException.class, () -> lock.release(1));
      assertEquals(-7, e.code());
      Hold h = lock.acquire(1, T);
      assertThrows(NotOwnerException.class, () -> lock.release(2));
      h.close();
      h.close();  // idempotent
      assertThrows(NotHeldException.class, () -> lock.release(1), "double release");
    }
  }

  @Test
  void busyHandle() throws Exception {
    String path = uniquePath("busy");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path); ZklLock lb = b.lock(path); Hold ha = la.acquire(T)) {
      AcquireFuture f = lb.acquireAsync(1, null);
      // The same handle, another owner, while an acquire is pending.
      AcquireFuture g = lb.acquireAsync(2, null);
      assertTrue(g.isCompletedExceptionally());
      assertThrows(BusyException.class, () -> TestSupport.await(g, T));
      assertTrue(f.cancel(true));
    }
  }

  @Test
  void closedClientAndLock() throws Exception {
    ZklClient c = connect();
    ZklLock lock = c.lock(uniquePath("closed"));
    c.close();
    c.close();  // idempotent
    assertTrue(c.isClosed());
    assertEquals(SessionState.CLOSED, c.state());
    assertThrows(ClosedException.class, () -> c.lock(uniquePath("x")));
    assertThrows(ClosedException.class, () -> lock.acquire(T));
    assertThrows(ClosedException.class, () -> TestSupport.await(lock.acquireAsync(T), T));
    assertFalse(lock.isHeld());
  }

  @Test
  void connectTimeout() {
    // Nothing listens on port 1 of the loopback address.
    ZklTimeoutException e = assertThrows(ZklTimeoutException.class,
        () -> ZklClient.builder("127.0.0.1:1").connectTimeout(Duration.ofMillis(300)).connect());
    assertEquals(-4, e.code());
  }

  @Test
  void connect_timeout_bounds_wait() {
    // connectTimeout bounds the whole wait for a session, not one attempt:
    // nothing listens on port 1, each attempt is refused at once.
    ZklClient.Builder b = ZklClient.builder("127.0.0.1:1").connectTimeout(Duration.ofSeconds(2))
        .logLevel(System.Logger.Level.OFF);
    long t0 = System.nanoTime();
    ZklTimeoutException e = assertThrows(ZklTimeoutException.class, () -> b.connect().close());
    checkConnectTimeout(e, t0, "connect()");
    try (ZklClient c = b.build()) {
      long t1 = System.nanoTime();
      checkConnectTimeout(assertThrows(ZklTimeoutException.class, c::awaitConnected), t1, "awaitConnected()");
    }
  }

  private static void checkConnectTimeout(ZklTimeoutException e, long t0, String how) {
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms >= 1900 && ms < 5000, how + " failed after " + ms + " ms (connectTimeout 2 s)");
    assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
  }

  @Test
  void everyCodeMapsToItsException() {
    Map<Integer, Class<? extends ZklException>> expected = Map.ofEntries(
        Map.entry(-1, InvalidArgumentException.class),
        Map.entry(-2, BadPathException.class),
        Map.entry(-3, ClosedException.class),
        Map.entry(-4, ZklTimeoutException.class),
        Map.entry(-5, WouldBlockException.class),
        Map.entry(-6, AcquireCanceledException.class),
        Map.entry(-7, NotHeldException.class),
        Map.entry(-8, NotOwnerException.class),
        Map.entry(-9, BusyException.class),
        Map.entry(-10, DeadlockException.class),
        Map.entry(-11, ClosedException.class),
        Map.entry(-12, ConnectionException.class),
        Map.entry(-13, SessionLostException.class),
        Map.entry(-14, LockLostException.class),
        Map.entry(-15, MismatchException.class),
        Map.entry(-16, AuthException.class),
        Map.entry(-17, InvalidArgumentException.class),
        Map.entry(-21, NotFoundException.class));
    for (int code = -1; code >= -23; code--) {
      ZklException e = ZklException.of(code, "what");
      assertEquals(code, e.code());
      assertEquals(code, e.error().code());
      assertInstanceOf(expected.getOrDefault(code, ZklException.class), e, "code " + code);
      assertTrue(e.getMessage().startsWith("what: "), e.getMessage());
      assertFalse(e.error().description().isEmpty());
    }
    assertEquals(ZklError.UNKNOWN, ZklError.of(-999));
  }
}
