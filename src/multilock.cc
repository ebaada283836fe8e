#include "multilock.h"

#include <algorithm>
#include <cstdint>

namespace zkl {

Multilock::Multilock(std::shared_ptr<Client> client, std::vector<std::shared_ptr<Contender>> members,
                     zkl_event_cb cb, void *user_data)
    : Handle(HandleKind::kMultilock),
      client_(std::move(client)),
      members_(std::move(members)),
      cb_(cb),
      user_data_(user_data) {}

int Multilock::Create(std::shared_ptr<Client> client, std::vector<std::shared_ptr<Contender>> members,
                      zkl_event_cb cb, void *user_data, std::shared_ptr<Multilock> *out) {
  // One canonical order for everybody: by path.
  std::sort(members.begin(), members.end(),
            [](const auto &a, const auto &b) { return a->path() < b->path(); });
  MutexLock lock(&client->mu());
  if (client->closed()) return ZKL_ECLOSED;
  for (size_t i = 0; i < members.size(); ++i) {
    const Contender &m = *members[i];
    if (&m.client() != client.get() || m.reentrant()) return ZKL_EINVAL;
    if (i > 0 && members[i - 1]->path() == m.path()) return ZKL_EINVAL;
    m.AssertLocked();
    if (m.group() != nullptr || !m.idle()) return ZKL_EBUSY;
  }
  std::shared_ptr<Multilock> ml(new Multilock(client, std::move(members), cb, user_data));
  for (auto &m : ml->members_) m->SetGroup(ml.get());
  ml->self_ = ml;
  *out = std::move(ml);
  return ZKL_OK;
}

size_t Multilock::IndexOf(const Contender *member) const {
  for (size_t i = 0; i < members_.size(); ++i) {
    if (members_[i].get() == member) return i;
  }
  return members_.size();
}

bool Multilock::AllHeld() const {
  return std::all_of(members_.begin(), members_.end(), [](const auto &m) {
    m->AssertLocked();
    return m->held();
  });
}

int Multilock::Acquire(uint64_t owner, int64_t timeout_ms, Contender::Mode mode) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (client_->closed()) return ZKL_ECLOSED;
  if (held_) return owner == owner_ ? ZKL_EDEADLK : ZKL_EBUSY;
  if (acquiring_) return ZKL_EBUSY;
  bool no_wait = mode == Contender::Mode::kTry || timeout_ms == 0;
  if (no_wait && !client_->connected()) return ZKL_ECONNECTION;
  acquiring_ = true;
  lost_unreleased_ = false;
  owner_ = owner;
  mode_ = mode;
  deadline_ = no_wait ? MonoNow() : MonoDeadline(timeout_ms);
  next_ = 0;
  uint64_t seq = ++request_seq_;
  acquire_request_ = mode == Contender::Mode::kAsync ? client_->NextRequestId() : 0;
  uint64_t request = acquire_request_;
  TakeNext();
  if (mode == Contender::Mode::kAsync) return static_cast<int>(request);
  Client::BlockingWait wait(client_.get());
  while (done_seq_ < seq) wait.Await(absl::InfiniteFuture());
  return done_rc_;
}

void Multilock::TakeNext() {
  if (next_ == members_.size()) {
    Granted();
    return;
  }
  // Every member within the one deadline; a try tries each once.
  int64_t left = -1;
  if (deadline_ != absl::InfiniteFuture()) {
    left = std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline_ - MonoNow()));
  }
  uint64_t started = 0;
  Contender &member = *members_[next_];
  member.AssertLocked();
  int rc = member.AcquireLocked(owner_, left, Contender::Mode::kAsync, &started);
  if (rc != ZKL_OK) Fail(rc);
  // Otherwise its ACQUIRED or ACQUIRE_FAILED comes to OnMemberEvent.
}

void Multilock::Granted() {
  acquiring_ = false;
  held_ = true;
  suspended_ = false;
  if (mode_ == Contender::Mode::kAsync) Notify(ZKL_EVENT_ACQUIRED, 0, acquire_request_);
  Finish(ZKL_OK);
}

