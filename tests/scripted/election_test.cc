// Elections on a scripted session: campaigns, leadership, its loss and the
// rejoin in a new session, resigning, proclaiming.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

TEST_F(Scripted, FairElectionNotElectedThenElected) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  ASSERT_GT(zkl_election_acquire_async(e, -1), 0);
  RequestPtr create = script_->Next(Kind::kCreate, "/e/");
  EXPECT_NE(create->path.find("latch-"), std::string::npos);
  EXPECT_EQ(create->data, "me");
  AnswerJoin(create, 2, 800, {OtherNode("latch-", 1)});
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  RequestPtr leader = script_->Next(Kind::kGetData, "/e/" + OtherNode("latch-", 1));
  script_->Reply(leader, Data("them", 1, kOtherSession));
  script_->FireWatch(leader, WatchType::kDeleted);
  Event ev = NextEvent();
  EXPECT_EQ(ev.type, ZKL_EVENT_ELECTED);
  EXPECT_EQ(ev.token, 800u);
  EXPECT_EQ(zkl_election_is_leader(e), 1);
}

// A non-fair election's campaign finds another leader's node: returns the
// read (watched) that told it so.
RequestPtr NonfairBehindAnotherLeader(zkl_election *e, Script &script) {
  EXPECT_GT(zkl_election_acquire_async(e, -1), 0);
  script.Reply(script.Next(Kind::kCreate, "/ne/leader"), Error(ZkRc::kNodeExists));
  RequestPtr leader = script.Next(Kind::kGetData, "/ne/leader");
  script.Reply(leader, Data(kOther + "them", 1, kOtherSession));
  return leader;
}

TEST_F(Scripted, NonfairElectionNotElectedThenElected) {
  Start();
  zkl_election *e = NewElection("/ne", ZKL_ELECTION_NONFAIR);
  RequestPtr leader = NonfairBehindAnotherLeader(e, *script_);
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  script_->FireWatch(leader, WatchType::kDeleted);
  script_->Reply(script_->Next(Kind::kCreate, "/ne/leader"), Created("/ne/leader", 801, static_cast<int64_t>(sid())));
  ExpectEvent(ZKL_EVENT_ELECTED);
}

TEST_F(Scripted, ElectedLeaderLosesOnExpiryAndRejoinsInTheNewSession) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  ASSERT_GT(zkl_election_acquire_async(e, -1), 0);
  AnswerJoin("/e", 1, 900);
  ExpectEvent(ZKL_EVENT_ELECTED);
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  script_->WaitSession(2);
  // A candidate stays in the race: it joins the new session by itself.
  RequestPtr create = script_->Next(Kind::kCreate, "/e/");
  EXPECT_EQ(create->session, 2);
  AnswerJoin(create, 3, 903, {OtherNode("latch-", 2)});
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  RequestPtr leader = script_->Next(Kind::kGetData, "/e/" + OtherNode("latch-", 2));
  script_->Reply(leader, Error(ZkRc::kNoNode));
  Event ev = NextEvent();
  EXPECT_EQ(ev.type, ZKL_EVENT_ELECTED);
  EXPECT_EQ(ev.token, 903u);
}

// ---------------------------------------------------------------------------
// Leadership: campaigning again, resigning, validity, destroy
// ---------------------------------------------------------------------------

class ScriptedElection : public Scripted {
 protected:
  // A fair election on `path` won at once (one node, `czxid`) by a campaign
  // with `timeout_ms`; returns the own node's name.
  std::string Elect(zkl_election *e, const std::string &path, int64_t czxid = 900, int64_t timeout_ms = -1) {
    EXPECT_GT(zkl_election_acquire_async(e, timeout_ms), 0);
    std::string own = AnswerJoin(path, 1, czxid);
    ExpectAcquired(static_cast<uint64_t>(czxid), ZKL_EVENT_ELECTED);
    return own;
  }

  // Elected (by a campaign with `timeout_ms`), then the session expires:
  // the candidate is back in line by itself in session 2, behind latch 2
  // (NOT_ELECTED, no request id). Returns the watch on the leader ahead and
  // the own node's name.
  std::pair<RequestPtr, std::string> RejoinBehindAnother(zkl_election *e, int64_t timeout_ms = -1) {
    Elect(e, "/e", 900, timeout_ms);
    script_->Expire();
    ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
    script_->WaitSession(2);
    std::string own = AnswerJoin("/e", 3, 903, {OtherNode("latch-", 2)});
    Event waiting = NextEvent();
    EXPECT_EQ(waiting.type, ZKL_EVENT_NOT_ELECTED);
    EXPECT_EQ(waiting.request_id, 0u);  // on no call of the user's
    return {script_->Next(Kind::kGetData, "/e/" + OtherNode("latch-", 2)), own};
  }

