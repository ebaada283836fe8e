package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
 * ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR).
 */
class TlsTest {
  /** Bound of one attempt (attemptTimeout), TLS handshake included. */
  private static final Duration ATTEMPT = Duration.ofSeconds(3);
  /** A failing connect must end within this (no hang). */
  private static final Duration BOUND = Duration.ofSeconds(10);

  private static String servers;
  private static Path certs;

  @BeforeAll
  static void tlsServer() {
    servers = System.getenv("ZKL_TEST_TLS_SERVERS");
    String dir = System.getenv("ZKL_TEST_TLS_DIR");
    boolean given = servers != null && !servers.isEmpty() && dir != null && !dir.isEmpty();
    String why = "ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)";
    if (!given && envBool("CI")) fail(why);
    assumeTrue(given, why);
    certs = Path.of(dir);
  }

  /**
   * A yes/no environment variable, strictly: unset or empty is no; 1/0,
   * true/false, yes/no, on/off in any case; anything else fails.
   */
  static boolean envBool(String name) {
    String v = System.getenv(name);
    switch (v == null ? "" : v.toLowerCase(java.util.Locale.ROOT)) {
      case "": case "0": case "false": case "no": case "off": return false;
      case "1": case "true": case "yes": case "on": return true;
      default:
        return fail("$" + name + " must be one of 1/0, true/false, yes/no, on/off (any case), not '" + v + "'");
    }
  }

  private static String at(String name) {
    return name == null ? null : certs.resolve(name).toString();
  }

  /** A builder for the TLS server: the CA and, when not null, certificate and key. */
  private static ZklClient.Builder builder(String ca, String cert, String key, String keyPassword) {
    ZklClient.Builder b = ZklClient.builder(servers).sessionTimeout(Duration.ofSeconds(6))
        .attemptTimeout(ATTEMPT).connectTimeout(T).tlsCaFile(at(ca));
    return cert == null ? b : b.tlsClientCert(at(cert), at(key), keyPassword);
  }

  /** Connecting with {@code b} fails with {@code want}, within the bound: the exception. */
  private static ZklException connectFails(ZklClient.Builder b, ZklError want) {
    // Each of the retried attempts logs an error: not in the test output.
    b.logLevel(System.Logger.Level.OFF).connectTimeout(ATTEMPT.plusSeconds(2));
    long t0 = System.nanoTime();
    ZklException e = assertThrows(ZklException.class, () -> b.connect().close());
    assertEquals(want, e.error(), e.getMessage());
    assertTrue(System.nanoTime() - t0 < BOUND.toNanos(), "failed within " + BOUND);
    return e;
  }

  @Test
  void tls_lock_and_election() throws Exception {
    String path = uniquePath("tls_lock_and_election");
    try (ZklClient a = builder("ca.pem", "client.crt", "client.key", null).connect();
         ZklClient b = builder("ca.pem", "client.crt", "client.key", null).connect();
         ZklLock lock = a.lock(path + "/lock");
         ZklElection election = a.election(path + "/election", "alpha")) {
      try (Hold h = lock.acquire(T)) {
        assertTrue(h.isHeld());
      }
      assertFalse(lock.isHeld());

      FencingToken term = election.campaign(T);
      assertTrue(election.isLeader());
      BlockingQueue<Optional<String>> seen = new LinkedBlockingQueue<>();
      try (ZklObserver obs = b.observer(path + "/election", ElectionKind.FAIR, (o, leader, t) -> seen.add(leader))) {
        for (Optional<String> s = Optional.empty(); !s.equals(Optional.of("alpha")); ) {
          s = seen.poll(T.toMillis(), TimeUnit.MILLISECONDS);
          assertNotNull(s, "leader seen over TLS in time");
        }
        assertEquals(Optional.of(term), obs.term());
      }
      election.resign();
    }
  }

  @Test
  void tls_encrypted_key() throws Exception {
    String passphrase = Files.readString(certs.resolve("client-key.pass")).trim();
    try (ZklClient c = builder("ca.pem", "client.crt", "client-enc.key", passphrase).connect();
         ZklLock lock = c.lock(uniquePath("tls_encrypted_key"))) {
      try (Hold h = lock.acquire(T)) {
        assertTrue(h.isHeld());
      }
    }
  }

  @Test
  void tls_wrong_ca() {
    // The server's chain ends in ca.pem, not in the CA trusted here.
    connectFails(builder("other-ca.pem", "client.crt", "client.key", null), ZklError.ECERT);
  }

  @Test
  void tls_wrong_ca_ends_wait() {
    // No session yet and every server refused verification: the session is
    // AUTH_FAILED with ZKL_ECERT, which ends the wait long before its 20 s,
    // with that code (not ZKL_EAUTH, not ZKL_ETIMEDOUT).
    ZklClient.Builder b = builder("other-ca.pem", "client.crt", "client.key", null)
        .connectTimeout(Duration.ofSeconds(20)).logLevel(System.Logger.Level.OFF);
    try (ZklClient c = b.build()) {
      long t0 = System.nanoTime();
      ZklException e = assertThrows(ZklException.class, c::awaitConnected);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(ZklError.ECERT, e.error(), e.getMessage());
      assertTrue(ms < 5000, "failed after " + ms + " ms (timeout 20 s)");
      assertEquals(SessionState.AUTH_FAILED, c.state());
      assertTrue(e.getMessage().contains(" (tls): "), e.getMessage());
    }
  }

  @Test
  void tls_no_client_cert() {
    // The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
    connectFails(builder("ca.pem", null, null, null), ZklError.ECLIENTCERT);
  }

  // The errors_detail_* scenarios: a failure's message says why, as libzkl
  // does (the option and the reason; each server's failed attempt).

  @Test
  void errors_detail_key_missing() {
    String key = at("missing.key");
    ZklClient.Builder b = builder("ca.pem", "client.crt", "missing.key", null);
    ZklException e = assertThrows(ZklException.class, () -> b.build().close());
    assertEquals(ZklError.ECERT, e.error(), e.getMessage());
    assertTrue(e.getMessage().contains(key) && e.getMessage().contains("No such file"), e.getMessage());
  }

  @Test
  void errors_detail_refused() {
    // Nothing listens on port 1: each attempt is refused; the wait runs out.
    ZklClient.Builder b = ZklClient.builder("127.0.0.1:1").attemptTimeout(Duration.ofSeconds(1))
        .connectTimeout(Duration.ofSeconds(2)).logLevel(System.Logger.Level.OFF);
    ZklTimeoutException e = assertThrows(ZklTimeoutException.class, () -> b.connect().close());
    assertTrue(e.getMessage().contains("127.0.0.1:1 (tcp)") && e.getMessage().contains("refused"), e.getMessage());
  }

  @Test
  void errors_detail_wrong_ca() {
    ZklException e = connectFails(builder("other-ca.pem", "client.crt", "client.key", null), ZklError.ECERT);
    assertTrue(e.getMessage().contains(" (tls): ") && e.getMessage().contains("certificate"), e.getMessage());
  }
}