void Multilock::Fail(int error) {
  if (!acquiring_) return;
  acquiring_ = false;
  // A try (or zero timeout) that met a taken member says "not now".
  if (mode_ == Contender::Mode::kTry && error == ZKL_ETIMEDOUT) error = ZKL_EAGAIN;
  if (next_ < members_.size()) {
    Contender &member = *members_[next_];
    member.AssertLocked();
    member.CancelLocked();  // its event is ignored now
  }
  ReleaseTaken(/*report=*/0);
  if (mode_ == Contender::Mode::kAsync) Notify(ZKL_EVENT_ACQUIRE_FAILED, error, acquire_request_);
  Finish(error);
}

void Multilock::ReleaseTaken(uint64_t report) {
  // Each async release gets its RELEASED once no member delete is running
  // (one still running from an earlier release delays it, never drops it).
  if (report != 0) reported_releases_.push_back(report);
  for (auto &m : members_) {
    // All at once, none held back for a coalesced re-acquire.
    m->AssertLocked();
    if (m->held() && m->ReleaseLocked(owner_, /*wait=*/false, /*coalesce=*/false) == ZKL_OK) {
      ++releasing_;
    }
  }
  if (releasing_ == 0) ReportReleases();
}

void Multilock::ReportReleases() {
  std::vector<uint64_t> ids = std::move(reported_releases_);
  reported_releases_.clear();
  for (uint64_t id : ids) Notify(ZKL_EVENT_RELEASED, 0, id);
}

void Multilock::Finish(int rc) {
  done_seq_ = request_seq_;
  done_rc_ = rc;
  client_->Changed();
}

int Multilock::Cancel() {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (!acquiring_) return ZKL_ENOTHELD;
  Fail(ZKL_ECANCELED);
  return ZKL_OK;
}

int Multilock::Release(uint64_t owner, bool wait) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (!held_) {
    if (lost_unreleased_ && owner == lost_owner_) {
      lost_unreleased_ = false;  // told once that it had lost it
      return ZKL_ELOST;
    }
    return ZKL_ENOTHELD;
  }
  if (owner != owner_) return ZKL_ENOTOWNER;
  held_ = false;
  suspended_ = false;
  // All deletes go out at once; a blocking release waits for all of them.
  uint64_t request = wait ? 0 : client_->NextRequestId();
  ReleaseTaken(/*report=*/request);
  if (wait) {
    // Bounded as a lock's release (Contender::ReleaseLocked).
    absl::Time bound = MonoNow() + client_->AnswerBound();
    Client::BlockingWait blocking(client_.get());
    while (releasing_ > 0 && !client_->closed()) {
      if (blocking.Await(bound) && releasing_ > 0) return ZKL_ETIMEDOUT;
    }
  }
  return static_cast<int>(request);
}

int Multilock::IsHeld() {
  int64_t ms = 0;
  return ValidFor(&ms) == ZKL_OK ? 1 : 0;
}

int Multilock::ValidFor(int64_t *ms) {
  MutexLock lock(&client_->mu());
  *ms = 0;
  if (destroyed_) return ZKL_EBADHANDLE;
  if (!held_) return ZKL_ENOTHELD;
  int64_t least = INT64_MAX;
  for (auto &m : members_) {
    m->AssertLocked();
    least = std::min(least, m->ValidForMs());
  }
  *ms = least;
  return least > 0 ? ZKL_OK : ZKL_ENOTHELD;
}

int Multilock::FencingToken(const std::string &path, uint64_t *out) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  for (auto &m : members_) {
    if (m->path() != path) continue;
    m->AssertLocked();
    if (!held_ || !m->held()) return ZKL_ENOTHELD;
    *out = m->token();
    return ZKL_OK;
  }
  return ZKL_ENOTFOUND;
}

