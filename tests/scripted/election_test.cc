// Elections on a scripted session: campaigns, leadership, its loss and the
// rejoin in a new session, resigning, proclaiming.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
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

TEST_F(Scripted, NonfairElectionNotElectedThenElected) {
  Start();
  zkl_election *e = NewElection("/ne", ZKL_ELECTION_NONFAIR);
  ASSERT_GT(zkl_election_acquire_async(e, -1), 0);
  script_->Reply(script_->Next(Kind::kCreate, "/ne/leader"), Error(ZkRc::kNodeExists));
  RequestPtr leader = script_->Next(Kind::kGetData, "/ne/leader");
  script_->Reply(leader, Data(kOther + "them", 1, kOtherSession));
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

}  // namespace
}  // namespace zkl::scripted
