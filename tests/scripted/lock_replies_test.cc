// The lock contender's remaining reply branches on a scripted session: each
// request kind a lock sends (create, children, the watch read, the
// ownership read, the revocation watch, the parents, the lease count, the
// fixed node's read, deletes and their checks) answered with an error, cut
// by a connection loss, or answered after the acquire ended; and the calls
// around a hold (reentrancy, blocking release, validity, destroy).
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

// ---------------------------------------------------------------------------
// Calls around a hold
// ---------------------------------------------------------------------------

TEST_F(Scripted, ReentrantLockCountsTheHoldsOfItsOwner) {
  Start();
  zkl_lock *l = NewLock("/r", ZKL_LOCK_REENTRANT);
  std::string own = HoldFair(l, "/r");
  int inner = zkl_lock_acquire_async(l, 1, -1);
  ASSERT_GT(inner, 0);
  EXPECT_EQ(ExpectAcquired(100u).request_id, static_cast<uint64_t>(inner));  // no round trip
  EXPECT_EQ(zkl_lock_acquire(l, 1, 1000), ZKL_OK);
  EXPECT_EQ(zkl_lock_hold_count(l), 3);
  EXPECT_EQ(zkl_lock_acquire_async(l, 2, -1), ZKL_EBUSY);  // another owner
  int released = zkl_lock_release_async(l, 1);
  ASSERT_GT(released, 0);
  ExpectAnswer(ZKL_EVENT_RELEASED, 0, released);
  EXPECT_EQ(zkl_lock_release(l, 1), ZKL_OK);
  EXPECT_EQ(zkl_lock_hold_count(l), 1);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kDelete));  // inner holds keep the node
  ASSERT_GT(zkl_lock_release_async(l, 1), 0);
  script_->Next(Kind::kDelete, "/r/" + own);
}

TEST_F(Scripted, NonReentrantLockRefusesASecondAcquire) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_EBUSY);  // one pending at a time
  AnswerJoin("/f", 5, 100);
  ExpectAcquired(100u);
  EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_EDEADLK);
  EXPECT_EQ(zkl_lock_acquire_async(l, 2, -1), ZKL_EBUSY);
  EXPECT_EQ(zkl_lock_release(l, 2), ZKL_ENOTOWNER);
  EXPECT_EQ(zkl_lock_cancel(l), ZKL_ENOTHELD);  // nothing pending to cancel
}

TEST_F(Scripted, ReleaseAfterALossSaysLostOnceToItsOwner) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  EXPECT_EQ(zkl_lock_release(l, 2), ZKL_ENOTHELD);  // not the owner that lost it
  EXPECT_EQ(zkl_lock_release(l, 1), ZKL_ELOST);
  EXPECT_EQ(zkl_lock_release(l, 1), ZKL_ENOTHELD);  // told once
}

