package example;

import io.zkl.FencingToken;
import io.zkl.Hold;
import io.zkl.ZklClient;
import io.zkl.ZklElection;
import io.zkl.ZklLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

/**
 * The example packaging/java/test.sh runs from a fresh Maven project that
 * depends on io.zkl:zkl-java: one lock and one election against a real
 * ZooKeeper, then proof (from /proc/self/maps) that libzkl, libzkljni and
 * every abseil library this JVM mapped came from the jar's extraction
 * directory, none from the system.
 *
 *   java -cp ... example.LockAndElect HOST:PORT
 */
public final class LockAndElect {
  public static void main(String[] args) throws Exception {
    String servers = args[0];
    String base = "/zkl-package-test/java-" + ProcessHandle.current().pid();
    try (ZklClient client = ZklClient.connect(servers)) {
      System.out.println("libzkl " + ZklClient.libraryVersion() + ", connected to " + servers);
      try (ZklLock lock = client.lock(base + "/lock");
           Hold hold = lock.acquire(Duration.ofSeconds(10))) {
        FencingToken token = hold.fencingToken();
        check(token.bits() != 0, "lock fencing token is 0");
        System.out.println("lock: held, fencing token " + token);
      }
      try (ZklElection election = client.election(base + "/election", "example")) {
        FencingToken token = election.campaign(Duration.ofSeconds(10));
        check(election.isLeader(), "campaign returned but not leader");
        check(token.bits() != 0, "election fencing token is 0");
        System.out.println("election: elected, fencing token " + token);
        election.resign();
      }
    }
    nativeOrigins();
    System.out.println("example: OK");
  }

  /** Where the dynamic linker found libzkl, libzkljni and abseil in this process. */
  private static void nativeOrigins() throws Exception {
    List<String> maps = Files.readAllLines(Path.of("/proc/self/maps"));
    TreeSet<String> zkl = new TreeSet<>(), jni = new TreeSet<>(), absl = new TreeSet<>();
    for (String line : maps) {
      int slash = line.indexOf('/');
      if (slash < 0) continue;
      String file = line.substring(slash);
      String name = Path.of(file).getFileName().toString();
      if (name.startsWith("libzkl.so")) zkl.add(file);
      else if (name.startsWith("libzkljni")) jni.add(file);
      else if (name.startsWith("libabsl_")) absl.add(file);
    }
    check(zkl.size() == 1, "libzkl mapped from " + zkl);
    check(jni.size() == 1, "libzkljni mapped from " + jni);
    Path dir = Path.of(jni.first()).getParent();
    check(Path.of(zkl.first()).getParent().equals(dir), "libzkl.so.1 not beside libzkljni.so: " + zkl);
    for (String a : absl) check(Path.of(a).getParent().equals(dir), "abseil from outside the package: " + a);
    check(!absl.isEmpty(), "no abseil library mapped (expected the bundled ones)");
    System.out.println("native: libzkljni.so, libzkl.so.1 and " + absl.size()
        + " abseil libraries all from " + dir + " (none from the system)");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("example: FAILED: " + what);
      System.exit(1);
    }
  }
}