  // zkl_election_proclaim(e, data) on another thread (it waits for the
  // multi's answer); returns its future and the multi.
  std::pair<std::future<int>, RequestPtr> ProclaimAsync(zkl_election *e, const std::string &data) {
    auto result = std::async(std::launch::async, [e, data] {
      return zkl_election_proclaim(e, data.data(), data.size());
    });
    return {std::move(result), script_->Next(Kind::kMulti, "/e/")};
  }
};

TEST_F(ScriptedElection, CampaignWhileLeaderAnswersAtOnce) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  Elect(e, "/e");
  int again = zkl_election_acquire_async(e, -1);
  ASSERT_GT(again, 0);
  Event ev = ExpectAcquired(900u, ZKL_EVENT_ELECTED);
  EXPECT_EQ(ev.request_id, static_cast<uint64_t>(again));  // one event per call
  EXPECT_EQ(zkl_election_acquire(e, 1000), ZKL_OK);          // no round trip
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));
}

TEST_F(ScriptedElection, ResignAsLeaderDeletesTheNodeAndWaitsForIt) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = Elect(e, "/e");
  auto result = std::async(std::launch::async, [e] { return zkl_election_release(e); });
  RequestPtr del = script_->Next(Kind::kDelete, "/e/" + own);
  script_->Flush();
  EXPECT_NE(result.wait_for(std::chrono::seconds(0)), std::future_status::ready);  // not before the answer
  script_->Reply(del, Ok());
  EXPECT_EQ(Returned(result), ZKL_OK);
  EXPECT_EQ(zkl_election_is_leader(e), 0);
  EXPECT_EQ(zkl_election_release(e), ZKL_ENOTHELD);
  ExpectNoEvent();  // a blocking call queues none
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));  // left the election
}

TEST_F(ScriptedElection, ResignFromTheLineCancelsTheCampaign) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  int campaign = zkl_election_acquire_async(e, -1);
  ASSERT_GT(campaign, 0);
  std::string own = AnswerJoin("/e", 2, 800, {OtherNode("latch-", 1)});
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  script_->Next(Kind::kGetData, "/e/" + OtherNode("latch-", 1));
  EXPECT_EQ(zkl_election_release(e), ZKL_OK);
  ExpectAnswer(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ECANCELED, campaign);
  script_->Next(Kind::kDelete, "/e/" + own);
}

TEST_F(ScriptedElection, LeaderValidityTokenAndStatistics) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  int64_t ms = -1;
  EXPECT_EQ(zkl_election_valid_for(e, &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
  uint64_t token = 0;
  EXPECT_EQ(zkl_election_fencing_token(e, &token), ZKL_ENOTHELD);
  Elect(e, "/e", 905);
  EXPECT_EQ(zkl_election_valid_for(e, &ms), ZKL_OK);
  EXPECT_GT(ms, 0);
  EXPECT_LE(ms, script_->negotiated_timeout_ms());
  EXPECT_EQ(zkl_election_fencing_token(e, &token), ZKL_OK);
  EXPECT_EQ(token, 905u);
  std::string stats = StatsOf(zkl_election_stats, e);
  EXPECT_NE(stats.find("\"type\":\"election\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"path\":\"/e\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"held\":true"), std::string::npos) << stats;
}

TEST_F(ScriptedElection, DestroyedLeaderDeletesItsNode) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = Elect(e, "/e");
  ASSERT_EQ(zkl_election_destroy(e), ZKL_OK);
  script_->Reply(script_->Next(Kind::kDelete, "/e/" + own), Ok());
  ExpectNoEvent();  // a destroyed handle reports nothing
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));
}

