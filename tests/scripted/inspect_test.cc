// Inspection, fence checks and revocation on a scripted session: the
// one-shot reads of who holds and who waits (each recipe's verdict per
// node), their errors, deadlines and session trouble, and the revocation
// marker written into the holders' nodes.
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

class ScriptedInspect : public Scripted {
 protected:
  static zkl_inspect_options Options(int lock_kind = ZKL_LOCK_FAIR, int election_kind = 0,
                                     int64_t timeout_ms = kWaitMs) {
    zkl_inspect_options o;
    zkl_inspect_options_init(&o, ZKL_INSPECT_OPTIONS_VERSION);
    o.lock_kind = lock_kind;
    o.election_kind = election_kind;
    o.timeout_ms = timeout_ms;
    return o;
  }

  // zkl_inspect on another thread (it waits for the reads).
  std::future<int> InspectAsync(std::string path, zkl_inspect_options o) {
    return std::async(std::launch::async, [this, path, o] { return zkl_inspect(c_, path.c_str(), &o, &found_); });
  }

  // Answers the children read of `path`, then each node's read with data
  // "<name's last digit>" and czxid 10 + its position, in the order sent.
  void AnswerReads(const std::string &path, const std::vector<std::string> &children,
                   const std::vector<std::string> &in_line) {
    script_->Reply(script_->Next(Kind::kGetChildren, path), Children(children));
    for (size_t i = 0; i < in_line.size(); ++i) {
      RequestPtr read = script_->Next(Kind::kGetData, path + "/" + in_line[i]);
      EXPECT_FALSE(read->watch());
      script_->Reply(read, Data("holder " + std::to_string(i), static_cast<int64_t>(10 + i), kOtherSession));
    }
  }

  // The participants found: name and holder flag, in queue order.
  std::vector<std::pair<std::string, int>> Found() const {
    std::vector<std::pair<std::string, int>> out;
    for (int i = 0; i < zkl_participants_count(found_); ++i) {
      const char *name = nullptr;
      EXPECT_EQ(zkl_participants_name(found_, static_cast<size_t>(i), &name), ZKL_OK);
      out.emplace_back(name, zkl_participants_is_holder(found_, static_cast<size_t>(i)));
    }
    return out;
  }

  void TearDown() override {
    zkl_participants_free(found_);
    Scripted::TearDown();
  }

  zkl_participants *found_ = nullptr;
};

using Line = std::vector<std::pair<std::string, int>>;

TEST_F(ScriptedInspect, FairLockLineInOrderWithItsHolder) {
  Start();
  auto result = InspectAsync("/f", Options());
  // By sequence, whatever the order listed; a node of no participant is left out.
  AnswerReads("/f", {OtherNode("lock-", 2), "config", OtherNode("lock-", 1)},
              {OtherNode("lock-", 1), OtherNode("lock-", 2)});
  ASSERT_EQ(Returned(result), ZKL_OK);
  EXPECT_EQ(Found(), (Line{{OtherNode("lock-", 1), 1}, {OtherNode("lock-", 2), 0}}));
  uint64_t token = 0, session = 0;
  EXPECT_EQ(zkl_participants_fencing_token(found_, 0, &token), ZKL_OK);
  EXPECT_EQ(token, 10u);
  EXPECT_EQ(zkl_participants_session_id(found_, 0, &session), ZKL_OK);
  EXPECT_EQ(session, static_cast<uint64_t>(kOtherSession));
  const char *data = nullptr;
  size_t len = 0;
  EXPECT_EQ(zkl_participants_data(found_, 1, &data, &len), ZKL_OK);
  EXPECT_EQ(std::string(data, len), "holder 1");
  EXPECT_EQ(zkl_participants_is_holder(found_, 2), ZKL_ERANGE);
}

TEST_F(ScriptedInspect, NodeGoneBetweenTheReadsIsLeftOut) {
  Start();
  auto result = InspectAsync("/f", Options());
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 1), OtherNode("lock-", 2)}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1)), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 2)), Data("", 12, kOtherSession));
  ASSERT_EQ(Returned(result), ZKL_OK);
  // The verdict was the line's at the children read: lock 2 still waited.
  EXPECT_EQ(Found(), (Line{{OtherNode("lock-", 2), 0}}));
}

TEST_F(ScriptedInspect, MissingPathIsAnEmptyLineARefusedReadAnError) {
  Start();
  auto empty = InspectAsync("/f", Options());
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Error(ZkRc::kNoNode));
  ASSERT_EQ(Returned(empty), ZKL_OK);
  EXPECT_EQ(zkl_participants_count(found_), 0);
  zkl_participants_free(found_);
  found_ = nullptr;
  auto refused = InspectAsync("/f", Options());
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Error(ZkRc::kNoAuth));
  EXPECT_EQ(Returned(refused), ZKL_EAUTH);
}

