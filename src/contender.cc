#include "contender.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "paths.h"

namespace zkl {

namespace {

std::string_view Basename(std::string_view p) {
  // memrchr, not rfind: libstdc++'s rfind walks a node's long name a
  // character at a time.
  const void *slash = p.empty() ? nullptr : memrchr(p.data(), '/', p.size());
  return slash == nullptr ? p : p.substr(static_cast<const char *>(slash) - p.data() + 1);
}

constexpr int kMaxCreateAttempts = 20;  // parents deleted again and again
// Apache Curator's revocation marker (LockInternals.REVOKE_MESSAGE): the
// data a revoker writes into the holder's node.
constexpr std::string_view kRevokeMarker = "__REVOKE__";

}  // namespace

Contender::Contender(std::shared_ptr<Client> client, HandleKind kind, Options opts)
    : Listener(kind),
      client_(std::move(client)),
      path_(std::move(opts.path)),
      rule_(std::move(opts.rule)),
      reentrant_(opts.reentrant),
      role_(opts.role),
      data_(std::move(opts.data)),
      kind_name_(std::move(opts.kind_name)),
      max_hold_(opts.max_hold),
      on_revoke_(opts.on_revoke),
      cb_(opts.cb),
      user_data_(opts.user_data),
      reaper_(this, path_, fixed(), kDelete, kDeleteCheck) {}

std::string Contender::OwnPath() const { return JoinPath(path_, own_.name()); }
std::string Contender::FixedPath() const { return JoinPath(path_, rule_->fixed_node()); }

std::string Contender::NodeData() const {
  // A fixed node carries our protected prefix so that we can recognise it
  // after a lost create reply; sequential nodes carry it in their name.
  return fixed() ? ProtectedPrefix(own_.uuid()) + data_ : data_;
}

// ---------------------------------------------------------------------------
// Public operations
// ---------------------------------------------------------------------------

int Contender::Acquire(uint64_t owner, int64_t timeout_ms, Mode mode) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (group_ != nullptr) return ZKL_EBUSY;  // a multi-lock's member
  uint64_t seq = 0;
  int rc = AcquireLocked(owner, timeout_ms, mode, &seq);
  if (rc != ZKL_OK) return rc;
  if (mode == Mode::kAsync) return static_cast<int>(attempt_.request);
  if (seq == 0) return rc;
  // A try is a round trip or two: bounded even should an answer be lost.
  absl::Time bound = mode == Mode::kTry ? MonoNow() + client_->AnswerBound() : absl::InfiniteFuture();
  Client::BlockingWait wait(client_.get());
  while (done_seq_ < seq) {
    if (wait.Await(bound) && done_seq_ < seq) {
      client_->Log(ZKL_LOG_WARN, "zkl", "a try-acquire of " + path_ + " got no answer within a session timeout: "
                                        "it fails with ZKL_ECONNECTION");
      Fail(ZKL_ECONNECTION);
    }
  }
  return done_rc_;
}

int Contender::AcquireLocked(uint64_t owner, int64_t timeout_ms, Mode mode, uint64_t *started) {
  *started = 0;
  if (client_->closed()) return ZKL_ECLOSED;
  if (held()) {
    if (role_ == Role::kElection) {
      // Campaigning while leader: nothing to do (one event per async call).
      attempt_.request = NewRequestId(mode);
      if (mode == Mode::kAsync) Notify(ZKL_EVENT_ELECTED, 0, own_.czxid(), attempt_.request);
      return ZKL_OK;
    }
    if (owner != owner_) return ZKL_EBUSY;
    if (!reentrant_) return ZKL_EDEADLK;
    ++hold_.count;
    attempt_.request = NewRequestId(mode);
    if (mode == Mode::kAsync) Notify(ZKL_EVENT_ACQUIRED, 0, own_.czxid(), attempt_.request);
    return ZKL_OK;
  }
  bool no_wait = mode == Mode::kTry || timeout_ms == 0;
  if (phase_ == Phase::kRejoining) return TakeOverRejoin(owner, timeout_ms, mode, no_wait, started);
  if (phase_ != Phase::kIdle) return ZKL_EBUSY;  // an acquire is already pending
  if (no_wait && !client_->connected()) return ZKL_ECONNECTION;
  if (client_->state() == ZKL_SESSION_AUTH_FAILED) return client_->auth_failure();

  EnterPhase(Phase::kAcquiring);
  lost_owner_.reset();
  owner_ = owner;
  // A zero timeout does not wait: like a try, but failing with ETIMEDOUT.
  attempt_ = Attempt{.mode = mode,
                     .no_wait = no_wait,
                     .request = NewRequestId(mode),
                     .deadline = timeout_ms > 0 && !no_wait ? MonoNow() + absl::Milliseconds(timeout_ms)
                                                            : absl::InfiniteFuture()};
  *started = ++request_seq_;
  stats_.AcquireStarted(MonoNow());
  ArmTimer();
  Begin();
  return ZKL_OK;
}

int Contender::TakeOverRejoin(uint64_t owner, int64_t timeout_ms, Mode mode, bool no_wait,
                              uint64_t *started) {
  // An election candidate back in line by itself after a loss: a campaign
  // now takes over that place in the line, with its own deadline, and ends
  // as any campaign does (leaving the election on timeout or cancel).
  EnterPhase(Phase::kAcquiring);
  owner_ = owner;
  attempt_.mode = mode;
  attempt_.no_wait = no_wait;
  *started = ++request_seq_;
  attempt_.request = NewRequestId(mode);
  stats_.AcquireStarted(MonoNow());
  if (no_wait) {
    Fail(mode == Mode::kTry ? ZKL_EAGAIN : ZKL_ETIMEDOUT);
    return ZKL_OK;
  }
  attempt_.deadline = timeout_ms > 0 ? MonoNow() + absl::Milliseconds(timeout_ms) : absl::InfiniteFuture();
  ArmTimer();
  // Already told the line it waits: this caller hears it too.
  if (mode == Mode::kAsync && attempt_.announced_waiting) Notify(ZKL_EVENT_NOT_ELECTED, 0, 0, attempt_.request);
  return ZKL_OK;
}

