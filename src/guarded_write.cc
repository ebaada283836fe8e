#include "guarded_write.h"

#include <utility>

#include "event_queue.h"
#include "paths.h"

namespace zkl {

namespace {

// What ZooKeeper adds to a request per operation (header, lengths, ACL):
// generous, so a list under ZKL_OPS_MAX_BYTES always fits one request.
constexpr size_t kOpOverhead = 64;

int OpError(ZkRc rc) {
  switch (rc) {
    case ZkRc::kNodeExists: return ZKL_EEXISTS;
    case ZkRc::kBadVersion: return ZKL_EBADVERSION;
    case ZkRc::kNotEmpty: return ZKL_ENOTEMPTY;
    default: return ZkError(rc);  // kNoNode: ZKL_ENOTFOUND, kNoAuth: ZKL_EAUTH, ...
  }
}

// One write in flight: a short-lived listener that hears its reply and the
// session's fate.
class GuardedWrite : public Listener {
 public:
  GuardedWrite(Client &client, WriteGuard guard, zkl_ops ops, uint64_t request_id, bool async)
      : Listener(HandleKind::kWrite),
        client_(client),
        guard_(std::move(guard)),
        ops_(std::make_shared<zkl_ops>(std::move(ops))),
        request_id_(request_id),
        async_(async) {}

  void OnReply(const Reply &r) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (r.op != kMulti || done_) return;
    const size_t nguard = guard_.checks.size();
    if (r.rc == ZkRc::kOk && r.results != nullptr && r.results->size() == nguard + ops_->ops.size()) {
      for (size_t i = 0; i < ops_->ops.size(); ++i) {
        const ZkOpResult &res = (*r.results)[nguard + i];
        zkl_ops::Result &out = ops_->results[i];
        if (ops_->ops[i].type == ZkOp::kCreate) {
          out.path = res.value;
          out.version = 0;
        } else if (ops_->ops[i].type == ZkOp::kSetData) {
          out.version = res.stat.version;
        }
      }
      Finish(ZKL_OK);
      return;
    }
    if (IsConnectionError(r.rc)) return Finish(ZKL_EINDOUBT);  // sent, answer lost
    // Refused before it was applied: the session is gone or moved on.
    if (r.rc == ZkRc::kSessionExpired || r.rc == ZkRc::kInvalidState) return Finish(ZKL_ESESSION);
    if (r.rc == ZkRc::kSessionMoved) return Finish(ZKL_ECONNECTION);
    if (r.rc == ZkRc::kClosing) return Finish(ZKL_ECLOSED);
    // The multi failed as a whole: the first result with the reply's code
    // is the operation that failed (those before it say ok, those after it
    // "runtime inconsistency").
    if (r.results != nullptr) {
      for (size_t i = 0; i < r.results->size(); ++i) {
        if ((*r.results)[i].rc != r.rc) continue;
        if (i < nguard) {
          if (r.rc != ZkRc::kNoNode) return Finish(OpError(r.rc));
          Finish(ZKL_ELOST);
          if (guard_.on_gone[i]) guard_.on_gone[i]();  // after the answer: LOST follows it
          return;
        }
        ops_->failed = static_cast<int>(i - nguard);
        return Finish(OpError(r.rc));
      }
    }
    Finish(OpError(r.rc));
  }
  void OnWatch(WatchType, const std::string &) override {}
  void OnConnected(bool) override {}
  // The connection loss itself answers the request (kConnectionLoss).
  void OnSuspended() override {}
  // Given up with the session: the write may have landed before it ended.
  void OnSessionLost(int) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Finish(ZKL_EINDOUBT); }
  void OnTimer() override {}
  void OnClientClosed() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { Finish(ZKL_ECLOSED); }

