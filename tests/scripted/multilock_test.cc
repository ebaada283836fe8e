// Multi-locks on a scripted session: members in path order, all or none,
// and what one member's trouble does to the whole.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

class ScriptedMultilock : public Scripted {
 protected:
  zkl_multilock *NewMultilock(std::vector<zkl_lock *> members) {
    zkl_multilock_options o;
    zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION);
    zkl_multilock *m = nullptr;
    EXPECT_EQ(zkl_multilock_new(c_, members.data(), members.size(), &o, &m), ZKL_OK);
    return m;
  }

  // A multi-lock of /m/a (revocable: it watches its node) and /m/b; owner
  // 1's async acquire has taken /m/a. Returns a's watch; b is next.
  RequestPtr TakeRevocableFirst(zkl_multilock **m) {
    *m = NewMultilock({NewLock("/m/a", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY), NewLock("/m/b")});
    EXPECT_GT(zkl_multilock_acquire_async(*m, 1, -1), 0);
    std::string a_node = AnswerJoin("/m/a", 1, 11);
    return script_->Next(Kind::kGetData, "/m/a/" + a_node);
  }

  // Owner 1 takes `m` (members /m/a and /m/b, fair): returns their nodes.
  std::pair<std::string, std::string> HoldBoth(zkl_multilock *m) {
    EXPECT_GT(zkl_multilock_acquire_async(m, 1, -1), 0);
    std::string a = AnswerJoin("/m/a", 1, 11);
    std::string b = AnswerJoin("/m/b", 1, 12);
    ExpectAcquired(11u);  // the first member's token
    return {a, b};
  }
};

TEST_F(ScriptedMultilock, TakesMembersInPathOrderAllOrNone) {
  Start();
  zkl_lock *b = NewLock("/m/b");
  zkl_lock *a = NewLock("/m/a");
  zkl_multilock *m = NewMultilock({b, a});  // named out of order
  ASSERT_GT(zkl_multilock_acquire_async(m, 1, -1), 0);
  // One after another, by path: b is not asked for before a is held.
  AnswerJoin("/m/a", 1, 11);
  RequestPtr second = script_->Next(Kind::kCreate, "/m/b/");
  EXPECT_EQ(zkl_multilock_is_held(m), 0);
  AnswerJoin(second, 1, 12);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(zkl_multilock_is_held(m), 1);
  uint64_t token = 0;
  EXPECT_EQ(zkl_multilock_fencing_token(m, "/m/b", &token), ZKL_OK);
  EXPECT_EQ(token, 12u);
}

TEST_F(ScriptedMultilock, OneMemberFailingReleasesTheOthers) {
  Start();
  zkl_lock *a = NewLock("/m/a");
  zkl_lock *b = NewLock("/m/b");
  zkl_multilock *m = NewMultilock({a, b});
  ASSERT_GT(zkl_multilock_acquire_async(m, 1, -1), 0);
  std::string a_node = AnswerJoin("/m/a", 1, 11);
  script_->Reply(script_->Next(Kind::kCreate, "/m/b/"), Error(ZkRc::kNoAuth));
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_EAUTH);
  script_->Next(Kind::kDelete, "/m/a/" + a_node);  // none kept
  EXPECT_EQ(zkl_multilock_is_held(m), 0);
}

TEST_F(ScriptedMultilock, LossOfOneMemberIsTheLossOfTheWhole) {
  Start();
  zkl_multilock *m = nullptr;
  RequestPtr a_watch = TakeRevocableFirst(&m);
  std::string b_node = AnswerJoin("/m/b", 1, 12);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
  script_->FireWatch(a_watch, WatchType::kDeleted);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);
  script_->Next(Kind::kDelete, "/m/b/" + b_node);
}

TEST_F(ScriptedMultilock, MembersMustBeIdleDistinctAndNotReentrant) {
  Start();
  zkl_lock *a = NewLock("/m/a");
  zkl_lock *same = NewLock("/m/a");
  zkl_lock *reentrant = NewLock("/m/r", ZKL_LOCK_REENTRANT);
  zkl_multilock_options o;
  zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION);
  zkl_multilock *m = nullptr;
  std::vector<zkl_lock *> twice = {a, same};
  EXPECT_EQ(zkl_multilock_new(c_, twice.data(), twice.size(), &o, &m), ZKL_EINVAL);
  std::vector<zkl_lock *> with_reentrant = {a, reentrant};
  EXPECT_EQ(zkl_multilock_new(c_, with_reentrant.data(), with_reentrant.size(), &o, &m), ZKL_EINVAL);
  ASSERT_GT(zkl_lock_acquire_async(same, 1, -1), 0);  // busy acquiring
  std::vector<zkl_lock *> busy = {same};
  EXPECT_EQ(zkl_multilock_new(c_, busy.data(), busy.size(), &o, &m), ZKL_EBUSY);
  zkl_multilock *group = NewMultilock({a});
  std::vector<zkl_lock *> taken = {a};
  EXPECT_EQ(zkl_multilock_new(c_, taken.data(), taken.size(), &o, &m), ZKL_EBUSY);  // in a group
  EXPECT_EQ(zkl_lock_acquire_async(a, 1, -1), ZKL_EBUSY);  // the group drives it now
  EXPECT_EQ(zkl_multilock_count(group), 1);
  zkl_lock *member = nullptr;
  EXPECT_EQ(zkl_multilock_member(group, 0, &member), ZKL_OK);
  EXPECT_EQ(member, a);
}