int Contender::Cancel() {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (group_ != nullptr) return ZKL_EBUSY;
  return CancelLocked();
}

int Contender::CancelLocked() {
  if (!want_hold() || held()) return ZKL_ENOTHELD;
  Fail(ZKL_ECANCELED);
  return ZKL_OK;
}

int Contender::Release(uint64_t owner, bool wait) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (group_ != nullptr) return ZKL_EBUSY;
  return ReleaseLocked(owner, wait);
}

int Contender::ReleaseLocked(uint64_t owner, bool wait, bool coalesce) {
  // After zkl_client_close every lock call says so, a lost hold included.
  if (client_->closed()) return ZKL_ECLOSED;
  if (hold_.count == 0) {
    if (lost_owner_ == owner) {
      lost_owner_.reset();  // tell the holder once that it had lost it
      return ZKL_ELOST;
    }
    return ZKL_ENOTHELD;
  }
  if (owner != owner_) return ZKL_ENOTOWNER;
  // An async release by the user: RELEASED answers it, with its id.
  uint64_t request = wait || group_ != nullptr ? 0 : client_->NextRequestId();
  if (--hold_.count > 0) {
    // An inner hold of a reentrant lock: released at once.
    if (request != 0) Notify(ZKL_EVENT_RELEASED, 0, 0, request);
    return static_cast<int>(request);
  }
  EnterPhase(Phase::kIdle);
  owner_ = 0;
  std::string name = own_.name();
  // An async release of a sequential node waits a moment for a following
  // acquire to take it along (SendCreate); a fixed node has one name for
  // every acquisition, so its next create must wait for the delete anyway.
  std::optional<uint64_t> release;  // an async release hears RELEASED once the node is gone
  if (!wait) release = request;
  DeleteOwn(release, /*defer=*/!wait && !fixed() && coalesce);
  if (wait) {
    // One round trip, bounded by the connection: a connection loss fails
    // the delete (it is retried after reconnecting). Past a session timeout
    // without an answer the wait ends: the hold is released all the same,
    // and the delete goes on in the background (or the node with its
    // session).
    absl::Time bound = MonoNow() + client_->AnswerBound();
    Client::BlockingWait blocking(client_.get());
    while (reaper_.Deleting(name) && !client_->closed()) {
      if (blocking.Await(bound) && reaper_.Deleting(name)) {
        client_->Log(ZKL_LOG_WARN, "zkl", "the release of " + path_ + " got no answer within a session timeout: "
                                          "its node is deleted in the background");
        return ZKL_ETIMEDOUT;
      }
    }
  }
  return static_cast<int>(request);
}

int Contender::Resign() {
  // An election's release: leave the election, as leader or from the line.
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (client_->closed()) return ZKL_ECLOSED;
  if (hold_.count > 0) return ReleaseLocked(owner_, /*wait=*/true);
  lost_owner_.reset();
  if (!want_hold()) return ZKL_ENOTHELD;
  Fail(ZKL_ECANCELED);
  return ZKL_OK;
}

int64_t Contender::ValidForMs() const {
  // Computed now, from the monotonic clock: a hold is trusted only while the
  // server cannot yet have expired the session, whatever the I/O thread has
  // (or has not yet) noticed.
  if (!held()) return 0;
  if (client_->lying_is_held()) return 60 * 60 * 1000;  // test switch: the fence must cope
  if (hold_.suspended) return 0;
  absl::Duration left = client_->LeaseDeadline() - MonoNow();
  return left > absl::ZeroDuration() ? absl::ToInt64Milliseconds(left) : 0;
}

int Contender::ValidFor(int64_t *ms) {
  MutexLock lock(&client_->mu());
  *ms = 0;
  if (destroyed_) return ZKL_EBADHANDLE;
  *ms = ValidForMs();
  return *ms > 0 ? ZKL_OK : ZKL_ENOTHELD;
}

int Contender::IsHeld() {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  return ValidForMs() > 0 ? 1 : 0;
}

int Contender::FencingToken(uint64_t *out) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  if (!held()) return ZKL_ENOTHELD;
  *out = own_.czxid();
  return ZKL_OK;
}

int Contender::GuardLocked(uint64_t owner, WriteGuard *guard) {
  if (client_->closed()) return ZKL_ECLOSED;
  if (hold_.count == 0) return lost_owner_ == owner ? ZKL_ELOST : ZKL_ENOTHELD;
  if (owner != owner_) return ZKL_ENOTOWNER;
  if (!held() || !own_.named()) return ZKL_ENOTHELD;
  // A suspended hold still sends: the check decides at the quorum, once the
  // session is heard from again.
  guard->checks.push_back(ZkOp{ZkOp::kCheck, OwnPath(), std::string(), 0, -1});
  // The quorum saying the node is gone is news to this hold: it is lost.
  guard->on_gone.push_back([weak = self(), node = own_.name()] {
    auto me = std::static_pointer_cast<Contender>(weak.lock());
    if (!me) return;
    me->client_->mu().AssertHeld();  // the write's answer runs under it
    if (me->held() && me->own_.name() == node) me->NodeGone();
  });
  guard->owner = owner;
  guard->token = own_.czxid();
  return ZKL_OK;
}

int Contender::Write(uint64_t owner, zkl_ops *ops, bool async) {
  MutexLock lock(&client_->mu());
  if (!async) ResetResults(ops);
  if (destroyed_) return ZKL_EBADHANDLE;
  if (group_ != nullptr) return ZKL_EBUSY;
  if (ops->ops.empty()) return ZKL_EINVAL;
  for (const ZkOp &op : ops->ops) {
    if (!InTree(op)) return ZKL_EBADPATH;
  }
  WriteGuard guard;
  if (int rc = GuardLocked(owner, &guard)) return rc;
  guard.handle = self().lock();
  guard.cb = cb_;
  guard.user_data = user_data_;
  return RunGuardedWrite(*client_, std::move(guard), ops, async);
}

