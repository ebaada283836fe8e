package io.zkl.survival;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * One Apache Curator InterProcessMutex holder, driven by zkl-survival
 * (tests/chaos/survival.cc) through lines on stdin; one answer line each on
 * stdout. Times are System.nanoTime(), which on Linux is CLOCK_MONOTONIC, the
 * clock of the driver (std::chrono::steady_clock), so the driver compares
 * them with its own fault schedule.
 *
 * <pre>
 * begin CONNECT PATH   new CuratorFramework (session 4000 ms, connection 4000 ms,
 *                      ExponentialBackoffRetry(100 ms, 10)), wait until
 *                      connected (20 s), acquire an InterProcessMutex on PATH
 *                      (10 s); "ok session=HEX timeout=MS" or "error WHY"
 * await DEADLINE_NS SETTLE_MS
 *                      wait until the hold is kept (proven, and so for
 *                      SETTLE_MS on end, or at DEADLINE_NS) or lost, at most
 *                      until DEADLINE_NS; "ok kept=0|1 lost_ns=T
 *                      suspended_ns=T reconnected_ns=T proven_ns=T
 *                      session_same=0|1 owned=0|1 node=0|1 why=WORD"
 *                      (T = 0: no such event; proven_ns: the start of the
 *                      last proven stretch)
 * end                  release (errors ignored), close; "ok"
 * quit / EOF           exit
 * </pre>
 *
 * "Kept": no LOST connection state since the acquire; the last state is not
 * SUSPENDED (never suspended, or RECONNECTED since); connected with the
 * same session id; the mutex isAcquiredInThisProcess; and the server has a
 * child of PATH whose ephemeralOwner is that session.
 */
public final class CuratorHolder {
  static final int SESSION_TIMEOUT_MS = 4000;
  static final int CONNECTION_TIMEOUT_MS = 4000;

  private final Object mon = new Object();
  private CuratorFramework client;
  private InterProcessMutex mutex;
  private String path;
  private long session;
  // Guarded by mon: connection states since the acquire.
  private boolean recording;
  private ConnectionState last;
  private long suspendedNs;
  private long reconnectedNs;
  private long lostNs;

  public static void main(String[] args) throws Exception {
    new CuratorHolder().serve();
  }

  private void serve() throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split("\\s+");
      String reply;
      try {
        switch (w[0]) {
          case "begin":
            reply = begin(w[1], w[2]);
            break;
          case "await":
            reply = await(Long.parseLong(w[1]), Long.parseLong(w[2]));
            break;
          case "end":
            end();
            reply = "ok";
            break;
          case "quit":
            end();
            System.out.println("ok");
            return;
          default:
            reply = "error unknown command";
        }
      } catch (Exception e) {
        reply = "error " + e.toString().replace('\n', ' ');
      }
      System.out.println(reply);
      System.out.flush();
    }
    end();
  }

  private String begin(String connect, String lockPath) throws Exception {
    end();
    synchronized (mon) {
      recording = false;
      last = null;
      suspendedNs = reconnectedNs = lostNs = 0;
    }
    client = CuratorFrameworkFactory.builder()
        .connectString(connect)
        .sessionTimeoutMs(SESSION_TIMEOUT_MS)
        .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
        .retryPolicy(new ExponentialBackoffRetry(100, 10))
        .build();
    client.getConnectionStateListenable().addListener((c, state) -> onState(state));
    client.start();
    if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) return "error not connected in 20 s";
    path = lockPath;
    mutex = new InterProcessMutex(client, path);
    if (!mutex.acquire(10, TimeUnit.SECONDS)) return "error not acquired in 10 s";
    ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
    session = zk.getSessionId();
    synchronized (mon) {
      recording = true;
    }
    return "ok session=" + Long.toHexString(session) + " timeout=" + zk.getSessionTimeout();
  }

  private void onState(ConnectionState state) {
    long now = System.nanoTime();
    synchronized (mon) {
      if (!recording) return;
      last = state;
      if (state == ConnectionState.SUSPENDED && suspendedNs == 0) suspendedNs = now;
      if (state == ConnectionState.RECONNECTED && suspendedNs != 0 && reconnectedNs == 0) {
        reconnectedNs = now;
      }
      if (state == ConnectionState.LOST && lostNs == 0) lostNs = now;
      mon.notifyAll();
    }
  }

  private String await(long deadlineNs, long settleMs) throws InterruptedException {
    final long settleNs = TimeUnit.MILLISECONDS.toNanos(settleMs);
    boolean kept = false;
    boolean sameSession = false;
    boolean node = false;
    long provenSince = 0;
    String why = "timeout";
    for (;;) {
      boolean stateOk;
      synchronized (mon) {
        if (lostNs != 0) {
          why = "lost";
          break;
        }
        stateOk = last != ConnectionState.SUSPENDED && last != ConnectionState.READ_ONLY;
      }
      sameSession = sameSession();
      boolean proven = false;
      if (stateOk && client.getZookeeperClient().isConnected() && sameSession
          && mutex.isAcquiredInThisProcess()) {
        // The node is looked up once per proven stretch.
        node = provenSince != 0 || nodeOwnedBySession();
        proven = node;
      }
      long now = System.nanoTime();
      if (!proven) {
        provenSince = 0;
      } else if (provenSince == 0) {
        provenSince = now;
      }
      if (proven && now - provenSince >= settleNs) {
        kept = true;
        why = "kept";
        break;
      }
      if (now >= deadlineNs) {
        kept = proven;
        why = proven ? "kept" : "timeout";
        break;
      }
      synchronized (mon) {
        // Woken by a state change; the connection checks are repeated
        // every 50 ms (they have no event of their own here).
        TimeUnit.NANOSECONDS.timedWait(mon, Math.max(1, Math.min(deadlineNs - now,
            TimeUnit.MILLISECONDS.toNanos(50))));
      }
    }
    if (!kept) provenSince = 0;
    synchronized (mon) {
      return "ok kept=" + (kept ? 1 : 0) + " lost_ns=" + lostNs + " suspended_ns=" + suspendedNs
          + " reconnected_ns=" + reconnectedNs + " proven_ns=" + provenSince + " session_same=" + (sameSession() ? 1 : 0)
          + " owned=" + (mutex.isAcquiredInThisProcess() ? 1 : 0) + " node=" + (node ? 1 : 0)
          + " why=" + why;
    }
  }

  private boolean sameSession() {
    try {
      return client.getZookeeperClient().getZooKeeper().getSessionId() == session;
    } catch (Exception e) {
      return false;
    }
  }

  // One round trip on the raw handle (no Curator retries, so it fails fast
  // while disconnected).
  private boolean nodeOwnedBySession() {
    try {
      ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
      List<String> children = zk.getChildren(path, false);
      for (String child : children) {
        Stat st = zk.exists(path + "/" + child, false);
        if (st != null && st.getEphemeralOwner() == session) return true;
      }
    } catch (Exception e) {
      // not connected (yet): not proven
    }
    return false;
  }

  private void end() {
    if (client == null) return;
    synchronized (mon) {
      recording = false;
    }
    try {
      if (mutex != null && mutex.isAcquiredInThisProcess()) mutex.release();
    } catch (Exception e) {
      // lost with its session
    }
    client.close();
    client = null;
    mutex = null;
  }
}
