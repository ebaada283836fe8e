#include "observer.h"

#include <algorithm>
#include <string_view>

#include "paths.h"

namespace zkl {

std::string LeaderNode(const Rule &rule, const std::vector<std::string_view> &children) {
  std::vector<QueueEntry> queue = BuildQueue(rule, children);
  return queue.empty() ? std::string() : std::string(queue.front().name);
}

Observer::Observer(std::shared_ptr<Client> client, std::string path, std::unique_ptr<Rule> rule,
                   zkl_event_cb cb, void *user_data)
    : Listener(HandleKind::kObserver),
      client_(std::move(client)),
      path_(std::move(path)),
      rule_(std::move(rule)),
      cb_(cb),
      user_data_(user_data) {}

void Observer::Start() {
  MutexLock lock(&client_->mu());
  Check();
}

void Observer::Destroy() {
  MutexLock lock(&client_->mu());
  destroyed_ = true;
  client_->RemoveListener(public_id());
}

int Observer::ProvenCurrent() const {
  // The view comes from the server this client talks to, which may have lost
  // the leader of the ensemble and serve an old state: trust it only while
  // the quorum proves this session (as holds are, see Client::LeaseDeadline).
  return MonoNow() < client_->LeaseDeadline() ? ZKL_OK : ZKL_ECONNECTION;
}

int Observer::Leader(char *buf, size_t len) {
  MutexLock lock(&client_->mu());
  if (int rc = ProvenCurrent()) return rc;
  // Only a leader whose node was read (its term known) counts.
  if (!known_ || term_ == 0) return ZKL_ENOTFOUND;
  if (buf != nullptr && len > 0) {
    size_t n = std::min(len - 1, leader_.size());
    leader_.copy(buf, n);
    buf[n] = '\0';
  }
  return static_cast<int>(leader_.size());
}

int Observer::Term(uint64_t *out) {
  MutexLock lock(&client_->mu());
  if (int rc = ProvenCurrent()) return rc;
  if (!known_ || term_ == 0) return ZKL_ENOTFOUND;
  *out = term_;
  return ZKL_OK;
}

void Observer::Check() {
  if (!destroyed_) client_->GetChildren(this, kChildren, path_, true);
}

void Observer::SetLeader(bool known, std::string id, uint64_t term) {
  if (known_ && known == known_ && id == leader_ && term == term_) return;
  known_ = known;
  leader_ = std::move(id);
  term_ = term;
  auto ev = std::make_unique<zkl_event>();
  // A leader is known by its term (its node's czxid, strictly increasing
  // across leaders); none is a state of its own.
  ev->type = term == 0 ? ZKL_EVENT_NO_LEADER : ZKL_EVENT_LEADER_CHANGED;
  ev->data = leader_;
  ev->fencing_token = term;
  ev->handle = self().lock();
  ev->cb = cb_;
  ev->user_data = user_data_;
  client_->Emit(std::move(ev));
}

void Observer::OnReply(const Reply &r) {
  if (destroyed_) return;
  if (IsConnectionError(r.rc)) {
    read_cut_ = true;
    return;
  }
  switch (r.op) {
    case kChildren:
      if (r.rc == ZkRc::kOk) {
        leader_node_ = LeaderNode(*rule_, *r.children);
        if (leader_node_.empty()) {
          SetLeader(true, "", 0);
        } else {
          // Watched: a leader's proclaim changes its data, not its term.
          client_->GetData(this, kLeaderData, JoinPath(path_, leader_node_), true);
        }
      } else if (r.rc == ZkRc::kNoNode) {
        // No election yet: wait for the path to appear.
        leader_node_.clear();
        SetLeader(true, "", 0);
        client_->Exists(this, kExists, path_, true);
      }
      break;
    case kLeaderData:
      if (r.rc == ZkRc::kOk && *r.path == JoinPath(path_, leader_node_)) {
        std::string_view data = r.data;
        SetLeader(true, std::string(StripProtectedPrefix(data)), static_cast<uint64_t>(r.stat->czxid));
      } else if (r.rc == ZkRc::kNoNode) {
        Check();  // it went meanwhile; the children watch also fires
      }
      break;
    case kExists:
      if (r.rc == ZkRc::kOk) Check();  // created between the two reads
      break;
    default:
      break;
  }
}

void Observer::OnWatch(WatchType, const std::string &) { Check(); }

void Observer::OnConnected(bool same_session) {
  // Watches of a lost session are gone, and so is the watch of a read the
  // connection loss cut (the C client restores only those of answered
  // reads): read again.
  if (!same_session || read_cut_) {
    read_cut_ = false;
    Check();
  }
}

}  // namespace zkl