TEST_F(ScriptedMultilock, BlockingAcquireReturnsWhenAllAreHeld) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  auto result = std::async(std::launch::async, [m] { return zkl_multilock_acquire(m, 1, 5000); });
  AnswerJoin("/m/a", 1, 11);
  AnswerJoin("/m/b", 1, 12);
  EXPECT_EQ(Returned(result), ZKL_OK);
  EXPECT_EQ(zkl_multilock_is_held(m), 1);
  int64_t ms = 0;
  EXPECT_EQ(zkl_multilock_valid_for(m, &ms), ZKL_OK);
  EXPECT_GT(ms, 0);
  uint64_t token = 0;
  EXPECT_EQ(zkl_multilock_fencing_token(m, "/m/c", &token), ZKL_ENOTFOUND);
  ExpectNoEvent();  // a blocking call queues none
}

TEST_F(ScriptedMultilock, TryMeetingATakenMemberSaysAgainAndReleasesTheRest) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  auto result = std::async(std::launch::async, [m] { return zkl_multilock_try_acquire(m, 1); });
  std::string a = AnswerJoin("/m/a", 1, 11);
  std::string b = AnswerJoin("/m/b", 2, 12, {OtherNode("lock-", 1)});
  EXPECT_EQ(Returned(result), ZKL_EAGAIN);
  script_->Next(Kind::kDelete, "/m/a/" + a);
  script_->Next(Kind::kDelete, "/m/b/" + b);
  EXPECT_EQ(zkl_multilock_is_held(m), 0);
}

TEST_F(ScriptedMultilock, OneDeadlineForAllMembers) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  ASSERT_GT(zkl_multilock_acquire_async(m, 1, 50), 0);
  std::string a = AnswerJoin("/m/a", 1, 11);
  std::string b = AnswerJoin("/m/b", 2, 12, {OtherNode("lock-", 1)});
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT);
  script_->Next(Kind::kDelete, "/m/a/" + a);
  script_->Next(Kind::kDelete, "/m/b/" + b);
}

TEST_F(ScriptedMultilock, CancelReleasesWhatWasTaken) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  EXPECT_EQ(zkl_multilock_cancel(m), ZKL_ENOTHELD);
  int id = zkl_multilock_acquire_async(m, 1, -1);
  ASSERT_GT(id, 0);
  EXPECT_EQ(zkl_multilock_acquire_async(m, 1, -1), ZKL_EBUSY);
  std::string a = AnswerJoin("/m/a", 1, 11);
  RequestPtr b_create = script_->Next(Kind::kCreate, "/m/b/");
  ASSERT_EQ(zkl_multilock_cancel(m), ZKL_OK);
  ExpectAnswer(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ECANCELED, id);
  script_->Next(Kind::kDelete, "/m/a/" + a);
  // The member still being created goes once its create answers.
  AnswerJoin(b_create, 1, 12);
  script_->Next(Kind::kDelete, "/m/b/");
  ExpectNoEvent();
}

TEST_F(ScriptedMultilock, AsyncReleaseIsReportedOnceEveryMemberIsGone) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  auto [a, b] = HoldBoth(m);
  EXPECT_EQ(zkl_multilock_acquire_async(m, 1, -1), ZKL_EDEADLK);
  EXPECT_EQ(zkl_multilock_acquire_async(m, 2, -1), ZKL_EBUSY);
  EXPECT_EQ(zkl_multilock_release_async(m, 2), ZKL_ENOTOWNER);
  int id = zkl_multilock_release_async(m, 1);
  ASSERT_GT(id, 0);
  // Both deletes at once, none held back for a re-acquire.
  RequestPtr del_a = script_->Next(Kind::kDelete, "/m/a/" + a);
  RequestPtr del_b = script_->Next(Kind::kDelete, "/m/b/" + b);
  script_->Reply(del_a, Ok());
  ExpectNoEvent();
  script_->Reply(del_b, Error(ZkRc::kNoNode));
  ExpectAnswer(ZKL_EVENT_RELEASED, 0, id);
  EXPECT_EQ(zkl_multilock_release_async(m, 1), ZKL_ENOTHELD);
}

TEST_F(ScriptedMultilock, BlockingReleaseWaitsForEveryDelete) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  auto [a, b] = HoldBoth(m);
  auto result = std::async(std::launch::async, [m] { return zkl_multilock_release(m, 1); });
  script_->Reply(script_->Next(Kind::kDelete, "/m/a/" + a), Ok());
  RequestPtr del_b = script_->Next(Kind::kDelete, "/m/b/" + b);
  script_->Flush();
  EXPECT_NE(result.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  script_->Reply(del_b, Ok());
  EXPECT_EQ(Returned(result), ZKL_OK);
  ExpectNoEvent();
}