TEST_F(Scripted, BlockingReleaseReturnsOnceTheDeleteIsAnswered) {
  Start();
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  auto result = std::async(std::launch::async, [l] { return zkl_lock_release(l, 1); });
  RequestPtr del = script_->Next(Kind::kDelete, "/f/" + own);
  script_->Flush();
  EXPECT_NE(result.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  script_->Reply(del, Ok());
  EXPECT_EQ(Returned(result), ZKL_OK);
  ExpectNoEvent();  // a blocking call queues none
}

TEST_F(Scripted, BlockingReleaseWithoutAnAnswerEndsAfterASessionTimeout) {
  // Released all the same: the delete goes on in the background.
  Script::Options o;
  o.negotiated_timeout_ms = 1000;
  Start(ZKL_IO_THREAD, o);
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  auto result = std::async(std::launch::async, [l] { return zkl_lock_release(l, 1); });
  RequestPtr del = script_->Next(Kind::kDelete, "/f/" + own);
  ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(result.get(), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  script_->Reply(del, Ok());
  ExpectNoEvent();
}

TEST_F(Scripted, ValidityHoldCountAndStatisticsOfAHold) {
  Start();
  zkl_lock *l = NewLock("/f");
  int64_t ms = -1;
  EXPECT_EQ(zkl_lock_valid_for(l, &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
  EXPECT_EQ(zkl_lock_hold_count(l), 0);
  HoldFair(l, "/f");
  EXPECT_EQ(zkl_lock_valid_for(l, &ms), ZKL_OK);
  EXPECT_GT(ms, 0);
  EXPECT_LE(ms, script_->negotiated_timeout_ms());
  EXPECT_EQ(zkl_lock_hold_count(l), 1);
  std::string stats = StatsOf(zkl_lock_stats, l);
  EXPECT_NE(stats.find("\"type\":\"lock\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"kind\":\"fair\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"held\":true"), std::string::npos) << stats;
}

TEST_F(Scripted, DestroyWhileHeldDeletesTheNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  ASSERT_EQ(zkl_lock_destroy(l), ZKL_OK);
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Ok());
  ExpectNoEvent();
}

TEST_F(Scripted, ClosedClientAndLostConnectionRefuseAtOnce) {
  Start();
  zkl_lock *l = NewLock("/f");
  script_->DropConnection();
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  // A try (or a zero timeout) never waits for a reconnect.
  EXPECT_EQ(zkl_lock_try_acquire(l, 1), ZKL_ECONNECTION);
  EXPECT_EQ(zkl_lock_acquire_async(l, 1, 0), ZKL_ECONNECTION);
  ExpectNothingSent();
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_release(l, 1), ZKL_ECLOSED);
}

// A client whose lease has lapsed: lock /a held (token 100) and SUSPENDED,
// its syncs unanswered, so the quorum proves nothing until the test turns
// them on; `late` (on /b) is the handle under test.
class ScriptedLapsed : public Scripted {
 protected:
  zkl_lock *LapseWithAHold(int64_t session_timeout_ms = 1000) {
    Script::Options o;
    o.negotiated_timeout_ms = session_timeout_ms;
    o.auto_sync = false;
    Start(ZKL_IO_THREAD, o);
    first_ = NewLock("/a");
    zkl_lock *late = NewLock("/b");
    HoldFair(first_, "/a");
    ExpectEvent(ZKL_EVENT_SUSPENDED);  // the bound lapsed
    return late;
  }
  zkl_lock *first_ = nullptr;
};

TEST_F(ScriptedLapsed, RegressionFirstInLineAfterTheLeaseLapsedWaitsForTheProof) {
  // First in line while the quorum has not proven the session for as long
  // as is safe (the chaos kit's worker frozen past its session timeout: the
  // answers that put it first were older than the expiry that gave the lock
  // away). No ACQUIRED until the next proof; then ACQUIRED, and held.
  zkl_lock *late = LapseWithAHold();
  ASSERT_GT(zkl_lock_acquire_async(late, 1, -1), 0);
  AnswerJoin("/b", 1, 77);
  ExpectNoEvent();  // first in line, not provably: no ACQUIRED
  EXPECT_EQ(zkl_lock_is_held(late), 0);
  script_->SetAutoSync(true);
  // The first hold's RESTORED and the late one's ACQUIRED (never
  // SUSPENDED), in either order: one proof answers both.
  Event a = NextEvent(), b = NextEvent();
  if (a.type != ZKL_EVENT_RESTORED) std::swap(a, b);
  EXPECT_EQ(a.type, ZKL_EVENT_RESTORED);
  EXPECT_EQ(a.token, 100u);
  EXPECT_EQ(b.type, ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(b.token, 77u);
  EXPECT_EQ(zkl_lock_is_held(late), 1);
  EXPECT_EQ(zkl_lock_is_held(first_), 1);
  ExpectNoEvent();
}

TEST_F(ScriptedLapsed, BlockingAcquireFirstInLineWithoutProofTimesOutAndDeletesItsNode) {
  zkl_lock *late = LapseWithAHold();
  auto result = std::async(std::launch::async, [late] { return zkl_lock_acquire(late, 1, 300); });
  std::string own = AnswerJoin("/b", 1, 77);
  // Never "held" without the proof: the deadline ends the wait, and the
  // node goes.
  EXPECT_EQ(Returned(result), ZKL_ETIMEDOUT);
  RequestPtr del = script_->Next(Kind::kDelete, "/b/" + own);
  script_->Reply(del, Ok());
  EXPECT_EQ(zkl_lock_is_held(late), 0);
}

TEST_F(ScriptedLapsed, BlockingAcquireFirstInLineWithoutProofReturnsOnceProven) {
  zkl_lock *late = LapseWithAHold();
  auto result = std::async(std::launch::async, [late] { return zkl_lock_acquire(late, 1, -1); });
  AnswerJoin("/b", 1, 77);
  script_->Flush();
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  script_->SetAutoSync(true);
  EXPECT_EQ(Returned(result), ZKL_OK);
  EXPECT_EQ(zkl_lock_is_held(late), 1);
  // The handle's statistics count the grant that waited.
  char *json = nullptr;
  ASSERT_EQ(zkl_lock_stats(late, &json, nullptr), 0);
  std::string stats(json);
  zkl_free(json);
  EXPECT_NE(stats.find("\"proof_waits\":1,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"grants_without_read\":0,"), std::string::npos) << stats;
}

TEST_F(ScriptedLapsed, FirstInLineWithoutProofWhenTheSessionExpiresJoinsTheNextSession) {
  zkl_lock *late = LapseWithAHold();
  ASSERT_GT(zkl_lock_acquire_async(late, 1, -1), 0);
  AnswerJoin("/b", 1, 77);
  ExpectNoEvent();
  // The freeze outlasted the session: what put us first is void.
  script_->Expire();
  Event lost = NextEvent();
  EXPECT_EQ(lost.type, ZKL_EVENT_LOST);  // the first lock
  EXPECT_EQ(lost.token, 100u);
  script_->WaitSession(2);
  script_->SetAutoSync(true);
  RequestPtr create = script_->Next(Kind::kCreate, "/b/");
  EXPECT_EQ(create->session, 2);
  AnswerJoin(create, 4, 170);
  ExpectAcquired(170u);  // never 77
  EXPECT_EQ(zkl_lock_is_held(late), 1);
}

TEST_F(ScriptedLapsed, TryFirstInLineWithoutProofFailsOnADisconnect) {
  // A session timeout long enough that the try's own bound (one session
  // timeout) cannot be what ends it.
  zkl_lock *late = LapseWithAHold(4000);
  auto result = std::async(std::launch::async, [late] { return zkl_lock_try_acquire(late, 1); });
  AnswerJoin("/b", 1, 77);
  script_->Flush();
  script_->DropConnection();
  ASSERT_EQ(result.wait_for(std::chrono::milliseconds(2000)), std::future_status::ready);
  EXPECT_EQ(result.get(), ZKL_ECONNECTION);  // a try waits for no reconnect
  EXPECT_EQ(zkl_lock_is_held(late), 0);
}

// ---------------------------------------------------------------------------
// The create and its pipelined children read
// ---------------------------------------------------------------------------

TEST_F(Scripted, TryAcquireCutByAConnectionLossFailsThenCleansUpItsNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  auto result = std::async(std::launch::async, [l] { return zkl_lock_try_acquire(l, 1); });
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  script_->Next(Kind::kGetChildren, "/f");
  script_->DropConnection();
  EXPECT_EQ(Returned(result), ZKL_ECONNECTION);  // a try does not wait for the reconnect
  script_->Connect();
  // After it: the create did land; found by its uuid, confirmed, deleted.
  std::string own = NameOf(Sequential(*create, 5));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  RequestPtr owner = script_->Next(Kind::kGetData, "/f/" + own);
  script_->Reply(owner, Data("", 100, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Ok());
  ExpectNoEvent();
}

TEST_F(Scripted, CancelAfterACutCreateThatNeverLandedLeavesNothing) {
  Start();
  zkl_lock *l = NewLock("/f");
  CutCreate(l, "/f", /*reconnect=*/false);
  Cancel(l);
  script_->Connect();
  // Its node may still have landed: looked for once, not found, done.
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 1)}));
  ExpectNothingSent();
}