TEST_F(ScriptedElection, RevokedLeaderLeavesTheElection) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR, ZKL_REVOKE_RELEASE);
  std::string own = Elect(e, "/e");
  RequestPtr watch = script_->Next(Kind::kGetData, "/e/" + own);
  EXPECT_TRUE(watch->watch());
  script_->Reply(watch, Data("__REVOKE__", 900, static_cast<int64_t>(sid()), 1));
  ExpectEvent(ZKL_EVENT_REVOKE_REQUESTED);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_EREVOKED);
  script_->Reply(script_->Next(Kind::kDelete, "/e/" + own), Ok());
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate)) << "told to let go: no rejoin";
  EXPECT_EQ(zkl_election_is_leader(e), 0);
}

// ---------------------------------------------------------------------------
// Back in line after a loss: a campaign takes the place over
// ---------------------------------------------------------------------------

TEST_F(ScriptedElection, CampaignTakesOverTheRejoinedPlace) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  RequestPtr leader = RejoinBehindAnother(e).first;
  int campaign = zkl_election_acquire_async(e, -1);
  ASSERT_GT(campaign, 0);
  // Already waiting in line: this caller hears it too, with its id.
  ExpectAnswer(ZKL_EVENT_NOT_ELECTED, 0, campaign);
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));  // the same node
  script_->FireWatch(leader, WatchType::kDeleted);
  Event elected = ExpectAcquired(903u, ZKL_EVENT_ELECTED);
  EXPECT_EQ(elected.request_id, static_cast<uint64_t>(campaign));
}

// A zero-timeout campaign does not wait; but once won, the rejoin after a
// loss is the election's own, and waits in line as any rejoin does.
TEST_F(ScriptedElection, RejoinAfterAZeroTimeoutWinWaitsInLine) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  RequestPtr leader = RejoinBehindAnother(e, /*timeout_ms=*/0).first;
  EXPECT_FALSE(script_->HasPending(Kind::kDelete)) << "the rejoin left the line";
  script_->FireWatch(leader, WatchType::kDeleted);
  EXPECT_EQ(ExpectAcquired(903u, ZKL_EVENT_ELECTED).request_id, 0u);
}

TEST_F(ScriptedElection, TryCampaignWhileRejoiningLeavesTheLine) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = RejoinBehindAnother(e).second;
  EXPECT_EQ(zkl_election_try_acquire(e), ZKL_EAGAIN);
  script_->Next(Kind::kDelete, "/e/" + own);
  ExpectNoEvent();
}

TEST_F(ScriptedElection, ZeroTimeoutCampaignWhileRejoiningTimesOut) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = RejoinBehindAnother(e).second;
  int campaign = zkl_election_acquire_async(e, 0);
  ASSERT_GT(campaign, 0);
  ExpectAnswer(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT, campaign);
  script_->Next(Kind::kDelete, "/e/" + own);
}

TEST_F(ScriptedElection, CampaignDeadlineWhileRejoiningLeavesTheLine) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = RejoinBehindAnother(e).second;
  ASSERT_GT(zkl_election_acquire_async(e, 30), 0);
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT);
  script_->Next(Kind::kDelete, "/e/" + own);
}

// ---------------------------------------------------------------------------
// Proclaim and guarded writes
// ---------------------------------------------------------------------------

TEST_F(ScriptedElection, ProclaimSetsTheDataBehindTheGuardAndARejoinKeepsIt) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  std::string own = Elect(e, "/e");
  auto [result, multi] = ProclaimAsync(e, "v2");
  ASSERT_EQ(multi->ops.size(), 2u);
  EXPECT_EQ(multi->ops[0].type, ZkOp::kCheck);
  EXPECT_EQ(multi->ops[0].path, "/e/" + own);
  EXPECT_EQ(multi->ops[1].type, ZkOp::kSetData);
  EXPECT_EQ(multi->ops[1].path, "/e/" + own);
  EXPECT_EQ(multi->ops[1].data, "v2");
  script_->Reply(multi, MultiOk(*multi, 0, 0));
  EXPECT_EQ(Returned(result), ZKL_OK);
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  script_->WaitSession(2);
  EXPECT_EQ(script_->Next(Kind::kCreate, "/e/")->data, "v2");
}