TEST_F(ScriptedMultilock, SuspendedAndRestoredOnceForTheWhole) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  HoldBoth(m);
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  EXPECT_EQ(zkl_multilock_is_held(m), 0);
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  ExpectNoEvent();  // one each, not one per member
  EXPECT_EQ(zkl_multilock_is_held(m), 1);
}

TEST_F(ScriptedMultilock, RevocationOfAMemberIsAskedOfTheWhole) {
  Start();
  zkl_multilock *m = nullptr;
  RequestPtr a_watch = TakeRevocableFirst(&m);
  AnswerJoin("/m/b", 1, 12);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
  script_->Reply(a_watch, Data("__REVOKE__", 11, static_cast<int64_t>(sid()), 1));
  ExpectEvent(ZKL_EVENT_REVOKE_REQUESTED);
  EXPECT_EQ(zkl_multilock_is_held(m), 1);  // the holder decides
}

TEST_F(ScriptedMultilock, MemberLostWhileTheNextIsAcquiredFailsTheWhole) {
  Start();
  zkl_multilock *m = nullptr;
  RequestPtr a_watch = TakeRevocableFirst(&m);
  std::string b_node = AnswerJoin("/m/b", 2, 12, {OtherNode("lock-", 1)});  // b waits
  script_->FireWatch(a_watch, WatchType::kDeleted);
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ELOST);
  script_->Next(Kind::kDelete, "/m/b/" + b_node);
  EXPECT_EQ(zkl_multilock_is_held(m), 0);
}

TEST_F(ScriptedMultilock, ReleaseAfterALossSaysLostOnce) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  HoldBoth(m);
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/m/a/data", "x", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_multilock_write_async(m, 1, ops), ZKL_ELOST);
  zkl_ops_free(ops);
  EXPECT_EQ(zkl_multilock_release(m, 1), ZKL_ELOST);
  EXPECT_EQ(zkl_multilock_release(m, 1), ZKL_ENOTHELD);
}

TEST_F(ScriptedMultilock, WriteIsGuardedByEveryMember) {
  Start();
  zkl_multilock *m = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  EXPECT_EQ(zkl_multilock_write_async(m, 1, ops), ZKL_EINVAL);  // nothing to write
  ASSERT_EQ(zkl_ops_set(ops, "/m/b/data", "x", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_multilock_write_async(m, 1, ops), ZKL_ENOTHELD);
  auto [a, b] = HoldBoth(m);
  EXPECT_EQ(zkl_multilock_write_async(m, 2, ops), ZKL_ENOTOWNER);
  zkl_ops *outside = nullptr;
  ASSERT_EQ(zkl_ops_new(&outside), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(outside, "/elsewhere", "x", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_multilock_write_async(m, 1, outside), ZKL_EBADPATH);
  zkl_ops_free(outside);
  auto result = std::async(std::launch::async, [m, ops] { return zkl_multilock_write(m, 1, ops); });
  RequestPtr multi = script_->Next(Kind::kMulti, "/m/a/" + a);
  ASSERT_EQ(multi->ops.size(), 3u);
  EXPECT_EQ(multi->ops[0].type, ZkOp::kCheck);
  EXPECT_EQ(multi->ops[1].type, ZkOp::kCheck);
  EXPECT_EQ(multi->ops[1].path, "/m/b/" + b);
  EXPECT_EQ(multi->ops[2].path, "/m/b/data");
  script_->Reply(multi, MultiOk(*multi, 0, 0));
  EXPECT_EQ(Returned(result), ZKL_OK);
  int32_t version = -1;
  EXPECT_EQ(zkl_ops_version(ops, 0, &version), ZKL_OK);
  EXPECT_EQ(version, 1);
  zkl_ops_free(ops);
}

TEST_F(ScriptedMultilock, DestroyReleasesAHoldAndCancelsAnAcquire) {
  Start();
  zkl_multilock *held = NewMultilock({NewLock("/m/a"), NewLock("/m/b")});
  auto [a, b] = HoldBoth(held);
  ASSERT_EQ(zkl_multilock_destroy(held), ZKL_OK);
  script_->Reply(script_->Next(Kind::kDelete, "/m/a/" + a), Ok());
  script_->Reply(script_->Next(Kind::kDelete, "/m/b/" + b), Ok());
  zkl_multilock *acquiring = NewMultilock({NewLock("/m/c")});
  ASSERT_GT(zkl_multilock_acquire_async(acquiring, 1, -1), 0);
  std::string c = AnswerJoin("/m/c", 2, 13, {OtherNode("lock-", 1)});
  ASSERT_EQ(zkl_multilock_destroy(acquiring), ZKL_OK);
  script_->Next(Kind::kDelete, "/m/c/" + c);
  ExpectNoEvent();  // destroyed handles report nothing
  EXPECT_EQ(zkl_multilock_destroy(acquiring), ZKL_EBADHANDLE);
}

}  // namespace
}  // namespace zkl::scripted