int Contender::Proclaim(std::string_view data) {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  WriteGuard guard;
  if (int rc = GuardLocked(owner_, &guard)) return rc;
  // The node's new data, with data_ as it is until the write is answered:
  // a refused write rejoins from inside its answer (the node is gone), and
  // that rejoin must publish the id in force, not the refused one.
  std::string before = std::move(data_);
  data_ = std::string(data);
  std::string node_data = NodeData();
  data_ = std::move(before);
  zkl_ops ops;
  if (int rc = AddOp(&ops, ZkOp{ZkOp::kSetData, OwnPath(), std::move(node_data), 0, -1})) return rc;
  int rc = RunGuardedWrite(*client_, std::move(guard), &ops, /*async=*/false);
  // Applied, or maybe: a later rejoin publishes what the leader last asked for.
  if (rc == ZKL_OK || rc == ZKL_EINDOUBT) data_ = std::string(data);
  return rc;
}

int Contender::HoldCount() {
  MutexLock lock(&client_->mu());
  if (destroyed_) return ZKL_EBADHANDLE;
  return static_cast<int>(hold_.count);  // 0 unless held
}

void Contender::Destroy() {
  MutexLock lock(&client_->mu());
  if (destroyed_) return;
  destroyed_ = true;
  client_->Retire(std::static_pointer_cast<Listener>(self().lock()));
  if (pending()) {
    Fail(ZKL_ECANCELED);
  } else if (held()) {
    EnterPhase(Phase::kIdle);
    DeleteOwn();
  }
  FlushDeferred();  // nothing follows a destroyed handle's release
  attempt_.deadline = absl::InfiniteFuture();
  ArmTimer();
  MaybeRetire();
}

// ---------------------------------------------------------------------------
// The state machine
// ---------------------------------------------------------------------------

// Submission result of a request: false when it was not sent (then we
// retry once the session is usable again).
bool Contender::Submitted(ZkRc zrc) {
  if (zrc == ZkRc::kOk) return true;
  resync_needed_ = true;
  return false;
}

void Contender::Begin() {
  if (own_.creating()) return;  // its replies go on
  // A sequential node's delete may still be on its way: the create goes out
  // behind it (ZooKeeper keeps one session's order), so a release and the
  // next acquire cost one round trip together. A fixed node has one name
  // for every acquisition: there the create waits for the delete.
  if (fixed() && !reaper_.empty()) return;
  if (own_.none()) {
    SendCreate();
  } else {
    Check();
  }
}

void Contender::SendCreate() {
  Client::SendBatch batch(client_.get());  // the requests below: one write
  const std::string &uuid = own_.UuidForCreate();
  attempt_.first = false;
  attempt_.follows.reset();
  attempt_.by_number = false;
  if (rule_->max_leases() > 0) {
    // Pipelined: lease count, create, children — one round trip.
    if (!Submitted(client_->GetData(this, kLeaseCount, path_, false))) return;
  }
  std::string path = fixed() ? FixedPath()
                             : JoinPath(path_, ProtectedPrefix(uuid) + std::string(rule_->label()));
  int flags = fixed() ? kEphemeral : kEphemeral | kSequential;
  // Another handle's release held back on this path goes out first.
  client_->SendDeferredDeletes(path_, this);
  const std::string *deferred = reaper_.FirstDeferred();
  if (deferred != nullptr && !fixed()) {
    // An async release still waits to be sent: it goes out with this create
    // as one transaction (one round trip, one log write on the server), and
    // never behind it.
    std::vector<ZkOp> ops(2);
    ops[0].type = ZkOp::kDelete;
    ops[0].path = JoinPath(path_, *deferred);
    ops[1].type = ZkOp::kCreate;
    ops[1].path = path;
    ops[1].data = NodeData();
    ops[1].mode = flags;
    // The released node held with none ahead: the new node's number tells
    // whether it is first (GrantIfNextNumber), so no children read follows.
    std::optional<int64_t> follows;
    if (*deferred == granted_first_) follows = SequenceOf(*deferred);
    if (!Submitted(client_->Multi(this, kReleaseAndCreate, std::move(ops)))) return;
    reaper_.TakenAlong(*client_);
    attempt_.follows = follows;
    ArmTimer();
  } else if (!Submitted(client_->CreateNode(this, kCreate, path, NodeData(), flags))) {
    return;
  }
  own_.CreateSent();
  if (!fixed() && !attempt_.follows) {
    // Same session, so the server answers after the create: one round trip
    // tells whether we hold.
    Submitted(client_->GetChildren(this, kChildren, path_, /*watch=*/false));
  }
}

void Contender::Check() {
  if (fixed()) {
    Submitted(client_->GetData(this, kFixedData, FixedPath(), want_hold()));
  } else {
    // Without a watch, a semaphore's first in line too: woken, it mostly
    // holds after this read (a release woke it), and a watch set by it
    // would stay armed on a holder, waking it for nothing at the next
    // change (its own release included). Still first: Evaluate reads again
    // with the watch (a change in between shows in that answer).
    Submitted(client_->GetChildren(this, kChildren, path_, false));
  }
}

void Contender::Resync() {
  resync_needed_ = false;
  SendDeletes();
  if (want_hold() && held()) {
    // A held node lives as long as the session; its watch may need setting.
    if (on_revoke_ != ZKL_REVOKE_IGNORE) WatchOwnNode();
    return;
  }
  if (!want_hold() && (own_.none() || own_.creating())) {
    MaybeRetire();
    return;
  }
  if (own_.creating() || (fixed() && !reaper_.empty())) return;
  if (own_.none()) {
    if (want_hold()) SendCreate();
    return;
  }
  if (!want_hold() && own_.named()) {
    DeleteOwn();
    return;
  }
  Check();
}

