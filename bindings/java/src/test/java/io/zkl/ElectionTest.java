package io.zkl;

import static io.zkl.TestSupport.T;
import static io.zkl.TestSupport.connect;
import static io.zkl.TestSupport.uniquePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ZkServerExtension.class)
class ElectionTest {

  @ParameterizedTest
  @EnumSource(ElectionKind.class)
  void leaderThenFollowerAndObserver(ElectionKind kind) throws Exception {
    String path = uniquePath("election-" + kind);
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient o = connect();
         ZklElection ea = a.election(path, "alice", kind);
         ZklElection eb = b.election(path, "bob", kind)) {
      long ta = ea.campaign(T);
      assertTrue(ea.isLeader());
      assertEquals(ta, ea.fencingToken());

      CompletableFuture<Void> notElected = new CompletableFuture<>();
      eb.addListener(new ElectionListener() {
        @Override
        public void onNotElected(ZklElection e) {
          notElected.complete(null);
        }
      });
      PumpingFuture<Long> bLeads = eb.leadership();
      b.await(notElected, T);
      assertFalse(eb.isLeader());
      assertThrows(NotHeldException.class, eb::fencingToken);

      CompletableFuture<Void> sawBob = new CompletableFuture<>();
      try (ZklObserver obs = o.observer(path, kind, (ob, leader) -> {
        if (leader.equals(Optional.of("bob"))) sawBob.complete(null);
      })) {
        CompletableFuture<Void> sawAlice = new CompletableFuture<>();
        obs.addListener((ob, leader) -> {
          if (leader.equals(Optional.of("alice"))) sawAlice.complete(null);
        });
        o.await(sawAlice, T);
        assertEquals(Optional.of("alice"), obs.leader());

        List<Participant> ps = a.inspectElection(path, kind, T);
        // Fair: both are queued; unfair: only the leader has a node.
        assertEquals(kind == ElectionKind.FAIR ? 2 : 1, ps.size(), ps.toString());
        assertTrue(ps.get(0).holder());
        assertEquals("alice", ps.get(0).dataAsString());

        ea.resign();
        assertFalse(ea.isLeader());
        long tb = bLeads.get();
        assertTrue(tb > ta, "a new term has a larger token");
        assertTrue(eb.isLeader());
        o.await(sawBob, T);
        assertEquals(Optional.of("bob"), obs.leader());
      }
    }
  }

  @Test
  void campaignTimesOutAndLeaves() throws Exception {
    String path = uniquePath("election-timeout");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      ea.campaign(T);
      assertThrows(ZklTimeoutException.class, () -> eb.campaign(Duration.ofMillis(300)));
      assertEquals(1, a.inspectElection(path, ElectionKind.FAIR, T).size(), "b left the election");
      ea.close();
      assertTrue(eb.campaign(T) > 0);
    }
  }

  @Test
  void campaignAfterStartWaitsForLeadership() throws Exception {
    String path = uniquePath("election-start");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      ea.campaign(T);
      eb.start();
      // A participant that joined with start() stays in line after a timeout.
      assertThrows(ZklTimeoutException.class, () -> eb.campaign(Duration.ofMillis(300)));
      assertFalse(eb.isLeader());
      assertEquals(2, a.inspectElection(path, ElectionKind.FAIR, T).size());
      ea.resign();
      assertTrue(eb.campaign(T) > 0);
      assertTrue(eb.isLeader());
    }
  }
}
