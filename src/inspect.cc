// zkl_inspect: a one-shot read of who holds and who waits on a lock path.
#include "inspect.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "paths.h"

namespace zkl {

namespace {

// A short-lived listener that reads the children, then every node's data.
class Inspector : public Listener {
 public:
  Inspector(Client &client, std::string path, std::unique_ptr<Rule> rule, bool read_write,
            bool semaphore, bool sync_first)
      : Listener(HandleKind::kObserver),
        client_(client),
        path_(std::move(path)),
        rule_(std::move(rule)),
        read_write_(read_write),
        semaphore_(semaphore),
        sync_first_(sync_first) {}

  // Who holds, as the node's own recipe decides: a read/write queue mixes
  // both kinds, each judged by its own rule.
  bool Holds(const std::vector<QueueEntry> &queue, size_t i) const {
    if (!rule_->fixed_node().empty()) return true;
    if (read_write_) return (IsWriteNode(queue[i].name) ? *write_ : *read_).Decide(queue, i).holds;
    return rule_->Decide(queue, i).holds;
  }

  void OnReply(const Reply &r) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (r.op == kSync) {
      if (r.rc != ZkRc::kOk) return Finish(ZkError(r.rc));
      return Read();
    }
    if (r.op == kLeases) {
      // The semaphore's lease count lives in the lock node's data.
      int leases = 0;
      if (r.rc == ZkRc::kOk && !r.data.empty()) leases = std::atoi(std::string(r.data).c_str());
      rule_ = MakeSemaphoreRule(leases > 0 ? leases : (1 << 30));
      return;
    }
    if (r.op == kChildren) {
      if (r.rc != ZkRc::kOk) {
        Finish(r.rc == ZkRc::kNoNode ? ZKL_OK : ZkError(r.rc));
        return;
      }
      std::vector<QueueEntry> queue = BuildQueue(*rule_, *r.children);
      for (size_t i = 0; i < queue.size(); ++i) {
        Participant p;
        p.name = std::string(queue[i].name);
        p.holder = Holds(queue, i);
        if (semaphore_) p.leases = LeasesOf(queue[i].name);
        result_.push_back(std::move(p));
      }
      pending_ = result_.size();
      if (pending_ == 0) Finish(ZKL_OK);
      for (size_t i = 0; i < result_.size(); ++i) {
        client_.GetData(this, static_cast<int>(kData + i), JoinPath(path_, result_[i].name), false);
      }
    } else if (r.op >= kData) {
      Participant &p = result_[static_cast<size_t>(r.op - kData)];
      if (r.rc == ZkRc::kOk) {
        p.present = true;
        p.czxid = static_cast<uint64_t>(r.stat->czxid);
        p.session_id = static_cast<uint64_t>(r.stat->ephemeral_owner);
        p.ctime_ms = r.stat->ctime_ms;
        std::string_view data = r.data;
        p.data = std::string(StripProtectedPrefix(data));
      }
      if (--pending_ == 0) Finish(ZKL_OK);
    }
  }
  void OnWatch(WatchType, const std::string &) override {}
  void OnConnected(bool) override {}
  void OnSuspended() override {}
  void OnSessionLost(int) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Finish(ZKL_ESESSION); }
  void OnTimer() override {}
  void OnClientClosed() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Finish(ZKL_ECLOSED); }

  // Made on a client whose mutex the caller holds: tells the analysis.
  void AssertLocked() const ABSL_ASSERT_EXCLUSIVE_LOCK(client_.mu()) { client_.mu().AssertHeld(); }
  void Start() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    // The server we talk to first catches up with the leader: what follows
    // is at least as new as the quorum's state now.
    if (sync_first_) {
      client_.Sync(this, kSync, path_);
    } else {
      Read();
    }
  }
  void Read() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (semaphore_) client_.GetData(this, kLeases, path_, false);  // answered first
    client_.GetChildren(this, kChildren, path_, false);
  }
  bool done() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return done_; }
  int rc() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return rc_; }
  std::vector<Participant> TakeResult() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    std::vector<Participant> out;
    for (auto &p : result_) {
      if (p.present) out.push_back(std::move(p));  // skip nodes gone meanwhile
    }
    return out;
  }

 private:
  enum { kChildren = 1, kLeases = 2, kSync = 3, kData = 16 };
  void Finish(int rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (done_) return;
    done_ = true;
    rc_ = rc;
    client_.Changed();
  }

  Client &client_;
  const std::string path_;
  std::unique_ptr<Rule> rule_;
  const bool read_write_, semaphore_, sync_first_;
  const std::unique_ptr<Rule> read_ = MakeReadRule(), write_ = MakeWriteRule();
  std::vector<Participant> result_ ABSL_GUARDED_BY(client_.mu());
  size_t pending_ ABSL_GUARDED_BY(client_.mu()) = 0;
  bool done_ ABSL_GUARDED_BY(client_.mu()) = false;
  int rc_ ABSL_GUARDED_BY(client_.mu()) = 0;
};

}  // namespace

int Inspect(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
            std::vector<Participant> *out, bool sync_first) {
  bool read_write = rule->label() == "__READ__" || rule->label() == "__WRIT__";
  bool semaphore = rule->max_leases() > 0;
  auto inspector =
      std::make_shared<Inspector>(client, path, std::move(rule), read_write, semaphore, sync_first);
  inspector->BindSelf(inspector);
  MutexLock lock(&client.mu());
  inspector->AssertLocked();
  if (client.closed()) return ZKL_ECLOSED;
  absl::Time deadline = MonoDeadline(timeout_ms);
  // Wait for a session first: requests sent while connecting would only fail.
  while (!client.connected()) {
    if (client.closed()) return ZKL_ECLOSED;
    if (client.Await(deadline) && !client.connected()) {
      return ZKL_ETIMEDOUT;
    }
  }
  Client::ListenerScope listening(&client, inspector);  // a close or a loss ends it
  inspector->Start();
  Client::BlockingWait wait(&client);
  while (!inspector->done()) {
    if (wait.Await(deadline) && !inspector->done()) {
      return ZKL_ETIMEDOUT;
    }
  }
  if (inspector->rc() != ZKL_OK) return inspector->rc();
  *out = inspector->TakeResult();
  return ZKL_OK;
}

int FenceCheck(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
               uint64_t token) {
  std::vector<Participant> now;
  if (int rc = Inspect(client, path, std::move(rule), timeout_ms, &now, /*sync_first=*/true)) return rc;
  for (const Participant &p : now) {
    if (p.holder && p.czxid == token) return ZKL_OK;
  }
  return ZKL_ESTALE;
}

}  // namespace zkl