void Contender::ResyncWhenConnected() {
  // A request failed with a connection loss: its effect is unknown. Look
  // again once ZooKeeper is connected (requests sent now would only fail).
  if (attempt_.no_wait && pending()) {
    // A try (or zero timeout) does not wait for a reconnect; its node, if
    // the create got through, is cleaned up after the reconnect.
    Fail(ZKL_ECONNECTION);
  }
  if (client_->zk_connected()) {
    Resync();
  } else {
    resync_needed_ = true;
  }
}

void Contender::OnReply(const Reply &r) {
  if (r.rc == ZkRc::kSessionMoved) {
    // The session lives on another server now; the request's effect is as
    // unknown as after a connection loss (no OnSessionLost follows: waiting
    // for one would hang the acquire). Look again.
    Reply moved = r;
    moved.rc = ZkRc::kConnectionLoss;
    OnReply(moved);
    return;
  }
  if (IsSessionGone(r.rc)) return;  // OnSessionLost resets everything
  if (r.rc == ZkRc::kOther && pending()) {
    // An answer the steps below do not expect (a throttled request...):
    // the acquire ends with it rather than wait for a step that never comes.
    Fail(ZKL_EZOOKEEPER);
    return;
  }
  switch (r.op) {
    case kCreate: CreateDone(r.rc, r.value, r.stat); break;
    case kReleaseAndCreate: OnReleaseAndCreate(r); break;
    case kChildren:
    case kChildrenWatched: OnChildren(r); break;
    case kWatchNode: OnWatchedNode(r); break;
    case kOwnData: OnOwnData(r); break;
    case kDelete: DeleteDone(std::string(Basename(*r.path)), r.rc); break;
    case kDeleteCheck: DeleteCheckDone(std::string(Basename(*r.path)), r); break;
    case kRevokeWatch: OnRevokeWatch(r); break;
    case kParent: OnParentCreated(r); break;
    case kLeaseCount: OnLeaseCount(r); break;
    case kFixedData: OnFixedData(r); break;
    default: break;
  }
}

// multi(delete the released node, create the next one): both or none.
void Contender::OnReleaseAndCreate(const Reply &r) {
  const ZkOpResult *del = r.results && r.results->size() == 2 ? &(*r.results)[0] : nullptr;
  const ZkOpResult *create = del ? &(*r.results)[1] : nullptr;
  std::string released = reaper_.TakeCoalesced();
  std::optional<int64_t> follows = std::exchange(attempt_.follows, std::nullopt);
  if (r.rc == ZkRc::kOk && del && create) {
    DeleteDone(released, ZkRc::kOk);
    CreateDone(ZkRc::kOk, create->value, &create->stat);
    if (follows) GrantIfNextNumber(*follows);
  } else if (IsConnectionError(r.rc)) {
    DeleteDone(released, r.rc);  // retried after reconnecting
    CreateDone(r.rc, {}, nullptr);
  } else if (del && del->rc == ZkRc::kNoNode) {
    // The released node was gone already: only the create is left.
    DeleteDone(released, ZkRc::kNoNode);
    own_.CreateFailed();
    if (want_hold()) SendCreate(); else MaybeRetire();
  } else {
    // The create failed (e.g. the parent is gone), so nothing happened:
    // delete the old node on its own, and handle the create's error.
    reaper_.Requeue(released);
    SendDeletes();
    CreateDone(create ? create->rc : r.rc, {}, nullptr);
  }
}

// A multi deleted our node numbered `released`, which held with no node
// ahead, and created our next one. Sequence numbers are the parent's
// cversion, which every create moves by one; a delete never does, and the
// parent, never empty meanwhile, cannot have been replaced (a container
// with children is not deleted). So the next number means no create came in
// between: no node can be ahead of the new one, as good as a children read
// showing none (docs/SAFETY.md). Any other number: read the children.
void Contender::GrantIfNextNumber(int64_t released) {
  if (!want_hold() || held() || !own_.known()) return;  // deleted, or decided
  std::optional<int64_t> seq = SequenceOf(own_.name());
  if (seq && *seq == released + 1 && rule_->Decide({{*seq, own_.name()}}, 0).holds) {
    attempt_.first = true;
    attempt_.by_number = true;
    Granted();
  } else {
    Check();
  }
}

// The lock's children: decide, or find a node whose create reply was lost.
void Contender::OnChildren(const Reply &r) {
  if (r.rc == ZkRc::kOk) {
    Evaluate(*r.children, r.op == kChildrenWatched);
  } else if (r.rc == ZkRc::kNoNode) {
    if (own_.named()) {
      NodeGone();  // the lock node went, and ours with it
    } else if (own_.unknown()) {
      // No lock node, so the create whose reply was lost made nothing.
      own_.NotFound();
      if (want_hold()) SendCreate(); else MaybeRetire();
    }
  } else if (IsConnectionError(r.rc)) {
    ResyncWhenConnected();
  }
}

// The node the rule says to wait for: its existence read set the watch.
void Contender::OnWatchedNode(const Reply &r) {
  if (*r.path != attempt_.watched || !want_hold() || held()) return;
  if (r.rc == ZkRc::kNoNode) {
    // Gone before the watch was set: as good as a deletion.
    attempt_.watched.clear();
    if (attempt_.holds_when_watched_goes && own_.named()) {
      Granted();
    } else {
      Check();
    }
  } else if (IsConnectionError(r.rc)) {
    // The watch may be set on no server (the C client restores only
    // the watches whose reads were answered): set it again.
    attempt_.watched.clear();
    ResyncWhenConnected();
  } else if (r.rc == ZkRc::kOk && rule_->hands_off() && r.stat != nullptr && r.stat->version > 0) {
    // Touched before our watch was set: its owner already holds and handed
    // first place on (semaphore.cc); the touch that would have woken us
    // came too early. Look again, or we would sleep past every lease
    // freed until our predecessor goes.
    Check();
  }
}

