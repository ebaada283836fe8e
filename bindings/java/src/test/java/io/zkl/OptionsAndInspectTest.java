package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.awaitChildren;
import static io.zkl.TestSupport.children;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static io.zkl.TestSupport.zk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class OptionsAndInspectTest {

  @Test
  void inspectShowsHolderAndWaiterWithData() throws Exception {
    String path = uniquePath("inspect");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklLock la = a.lock(path, LockOptions.of(LockKind.FAIR).data("holder-a".getBytes(StandardCharsets.UTF_8)));
         ZklLock lb = b.lock(path, LockOptions.of(LockKind.FAIR).data("holder-b".getBytes(StandardCharsets.UTF_8)));
         Hold ha = la.acquire(T)) {
      AcquireFuture f = lb.acquireAsync(T);
      awaitChildren(path, 2);
      List<Participant> ps = a.inspect(path, LockKind.FAIR, T);
      assertEquals(2, ps.size(), ps.toString());
      assertTrue(ps.get(0).holder());
      assertFalse(ps.get(1).holder());
      assertEquals("holder-a", ps.get(0).dataAsString());
      assertEquals("holder-b", ps.get(1).dataAsString());
      assertEquals(ha.fencingToken(), ps.get(0).fencingToken());
      assertEquals(a.sessionId(), ps.get(0).sessionId());
      assertEquals(b.sessionId(), ps.get(1).sessionId());
      assertTrue(ps.get(0).ctimeMillis() > 0);
      assertTrue(ps.get(0).name().startsWith("_c_"));
      assertTrue(f.cancel(true));
    }
  }

  @Test
  void releaseAsyncCompletesWhenTheNodeIsGone() throws Exception {
    String path = uniquePath("release-async");
    try (ZklClient c = connect(); ZklLock lock = c.reentrantLock(path)) {
      lock.acquire(5, T);
      lock.acquire(5, T);
      TestSupport.await(lock.releaseAsync(5), T);  // one of two holds: at once
      assertTrue(lock.isHeld());
      TestSupport.await(lock.releaseAsync(5), T);
      assertFalse(lock.isHeld());
      assertTrue(children(path).isEmpty(), "the delete was confirmed");
      assertThrows(NotHeldException.class, () -> TestSupport.await(lock.releaseAsync(5), T));
    }
  }

  @Test
  void creatorAclKeepsOthersFromDeletingTheHoldersNode() throws Exception {
    String path = uniquePath("acl");
    try (ZklClient c = ZklClient.builder(ZkServerExtension.connect()).digestAuth("alice:secret")
             .acl(Acl.CREATOR).connectTimeout(T).connect();
         ZklLock lock = c.lock(path); Hold h = lock.acquire(T)) {
      String node = path + "/" + children(path).get(0);
      List<ACL> acl = zk().getACL(node, null);
      assertTrue(acl.stream().anyMatch(a -> a.getId().getScheme().equals("digest")), acl.toString());
      assertThrows(KeeperException.NoAuthException.class, () -> zk().delete(node, -1));
      assertTrue(h.isHeld());
    }
  }

  @Test
  void chroot() throws Exception {
    String root = "/zkl-java-chroot-" + java.util.UUID.randomUUID();
    zk().create(root, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    try {
      try (ZklClient c = ZklClient.builder(ZkServerExtension.connect()).chroot(root)
               .connectTimeout(T).connect();
           ZklLock l = c.lock("/l"); Hold h = l.acquire(T)) {
        assertEquals(1, children(root + "/l").size());
        assertTrue(h.isHeld());
      }
    } finally {
      org.apache.zookeeper.ZKUtil.deleteRecursive(zk(), root);
    }
  }
}