TEST_F(Scripted, AcquireAgainBeforeACutCreateIsResolvedAdoptsItsNode) {
  // The cut create of a cancelled acquire may have landed: the next
  // acquire looks for it before creating, and takes it over.
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = CutCreate(l, "/f", /*reconnect=*/false);
  Cancel(l);
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  script_->Connect();
  std::string own = NameOf(Sequential(*create, 5));
  // Each look finds it; each is confirmed by an ownership read.
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Data("", 105, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  ExpectAcquired(105u);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate)) << "one node, not two";
}

TEST_F(Scripted, CreateAnsweredNoNodeAfterACancelCreatesNoParent) {
  Start();
  zkl_lock *l = NewLock("/f");
  auto [create, children] = StartJoin(l, "/f");
  Cancel(l);
  script_->Reply(create, Error(ZkRc::kNoNode));
  script_->Reply(children, Error(ZkRc::kNoNode));
  ExpectNothingSent();
}

TEST_F(Scripted, OwnNodeMissingFromTheChildrenIsCreatedAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  auto [create, children] = StartJoin(l, "/f");
  script_->Reply(create, Created(Sequential(*create, 5), 100, static_cast<int64_t>(sid())));
  script_->Reply(children, Children({OtherNode("lock-", 1)}));  // ours is not there
  RequestPtr again = script_->Next(Kind::kCreate, "/f/");
  EXPECT_NE(again->path, create->path);  // a node of its own: a new uuid
  AnswerJoin(again, 6, 106);
  ExpectAcquired(106u);
}