// Our node found again by its uuid: is it this session's?
void Contender::OnOwnData(const Reply &r) {
  if (r.rc == ZkRc::kOk) {
    if (static_cast<uint64_t>(r.stat->ephemeral_owner) == client_->session_id()) {
      own_.Confirmed(static_cast<uint64_t>(r.stat->czxid));
      if (want_hold()) {
        Check();
      } else {
        DeleteOwn();
      }
    } else {
      // Same uuid, other session: not ours (cannot happen with random
      // uuids, but never adopt a node we do not own).
      ForgetNode();
      if (want_hold()) SendCreate();
    }
  } else if (r.rc == ZkRc::kNoNode) {
    ForgetNode();
    if (want_hold()) SendCreate(); else MaybeRetire();
  } else if (IsConnectionError(r.rc)) {
    ResyncWhenConnected();
  }
}

// A holder's own node, watched for revocation requests.
void Contender::OnRevokeWatch(const Reply &r) {
  if (!held() || *r.path != OwnPath()) return;
  if (r.rc == ZkRc::kNoNode) {
    NodeGone();
  } else if (r.rc == ZkRc::kOk && r.data == kRevokeMarker && !hold_.revoke_seen) {
    // Someone asked us to let go (zkl_revoke, or Curator's Revoker).
    hold_.revoke_seen = true;
    stats_.Revoked();
    Notify(ZKL_EVENT_REVOKE_REQUESTED, 0, own_.czxid());
    if (on_revoke_ == ZKL_REVOKE_RELEASE) EndHold(ZKL_EREVOKED);
  } else if (IsConnectionError(r.rc)) {
    resync_needed_ = true;  // set the watch again once connected
  }
}

void Contender::OnParentCreated(const Reply &r) {
  // Missing parents are created on the way; only a refusal matters, or
  // a missing root (the client's chroot does not exist).
  if (r.rc == ZkRc::kNoAuth && want_hold()) Fail(ZKL_EAUTH);
  if (r.rc == ZkRc::kNoNode && want_hold()) Fail(ZKL_ENOTFOUND);
}

// A semaphore's lease count, stored on its parent: all must agree.
void Contender::OnLeaseCount(const Reply &r) {
  if (r.rc == ZkRc::kOk && !r.data.empty() && want_hold()) {
    std::string stored(r.data);
    if (stored != std::to_string(rule_->max_leases())) Fail(ZKL_EMISMATCH);
  }
}

// A fixed node (non-fair recipes): ours, another's, or free.
void Contender::OnFixedData(const Reply &r) {
  if (!want_hold()) {
    if (r.rc == ZkRc::kOk && static_cast<uint64_t>(r.stat->ephemeral_owner) == client_->session_id() &&
        r.data.substr(0, ProtectedPrefix(own_.uuid()).size()) == ProtectedPrefix(own_.uuid())) {
      own_.Adopted(std::string(rule_->fixed_node()), static_cast<uint64_t>(r.stat->czxid));
      DeleteOwn();
    } else {
      own_.NotFound();
      MaybeRetire();
    }
    return;
  }
  if (held()) return;
  if (r.rc == ZkRc::kOk) {
    std::string_view data = r.data;
    std::string prefix = ProtectedPrefix(own_.uuid());
    bool ours = !own_.uuid().empty() &&
                static_cast<uint64_t>(r.stat->ephemeral_owner) == client_->session_id() &&
                data.substr(0, prefix.size()) == prefix;
    own_.NotFound();  // the node there answers for a lost create of ours
    if (ours) {
      own_.Adopted(std::string(rule_->fixed_node()), static_cast<uint64_t>(r.stat->czxid));
      Granted();
    } else if (attempt_.no_wait) {
      Fail(attempt_.mode == Mode::kTry ? ZKL_EAGAIN : ZKL_ETIMEDOUT);
    } else {
      attempt_.watched = FixedPath();
      if (role_ == Role::kElection && !attempt_.announced_waiting) {
        attempt_.announced_waiting = true;
        Notify(ZKL_EVENT_NOT_ELECTED, 0, 0, attempt_.request);
      }
    }
  } else if (r.rc == ZkRc::kNoNode) {
    own_.NotFound();
    SendCreate();  // free: race for it
  } else if (IsConnectionError(r.rc)) {
    ResyncWhenConnected();
  }
}

void Contender::CreateDone(ZkRc rc, std::string_view value, const NodeStat *stat) {
  if (rc == ZkRc::kOk) {
    own_.Created(std::string(Basename(value)), static_cast<uint64_t>(stat->czxid));
    // A semaphore's waiter of this client behind it can watch it locally.
    if (rule_->hands_off() && !fixed()) client_->NoteLocalNode(OwnPath());
    if (!want_hold()) {
      DeleteOwn();
    } else if (fixed()) {
      Granted();
    }
    // Sequential: the pipelined children reply follows and decides.
    return;
  }
  if (IsConnectionError(rc)) {
    own_.CreateLost();
    ResyncWhenConnected();
    return;
  }
  own_.CreateFailed();
  if (rc == ZkRc::kNoNode) {
    if (want_hold() && ++attempt_.create_attempts > kMaxCreateAttempts) {
      Fail(ZKL_EZOOKEEPER);  // parents keep vanishing: give up loudly
    } else if (want_hold()) {
      std::string leaf;
      if (rule_->max_leases() > 0) leaf = std::to_string(rule_->max_leases());
      client_->EnsurePath(this, kParent, path_, leaf);
      SendCreate();
    } else {
      MaybeRetire();
    }
  } else if (rc == ZkRc::kNodeExists && fixed()) {
    if (want_hold()) Check();
  } else {
    Fail(ZkError(rc));
  }
}

