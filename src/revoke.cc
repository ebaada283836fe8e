#include "revoke.h"

#include <vector>

#include "inspect.h"
#include "paths.h"

namespace zkl {

namespace {

// Curator's LockInternals.REVOKE_MESSAGE; holders that watch their node
// (revocable ones, zkl's and Curator's) react to it.
constexpr std::string_view kRevokeMarker = "__REVOKE__";

// A short-lived listener that writes the marker and counts the answers.
class Revoker : public Listener {
 public:
  explicit Revoker(Client &client) : Listener(HandleKind::kObserver), client_(client) {}

  // Made on a client whose mutex the caller holds: tells the analysis.
  void AssertLocked() const ABSL_ASSERT_EXCLUSIVE_LOCK(client_.mu()) { client_.mu().AssertHeld(); }
  void Send(const std::vector<std::string> &paths) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    pending_ = paths.size();
    for (const std::string &p : paths) {
      if (client_.SetData(this, 1, p, kRevokeMarker, -1) != ZkRc::kOk) Answer(ZkRc::kConnectionLoss);
    }
  }
  bool done() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return pending_ == 0; }
  int result() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return error_ != 0 ? error_ : asked_; }

  void OnReply(const Reply &r) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Answer(r.rc); }
  void OnWatch(WatchType, const std::string &) override {}
  void OnConnected(bool) override {}
  void OnSuspended() override {}
  void OnSessionLost(int) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Fail(ZKL_ESESSION); }
  void OnTimer() override {}
  void OnClientClosed() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Fail(ZKL_ECLOSED); }

 private:
  void Answer(ZkRc rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (pending_ == 0) return;
    if (rc == ZkRc::kOk) {
      ++asked_;
    } else if (rc != ZkRc::kNoNode && error_ == 0) {
      error_ = ZkError(rc);  // a holder gone meanwhile needs no asking
    }
    if (--pending_ == 0) client_.Changed();
  }
  void Fail(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (error_ == 0) error_ = error;
    pending_ = 0;
    client_.Changed();
  }

  Client &client_;
  size_t pending_ ABSL_GUARDED_BY(client_.mu()) = 0;
  int asked_ ABSL_GUARDED_BY(client_.mu()) = 0;
  int error_ ABSL_GUARDED_BY(client_.mu()) = 0;
};

}  // namespace

int Revoke(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
           const char *holder) {
  absl::Time deadline = MonoDeadline(timeout_ms);
  std::vector<Participant> participants;
  if (int rc = Inspect(client, path, std::move(rule), timeout_ms, &participants)) return rc;
  std::vector<std::string> targets;
  for (const Participant &p : participants) {
    if (holder != nullptr ? p.name == holder : p.holder) targets.push_back(JoinPath(path, p.name));
  }
  if (targets.empty()) return holder != nullptr ? ZKL_ENOTFOUND : 0;
  auto revoker = std::make_shared<Revoker>(client);
  revoker->BindSelf(revoker);
  MutexLock lock(&client.mu());
  if (client.closed()) return ZKL_ECLOSED;
  revoker->AssertLocked();
  Client::ListenerScope listening(&client, revoker);  // a close or a loss ends it
  revoker->Send(targets);
  Client::BlockingWait wait(&client);
  while (!revoker->done()) {
    if (wait.Await(deadline) && !revoker->done()) return ZKL_ETIMEDOUT;
  }
  return revoker->result();
}

}  // namespace zkl