TEST_F(ScriptedInspect, ReadWriteLineJudgesEachNodeByItsOwnRule) {
  Start();
  auto result = InspectAsync("/rw", Options(ZKL_LOCK_READ));
  std::vector<std::string> line = {OtherNode("__READ__", 1), OtherNode("__WRIT__", 2), OtherNode("__READ__", 3)};
  AnswerReads("/rw", line, line);
  ASSERT_EQ(Returned(result), ZKL_OK);
  // The first reader holds; the writer waits for it; the reader behind the
  // writer waits for the writer.
  EXPECT_EQ(Found(), (Line{{line[0], 1}, {line[1], 0}, {line[2], 0}}));
}

TEST_F(ScriptedInspect, SemaphoreLineCountsLeasesByTheStoredCount) {
  Start();
  auto result = InspectAsync("/s", Options(ZKL_LOCK_SEMAPHORE));
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("2", 1, 0));  // the lease count, read first
  std::vector<std::string> line = {OtherNode("lease-", 1), OtherNode("leases2-", 2), OtherNode("lease-", 3)};
  AnswerReads("/s", line, line);
  ASSERT_EQ(Returned(result), ZKL_OK);
  // 1 lease held; the 2-lease node does not fit beside it, nor (FIFO) the one behind.
  EXPECT_EQ(Found(), (Line{{line[0], 1}, {line[1], 0}, {line[2], 0}}));
  EXPECT_EQ(zkl_participants_leases(found_, 1), 2);
}

TEST_F(ScriptedInspect, NonfairElectionLeaderIsItsOneNode) {
  Start();
  auto result = InspectAsync("/ne", Options(ZKL_LOCK_FAIR, ZKL_ELECTION_NONFAIR));
  script_->Reply(script_->Next(Kind::kGetChildren, "/ne"), Children({"leader", "other"}));
  script_->Reply(script_->Next(Kind::kGetData, "/ne/leader"), Data(kOther + "them", 5, kOtherSession));
  ASSERT_EQ(Returned(result), ZKL_OK);
  EXPECT_EQ(Found(), (Line{{"leader", 1}}));
  const char *data = nullptr;
  size_t len = 0;
  EXPECT_EQ(zkl_participants_data(found_, 0, &data, &len), ZKL_OK);
  EXPECT_EQ(std::string(data, len), "them");  // without the protected prefix
}

TEST_F(ScriptedInspect, DeadlineAndSessionLossEndTheRead) {
  Start();
  auto unanswered = InspectAsync("/f", Options(ZKL_LOCK_FAIR, 0, 30));
  script_->Next(Kind::kGetChildren, "/f");
  EXPECT_EQ(Returned(unanswered), ZKL_ETIMEDOUT);
  auto expired = InspectAsync("/f", Options());
  script_->Next(Kind::kGetChildren, "/f");
  script_->Expire();
  EXPECT_EQ(Returned(expired), ZKL_ESESSION);
  EXPECT_EQ(NextSession(), ZKL_SESSION_LOST);
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  auto closed = InspectAsync("/f", Options());
  EXPECT_EQ(Returned(closed), ZKL_ECLOSED);
}

TEST_F(ScriptedInspect, CloseWithAReadInFlightEndsTheCall) {
  // Found by this suite: the Inspector and the Revoker were never among
  // the client's listeners, so a close (or a session given up) did not
  // reach them, and a zkl_inspect, zkl_fence_check or zkl_revoke with a
  // request in flight waited out its whole timeout (for ever with -1)
  // instead of returning ZKL_ECLOSED. They are now listeners for the
  // length of the call (Client::ListenerScope).
  Start();
  auto closed = InspectAsync("/f", Options(ZKL_LOCK_FAIR, 0, 2000));
  script_->Next(Kind::kGetChildren, "/f");
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  EXPECT_EQ(Returned(closed), ZKL_ECLOSED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
}

TEST_F(ScriptedInspect, WaitsForASessionFirst) {
  Start();
  script_->DropConnection();
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  auto result = InspectAsync("/f", Options(ZKL_LOCK_FAIR, 0, 30));
  EXPECT_EQ(Returned(result), ZKL_ETIMEDOUT);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));  // nothing sent while down
}

// ---------------------------------------------------------------------------
// Fence check: after a sync, is the token a current holder's?
// ---------------------------------------------------------------------------