void Contender::DeleteDone(const std::string &name, ZkRc rc) {
  NodeReaper::Outcome outcome = reaper_.OnDeleteAnswer(name, rc);
  switch (outcome.kind) {
    case NodeReaper::Outcome::Kind::kNotListed: return;
    case NodeReaper::Outcome::Kind::kInDoubt: ResyncWhenConnected(); break;
    default: Reaped(outcome); break;
  }
  client_->Changed();
}

void Contender::DeleteCheckDone(const std::string &name, const Reply &r) {
  NodeReaper::Outcome outcome = reaper_.OnCheckAnswer(*client_, name, r);
  switch (outcome.kind) {
    case NodeReaper::Outcome::Kind::kInDoubt: ResyncWhenConnected(); break;
    case NodeReaper::Outcome::Kind::kUnsent: resync_needed_ = true; break;
    case NodeReaper::Outcome::Kind::kGone:
      Reaped(outcome);
      client_->Changed();
      break;
    default: break;
  }
}

void Contender::Reaped(const NodeReaper::Outcome &gone) {
  if (gone.release) Notify(ZKL_EVENT_RELEASED, gone.error, 0, *gone.release);
  if (want_hold() && fixed()) Begin();  // a fixed node's create waits for it
  MaybeRetire();
}

void Contender::Evaluate(const std::vector<std::string_view> &children, bool watched_children) {
  if (own_.creating()) return;  // the create's reply comes first
  if (own_.none()) return;       // reply to a failed create's pipelined read
  if (own_.unknown()) {
    // Find our node by its protected prefix (a create whose reply was lost).
    std::string prefix = ProtectedPrefix(own_.uuid());
    for (std::string_view name : children) {
      if (name.substr(0, prefix.size()) == prefix) {
        Adopt(std::string(name));
        return;
      }
    }
    own_.NotFound();
    if (want_hold()) {
      SendCreate();
    } else {
      MaybeRetire();
    }
    return;
  }
  if (!want_hold()) {
    DeleteOwn();
    return;
  }
  if (held()) return;
  if (!own_.known()) {
    // Found again by its prefix but not yet confirmed as ours (owner and
    // czxid unread): never grant on it. The answer evaluates again.
    Adopt(own_.name());
    return;
  }

  // Only the nodes up to our own matter to every rule (nobody behind us is
  // in our way), so a deep queue costs one pass, not a sort of all of it.
  std::optional<int64_t> own_seq = SequenceOf(own_.name());
  std::vector<QueueEntry> queue = BuildQueue(*rule_, children, own_seq);
  std::string_view own_name = own_.name();  // a copy the lambda may read
  auto own = std::find_if(queue.begin(), queue.end(),
                          [&](const QueueEntry &e) { return e.name == own_name; });
  if (own == queue.end()) {
    NodeGone();
    return;
  }
  Decision d = rule_->Decide(queue, static_cast<size_t>(own - queue.begin()));
  if (d.holds) {
    if (attempt_.wait != Attempt::Wait::kNotYet && rule_->hands_off()) {
      // Our successor, if any, watches our node: touching it hands it the
      // place of first in line (semaphore.cc).
      int64_t own_seq_value = own_seq.value_or(0);
      bool successor = std::any_of(children.begin(), children.end(), [&](std::string_view name) {
        return rule_->Participates(name) && *SequenceOf(name) > own_seq_value;
      });
      if (successor) Submitted(client_->SetData(this, kHandOff, OwnPath(), NodeData(), -1));
    }
    if (own == queue.begin()) attempt_.first = true;
    Granted();
    return;
  }
  if (attempt_.wait == Attempt::Wait::kNotYet) attempt_.wait = Attempt::Wait::kBehind;
  if (attempt_.no_wait) {
    Fail(attempt_.mode == Mode::kTry ? ZKL_EAGAIN : ZKL_ETIMEDOUT);
    return;
  }
  if (role_ == Role::kElection && !attempt_.announced_waiting) {
    attempt_.announced_waiting = true;
    Notify(ZKL_EVENT_NOT_ELECTED, 0, 0, attempt_.request);
  }
  attempt_.wait = d.watch < 0 ? Attempt::Wait::kFirst : Attempt::Wait::kBehind;
  if (d.watch < 0) {
    attempt_.holds_when_watched_goes = false;
    if (watched_children) {
      attempt_.watched = path_;  // the children watch was set by the read itself
    } else {
      // First in line, read without a watch: read again with one (a change
      // in between shows in that answer).
      attempt_.watched.clear();
      Submitted(client_->GetChildren(this, kChildrenWatched, path_, true));
    }
    return;
  }
  std::string target = JoinPath(path_, queue[static_cast<size_t>(d.watch)].name);
  if (target == attempt_.watched) return;  // already watching it
  attempt_.watched = target;
  attempt_.holds_when_watched_goes = d.holds_when_watched_goes;
  bool touched = false;
  if (rule_->hands_off() && client_->WatchLocalNode(this, target, &touched)) {
    // Our predecessor is a node of this client: its hand-off touch and its
    // delete are this client's requests, whose answers wake us (no server
    // notification). Touched already: it holds, so look again now.
    if (touched) {
      attempt_.watched.clear();
      Check();
    }
    return;
  }
  // getData, not exists: if the node is already gone we learn it without
  // leaving a watch behind on a path that may never exist again.
  Submitted(client_->GetData(this, kWatchNode, attempt_.watched, true));
}

void Contender::Adopt(const std::string &name) {
  own_.Found(name);
  // Confirm ownership (ephemeralOwner == our session) and learn the czxid.
  Submitted(client_->GetData(this, kOwnData, OwnPath(), false));
}

void Contender::OnWatch(WatchType type, const std::string &path) {
  if (held() && own_.named() && path == OwnPath()) {
    // The own node's watch (revocable holds): a revocation marker, or the
    // node is gone.
    if (type == WatchType::kDeleted) {
      NodeGone();
    } else if (type == WatchType::kDataChanged) {
      WatchOwnNode();
    }
    return;
  }
  if (!want_hold() || held() || path != attempt_.watched) return;
  attempt_.watched.clear();
  if (fixed()) {
    if (type == WatchType::kDeleted) {
      SendCreate();
    } else {
      Check();
    }
  } else if (type == WatchType::kDeleted && attempt_.holds_when_watched_goes && own_.named()) {
    Granted();
  } else {
    Check();
  }
}

