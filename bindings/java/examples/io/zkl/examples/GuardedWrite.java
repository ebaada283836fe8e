package io.zkl.examples;

import io.zkl.Hold;
import io.zkl.NodeExistsException;
import io.zkl.Ops;
import io.zkl.WriteInDoubtException;
import io.zkl.WriteResult;
import io.zkl.ZklClient;
import io.zkl.ZklLock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Acquires a lock, writes a value under it with a guarded write, releases:
 *
 * <pre>
 *   java -cp zkl-java.jar io.zkl.examples.GuardedWrite 127.0.0.1:2181 /demo/job hello
 * </pre>
 *
 * The value goes to PATH/state (strictly below the lock's path, as every
 * guarded write's operations must): created on the first run, replaced on
 * later ones. The write is applied only while the hold is real at the
 * ZooKeeper quorum: a holder that was frozen, cut off or expired writes
 * nothing, whatever it believes.
 */
public final class GuardedWrite {
  private GuardedWrite() {}

  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: GuardedWrite SERVERS PATH VALUE");
      System.exit(1);
    }
    String path = args[1];
    byte[] value = args[2].getBytes(StandardCharsets.UTF_8);
    try (ZklClient client = ZklClient.connect(args[0]);
         ZklLock lock = client.lock(path);
         Hold hold = lock.acquire(Duration.ofSeconds(30))) {
      System.out.println("acquired " + path + ", fencing token " + hold.fencingToken());
      String state = path + "/state";
      WriteResult r;
      try {
        r = lock.write(new Ops().create(state, value));
      } catch (NodeExistsException e) {
        // There from an earlier run: replace it, whatever its version.
        r = lock.write(new Ops().set(state, value, Ops.ANY_VERSION));
      }
      System.out.println("wrote " + args[2] + " to " + state + " (data version " + r.version(0).orElse(-1) + ")");
    } catch (WriteInDoubtException e) {
      System.err.println("the connection broke during the write: read it back before retrying");
      System.exit(1);
    }
    // Closing the hold released the lock; nothing was written on any other
    // exception (LockLostException: the hold was gone at the quorum).
    System.out.println("released");
  }
}
