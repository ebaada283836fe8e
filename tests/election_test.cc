// Leader election (fair and non-fair) and the observer against a real ZooKeeper.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

// ---------------------------------------------------------------------------
// Leader election
// ---------------------------------------------------------------------------

class Election : public ::testing::TestWithParam<int> {};

TEST_P(Election, EventsFailoverOnExpiryAndResign) {
  int kind = GetParam();
  auto c1 = NewClient(6000), c2 = NewClient();
  std::string path = UniquePath("election");
  ElectionPtr a, b;
  NewElection(c1.get(), path, kind, "alpha", &a);
  NewElection(c2.get(), path, kind, "beta", &b);
  int campaign_a = zkl_election_acquire_async(a.e, -1);
  ASSERT_GT(campaign_a, 0);
  auto elected = WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 5000);
  ASSERT_TRUE(elected);
  EXPECT_EQ(RequestId(elected.get()), static_cast<uint64_t>(campaign_a));
  int campaign_b = zkl_election_acquire_async(b.e, -1);
  ASSERT_GT(campaign_b, 0);
  auto queued = WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000);
  ASSERT_TRUE(queued);
  EXPECT_EQ(RequestId(queued.get()), static_cast<uint64_t>(campaign_b));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  EXPECT_EQ(zkl_election_is_leader(b.e), 0);
  uint64_t term_a = 0, term_b = 0;
  ASSERT_EQ(zkl_election_fencing_token(a.e, &term_a), 0);
  // The leader's session expires: it hears LOST, beta is elected with a
  // later term, and alpha rejoins by itself behind beta.
  ExpireClientSession(c1.get());
  auto lost = WaitForEvent(c1.get(), ZKL_EVENT_LOST, 10000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(RequestId(lost.get()), 0u);  // answers no call
  // Beta's campaign, pending since NOT_ELECTED, is answered now.
  auto failover = WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 10000);
  ASSERT_TRUE(failover);
  EXPECT_EQ(RequestId(failover.get()), static_cast<uint64_t>(campaign_b));
  ASSERT_EQ(zkl_election_fencing_token(b.e, &term_b), 0);
  EXPECT_GT(term_b, term_a);
  auto rejoined = WaitForEvent(c1.get(), ZKL_EVENT_NOT_ELECTED, 15000);
  ASSERT_TRUE(rejoined);
  EXPECT_EQ(RequestId(rejoined.get()), 0u);  // the rejoin is no call of the user's
  // Resign hands over to alpha.
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 10000));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

TEST_P(Election, ObserverReportsLeaderWithoutTakingPart) {
  int kind = GetParam();
  auto c1 = NewClient(), c2 = NewClient(), obs_client = NewClient();
  std::string path = UniquePath("observer");
  zkl_observer *obs = nullptr;
  zkl_observer_options oo;
  ASSERT_EQ(zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION), 0);
  oo.kind = kind;
  ASSERT_EQ(zkl_observer_new(obs_client.get(), path.c_str(), &oo, &obs), 0);
  char buf[64];
  ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, buf, sizeof buf) == ZKL_ENOTFOUND; }));
  ElectionPtr a, b;
  NewElection(c1.get(), path, kind, "alpha", &a);
  NewElection(c2.get(), path, kind, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  ASSERT_GT(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, buf, sizeof buf) == 5; }));
  EXPECT_STREQ(buf, "alpha");
  auto ev = WaitForEvent(obs_client.get(), ZKL_EVENT_LEADER_CHANGED, 5000);
  ASSERT_TRUE(ev);
  // The term is the leader's fencing token, and it grows with each leader.
  uint64_t term_a = 0, term_seen = 0, term_b = 0;
  ASSERT_EQ(zkl_election_fencing_token(a.e, &term_a), 0);
  ASSERT_EQ(zkl_observer_term(obs, &term_seen), 0);
  EXPECT_EQ(term_seen, term_a);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  ASSERT_TRUE(Eventually([&] {
    return zkl_observer_leader(obs, buf, sizeof buf) == 4 && std::string(buf) == "beta";
  }));
  ASSERT_EQ(zkl_observer_term(obs, &term_b), 0);
  EXPECT_GT(term_b, term_a);
  EXPECT_EQ(Children(path).size(), 1u);  // the observer created no node
  // Inspection agrees.
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(obs_client.get(), path.c_str(), InspectElection(kind), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  const char *data = nullptr;
  size_t len = 0;
  zkl_participants_data(p, 0, &data, &len);
  EXPECT_EQ(std::string(data, len), "beta");
  zkl_participants_free(p);
  // The last participant leaves: the observer says there is no leader.
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(obs_client.get(), ZKL_EVENT_NO_LEADER, 5000));
  // (A non-fair election is leaderless for a moment at every handover too,
  // so the first NO_LEADER may be an earlier one.)
  EXPECT_TRUE(Eventually([&] { return zkl_observer_term(obs, &term_b) == ZKL_ENOTFOUND; }));
  ASSERT_EQ(zkl_observer_destroy(obs), 0);
}

