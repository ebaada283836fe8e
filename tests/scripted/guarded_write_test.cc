// Guarded writes on a scripted session: the multi behind the check of the
// hold, and every way its answer can come back.
#include <algorithm>
#include <chrono>
#include <cstring>
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

  // A client whose fair lock on /f owner 1 holds (token 100).
  zkl_lock *StartHolding() {
    Start();
    zkl_lock *l = NewLock("/f");
    HoldFair(l, "/f");
    return l;
  }

  // WriteAsync, and the multi it sent.
  RequestPtr SendWrite(zkl_lock *l) {
    EXPECT_GT(WriteAsync(l), 0);
    return script_->Next(Kind::kMulti, "/f/");
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
  zkl_lock *l = StartHolding();
  RequestPtr multi = SendWrite(l);
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_WRITTEN, ZKL_ELOST);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);  // after the write's answer
  EXPECT_EQ(zkl_lock_is_held(l), 0);
}

TEST_F(ScriptedWrite, FailedOperationIsNamedAndTheHoldStays) {
  zkl_lock *l = StartHolding();
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/f/data", "v", 1, 3), ZKL_OK);
  auto result = std::async(std::launch::async, [l, ops] { return zkl_lock_write(l, 1, ops); });
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  script_->Reply(multi, MultiFailed(*multi, 1, ZkRc::kBadVersion));
  EXPECT_EQ(Returned(result), ZKL_EBADVERSION);
  EXPECT_EQ(zkl_ops_failed(ops), 0);
  zkl_ops_free(ops);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
}

TEST_F(ScriptedWrite, ConnectionLossInFlightIsInDoubt) {
  zkl_lock *l = StartHolding();
  SendWrite(l);
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  ExpectEvent(ZKL_EVENT_WRITTEN, ZKL_EINDOUBT);
}

TEST_F(ScriptedWrite, SessionExpiryBeforeTheAnswerIsSessionError) {
  zkl_lock *l = StartHolding();
  SendWrite(l);
  script_->Expire();
  std::vector<int> seen;
  for (int i = 0; i < 2; ++i) seen.push_back(NextEvent().type);
  EXPECT_NE(std::find(seen.begin(), seen.end(), ZKL_EVENT_LOST), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), ZKL_EVENT_WRITTEN), seen.end());
}

