package io.zkl.examples;

import io.zkl.Hold;
import io.zkl.LockKind;
import io.zkl.ZklClient;
import io.zkl.ZklLock;
import io.zkl.ZklTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Contends for one lock and prints the fencing token of every acquisition.
 * Run two of these at once on the same path to watch them take turns:
 *
 * <pre>
 *   java -cp zkl-java.jar io.zkl.examples.Contend --rounds 3 --hold 500 127.0.0.1:2181 /demo/lock
 * </pre>
 *
 * Options (the same as the C tool zkl-hold, plus --rounds):
 * <pre>
 *   --kind fair|reentrant|nonfair|read|write|semaphore:N   (fair)
 *   --timeout MS     acquire timeout (30000)
 *   --hold MS        how long to hold; -1 = until standard input ends (1000)
 *   --rounds N       acquire/release N times (1)
 * </pre>
 * Prints "acquired TOKEN" and "released" lines. Exit status 0, 2 on a
 * timeout, 1 on any other error.
 */
public final class Contend {
  private Contend() {}

  public static void main(String[] args) throws Exception {
    LockKind kind = LockKind.FAIR;
    int leases = 1;
    long timeoutMs = 30_000;
    long holdMs = 1_000;
    int rounds = 1;
    int i = 0;
    for (; i + 1 < args.length && args[i].startsWith("--"); i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--kind":
          if (v.startsWith("semaphore:")) {
            kind = LockKind.SEMAPHORE;
            leases = Integer.parseInt(v.substring("semaphore:".length()));
          } else {
            kind = LockKind.valueOf(v.toUpperCase(Locale.ROOT));
          }
          break;
        case "--timeout":
          timeoutMs = Long.parseLong(v);
          break;
        case "--hold":
          holdMs = Long.parseLong(v);
          break;
        case "--rounds":
          rounds = Integer.parseInt(v);
          break;
        default:
          usage("unknown option " + args[i]);
      }
    }
    if (args.length - i != 2) usage("need SERVERS and PATH");
    String servers = args[i];
    String path = args[i + 1];

    try (ZklClient client = ZklClient.connect(servers);
         ZklLock lock = client.lock(path, io.zkl.LockOptions.of(kind).maxLeases(leases))) {
      lock.addListener(new io.zkl.LockListener() {
        @Override
        public void onLost(ZklLock l, io.zkl.ZklException cause) {
          System.out.println("lost " + cause.getMessage());
          System.out.flush();
        }
      });
      for (int r = 0; r < rounds; r++) {
        try (Hold hold = lock.acquire(Duration.ofMillis(timeoutMs))) {
          System.out.println("acquired " + hold.fencingToken());
          System.out.flush();
          if (holdMs < 0) {
            drain(System.in);
          } else {
            // Holding (a lost lock is reported by the listener, on the
            // client's dispatcher thread).
            Thread.sleep(holdMs);
          }
        }
        System.out.println("released");
        System.out.flush();
      }
    } catch (ZklTimeoutException e) {
      System.err.println("contend: " + e.getMessage());
      System.exit(2);
    } catch (RuntimeException e) {
      System.err.println("contend: " + e);
      System.exit(1);
    }
  }

  private static void drain(InputStream in) throws IOException {
    byte[] buf = new byte[256];
    while (in.read(buf) >= 0) {
      // until EOF
    }
  }

  private static void usage(String why) {
    System.err.println("contend: " + why);
    System.err.println("usage: Contend [--kind K] [--timeout MS] [--hold MS] [--rounds N] SERVERS PATH");
    System.exit(1);
  }
}
