package io.zkl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The ZooKeeper server of the tests: the one named by the system property
 * zkl.test.connect (test.sh starts it), else one started here with the
 * repository's scripts/zk-server (on a free loopback port, stopped when the
 * test run ends; ZK_OWNER_PID makes sure of that even if the JVM dies).
 */
public final class ZkServerExtension implements BeforeAllCallback {
  private static volatile String connect;

  /** The connect string "127.0.0.1:PORT". */
  public static String connect() {
    if (connect == null) throw new IllegalStateException("ZkServerExtension not active");
    return connect;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    synchronized (ZkServerExtension.class) {
      if (connect != null) return;
      String given = System.getProperty("zkl.test.connect", "").trim();
      if (!given.isEmpty()) {
        connect = given;
        return;
      }
      Server s = Server.start(TestSupport.workDir().resolve("zk-" + ProcessHandle.current().pid()));
      context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).put("zkl-zk-server", s);
      connect = s.connect;
    }
  }

  /** A server run by scripts/zk-server in {@code dir}. */
  public static final class Server implements ExtensionContext.Store.CloseableResource {
    final Path dir;
    final String connect;

    private Server(Path dir, String connect) {
      this.dir = dir;
      this.connect = connect;
    }

    public static Server start(Path dir) throws IOException, InterruptedException {
      Files.createDirectories(dir);
      String out = script("start", dir).trim();
      String[] lines = out.split("\n");
      return new Server(dir, lines[lines.length - 1].trim());
    }

    public void pause() throws IOException, InterruptedException {
      script("pause", dir);
    }

    public void resume() throws IOException, InterruptedException {
      script("resume", dir);
    }

    /** Stops the server and removes its directory. */
    @Override
    public void close() throws IOException, InterruptedException {
      script("stop", dir);
      try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }

    private static String script(String cmd, Path dir) throws IOException, InterruptedException {
      Path script = TestSupport.sourceDir().resolve("scripts/zk-server");
      ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), cmd, dir.toString());
      pb.environment().put("ZK_OWNER_PID", Long.toString(ProcessHandle.current().pid()));
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
      Process p = pb.start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("zk-server " + cmd + " did not finish");
      }
      if (p.exitValue() != 0) throw new IOException("zk-server " + cmd + " failed: " + p.exitValue());
      return new String(out, StandardCharsets.UTF_8);
    }
  }
}