TEST_F(ScriptedWrite, CallsThatSendNothing) {
  Start();
  zkl_lock *l = NewLock("/f");
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  EXPECT_EQ(zkl_lock_write_async(l, 1, ops), ZKL_EINVAL);  // no operation
  ASSERT_EQ(zkl_ops_set(ops, "/f/data", "v", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_lock_write_async(l, 1, ops), ZKL_ENOTHELD);
  std::string own = HoldFair(l, "/f");
  EXPECT_EQ(zkl_lock_write_async(l, 2, ops), ZKL_ENOTOWNER);
  // Only the lock's tree, never a participant's node, never a sequential
  // create right below the lock path (it would join the line).
  zkl_ops *bad = nullptr;
  ASSERT_EQ(zkl_ops_new(&bad), ZKL_OK);
  ASSERT_EQ(zkl_ops_create(bad, "/f/job-", "", 0, ZKL_CREATE_SEQUENTIAL), ZKL_OK);
  EXPECT_EQ(zkl_lock_write_async(l, 1, bad), ZKL_EBADPATH);
  zkl_ops_free(bad);
  ASSERT_EQ(zkl_ops_new(&bad), ZKL_OK);
  ASSERT_EQ(zkl_ops_delete(bad, ("/f/" + own).c_str(), -1), ZKL_OK);
  EXPECT_EQ(zkl_lock_write_async(l, 1, bad), ZKL_EBADPATH);
  zkl_ops_free(bad);
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  EXPECT_EQ(zkl_lock_write_async(l, 1, ops), ZKL_ECLOSED);
  zkl_ops_free(ops);
  EXPECT_FALSE(script_->HasPending(Kind::kMulti));  // each refused before sending
}

TEST_F(ScriptedWrite, ResultsOfACreateAndASet) {
  zkl_lock *l = StartHolding();
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_create(ops, "/f/jobs/item-", "j", 1, ZKL_CREATE_SEQUENTIAL), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/f/state", "s", 1, 4), ZKL_OK);
  auto result = std::async(std::launch::async, [l, ops] { return zkl_lock_write(l, 1, ops); });
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  script_->Reply(multi, MultiOk(*multi, 0, 0, 7));
  EXPECT_EQ(Returned(result), ZKL_OK);
  char path[64];
  EXPECT_EQ(zkl_ops_path(ops, 0, path, sizeof path), static_cast<int>(std::strlen("/f/jobs/item-0000000007")));
  EXPECT_STREQ(path, "/f/jobs/item-0000000007");
  int32_t version = -1;
  EXPECT_EQ(zkl_ops_version(ops, 0, &version), ZKL_OK);
  EXPECT_EQ(version, 0);
  EXPECT_EQ(zkl_ops_version(ops, 1, &version), ZKL_OK);
  EXPECT_EQ(version, 5);
  EXPECT_EQ(zkl_ops_path(ops, 1, path, sizeof path), ZKL_ENOTFOUND);  // a set makes no path
  EXPECT_EQ(zkl_ops_failed(ops), -1);
  zkl_ops_free(ops);
}

TEST_F(ScriptedWrite, EachFailedOperationIsNamedWithItsCode) {
  struct Case {
    ZkRc rc;
    int error;
  };
  const Case cases[] = {{ZkRc::kNodeExists, ZKL_EEXISTS}, {ZkRc::kNotEmpty, ZKL_ENOTEMPTY},
                        {ZkRc::kBadVersion, ZKL_EBADVERSION}, {ZkRc::kNoNode, ZKL_ENOTFOUND},
                        {ZkRc::kNoAuth, ZKL_EAUTH}};
  zkl_lock *l = StartHolding();
  for (const Case &c : cases) {
    zkl_ops *ops = nullptr;
    ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
    ASSERT_EQ(zkl_ops_create(ops, "/f/a", "", 0, ZKL_CREATE_PERSISTENT), ZKL_OK);
    ASSERT_EQ(zkl_ops_delete(ops, "/f/b", -1), ZKL_OK);
    auto result = std::async(std::launch::async, [l, ops] { return zkl_lock_write(l, 1, ops); });
    RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
    script_->Reply(multi, MultiFailed(*multi, 2, c.rc));  // the guard, then op 0 passed
    EXPECT_EQ(Returned(result), c.error);
    EXPECT_EQ(zkl_ops_failed(ops), 1);
    zkl_ops_free(ops);
  }
  EXPECT_EQ(zkl_lock_is_held(l), 1);  // an operation's failure is no loss
}

TEST_F(ScriptedWrite, AnswersWithoutAFailedOperation) {
  // Codes of the whole request: what it means for the write, and the hold.
  struct Case {
    ZkRc rc;
    int error;
  };
  const Case cases[] = {{ZkRc::kOperationTimeout, ZKL_EINDOUBT}, {ZkRc::kSessionExpired, ZKL_ESESSION},
                        {ZkRc::kInvalidState, ZKL_ESESSION},     {ZkRc::kSessionMoved, ZKL_ECONNECTION},
                        {ZkRc::kClosing, ZKL_ECLOSED},           {ZkRc::kOther, ZKL_EZOOKEEPER}};
  zkl_lock *l = StartHolding();
  for (const Case &c : cases) {
    int id = WriteAsync(l);
    ASSERT_GT(id, 0);
    script_->Reply(script_->Next(Kind::kMulti, "/f/"), Error(c.rc));
    Event e = NextEvent();
    EXPECT_EQ(e.type, ZKL_EVENT_WRITTEN);
    EXPECT_EQ(e.error, c.error) << "rc " << static_cast<int>(c.rc);
    EXPECT_EQ(e.request_id, static_cast<uint64_t>(id));
  }
}

TEST_F(ScriptedWrite, GuardRefusedForAnotherReasonKeepsTheHold) {
  zkl_lock *l = StartHolding();
  RequestPtr multi = SendWrite(l);
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoAuth));
  ExpectEvent(ZKL_EVENT_WRITTEN, ZKL_EAUTH);
  ExpectNoEvent();  // not "the node is gone": no loss
  EXPECT_EQ(zkl_lock_is_held(l), 1);
}

TEST_F(ScriptedWrite, ClientClosedWithTheWriteInFlight) {
  zkl_lock *l = StartHolding();
  int id = WriteAsync(l);
  ASSERT_GT(id, 0);
  script_->Next(Kind::kMulti, "/f/");
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  std::vector<Event> seen = {NextEvent(), NextEvent()};
  auto written = std::find_if(seen.begin(), seen.end(), [](const Event &e) { return e.type == ZKL_EVENT_WRITTEN; });
  ASSERT_NE(written, seen.end());
  EXPECT_EQ(written->error, ZKL_ECLOSED);
  EXPECT_EQ(written->request_id, static_cast<uint64_t>(id));
  auto lost = std::find_if(seen.begin(), seen.end(), [](const Event &e) { return e.type == ZKL_EVENT_LOST; });
  ASSERT_NE(lost, seen.end());
  EXPECT_EQ(lost->error, ZKL_ECLOSED);  // a close ends a hold: a loss to it
}

TEST_F(ScriptedWrite, SuspendedHoldStillSendsAndTheQuorumDecides) {
  zkl_lock *l = StartHolding();
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  int id = WriteAsync(l);
  ASSERT_GT(id, 0);
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  script_->Reply(multi, MultiOk(*multi, 0, 0));
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_WRITTEN);
  EXPECT_EQ(e.error, 0);
}

}  // namespace
}  // namespace zkl::scripted