void Contender::EnterPhase(Phase next) {
  bool was_held = phase_ == Phase::kHeld;
  bool held = next == Phase::kHeld;
  phase_ = next;
  if (held == was_held) return;
  if (held) {
    stats_.HoldStarted(MonoNow());
  } else {
    SetSuspended(false);
    hold_ = Hold{};  // what the hold carried ends with it
    stats_.HoldEnded(MonoNow());
  }
  client_->AdjustHeld(held ? 1 : -1);
}

void Contender::Granted() {
  if (client_->LeaseDeadline() <= MonoNow()) {
    AwaitProof();
    return;
  }
  attempt_.awaiting_proof = false;
  stats_.Granted(MonoNow());
  if (std::exchange(attempt_.by_number, false)) stats_.GrantedWithoutRead();
  EnterPhase(Phase::kHeld);
  SetSuspended(false);
  hold_.count = 1;
  hold_.revoke_seen = false;
  granted_first_ = std::exchange(attempt_.first, false) ? own_.name() : std::string();
  if (max_hold_ > absl::ZeroDuration()) hold_.deadline = MonoNow() + max_hold_;
  attempt_.watched.clear();
  attempt_.deadline = absl::InfiniteFuture();
  ArmTimer();
  if (on_revoke_ != ZKL_REVOKE_IGNORE) WatchOwnNode();
  if (attempt_.mode == Mode::kAsync) {
    Notify(role_ == Role::kElection ? ZKL_EVENT_ELECTED : ZKL_EVENT_ACQUIRED, 0, own_.czxid(), attempt_.request);
  }
  Finish(ZKL_OK);
}

void Contender::AwaitProof() {
  // First in line, but the quorum has not proven the session for as long as
  // is safe (granted right after a freeze: the answers that put us first may
  // be older than the session's expiry, and the lock another's by now). The
  // grant waits for the next proof (a heartbeat or two): then the session,
  // and with it our node, provably lives, and no node can have come ahead of
  // ours since the read. The deadline still runs; a lost session restarts
  // the attempt in the next one (OnSessionLost). docs/SAFETY.md.
  if (attempt_.awaiting_proof) return;
  attempt_.awaiting_proof = true;
  stats_.ProofWaited();
  client_->Log(ZKL_LOG_DEBUG, "zkl", path_ + ": first in line while the session is not proven: waiting for the quorum's proof");
  client_->CallWhenProven(this);
}

void Contender::OnProven() {
  if (pending() && attempt_.awaiting_proof) {
    attempt_.awaiting_proof = false;
    Granted();
  }
}

void Contender::SetSuspended(bool suspended) {
  if (suspended == hold_.suspended) return;
  hold_.suspended = suspended;
  if (suspended) {
    stats_.Suspended(MonoNow());
  } else {
    stats_.Resumed(MonoNow());
  }
}

void Contender::Finish(int rc) {
  if (done_seq_ < request_seq_) {
    done_seq_ = request_seq_;
    done_rc_ = rc;
  }
  client_->Changed();
}

void Contender::Fail(int error) {
  // The acquire request ends with `error`; its node (known or possible) goes.
  bool was_pending = pending();
  if (was_pending) stats_.AcquireFailed(error);
  EnterPhase(Phase::kIdle);
  attempt_.watched.clear();
  attempt_.deadline = absl::InfiniteFuture();
  ArmTimer();
  if (was_pending && attempt_.mode == Mode::kAsync && !destroyed_) {
    Notify(ZKL_EVENT_ACQUIRE_FAILED, error, 0, attempt_.request);  // carries the owner that asked
  }
  owner_ = 0;
  Finish(error);
  if (own_.named()) {
    DeleteOwn();
  } else if (own_.unknown()) {
    ResyncWhenConnected();  // find the node the lost reply would have named
  }
  MaybeRetire();
}

void Contender::Lost(int error, uint64_t token) {
  stats_.Lost(error);
  // A lock is let go; an election candidate stays in the race.
  EnterPhase(role_ == Role::kLock ? Phase::kIdle : Phase::kRejoining);
  if (!destroyed_) Notify(ZKL_EVENT_LOST, error, token);
  if (role_ == Role::kLock) {
    lost_owner_ = owner_;
    owner_ = 0;
  } else {
    // It rejoins by itself, on no call of the user's (its events carry no
    // request id): the attempt that was granted goes on as the rejoin's.
    attempt_.request = 0;
    attempt_.announced_waiting = false;
    attempt_.mode = Mode::kAsync;
    attempt_.no_wait = false;  // a won try's "do not queue" ended with it
    attempt_.create_attempts = 0;
  }
  client_->Changed();
}

void Contender::WatchOwnNode() {
  Submitted(client_->GetData(this, kRevokeWatch, OwnPath(), true));
}

void Contender::EndHold(int error) {
  uint64_t token = own_.czxid();
  uint64_t owner = owner_;
  stats_.Lost(error);
  EnterPhase(Phase::kIdle);  // an election leaves too: it was told to let go
  DeleteOwn();
  if (!destroyed_) Notify(ZKL_EVENT_LOST, error, token);
  lost_owner_ = owner;
  owner_ = 0;
  ArmTimer();
  client_->Changed();
}

void Contender::NodeGone() {
  // Our node disappeared while the session lives (lock node deleted by an
  // administrator, or a container cleanup race).
  bool was_held = held();
  uint64_t token = own_.czxid();
  // A waiter of this client behind it may watch it locally: no request of
  // ours deleted it, so nothing else would tell that waiter.
  if (own_.named()) client_->LocalNodeChanged(OwnPath(), /*deleted=*/true);
  ForgetNode();
  if (was_held) Lost(ZKL_ELOST, token);
  if (want_hold()) {
    attempt_.create_attempts = 0;
    SendCreate();
  } else {
    MaybeRetire();
  }
}