// The leader is a separate process that is SIGKILLed: its session expires on
// the server and the follower takes over.
TEST_P(Election, FailoverWhenLeaderProcessIsKilled) {
  int kind = GetParam();
  std::string path = UniquePath("election-kill");
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(out[1], 1);
    close(out[0]);
    std::string kind_arg = kind == ZKL_ELECTION_FAIR ? "election-fair" : "election-unfair";
    std::string servers = Server().connect();
    execl(ZKL_HOLD_BIN, "zkl-hold", "--kind", kind_arg.c_str(), "--id", "doomed", "--hold",
          "600000", servers.c_str(), path.c_str(), (char *)nullptr);
    _exit(127);
  }
  close(out[1]);
  FILE *f = fdopen(out[0], "r");
  char line[128] = {0};
  ASSERT_NE(fgets(line, sizeof line, f), nullptr);
  ASSERT_EQ(std::string(line).rfind("elected ", 0), 0u) << line;
  auto c = NewClient();
  ElectionPtr e;
  NewElection(c.get(), path, kind, "survivor", &e);
  ASSERT_GT(zkl_election_acquire_async(e.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  fclose(f);
  // zkl-hold uses the default 10 s session timeout.
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_ELECTED, 30000));
  ASSERT_EQ(zkl_election_release(e.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

INSTANTIATE_TEST_SUITE_P(Kinds, Election, ::testing::Values(ZKL_ELECTION_FAIR, ZKL_ELECTION_NONFAIR),
                         [](const auto &param_info) {
                           return param_info.param == ZKL_ELECTION_FAIR ? "Fair" : "Unfair";
                         });


// One meaning for a campaign with a timeout: when it runs out, the call has
// left the election again (no node), as a lock acquire does.
TEST(ElectionApi, CampaignTimeoutLeavesTheElection) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("campaign-timeout");
  ElectionPtr a, b;
  NewElection(c1.get(), path, ZKL_ELECTION_FAIR, "alpha", &a);
  NewElection(c2.get(), path, ZKL_ELECTION_FAIR, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  EXPECT_EQ(zkl_election_acquire(a.e, 5000), 0);  // already leader: at once
  EXPECT_EQ(zkl_election_acquire(b.e, 200), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_election_is_leader(b.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).size() == 1; }));
  EXPECT_EQ(zkl_election_try_acquire(b.e), ZKL_EAGAIN);
  // An async campaign keeps its place; a blocking one meanwhile is EBUSY.
  ASSERT_GT(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_acquire(b.e, 100), ZKL_EBUSY);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_is_leader(b.e), 1);
  int64_t ms = 0;
  EXPECT_EQ(zkl_election_valid_for(b.e, &ms), 0);
  EXPECT_GT(ms, 0);
  ASSERT_EQ(zkl_election_release(b.e), 0);
  EXPECT_EQ(zkl_election_release(b.e), ZKL_ENOTHELD);
  EXPECT_EQ(zkl_election_valid_for(b.e, &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
}

// A leader that lost its session is back in line by itself; a campaign then
// takes over that place with its own deadline (never EBUSY), and ends as any
// campaign does: on timeout it has left the election.
TEST(ElectionApi, CampaignAfterLossTakesOverTheRejoinedLine) {
  auto c1 = NewClient(6000), c2 = NewClient();
  std::string path = UniquePath("campaign-rejoin");
  ElectionPtr a, b;
  NewElection(c1.get(), path, ZKL_ELECTION_FAIR, "alpha", &a);
  NewElection(c2.get(), path, ZKL_ELECTION_FAIR, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  ASSERT_GT(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  ExpireClientSession(c1.get());
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 10000));
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }, 15000));  // alpha rejoined
  // A blocking campaign waits in that line and leaves it on its timeout.
  EXPECT_EQ(zkl_election_acquire(a.e, 300), ZKL_ETIMEDOUT);
  EXPECT_TRUE(Eventually([&] { return Children(path).size() == 1; }));
  // The library rejoins no more; an async campaign joins anew and is elected
  // when beta resigns.
  ASSERT_GT(zkl_election_acquire_async(a.e, -1), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 10000));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  ASSERT_EQ(zkl_election_release(a.e), 0);
}

// The same with an async campaign: it waits in the rejoined line and is
// elected when the leader resigns.
TEST(ElectionApi, AsyncCampaignAfterLossIsElectedFromTheRejoinedLine) {
  auto c1 = NewClient(6000), c2 = NewClient();
  std::string path = UniquePath("campaign-rejoin-async");
  ElectionPtr a, b;
  NewElection(c1.get(), path, ZKL_ELECTION_FAIR, "alpha", &a);
  NewElection(c2.get(), path, ZKL_ELECTION_FAIR, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  ASSERT_GT(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  ExpireClientSession(c1.get());
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_LOST, 10000));
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 10000));
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }, 15000));
  ASSERT_GT(zkl_election_acquire_async(a.e, 10000), 0);  // not EBUSY
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 10000));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  ASSERT_EQ(zkl_election_release(a.e), 0);
}

}  // namespace