TEST_F(ScriptedInspect, FenceCheckAcceptsOnlyTheCurrentHoldersToken) {
  Start();
  auto check = [this](uint64_t token) {
    return std::async(std::launch::async, [this, token] {
      zkl_inspect_options o = Options();
      return zkl_fence_check(c_, "/f", &o, token);
    });
  };
  std::vector<std::string> line = {OtherNode("lock-", 1), OtherNode("lock-", 2)};
  auto current = check(10);
  AnswerReads("/f", line, line);
  EXPECT_EQ(Returned(current), ZKL_OK);
  auto waiter = check(11);  // a waiter's node: not a holder's token
  AnswerReads("/f", line, line);
  EXPECT_EQ(Returned(waiter), ZKL_ESTALE);
}

TEST_F(ScriptedInspect, FenceCheckWithoutItsSyncCannotAnswer) {
  Script::Options so;
  so.auto_sync = false;
  Start(ZKL_IO_THREAD, so);
  auto result = std::async(std::launch::async, [this] {
    zkl_inspect_options o = Options();
    return zkl_fence_check(c_, "/f", &o, 10);
  });
  RequestPtr sync = script_->Next(Kind::kSync, "/f");
  script_->Reply(sync, Error(ZkRc::kOperationTimeout));
  EXPECT_EQ(Returned(result), ZKL_ECONNECTION);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));  // no read of a lagging server
}

// ---------------------------------------------------------------------------
// Revocation: the marker written into the holders' nodes
// ---------------------------------------------------------------------------

TEST_F(ScriptedInspect, RevokeAsksEveryHolderOrTheOneNamed) {
  Start();
  auto revoke = [this](const char *holder) {
    return std::async(std::launch::async, [this, holder] {
      zkl_inspect_options o = Options(ZKL_LOCK_READ);
      return zkl_revoke(c_, "/rw", &o, holder);
    });
  };
  std::vector<std::string> line = {OtherNode("__READ__", 1), OtherNode("__READ__", 2), OtherNode("__WRIT__", 3)};
  auto all = revoke(nullptr);
  AnswerReads("/rw", line, line);
  RequestPtr first = script_->Next(Kind::kSetData, "/rw/" + line[0]);
  EXPECT_EQ(first->data, "__REVOKE__");
  EXPECT_EQ(first->version, -1);
  RequestPtr second = script_->Next(Kind::kSetData, "/rw/" + line[1]);
  script_->Reply(first, Ok());
  script_->Reply(second, Error(ZkRc::kNoNode));  // gone meanwhile: no need to ask
  EXPECT_EQ(Returned(all), 1);
  EXPECT_FALSE(script_->HasPending(Kind::kSetData));  // the waiting writer is not asked
  auto named = revoke(line[2].c_str());  // any participant, by name
  AnswerReads("/rw", line, line);
  script_->Reply(script_->Next(Kind::kSetData, "/rw/" + line[2]), Ok());
  EXPECT_EQ(Returned(named), 1);
  auto unknown = revoke("nobody");
  AnswerReads("/rw", line, line);
  EXPECT_EQ(Returned(unknown), ZKL_ENOTFOUND);
}

TEST_F(ScriptedInspect, RevokeRefusedTimedOutOrCutShort) {
  Start();
  auto revoke = [this](int64_t timeout_ms) {
    return std::async(std::launch::async, [this, timeout_ms] {
      zkl_inspect_options o = Options(ZKL_LOCK_FAIR, 0, timeout_ms);
      return zkl_revoke(c_, "/f", &o, nullptr);
    });
  };
  std::vector<std::string> line = {OtherNode("lock-", 1)};
  auto refused = revoke(kWaitMs);
  AnswerReads("/f", line, line);
  script_->Reply(script_->Next(Kind::kSetData, "/f/"), Error(ZkRc::kNoAuth));
  EXPECT_EQ(Returned(refused), ZKL_EAUTH);
  auto unanswered = revoke(300);
  AnswerReads("/f", line, line);
  script_->Next(Kind::kSetData, "/f/");
  EXPECT_EQ(Returned(unanswered), ZKL_ETIMEDOUT);
  auto expired = revoke(kWaitMs);
  AnswerReads("/f", line, line);
  script_->Next(Kind::kSetData, "/f/");
  script_->Expire();
  EXPECT_EQ(Returned(expired), ZKL_ESESSION);
  script_->WaitSession(2);
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  auto closed = std::async(std::launch::async, [this] {
    zkl_inspect_options o = Options();
    return zkl_revoke(c_, "/f", &o, nullptr);
  });
  EXPECT_EQ(Returned(closed), ZKL_ECLOSED);
}

}  // namespace
}  // namespace zkl::scripted