  int Send() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    std::vector<ZkOp> all = guard_.checks;
    all.insert(all.end(), ops_->ops.begin(), ops_->ops.end());
    ZkRc rc = client_.Multi(this, kMulti, std::move(all));
    if (rc == ZkRc::kOk) return ZKL_OK;
    return IsConnectionError(rc) ? ZKL_ECONNECTION : ZkError(rc);  // nothing sent
  }
  // Created on `client`, whose mutex the caller holds: tells the analysis.
  void AssertLocked() const ABSL_ASSERT_EXCLUSIVE_LOCK(client_.mu()) { client_.mu().AssertHeld(); }
  bool done() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return done_; }
  int rc() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) { return rc_; }
  const zkl_ops &ops() const { return *ops_; }

 private:
  enum { kMulti = 1 };

  void Finish(int rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    if (done_) return;
    done_ = true;
    rc_ = rc;
    if (async_) {
      auto ev = std::make_unique<zkl_event>();
      ev->type = ZKL_EVENT_WRITTEN;
      ev->error = rc;
      ev->owner = guard_.owner;
      ev->fencing_token = guard_.token;
      ev->request_id = request_id_;
      ev->ops = ops_;
      ev->handle = guard_.handle;
      ev->cb = guard_.cb;
      ev->user_data = guard_.user_data;
      client_.Emit(std::move(ev));
      Forget();
    }
    client_.Changed();
  }

 public:
  // Leaves the client and the registry (which kept it alive).
  void Forget() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_.mu()) {
    client_.RemoveListener(public_id());
    UnregisterHandle(reinterpret_cast<void *>(static_cast<uintptr_t>(public_id())), HandleKind::kWrite);
  }

 private:
  Client &client_;
  const WriteGuard guard_;
  const std::shared_ptr<zkl_ops> ops_;
  const uint64_t request_id_;
  const bool async_;
  bool done_ ABSL_GUARDED_BY(client_.mu()) = false;
  int rc_ ABSL_GUARDED_BY(client_.mu()) = 0;
};

}  // namespace

void ResetResults(zkl_ops *ops) {
  ops->failed = -1;
  ops->results.assign(ops->ops.size(), zkl_ops::Result());
}

int AddOp(zkl_ops *ops, ZkOp op) {
  if (ops == nullptr) return ZKL_EINVAL;
  if (int rc = ValidatePath(op.path)) return rc;
  if (op.version < -1) return ZKL_EINVAL;
  if (op.type == ZkOp::kCreate && (op.mode & ~(kEphemeral | kSequential)) != 0) return ZKL_EINVAL;
  size_t bytes = op.path.size() + op.data.size() + kOpOverhead;
  if (ops->bytes + bytes > ZKL_OPS_MAX_BYTES) return ZKL_ETOOBIG;
  ops->bytes += bytes;
  ops->ops.push_back(std::move(op));
  ops->results.emplace_back();
  return ZKL_OK;
}

bool InLockTree(const Rule &rule, const std::string &lock_path, const ZkOp &op) {
  const std::string &p = op.path;
  std::string prefix = lock_path == "/" ? "/" : lock_path + "/";
  if (p.size() <= prefix.size() || p.compare(0, prefix.size(), prefix) != 0) return false;
  std::string_view below = std::string_view(p).substr(prefix.size());
  size_t slash = below.find('/');
  std::string_view child = below.substr(0, slash);
  if (rule.Participates(child) || child == rule.fixed_node()) return false;
  // A sequential create directly below would take part under its new name.
  if (slash == std::string_view::npos && op.type == ZkOp::kCreate && (op.mode & kSequential)) {
    return false;
  }
  return true;
}

int RunGuardedWrite(Client &client, WriteGuard guard, zkl_ops *ops, bool async) {
  if (client.closed()) return ZKL_ECLOSED;
  zkl_ops copy;
  copy.ops = ops->ops;
  copy.bytes = ops->bytes;
  copy.results.assign(ops->ops.size(), zkl_ops::Result());
  uint64_t id = client.NextRequestId();
  auto w = std::make_shared<GuardedWrite>(client, std::move(guard), std::move(copy), id, async);
  RegisterHandle(w);  // the registry keeps it until it is done
  client.AddListener(w);
  w->AssertLocked();
  if (int rc = w->Send()) {
    w->Forget();
    return rc;
  }
  if (async) return static_cast<int>(id);
  {
    Client::BlockingWait wait(&client);
    while (!w->done()) wait.Await(absl::InfiniteFuture());
  }
  w->Forget();
  ops->failed = w->ops().failed;
  ops->results = w->ops().results;
  return w->rc();
}

}  // namespace zkl