int Multilock::Write(uint64_t owner, zkl_ops *ops, bool async) {
  MutexLock lock(&client_->mu());
  if (!async) ResetResults(ops);
  if (destroyed_) return ZKL_EBADHANDLE;
  if (ops->ops.empty()) return ZKL_EINVAL;
  for (const ZkOp &op : ops->ops) {
    if (std::none_of(members_.begin(), members_.end(), [&](const auto &m) { return m->InTree(op); })) {
      return ZKL_EBADPATH;
    }
  }
  if (client_->closed()) return ZKL_ECLOSED;
  if (!held_) return lost_unreleased_ && owner == lost_owner_ ? ZKL_ELOST : ZKL_ENOTHELD;
  if (owner != owner_) return ZKL_ENOTOWNER;
  // Every member's node, checked in the one multi: all held, or nothing.
  WriteGuard guard;
  for (auto &m : members_) {
    m->AssertLocked();
    if (int rc = m->GuardLocked(owner_, &guard)) return rc;
  }
  members_.front()->AssertLocked();
  guard.token = members_.front()->token();
  guard.handle = self_.lock();
  guard.cb = cb_;
  guard.user_data = user_data_;
  return RunGuardedWrite(*client_, std::move(guard), ops, async);
}

void Multilock::Destroy() {
  std::vector<std::shared_ptr<Contender>> members;
  {
    MutexLock lock(&client_->mu());
    if (destroyed_) return;
    if (acquiring_) Fail(ZKL_ECANCELED);
    destroyed_ = true;
    if (held_) {
      held_ = false;
      ReleaseTaken(/*report=*/0);
    }
    for (auto &m : members_) m->SetGroup(nullptr);
    members.swap(members_);
  }
  // The members go as any destroyed handle: their nodes are cleaned up in
  // the background.
  for (auto &m : members) {
    UnregisterHandle(reinterpret_cast<void *>(m->public_id()), HandleKind::kLock);
    m->Destroy();
  }
}

void Multilock::OnMemberEvent(Contender *member, int type, int error, uint64_t token) {
  size_t i = IndexOf(member);
  if (i == members_.size()) return;
  switch (type) {
    case ZKL_EVENT_ACQUIRED:
      if (acquiring_ && i == next_) {
        ++next_;
        TakeNext();
      }
      break;
    case ZKL_EVENT_ACQUIRE_FAILED:
      if (acquiring_ && i == next_) Fail(error);
      break;
    case ZKL_EVENT_LOST:
      if (acquiring_ && i < next_) {
        Fail(error);  // a member taken already is gone again
      } else if (held_) {
        // The loss of one member is the loss of the whole.
        held_ = false;
        suspended_ = false;
        lost_unreleased_ = true;
        lost_owner_ = owner_;
        ReleaseTaken(/*report=*/0);
        Notify(ZKL_EVENT_LOST, error);
      }
      break;
    case ZKL_EVENT_SUSPENDED:
      if (held_ && !suspended_) {
        suspended_ = true;
        Notify(ZKL_EVENT_SUSPENDED, 0);
      }
      break;
    case ZKL_EVENT_RESTORED:
      if (held_ && suspended_ &&
          std::all_of(members_.begin(), members_.end(), [](const auto &m) {
            m->AssertLocked();
            return m->ValidForMs() > 0;
          })) {
        suspended_ = false;
        Notify(ZKL_EVENT_RESTORED, 0);
      }
      break;
    case ZKL_EVENT_RELEASED:
      if (releasing_ > 0 && --releasing_ == 0) {
        ReportReleases();
        client_->Changed();
      }
      break;
    case ZKL_EVENT_REVOKE_REQUESTED:
      if (held_) Notify(ZKL_EVENT_REVOKE_REQUESTED, 0);
      break;
    default:
      break;
  }
  (void)token;
}

void Multilock::Notify(int type, int error, uint64_t request) {
  if (destroyed_) return;
  auto ev = std::make_unique<zkl_event>();
  ev->type = type;
  ev->error = error;
  ev->request_id = request;
  ev->owner = owner_;
  uint64_t token = 0;
  if (!members_.empty()) {
    members_.front()->AssertLocked();
    token = members_.front()->token();
  }
  ev->fencing_token = token;
  ev->handle = self_.lock();
  ev->cb = cb_;
  ev->user_data = user_data_;
  client_->Emit(std::move(ev));
}

}  // namespace zkl