void Contender::DeleteOwn(std::optional<uint64_t> release, bool defer) {
  if (!own_.named()) {
    // Nothing to delete: the release is complete (one RELEASED per async call).
    if (release) Notify(ZKL_EVENT_RELEASED, 0, 0, *release);
    return;
  }
  if (defer) {
    // An acquire that follows at once takes the delete along (SendCreate);
    // otherwise it goes out alone a moment later.
    reaper_.AddDeferred(*client_, own_.name(), release);
    ForgetNode();
    ArmTimer();
  } else {
    reaper_.Add(own_.name(), release);
    ForgetNode();
    SendDeletes();
  }
}

void Contender::SendDeletes() {
  if (!reaper_.Send(*client_)) resync_needed_ = true;  // sent again once connected
}

void Contender::FlushDeferred() {
  if (!reaper_.Flush(*client_)) resync_needed_ = true;
}

void Contender::ArmTimer() {
  absl::Time when = std::min(reaper_.flush_deadline(), hold_.deadline);
  if (pending()) when = std::min(when, attempt_.deadline);
  client_->SetTimer(this, when);
}

void Contender::ForgetNode() {
  own_.Forget();
  attempt_.watched.clear();
}

void Contender::MaybeRetire() {
  if (destroyed_ && !want_hold() && own_.none() && reaper_.empty()) {
    client_->RemoveListener(public_id());  // may free *this: nothing after it
  }
}

uint64_t Contender::NewRequestId(Mode mode) {
  return mode == Mode::kAsync && group_ == nullptr ? client_->NextRequestId() : 0;
}

void Contender::Notify(int type, int error, uint64_t token, uint64_t request) {
  if (group_ != nullptr) {
    // A multi-lock's member: its group hears it, the user does not.
    group_->OnMemberEvent(this, type, error, token);
    return;
  }
  if (destroyed_) return;
  auto ev = std::make_unique<zkl_event>();
  ev->type = type;
  ev->error = error;
  ev->owner = owner_;
  ev->fencing_token = token;
  ev->request_id = request;
  ev->handle = self().lock();
  ev->cb = cb_;
  ev->user_data = user_data_;
  client_->Emit(std::move(ev));
}

// ---------------------------------------------------------------------------
// Session changes
// ---------------------------------------------------------------------------

void Contender::OnConnected(bool same_session) {
  if (same_session) {
    if (held() && hold_.suspended) {
      SetSuspended(false);
      Notify(ZKL_EVENT_RESTORED, 0, own_.czxid());
    }
    if (resync_needed_) {
      Resync();  // a grant waiting for its proof is decided again from a new read
    } else {
      OnProven();  // a resumed session is proven by its handshake
    }
    return;
  }
  // A brand-new session: nothing of ours exists on the server (a create
  // whose answer was lost made the old session's node, never ours now). A
  // create queued while connecting is on its way already; otherwise send one.
  resync_needed_ = false;
  if (pending() && (own_.none() || own_.unknown())) {
    attempt_.create_attempts = 0;
    SendCreate();
  }
}

void Contender::OnSuspended() {
  if (held() && !hold_.suspended) {
    SetSuspended(true);
    Notify(ZKL_EVENT_SUSPENDED, 0, own_.czxid());
  }
  // A try does not wait for a reconnect, nor for a proof across one.
  if (pending() && attempt_.awaiting_proof && attempt_.no_wait && !client_->connected()) Fail(ZKL_ECONNECTION);
}

void Contender::OnSessionLost(int error) {
  bool was_held = held();
  uint64_t token = own_.czxid();
  ForgetNode();
  resync_needed_ = false;
  bool was_awaiting_proof = attempt_.awaiting_proof;
  attempt_.awaiting_proof = false;  // its node went with the session
  // Released nodes died (or will die) with the session: each release is complete.
  for (uint64_t release : reaper_.DropAll()) Notify(ZKL_EVENT_RELEASED, 0, 0, release);
  if (was_held) Lost(error == ZKL_EAUTH ? ZKL_EAUTH : ZKL_ESESSION, token);
  if (pending() && error == ZKL_EAUTH) Fail(ZKL_EAUTH);
  if (pending() && was_awaiting_proof && attempt_.no_wait) Fail(ZKL_ECONNECTION);  // a try starts no new session's
  client_->Changed();
  MaybeRetire();
}

void Contender::OnTimer() {
  absl::Time now = MonoNow();
  if (reaper_.flush_deadline() <= now) FlushDeferred();
  if (held() && hold_.deadline <= now) EndHold(ZKL_EMAXHOLD);
  if (pending() && attempt_.deadline <= now) {
    Fail(ZKL_ETIMEDOUT);
  } else {
    ArmTimer();
  }
}

void Contender::OnClientClosed() {
  // The session's close deletes every node; end what is pending, and tell a
  // holder that its hold ends (a close is a loss to it, never a release).
  if (pending()) Fail(ZKL_ECLOSED);
  if (held()) Lost(ZKL_ECLOSED, own_.czxid());
  EnterPhase(Phase::kIdle);
  ForgetNode();
  // Released nodes go with the closed session too: each async release gets
  // its one RELEASED, as on a session loss.
  for (uint64_t release : reaper_.DropAll()) Notify(ZKL_EVENT_RELEASED, 0, 0, release);
  client_->Changed();
}

void Contender::WriteStats(JsonWriter &j) {
  if (destroyed_) return;
  j.BeginObject();
  j.Field("handle", public_id());
  j.Field("type", role_ == Role::kElection ? "election" : "lock");
  j.Field("path", path_);
  j.Field("kind", kind_name_);
  j.Field("held", held());
  stats_.Write(j, hold_.suspended, MonoNow());
  j.EndObject();
}

}  // namespace zkl