TEST_F(ScriptedElection, ProclaimInDoubtKeepsTheNewIdARefusedOneTheOld) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  Elect(e, "/e");
  auto doubtful = ProclaimAsync(e, "maybe");
  script_->DropConnection();
  EXPECT_EQ(Returned(doubtful.first), ZKL_EINDOUBT);
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  auto refused = ProclaimAsync(e, "never");
  script_->Reply(refused.second, MultiFailed(*refused.second, 1, ZkRc::kNoAuth));
  EXPECT_EQ(Returned(refused.first), ZKL_EAUTH);
  EXPECT_EQ(zkl_election_is_leader(e), 1);
  // The rejoin publishes what the leader last asked for and may have set.
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  script_->WaitSession(2);
  EXPECT_EQ(script_->Next(Kind::kCreate, "/e/")->data, "maybe");
  EXPECT_EQ(zkl_election_proclaim(e, "x", 1), ZKL_ENOTHELD);  // in line, not leader
}

TEST_F(ScriptedElection, ProclaimTooBigForOneRequestKeepsTheOldId) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  Elect(e, "/e");
  // Under the 1 MiB data limit, over what one request may carry.
  std::string big(ZKL_OPS_MAX_BYTES, 'x');
  EXPECT_EQ(zkl_election_proclaim(e, big.data(), big.size()), ZKL_ETOOBIG);
  EXPECT_FALSE(script_->HasPending(Kind::kMulti));
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  script_->WaitSession(2);
  EXPECT_EQ(script_->Next(Kind::kCreate, "/e/")->data, "me");
}

TEST_F(ScriptedElection, ProclaimRefusedByTheGuardLosesLeadershipAndRejoins) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  Elect(e, "/e");
  auto [result, multi] = ProclaimAsync(e, "v2");
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));  // our node is gone
  EXPECT_EQ(Returned(result), ZKL_ELOST);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);
  // A candidate stays in the race: a new node.
  AnswerJoin("/e", 4, 904);
  ExpectAcquired(904u, ZKL_EVENT_ELECTED);
}

TEST_F(ScriptedElection, RefusedProclaimIdStaysOutOfTheRejoin) {
  // Found by this suite: a proclaim refused because the leader's node is
  // gone (ZKL_ELOST) applied nothing, but the write's answer rejoins at
  // once, and the new node was created with the refused id. Proclaim now
  // puts the id in force only once the write is (or may be) applied.
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  Elect(e, "/e");
  auto [result, multi] = ProclaimAsync(e, "refused");
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));
  EXPECT_EQ(Returned(result), ZKL_ELOST);
  EXPECT_EQ(script_->Next(Kind::kCreate, "/e/")->data, "me");
}

TEST_F(ScriptedElection, WriteIsGuardedByLeadership) {
  Start();
  zkl_election *e = NewElection("/e", ZKL_ELECTION_FAIR);
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/e/state", "s", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_election_write_async(e, ops), ZKL_ENOTHELD);
  std::string own = Elect(e, "/e", 906);
  int id = zkl_election_write_async(e, ops);
  zkl_ops_free(ops);
  ASSERT_GT(id, 0);
  RequestPtr multi = script_->Next(Kind::kMulti, "/e/" + own);
  ASSERT_EQ(multi->ops.size(), 2u);
  EXPECT_EQ(multi->ops[1].path, "/e/state");
  script_->Reply(multi, MultiOk(*multi, 0, 0));
  EXPECT_EQ(ExpectAnswer(ZKL_EVENT_WRITTEN, 0, id).token, 906u);
}

// ---------------------------------------------------------------------------
// Non-fair election
// ---------------------------------------------------------------------------

TEST_F(Scripted, NonfairElectionLeaderDataChangeKeepsWaitingWithoutASecondEvent) {
  Start();
  zkl_election *e = NewElection("/ne", ZKL_ELECTION_NONFAIR);
  RequestPtr leader = NonfairBehindAnotherLeader(e, *script_);
  ExpectEvent(ZKL_EVENT_NOT_ELECTED);
  // The leader proclaims: read again (watched), still another's node.
  script_->FireWatch(leader, WatchType::kDataChanged);
  RequestPtr again = script_->Next(Kind::kGetData, "/ne/leader");
  EXPECT_TRUE(again->watch());
  script_->Reply(again, Data(kOther + "them v2", 1, kOtherSession, 1));
  ExpectNoEvent();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));
  script_->FireWatch(again, WatchType::kDeleted);
  script_->Reply(script_->Next(Kind::kCreate, "/ne/leader"), Created("/ne/leader", 802, static_cast<int64_t>(sid())));
  ExpectAcquired(802u, ZKL_EVENT_ELECTED);
}

}  // namespace
}  // namespace zkl::scripted
