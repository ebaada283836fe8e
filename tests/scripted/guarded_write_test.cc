// Guarded writes on a scripted session: the multi behind the check of the
// hold, and every way its answer can come back.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

class ScriptedWrite : public Scripted {
 protected:
  // Owner 1's write of "/f/data" behind the fair lock `l`, asynchronously.
  int WriteAsync(zkl_lock *l) {
    zkl_ops *ops = nullptr;
    EXPECT_EQ(zkl_ops_new(&ops), ZKL_OK);
    EXPECT_EQ(zkl_ops_set(ops, "/f/data", "v", 1, -1), ZKL_OK);
    int id = zkl_lock_write_async(l, 1, ops);
    zkl_ops_free(ops);
    return id;
  }
};

TEST_F(ScriptedWrite, WriteBehindTheGuardIsApplied) {
  Start();
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  int id = WriteAsync(l);
  ASSERT_GT(id, 0);
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/" + own);
  ASSERT_EQ(multi->ops.size(), 2u);
  EXPECT_EQ(multi->ops[0].type, ZkOp::kCheck);  // the guard: our node exists
  EXPECT_EQ(multi->ops[1].path, "/f/data");
  script_->Reply(multi, MultiOk(*multi, 0, 0));
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_WRITTEN);
  EXPECT_EQ(e.error, 0);
  EXPECT_EQ(e.request_id, static_cast<uint64_t>(id));
  EXPECT_EQ(e.token, 100u);
}

TEST_F(ScriptedWrite, GuardRefusedMeansTheHoldIsLost) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  ASSERT_GT(WriteAsync(l), 0);
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_WRITTEN, ZKL_ELOST);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);  // after the write's answer
  EXPECT_EQ(zkl_lock_is_held(l), 0);
}

TEST_F(ScriptedWrite, FailedOperationIsNamedAndTheHoldStays) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/f/data", "v", 1, 3), ZKL_OK);
  auto result = std::async(std::launch::async, [l, ops] { return zkl_lock_write(l, 1, ops); });
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  script_->Reply(multi, MultiFailed(*multi, 1, ZkRc::kBadVersion));
  ASSERT_EQ(result.wait_for(std::chrono::milliseconds(kWaitMs)), std::future_status::ready);
  EXPECT_EQ(result.get(), ZKL_EBADVERSION);
  EXPECT_EQ(zkl_ops_failed(ops), 0);
  zkl_ops_free(ops);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
}

TEST_F(ScriptedWrite, ConnectionLossInFlightIsInDoubt) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  ASSERT_GT(WriteAsync(l), 0);
  script_->Next(Kind::kMulti, "/f/");
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  ExpectEvent(ZKL_EVENT_WRITTEN, ZKL_EINDOUBT);
}

TEST_F(ScriptedWrite, SessionExpiryBeforeTheAnswerIsSessionError) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  ASSERT_GT(WriteAsync(l), 0);
  script_->Next(Kind::kMulti, "/f/");
  script_->Expire();
  std::vector<int> seen;
  for (int i = 0; i < 2; ++i) seen.push_back(NextEvent().type);
  EXPECT_NE(std::find(seen.begin(), seen.end(), ZKL_EVENT_LOST), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), ZKL_EVENT_WRITTEN), seen.end());
}

}  // namespace
}  // namespace zkl::scripted