TEST_F(Scripted, LockNodeGoneUnderAWaiterCreatesAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->Reply(watch, Data("", 90, kOtherSession));
  script_->FireWatch(watch, WatchType::kDataChanged);
  // The lock node is gone (an administrator, a container cleanup): ours too.
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Error(ZkRc::kNoNode));
  AnswerJoin("/f", 1, 101);
  ExpectAcquired(101u);
}

TEST_F(Scripted, CreateGivesUpWhenTheParentKeepsVanishing) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  // Each "no node" creates the parents and the node again, 20 times over.
  for (int attempt = 0; attempt <= 20; ++attempt) {
    script_->Reply(script_->Next(Kind::kCreate, "/f/"), Error(ZkRc::kNoNode));
  }
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_EZOOKEEPER);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate, "/f/"));
}

TEST_F(Scripted, CoalescedMultiAnsweredAfterACancelOnlyReleases) {
  Start(ZKL_IO_HOST);
  zkl_lock *l = NewLock("/f");
  RequestPtr multi = ReleaseAndAcquireAgain(l).second;
  Cancel(l);
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_RELEASED);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate)) << script_->DescribePending();
}

// ---------------------------------------------------------------------------
// The watch on the node ahead, and the ownership read
// ---------------------------------------------------------------------------

TEST_F(Scripted, PredecessorGoneWithAnotherStillAheadLooksAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 3), OtherNode("lock-", 4)});
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4)), Error(ZkRc::kNoNode));
  ExpectNoEvent();  // lock 3 may still hold: not granted on that alone
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 3), own}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 3)), Error(ZkRc::kNoNode));
  ExpectAcquired(100u);
}

TEST_F(Scripted, WatchReadCutByAConnectionLossIsSetAgain) {
  // The C client restores only the watches of answered reads.
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->DropConnection();
  script_->Connect();
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 4), own}));
  RequestPtr again = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  EXPECT_TRUE(again->watch());
  script_->Reply(again, Error(ZkRc::kNoNode));
  ExpectAcquired(100u);
}

TEST_F(Scripted, OwnershipReadCutByAConnectionLossIsAskedAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = CutCreate(l, "/f");
  std::string own = NameOf(Sequential(*create, 3));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  script_->Next(Kind::kGetData, "/f/" + own);
  script_->DropConnection();
  script_->Connect();
  // Still unconfirmed: never granted on the name alone; asked again.
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Data("", 33, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  ExpectAcquired(33u);
}

// ---------------------------------------------------------------------------
// A holder's own node: the revocation watch
// ---------------------------------------------------------------------------

TEST_F(Scripted, RevocationWatchFindingTheNodeGoneIsALoss) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY);
  std::string own = HoldFair(l, "/f");
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
}

TEST_F(Scripted, RevocationWatchCutByAConnectionLossIsSetAgain) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY);
  std::string own = HoldFair(l, "/f");
  script_->Next(Kind::kGetData, "/f/" + own);
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  RequestPtr again = script_->Next(Kind::kGetData, "/f/" + own);
  EXPECT_TRUE(again->watch());
}

TEST_F(Scripted, RevocationNotifyReportsOnceAndKeepsTheHold) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY);
  std::string own = HoldFair(l, "/f");
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + own);
  script_->Reply(watch, Data("__REVOKE__", 100, static_cast<int64_t>(sid()), 1));
  ExpectEvent(ZKL_EVENT_REVOKE_REQUESTED);
  EXPECT_EQ(zkl_lock_is_held(l), 1);  // the holder decides
  script_->FireWatch(watch, WatchType::kDataChanged);
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Data("__REVOKE__", 100, static_cast<int64_t>(sid()), 2));
  ExpectNoEvent();  // asked again: told once per hold
  EXPECT_FALSE(script_->HasPending(Kind::kDelete));
}

// ---------------------------------------------------------------------------
// Deletes
// ---------------------------------------------------------------------------

TEST_F(Scripted, DeleteRefusedEndsTheReleaseWithItsError) {
  Start();
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  int release = zkl_lock_release_async(l, 1);
  ASSERT_GT(release, 0);
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Error(ZkRc::kNoAuth));
  ExpectAnswer(ZKL_EVENT_RELEASED, ZKL_EAUTH, release);
}

TEST_F(Scripted, FixedNodeDeleteCheckCutByAConnectionLossChecksAgain) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  CutFixedRelease(l);
  script_->DropConnection();  // the check's answer is lost too
  script_->Connect();
  script_->Reply(script_->Next(Kind::kExists, "/n/lock"), Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_RELEASED);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kDelete));
}

