package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkl.examples.Contend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two JVMs running the example and one C process (zkl-hold) contend for one
 * path. Each holds until the test closes its standard input, so the test
 * knows when a holder may let go: a process that says "acquired" while
 * another holder has not been told to release would be a violation. Fencing
 * tokens must strictly increase from holder to holder.
 */
@ExtendWith(ZkServerExtension.class)
class CrossProcessTest {
  private record Line(int proc, String text) {}

  @Test
  void twoJvmsAndOneCProcessExcludeEachOther() throws Exception {
    String path = uniquePath("cross");
    String connect = ZkServerExtension.connect();
    Path hold = Path.of(System.getProperty("zkl.test.hold", "target/zkl-hold"));
    assertTrue(Files.isExecutable(hold), "zkl-hold built at " + hold);
    String java = ProcessHandle.current().info().command().orElse("java");
    String classes = Path.of(Contend.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();

    List<List<String>> commands = List.of(
        List.of(java, "-cp", classes, Contend.class.getName(), "--hold", "-1", "--timeout", "60000", connect, path),
        List.of(java, "-cp", classes, Contend.class.getName(), "--hold", "-1", "--timeout", "60000", connect, path),
        List.of(hold.toString(), "--hold", "-1", "--timeout", "60000", connect, path));
    BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
    List<Process> procs = new ArrayList<>();
    try {
      for (int i = 0; i < commands.size(); i++) {
        ProcessBuilder pb = new ProcessBuilder(commands.get(i));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        procs.add(p);
        int id = i;
        Thread reader = new Thread(() -> {
          try (BufferedReader r = new BufferedReader(
                   new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String s;
            while ((s = r.readLine()) != null) lines.add(new Line(id, s));
          } catch (Exception e) {
            lines.add(new Line(id, "error " + e));
          }
          lines.add(new Line(id, "eof"));
        });
        reader.setDaemon(true);
        reader.start();
      }
      // Everyone is queued (three nodes) before the first release.
      awaitChildren(path, 3, Duration.ofSeconds(90));  // three process starts

      Set<Integer> releaseRequested = new HashSet<>();
      Set<Integer> done = new HashSet<>();
      List<Long> tokens = new ArrayList<>();
      List<Integer> order = new ArrayList<>();
      Integer holder = null;
      while (done.size() < procs.size()) {
        Line l = lines.poll(60, TimeUnit.SECONDS);
        assertNotNull(l, "no output for 60 s; done=" + done + " order=" + order);
        if (l.text.startsWith("acquired ")) {
          // Exclusion: the previous holder must have been told to let go.
          if (holder != null) {
            assertTrue(releaseRequested.contains(holder),
                "process " + l.proc + " acquired while process " + holder + " held the lock");
          }
          holder = l.proc;
          order.add(l.proc);
          tokens.add(Long.parseLong(l.text.substring("acquired ".length()).trim()));
          // Give the others a chance to (wrongly) acquire too, then let go.
          Line intruder = pollAcquired(lines, 300);
          assertNull(intruder, "a second holder: " + intruder);
          releaseRequested.add(l.proc);
          procs.get(l.proc).getOutputStream().close();
        } else if (l.text.equals("eof")) {
          done.add(l.proc);
        } else {
          assertTrue(l.text.equals("released") || l.text.startsWith("lost"), "unexpected: " + l.text);
          assertTrue(!l.text.startsWith("lost"), "process " + l.proc + " lost the lock: " + l.text);
        }
      }
      assertEquals(3, order.size(), "each process held once: " + order);
      assertEquals(Set.of(0, 1, 2), new HashSet<>(order));
      for (int i = 1; i < tokens.size(); i++) {
        assertTrue(tokens.get(i) > tokens.get(i - 1), "fencing tokens strictly increase: " + tokens);
      }
      for (Process p : procs) {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
      }
      awaitChildren(path, 0);
    } finally {
      for (Process p : procs) p.destroyForcibly();
    }
  }

  /** An "acquired" line within ms (other lines are put back in order), or null. */
  private static Line pollAcquired(BlockingQueue<Line> lines, long ms) throws InterruptedException {
    long deadline = System.nanoTime() + ms * 1_000_000L;
    List<Line> other = new ArrayList<>();
    Line found = null;
    long left;
    while (found == null && (left = deadline - System.nanoTime()) > 0) {
      Line l = lines.poll(left, TimeUnit.NANOSECONDS);
      if (l == null) break;
      if (l.text.startsWith("acquired ")) found = l; else other.add(l);
    }
    // Put back what was not an acquisition, ahead of anything newer.
    List<Line> rest = new ArrayList<>();
    lines.drainTo(rest);
    lines.addAll(other);
    if (found != null) lines.add(found);
    lines.addAll(rest);
    return found;
  }
}
