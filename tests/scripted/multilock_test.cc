// Multi-locks on a scripted session: members in path order, all or none,
// and what one member's trouble does to the whole.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
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
  zkl_lock *a = NewLock("/m/a", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY);
  zkl_lock *b = NewLock("/m/b");
  zkl_multilock *m = NewMultilock({a, b});
  ASSERT_GT(zkl_multilock_acquire_async(m, 1, -1), 0);
  std::string a_node = AnswerJoin("/m/a", 1, 11);
  RequestPtr a_watch = script_->Next(Kind::kGetData, "/m/a/" + a_node);
  std::string b_node = AnswerJoin("/m/b", 1, 12);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
  script_->FireWatch(a_watch, WatchType::kDeleted);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);
  script_->Next(Kind::kDelete, "/m/b/" + b_node);
}

}  // namespace
}  // namespace zkl::scripted