// ---------------------------------------------------------------------------
// Non-fair lock: the fixed node's read
// ---------------------------------------------------------------------------

TEST_F(Scripted, NonfairZeroTimeoutOnATakenNodeTimesOut) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  script_->Reply(FindFixedNodeTaken(l, "/n", 0), Data(kOther, 70, kOtherSession));
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT);
}

TEST_F(Scripted, NonfairHolderReadCutByAConnectionLossRacesAgain) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  FindFixedNodeTaken(l, "/n");
  script_->DropConnection();
  script_->Connect();
  // Nothing of ours exists: race for the node again.
  script_->Reply(script_->Next(Kind::kCreate, "/n/lock"), Created("/n/lock", 74, static_cast<int64_t>(sid())));
  ExpectAcquired(74u);
}

TEST_F(Scripted, NonfairHolderDataChangeReadsTheNodeAgain) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  RequestPtr holder = FindFixedNodeTaken(l, "/n");
  script_->Reply(holder, Data(kOther, 70, kOtherSession));
  script_->FireWatch(holder, WatchType::kDataChanged);
  RequestPtr again = script_->Next(Kind::kGetData, "/n/lock");
  EXPECT_TRUE(again->watch());
  script_->Reply(again, Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kCreate, "/n/lock"), Created("/n/lock", 75, static_cast<int64_t>(sid())));
  ExpectAcquired(75u);
}

TEST_F(Scripted, NonfairNodeExistsAfterACancelReadsNothing) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  RequestPtr create = script_->Next(Kind::kCreate, "/n/lock");
  Cancel(l);
  script_->Reply(create, Error(ZkRc::kNodeExists));
  ExpectNothingSent();
}

TEST_F(Scripted, NonfairCutCreateThenCancelDeletesTheNodeIfItIsOurs) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  RequestPtr create = CutFixedCreate(l, "/n");
  Cancel(l);
  script_->Connect();
  RequestPtr read = script_->Next(Kind::kGetData, "/n/lock");
  EXPECT_FALSE(read->watch());  // nothing to wait for any more
  script_->Reply(read, Data(create->data, 76, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kDelete, "/n/lock"), Ok());
  ExpectNoEvent();
}

TEST_F(Scripted, NonfairCutCreateThenCancelSparesAnotherHoldersNode) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  CutFixedCreate(l, "/n");
  Cancel(l);
  script_->Connect();
  script_->Reply(script_->Next(Kind::kGetData, "/n/lock"), Data(kOther + "them", 70, kOtherSession));
  ExpectNothingSent();
}

// ---------------------------------------------------------------------------
// Semaphore: leases per acquisition, the lease count, the children watch
// ---------------------------------------------------------------------------

TEST_F(Scripted, SemaphoreSeveralLeasesPerAcquisitionCountInFull) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 3, ZKL_REVOKE_IGNORE, 0, /*leases=*/2);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  // An unreadable lease count is no verdict: the line decides.
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Error(ZkRc::kNoAuth));
  RequestPtr create = script_->Next(Kind::kCreate, "/s/");
  EXPECT_NE(create->path.find("-leases2-"), std::string::npos) << create->path;
  // 2 leases ahead + 2 of ours > 3: first in line, watching the children.
  std::string own = AnswerJoin(create, 3, 610, {OtherNode("leases2-", 1)});
  RequestPtr watch = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_TRUE(watch->watch());
  script_->Reply(watch, Children({OtherNode("leases2-", 1), own}));
  ExpectNoEvent();
  // The holder ahead leaves: the children watch wakes the first in line.
  script_->FireWatch("/s", WatchType::kChildrenChanged);
  script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children({own}));
  ExpectAcquired(610u);
  EXPECT_FALSE(script_->HasPending(Kind::kSetData));  // nobody behind to hand off to
}

TEST_F(Scripted, SemaphoreChildrenWatchCutByAConnectionLossIsSetAgain) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("1", 1, 0));
  std::string own = AnswerJoin("/s", 2, 620, {OtherNode("lease-", 1)});
  script_->Next(Kind::kGetChildren, "/s");  // the watched read, cut:
  script_->DropConnection();
  script_->Connect();
  // Looked at again (a plain read: it may hold by now); still first in
  // line, so it reads once more with the watch.
  RequestPtr again = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_FALSE(again->watch());
  script_->Reply(again, Children({OtherNode("lease-", 1), own}));
  RequestPtr watched = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_TRUE(watched->watch());
  ExpectNoEvent();
  script_->Reply(watched, Children({own}));  // the holder left meanwhile
  ExpectAcquired(620u);
}

}  // namespace
}  // namespace zkl::scripted
