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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@ExtendWith(ZkServerExtension.class)
class ElectionTest {

  @ParameterizedTest
  @EnumSource(ElectionKind.class)
  void leaderThenFollowerAndObserver(ElectionKind kind) throws Exception {
    String path = uniquePath("election-" + kind);
    try (ZklClient a = connect(); ZklClient b = connect(); ZklClient o = connect();
         ZklElection ea = a.election(path, "alice", kind);
         ZklElection eb = b.election(path, "bob", kind)) {
      FencingToken ta = ea.campaign(T);
      assertTrue(ea.isLeader());
      assertEquals(ta, ea.fencingToken());

      CompletableFuture<Void> notElected = new CompletableFuture<>();
      eb.addListener(new ElectionListener() {
        @Override
        public void onNotElected(ZklElection e) {
          notElected.complete(null);
        }
      });
      CompletableFuture<FencingToken> bLeads = eb.campaignAsync(null);
      TestSupport.await(notElected, T);
      assertFalse(eb.isLeader());
      assertThrows(NotHeldException.class, eb::fencingToken);

      CompletableFuture<Void> sawBob = new CompletableFuture<>();
      try (ZklObserver obs = o.observer(path, kind, (ob, leader, term) -> {
        if (leader.equals(Optional.of("bob"))) sawBob.complete(null);
      })) {
        CompletableFuture<Void> sawAlice = new CompletableFuture<>();
        obs.addListener((ob, leader, term) -> {
          if (leader.equals(Optional.of("alice"))) sawAlice.complete(null);
        });
        if (!obs.leader().equals(Optional.of("alice"))) TestSupport.await(sawAlice, T);
        assertEquals(Optional.of("alice"), obs.leader());

        List<Participant> ps = a.inspectElection(path, kind, T);
        // Fair: both are queued; non-fair: only the leader has a node.
        assertEquals(kind == ElectionKind.FAIR ? 2 : 1, ps.size(), ps.toString());
        assertTrue(ps.get(0).holder());
        assertEquals("alice", ps.get(0).dataAsString());

        ea.resign();
        assertFalse(ea.isLeader());
        FencingToken tb = TestSupport.await(bLeads, T);
        assertTrue(tb.isNewerThan(ta), "a new term has a larger token");
        assertTrue(eb.isLeader());
        TestSupport.await(sawBob, T);
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
      // Its node goes in the background, one round trip after the call
      // returns (zkl.h): await it before asking who is in the election.
      TestSupport.awaitChildren(path, 1);
      assertEquals(1, a.inspectElection(path, ElectionKind.FAIR, T).size(), "b left the election");
      ea.close();
      assertTrue(eb.campaign(T).bits() != 0);
    }
  }

  @Test
  void asyncCampaignTimesOutAndLeaves() throws Exception {
    String path = uniquePath("election-async-timeout");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      ea.campaign(T);
      CompletableFuture<FencingToken> f = eb.campaignAsync(Duration.ofMillis(300));
      assertThrows(ZklTimeoutException.class, () -> TestSupport.await(f, T));
      // Its node goes in the background, one round trip after the call
      // returns (zkl.h): await it before asking who is in the election.
      TestSupport.awaitChildren(path, 1);
      assertEquals(1, a.inspectElection(path, ElectionKind.FAIR, T).size(), "b left the election");
    }
  }

  @Test
  void tryCampaignAndLease() throws Exception {
    String path = uniquePath("election-try");
    try (ZklClient a = connect(); ZklClient b = connect();
         ZklElection ea = a.election(path, "a"); ZklElection eb = b.election(path, "b")) {
      assertTrue(ea.tryCampaign().isPresent());
      assertEquals(Optional.empty(), eb.tryCampaign());
      // Its node goes in the background, one round trip after the call
      // returns (zkl.h): await it before asking who is in the election.
      TestSupport.awaitChildren(path, 1);
      assertEquals(1, a.inspectElection(path, ElectionKind.FAIR, T).size(), "b left again");
      assertTrue(ea.validFor().compareTo(Duration.ZERO) > 0);
      ea.resign();
      assertEquals(Duration.ZERO, ea.validFor());
      assertTrue(ea.stats().startsWith("{"));
    }
  }
}
