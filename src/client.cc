#include "client.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "client_options.h"
#include "ensemble_config.h"
#include "json.h"
#include "paths.h"
#include "sigpipe.h"

namespace zkl {

// The context of one asynchronous request: who asked, on which session.
struct Request {
  std::weak_ptr<Listener> listener;  // empty for heartbeats
  uint64_t generation;
  int op;
  std::string path;
  absl::Time sent;
  bool heartbeat = false;  // a sync that feeds the quorum proof
  bool ensemble_config = false;  // a read of /zookeeper/config
  // What the request changes of a node, for the local watches
  // (Client::WatchLocalNode): a set or a delete of `path`; a multi lists
  // its sets and deletes of local nodes instead.
  enum class Change : uint8_t { kNone, kSet, kDelete } change = Change::kNone;
  struct MultiChange {
    size_t index;  // of the operation
    std::string path;
    bool deletes;
  };
  std::vector<MultiChange> multi_changes{};
};

namespace {

// Log lines waiting for dispatch beyond this are dropped (and counted), so a
// host that never dispatches cannot make zkl grow without bound.
constexpr size_t kMaxPendingLogs = 1000;

// The watch on /zookeeper/config: an odd number, which no handle id is.
constexpr uint64_t kEnsembleWatcher = 1;

// The longest time between two PINGs of the leader to a follower, which
// forward the session's touches (quorum_proof.h): tickTime / 2, and the
// server's tickTime is at most half the negotiated session timeout (its
// minSessionTimeout defaults to 2 x tickTime; docs/SAFETY.md), plus time for
// the leader's thread to run.
absl::Duration LeaderPingInterval(int negotiated_timeout_ms) {
  return absl::Milliseconds(negotiated_timeout_ms) / 4 + absl::Milliseconds(100);
}

const char *LevelName(int level) {
  static const char *names[] = {"off", "error", "warn", "info", "debug"};
  return level >= 0 && level <= ZKL_LOG_DEBUG ? names[level] : "?";
}

const char *StateName(int state) {
  switch (state) {
    case ZKL_SESSION_CONNECTING: return "connecting";
    case ZKL_SESSION_CONNECTED: return "connected";
    case ZKL_SESSION_SUSPENDED: return "suspended";
    case ZKL_SESSION_RECONNECTED: return "reconnected";
    case ZKL_SESSION_LOST: return "lost";
    case ZKL_SESSION_CLOSED: return "closed";
    case ZKL_SESSION_AUTH_FAILED: return "auth_failed";
    default: return "unknown";
  }
}

}  // namespace

Client::Client() : Handle(HandleKind::kClient) {}

Client::~Client() { Close(); }

int Client::Create(const zkl_client_options &opts, std::shared_ptr<Client> *out, std::string *why) {
  return Create(opts, &ZkSession::Open, out, why);
}

int Client::Create(const zkl_client_options &opts, ZkSessionFactory factory,
                   std::shared_ptr<Client> *out, std::string *why) {
  // Every option is checked in one place, with a message (client_options.cc).
  if (int rc = CheckClientOptions(opts, why)) return rc;
  bool tls = opts.tls_ca_file != nullptr;  // it turns TLS on
  bool sasl = opts.sasl_mechanism != nullptr;
  std::string hosts = opts.servers;
  if (opts.chroot != nullptr && opts.chroot[0] != '\0') hosts += opts.chroot;

  std::shared_ptr<Client> c(new Client());
  c->session_factory_ = std::move(factory);
  c->connect_.hosts = std::move(hosts);
  if (opts.chroot != nullptr) c->chroot_ = opts.chroot;
  c->connect_.session_timeout_ms = opts.session_timeout_ms > 0 ? opts.session_timeout_ms : 10000;
  c->connect_.creator_acl = opts.acl == ZKL_ACL_CREATOR;
  if (opts.digest_auth) c->connect_.digest = opts.digest_auth;
  // The header's default: a third of the session timeout.
  // 0: a share of the session timeout for each server (ZkSession::Open).
  c->connect_.connect_timeout_ms = opts.connect_timeout_ms;
  if (tls) {
    c->connect_.tls_ca_file = opts.tls_ca_file;
    if (opts.tls_cert_file) c->connect_.tls_cert_file = opts.tls_cert_file;
    if (opts.tls_key_file) c->connect_.tls_key_file = opts.tls_key_file;
    // A secret: kept (for the sessions that replace a lost one) until the
    // client closes, then wiped.
    if (opts.tls_key_password) c->connect_.tls_key_password = opts.tls_key_password;
    c->connect_.tls_verify_hostname = opts.tls_insecure_skip_hostname_check == 0;
  }
  if (sasl) {
    c->connect_.sasl_mechanism = opts.sasl_mechanism;
    if (opts.sasl_user) c->connect_.sasl_user = opts.sasl_user;
    if (opts.sasl_password) c->connect_.sasl_password = opts.sasl_password;  // a secret: wiped on close
    if (opts.sasl_keytab) c->connect_.sasl_keytab = opts.sasl_keytab;
    if (opts.sasl_ccache) c->connect_.sasl_ccache = opts.sasl_ccache;
    if (opts.sasl_service && opts.sasl_service[0]) c->connect_.sasl_service = opts.sasl_service;
    if (opts.sasl_host && opts.sasl_host[0]) c->connect_.sasl_host = opts.sasl_host;
  }
  c->lost_after_ms_ = opts.lost_after_ms;
  c->host_driven_ = opts.io == ZKL_IO_HOST;
  c->session_cb_ = opts.cb;
  c->session_user_data_ = opts.user_data;
  c->log_cb_ = opts.log_cb;
  c->log_user_data_ = opts.log_user_data;
  // With a callback the default is WARN; without one nothing is printed
  // unless a level was asked for.
  c->log_level_ = opts.log_level != ZKL_LOG_OFF ? opts.log_level : opts.log_cb ? ZKL_LOG_WARN : 0;
  c->connect_.log_level = c->log_level_;
  c->stats_interval_ms_ = opts.stats_interval_ms;
  // Test only (the fenced chaos run): holds answer yes without the lease
  // bound, to show that the resource's fence alone keeps the data safe.
  const char *lying = getenv("ZKL_TEST_LYING_IS_HELD");
  c->lying_is_held_ = lying != nullptr && std::string_view(lying) == "1";
  {
    MutexLock lock(&c->mu_);
    if (c->lying_is_held_) {
      c->Log(ZKL_LOG_WARN, "client",
             "ZKL_TEST_LYING_IS_HELD=1: is_held and valid_for ignore the lease bound (a test switch; "
             "never in production)");
    }
    c->connecting_since_ = MonoNow();
    if (c->stats_interval_ms_ > 0) c->stats_due_ = MonoNow() + absl::Milliseconds(c->stats_interval_ms_);
    c->servers_ = opts.servers;
    if (int rc = c->StartSession()) {
      c->WipeSecrets();
      if (rc == ZKL_ECONNECTION && why != nullptr) {
        *why = "servers: not one name of \"" + Printable(opts.servers, 200) + "\" resolves";
      }
      return rc;
    }
  }
  if (c->host_driven_) {
    // Pending events make the host's fd readable too; and a first round of
    // the host's dispatch starts connecting.
    c->loop_.WatchExtra(c->queue_.fd());
    c->loop_.Wake();
  } else {
    c->loop_.ShareSocketWithCaller();  // (where the kernel cannot, blocking calls take the socket)
    c->io_thread_ = std::thread([raw = c.get()] { raw->IoThreadMain(); });
  }
  *out = std::move(c);
  return ZKL_OK;
}

int Client::StartSession() {
  int error = ZKL_OK;
  session_ = session_factory_(connect_, this, &error);
  return session_ ? ZKL_OK : error;
}

void Client::EndSession() {
  if (!session_) return;
  // Bump the generation first: the completions the close runs (kClosing)
  // and anything still on its way are stale.
  uint64_t ended = generation_++;
  local_nodes_.clear();  // the session's nodes go with it (waiters start over)
  std::unique_ptr<ZkSession> old = std::move(session_);
  old.reset();
  FreeAbandonedRequests(ended);
}

void Client::IoThreadMain() {
  BlockSigpipeOnThisThread();  // a write to a closed TLS socket must not kill the host
  for (;;) {
    {
      MutexLock lock(&mu_);
      if (stop_) return;
    }
    loop_.RunOnce(&mu_, this, -1);
  }
}

void Client::Close() {
  {
    MutexLock lock(&mu_);
    if (!closed_) {
      closed_ = true;
      EventBatch batch(this);
      for (auto &l : LiveListeners()) l->OnClientClosed();
      SetState(ZKL_SESSION_CLOSED);
      Log(ZKL_LOG_INFO, "zkl", "client closed");
      // Destroyed handles waiting to clean up: the closing session does it.
      retiring_.clear();
    }
    stop_ = true;
    Changed();
  }
  loop_.Wake();
  if (io_thread_.joinable() && io_thread_.get_id() != std::this_thread::get_id()) {
    io_thread_.join();
  }
  MutexLock lock(&mu_);
  // A host thread inside the loop, or a caller waiting for the socket.
  while (driving_ || caller_driving_) changed_.Wait(&mu_);
  EndSession();  // closes the session on the server (bounded wait)
  WipeSecrets();  // no session follows
}

void Client::WipeSecrets() {
  WipeSecret(connect_.digest);
  WipeSecret(connect_.tls_key_password);
  WipeSecret(connect_.sasl_password);
}

void Client::NoteConnectError() {
  // Why the attempts fail while there is no session (wait_connected
  // reports it): the C client knows after each attempt.
  if (!session_ || connected()) return;
  if (int e = session_->LastConnectError()) last_error_ = e;
}

// ---------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------

void Client::PrepareIo(IoPlan *plan) {
  plan->deadline = NextDeadline();
  if (session_ && !stop_) {
    // Suspended: every server of the list gets a try before the session is
    // given up (a silent one must not eat the time left).
    int budget_ms = 0;
    if (state_ == ZKL_SESSION_SUSPENDED && lost_deadline_ != absl::InfiniteFuture()) {
      absl::Duration left = lost_deadline_ - MonoNow();
      budget_ms = std::max(100, static_cast<int>(absl::ToInt64Milliseconds(left) /
                                                  std::max(1, session_->ServerCount())));
    }
    session_->LimitAttempt(budget_ms);
    ZkSession::Interest in;
    ZkRc rc = session_->GetInterest(&in);
    NoteConnectError();  // the interest call times attempts out
    plan->fd = in.fd;
    plan->socket_serial = in.socket_serial;
    plan->read = in.read;
    plan->write = in.write;
    // An unusable session has nothing to wait for (its renewal is due).
    if (rc != ZkRc::kInvalidState) {
      plan->deadline = std::min(plan->deadline, MonoNow() + absl::Milliseconds(in.timeout_ms));
    } else if (!renew_session_ && state_ != ZKL_SESSION_AUTH_FAILED) {
      // Unusable (expired) without its session event having reached us: a
      // loop that waited for that event would wait forever. Give it up now.
      Log(ZKL_LOG_WARN, "zkl", "the session is unusable (expired) without having said so: giving it up");
      ++expirations_;
      SessionLost(ZKL_ESESSION);
      plan->deadline = absl::InfinitePast();  // the renewal is due at once
    }
    // The interest call may have run callbacks that made work due now.
    plan->deadline = std::min(plan->deadline, NextDeadline());
  }
  if (stop_) plan->deadline = absl::InfinitePast();
  planned_ = *plan;
  loop_waiting_ = true;
}

void Client::OnIo(bool readable, bool writable, bool woken) {
  loop_waiting_ = false;
  SendBatch batch(this);  // what the answers call for goes out in one write
  if (session_ && (readable || writable)) {
    session_->Process(readable, writable);
    NoteConnectError();
  }
  RunDueWork();
  if (host_driven_) {
    // The host polls what this round registered until it dispatches again:
    // if the work done here changed that (e.g. requests now wait to be
    // written), make its fd readable so that it comes back.
    loop_waiting_ = true;
    KickLoop();
  }
}

void Client::KickLoop() {
  // The loop plans again before it waits next; only a loop asleep on a plan
  // that no longer fits needs a wakeup (each one costs a context switch).
  // Never nested: asking the session for its interest may run callbacks.
  if (!loop_waiting_ || kicking_) return;
  if (send_batch_depth_ > 0) {
    // Requests wait for the end of the batch: planned then, not now (the
    // queue would ask for a write the batch makes anyway).
    kick_after_batch_ = true;
    return;
  }
  bool wake = NextDeadline() < planned_.deadline;
  // The common case, a request made while connected: the plan still fits
  // unless it left bytes to write or the socket changed (the send moved the
  // session's own deadlines later). No interest call, no clock reads.
  int fd = -1;
  bool write = false;
  if (!wake && session_ && connected() && session_->ConnectedInterest(&fd, &write) &&
      fd == planned_.fd && (!write || planned_.write)) {
    return;
  }
  kicking_ = true;
  ZkSession::Interest in;
  bool usable = false;
  if ((!wake || !host_driven_) && session_) {
    usable = session_->GetInterest(&in) != ZkRc::kInvalidState;
    if (usable) {
      wake = wake || in.fd != planned_.fd || (in.write && !planned_.write) ||
             MonoNow() + absl::Milliseconds(in.timeout_ms) < planned_.deadline;
    }
    // The callbacks the interest call ran may have set timers (their own
    // kicks were suppressed: kicking_).
    wake = wake || NextDeadline() < planned_.deadline;
  }
  kicking_ = false;
  if (!wake || !loop_waiting_) return;
  if (!host_driven_ && usable && connected()) {
    // Thread mode: the new plan goes in force under the sleeping I/O
    // thread (its set and timer change in place): no wakeup, no switch.
    IoPlan plan;
    plan.fd = in.fd;
    plan.socket_serial = in.socket_serial;
    plan.read = in.read;
    plan.write = in.write;
    plan.deadline = std::min(NextDeadline(), MonoNow() + absl::Milliseconds(in.timeout_ms));
    if (stop_) plan.deadline = absl::InfinitePast();
    // A caller waiting for the socket waits for what it planned: a write
    // to make or another socket needs it back (timers are the I/O thread's).
    bool caller_misses = plan.fd != planned_.fd || (plan.write && !planned_.write);
    planned_ = plan;
    loop_.Apply(plan);
    if (caller_misses && caller_driving_ && std::this_thread::get_id() != driver_thread_) loop_.WakeCaller();
    return;
  }
  loop_waiting_ = false;
  loop_.Wake();
}

absl::Time Client::NextDeadline() const {
  if (stop_ || !ensemble_pending_.empty()) return absl::InfinitePast();
  absl::Time next = std::min(lost_deadline_, HeartbeatDue());
  if (renew_session_) next = std::min(next, renew_at_);
  if (!timers_.empty()) next = std::min(next, timers_.begin()->first);
  if (held_ > 0 && !bound_lapsed_ && connected()) next = std::min(next, LeaseDeadline());
  return std::min(next, stats_due_);
}

void Client::RunDueWork() {
  if (renew_session_ && !closed_ && renew_at_ <= MonoNow()) {
    bool retry = renew_at_ != absl::InfinitePast();  // the last start failed (and said so)
    renew_session_ = false;
    renew_at_ = absl::InfinitePast();
    EndSession();
    connecting_since_ = MonoNow();
    if (int rc = StartSession()) {
      // Could not even allocate a handle, or not one name of the list
      // resolves: try again shortly (not at once: a DNS outage must not
      // spin the loop), and say it once.
      if (!retry) {
        Log(ZKL_LOG_ERROR, "zkl", std::string("cannot start a session: ") + zkl_strerror(rc) +
                                      (rc == ZKL_ECONNECTION ? " (not one name of " + servers_ + " resolves)" : "") +
                                      "; trying again every " + std::to_string(ZkSession::kResolveRetryMs) + " ms");
      }
      renew_session_ = true;
      renew_at_ = MonoNow() + absl::Milliseconds(ZkSession::kResolveRetryMs);
    }
  }
  if (!ensemble_pending_.empty()) {
    std::string list = std::move(ensemble_pending_);
    ensemble_pending_.clear();
    char version[40];
    std::snprintf(version, sizeof version, "0x%llx", static_cast<unsigned long long>(ensemble_version_));
    if (follow_ensemble_ && !closed_ && ApplyServers(list, std::string("the ensemble's configuration ") + version) != ZKL_OK) {
      Log(ZKL_LOG_WARN, "zkl", "the ensemble's configuration " + std::string(version) + " lists " + list +
                                   ", but not one of its names resolves: the server list stays " + servers_);
    }
  }
  absl::Time now = MonoNow();
  if (lost_deadline_ <= now) {
    // Disconnected too long: the server may soon expire the session, so
    // give it up now (its nodes die with it) and start a new one.
    Log(ZKL_LOG_WARN, "zkl", "no server reached within the session timeout: giving the session up");
    SessionLost(ZKL_ESESSION);
    return;  // the renewal is due at once: the loop comes back immediately
  }
  if (held_ > 0 && connected() && !bound_lapsed_ && LeaseDeadline() <= now) {
    // Connected, but not heard from for as long as is safe: the server may
    // be about to expire the session. Holds are suspended until it answers.
    bound_lapsed_ = true;
    Log(ZKL_LOG_WARN, "zkl", "no answer from the server within the safety bound: holds suspended");
    EventBatch batch(this);
    for (auto &l : LiveListeners()) l->OnSuspended();
  }
  if (HeartbeatDue() <= now && session_) {
    // Syncs pass through the leader: their answers keep the quorum's proof
    // that the session lives fresh enough for the bound above.
    heartbeat_sent_ = now;
    ++heartbeats_;
    Request *req = NewRequest(nullptr, 0, "/");
    req->heartbeat = true;
    Submit(req, [&](ZkSession &s, Request *r) { return s.Sync(r, "/"); });
  }
  if (stats_due_ <= now) {
    // The statistics on an interval: a STATS event to the client callback.
    stats_due_ = now + absl::Milliseconds(stats_interval_ms_);
    JsonWriter j;
    WriteStats(j);
    auto ev = std::make_unique<zkl_event>();
    ev->type = ZKL_EVENT_STATS;
    ev->data = j.Take();
    ev->cb = session_cb_;
    ev->user_data = session_user_data_;
    Emit(std::move(ev));
  }
  while (!timers_.empty() && timers_.begin()->first <= now) {
    uint64_t id = timers_.begin()->second;
    timers_.erase(timers_.begin());
    timer_of_.erase(id);
    auto l = FindListener(id);
    if (!l) continue;
    l->OnTimer();
    Changed();
  }
}

bool Client::Await(absl::Time deadline, bool may_drive) {
  int64_t ms = -1;
  if (deadline != absl::InfiniteFuture()) {
    ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(absl::Ceil(deadline - MonoNow(), absl::Milliseconds(1))));
  }
  if (!host_driven_) {
    // Thread mode: see BlockingWait. Others wait for a signal, and the
    // socket is the I/O thread's while nobody waits for it.
    if (caller_driving_ || !may_drive || stop_ || !session_ || !connected()) {
      if (!caller_driving_) loop_.Reattach(this);
      return WaitUntil(changed_, &mu_, deadline);
    }
    caller_driving_ = true;
    driver_thread_ = std::this_thread::get_id();
    mu_.Unlock();
    loop_.DriveOnce(&mu_, this, ms);
    mu_.Lock();
    caller_driving_ = false;
    changed_.SignalAll();  // another waiter may drive now
    return MonoNow() >= deadline;
  }
  if (driving_ || handover_ || stop_) return WaitUntil(changed_, &mu_, deadline);
  // Host mode: nobody else runs the I/O, so the waiting thread does.
  driving_ = true;
  mu_.Unlock();
  loop_.RunOnce(&mu_, this, ms);
  mu_.Lock();
  driving_ = false;
  Changed();  // another waiter, or a dispatch, may take over
  return MonoNow() >= deadline;
}

Client::ListenerScope::ListenerScope(Client *c, const std::shared_ptr<Listener> &l)
    : c_(c), id_(RegisterHandle(l)), kind_(l->kind()) {
  c_->AddListener(l);
}

Client::ListenerScope::~ListenerScope() {
  c_->RemoveListener(id_);
  UnregisterHandle(reinterpret_cast<void *>(static_cast<uintptr_t>(id_)), kind_);
}

void Client::BeginSendBatch() {
  if (send_batch_depth_++ > 0 || !session_) return;
  send_batch_session_ = session_.get();
  send_batch_session_->HoldSends(true);
}

void Client::EndSendBatch() {
  if (--send_batch_depth_ > 0) return;
  // A session replaced meanwhile is gone with its queue; the new one was
  // never held.
  if (send_batch_session_ != nullptr && session_.get() == send_batch_session_) session_->HoldSends(false);
  send_batch_session_ = nullptr;
  if (kick_after_batch_) {
    kick_after_batch_ = false;
    KickLoop();
  }
}

void Client::EndBlockingWait() {
  if (!caller_driving_) loop_.Reattach(this);
}

void Client::Changed() {
  changed_.SignalAll();
  // A blocking call waiting for the socket itself (DriveOnce) hears of
  // nothing but the socket: wake it, unless it is the one doing the work.
  if (caller_driving_ && std::this_thread::get_id() != driver_thread_) loop_.WakeCaller();
}

void Client::DriveNow() {
  if (!host_driven_) return;
  {
    MutexLock lock(&mu_);
    if (driving_) {
      // A blocking call on another thread is inside the loop, possibly for
      // long: ask it to let go (it does at once) and take this round here,
      // so that the host's dispatch always makes progress.
      handover_ = true;
      loop_.Wake();
      while (driving_) changed_.Wait(&mu_);
    }
    driving_ = true;
  }
  loop_.RunOnce(&mu_, this, 0);
  MutexLock lock(&mu_);
  driving_ = false;
  handover_ = false;
  Changed();
}

int Client::Fd() const { return host_driven_ ? loop_.fd() : queue_.fd(); }

int Client::WaitForEvent(int64_t timeout_ms) {
  if (!host_driven_) return queue_.Wait(timeout_ms) ? 1 : 0;
  absl::Time deadline = MonoDeadline(timeout_ms);
  MutexLock lock(&mu_);
  for (;;) {
    if (wakeup_) {
      wakeup_ = false;
      return 0;
    }
    if (queue_.size() > 0) return 1;
    if (Await(deadline)) return queue_.size() > 0 ? 1 : 0;
  }
}

void Client::Wakeup() {
  if (!host_driven_) {
    queue_.Wakeup();
    return;
  }
  MutexLock lock(&mu_);
  wakeup_ = true;
  Changed();
  loop_.Wake();
}

// ---------------------------------------------------------------------------
// Session state
// ---------------------------------------------------------------------------

bool Client::zk_connected() const { return session_ && session_->connected(); }

bool Client::connected() const {
  return state_ == ZKL_SESSION_CONNECTED || state_ == ZKL_SESSION_RECONNECTED;
}

void Client::SetState(int state, int error) {
  if (state == state_) return;
  if (state == ZKL_SESSION_SUSPENDED) {
    suspended_since_ = MonoNow();
  } else if (suspended_since_ != absl::InfiniteFuture()) {
    suspended_ms_ += absl::ToInt64Milliseconds(MonoNow() - suspended_since_);
    suspended_since_ = absl::InfiniteFuture();
  }
  state_ = state;
  auto ev = std::make_unique<zkl_event>();
  ev->type = ZKL_EVENT_SESSION;
  ev->error = error;
  ev->session_state = state;
  ev->cb = session_cb_;
  ev->user_data = session_user_data_;
  Emit(std::move(ev));
  Changed();
}

void Client::Emit(std::unique_ptr<zkl_event> ev) {
  if (ev->session_state == 0) ev->session_state = state_;
  ++events_;
  if (batch_ != nullptr) {
    batch_->push_back(std::move(ev));
  } else {
    queue_.Push(std::move(ev));
  }
}

Client::EventBatch::EventBatch(Client *c) : client_(c), outer_(c->batch_ == nullptr) {
  if (outer_) c->batch_ = &events_;
}

Client::EventBatch::~EventBatch() {
  if (!outer_) return;
  client_->batch_ = nullptr;
  client_->queue_.PushAll(std::move(events_));
}

void Client::Log(int level, std::string_view component, std::string_view message) {
  if (level <= 0 || level > log_level_) return;
  if (log_cb_ == nullptr) {
    std::fprintf(stderr, "zkl: %s [%.*s] %.*s\n", LevelName(level), static_cast<int>(component.size()),
                 component.data(), static_cast<int>(message.size()), message.data());
    return;
  }
  if (pending_logs_ >= kMaxPendingLogs) {
    ++dropped_logs_;
    ++logs_dropped_;
    return;
  }
  auto ev = std::make_unique<zkl_event>();
  ev->type = ZKL_EVENT_LOG;
  ev->log_level = level;
  ev->log_component = std::string(component);
  if (dropped_logs_ > 0) {
    ev->data = std::to_string(dropped_logs_) + " earlier log lines were dropped (not dispatched); ";
    dropped_logs_ = 0;
  }
  ev->data.append(message);
  ++pending_logs_;
  queue_.Push(std::move(ev));
}

std::shared_ptr<Listener> Client::FindListener(uint64_t id) {
  auto it = listeners_.find(id);
  return it == listeners_.end() ? nullptr : it->second.lock();
}

std::vector<std::shared_ptr<Listener>> Client::LiveListeners() {
  std::vector<std::shared_ptr<Listener>> out;
  out.reserve(listeners_.size());
  for (auto it = listeners_.begin(); it != listeners_.end();) {
    if (auto l = it->second.lock()) {
      out.push_back(std::move(l));
      ++it;
    } else {
      listeners_.erase(it++);
    }
  }
  return out;
}

void Client::OnZkState(ZkState zstate) {
  if (closed_) return;
  EventBatch batch(this);
  if (zstate == ZkState::kConnected) {
    uint64_t sid = session_->session_id();
    // The same session id is the same session, even when the disconnect
    // went unreported (the C client closed a connection silently): its
    // nodes and watches are the ones this client set up.
    bool same = session_id_ != 0 && sid == session_id_;
    session_id_ = sid;
    negotiated_timeout_ms_ = session_->negotiated_timeout_ms();
    lost_deadline_ = absl::InfiniteFuture();
    last_error_ = 0;
    connect_failures_.Connected(session_->CurrentServer());
    // The handshake was sent after this attempt began (and after connecting
    // began): the leader created the session, or revalidated a resumed one
    // (touching it), since then (docs/SAFETY.md). After a long outage the
    // attempt's start, not the outage's, is what the proof may claim.
    absl::Time handshake_after = std::max(connecting_since_, session_->AttemptStarted());
    if (!same) quorum_.Forget();
    quorum_.Reset();
    quorum_.set_ping_interval(LeaderPingInterval(negotiated_timeout_ms_));
    quorum_.OnHandshake(handshake_after);
    // The handshake was a round trip through the leader: the first sync
    // heartbeat follows a period later (the first request on a new session
    // stays the user's).
    heartbeat_sent_ = MonoNow();
    bound_lapsed_ = false;
    if (same) {
      ++reconnects_;
    } else {
      ++sessions_;
    }
    char line[96];
    std::snprintf(line, sizeof line, "%s 0x%llx (timeout %d ms)",
                  same ? "reconnected to session" : "session", static_cast<unsigned long long>(sid),
                  negotiated_timeout_ms_);
    Log(ZKL_LOG_INFO, "zkl", line);
    SetState(same ? ZKL_SESSION_RECONNECTED : ZKL_SESSION_CONNECTED);
    for (auto &l : LiveListeners()) l->OnConnected(same);
    // A new session has no watch; a resumed one may have missed a change.
    ReadEnsembleConfig();
  } else if (zstate == ZkState::kConnecting) {
    if (!connected()) return;  // no session yet, or already suspended
    Log(ZKL_LOG_WARN, "zkl", "disconnected from ZooKeeper; the session may live");
    quorum_.Reset();  // what this connection showed says nothing of the next
    SetState(ZKL_SESSION_SUSPENDED);
    connecting_since_ = MonoNow();
    lost_deadline_ = LostDeadline();
    for (auto &l : LiveListeners()) l->OnSuspended();
  } else if (zstate == ZkState::kExpired) {
    ++expirations_;
    Log(ZKL_LOG_WARN, "zkl", "session expired");
    SessionLost(ZKL_ESESSION);
  } else if (zstate == ZkState::kAuthFailed) {
    Log(ZKL_LOG_ERROR, "zkl", "authentication failed");
    for (auto &l : LiveListeners()) l->OnSessionLost(ZKL_EAUTH);
    // The transport worked (a TLS failure never gets this far).
    last_error_ = ZKL_EAUTH;
    OnZkConnectFailure({session_->CurrentServer(), ZKL_LAYER_SASL, ZKL_EAUTH,
                        "the server refused the credentials (wrong user or password, or not "
                        "allowed)"});
    SetState(ZKL_SESSION_AUTH_FAILED, last_error_);
  }
}

absl::Time Client::ProvenDeadline() const {
  if (!connected() || negotiated_timeout_ms_ <= 0) return absl::InfinitePast();
  // The leader expires the session no earlier than a session timeout after
  // the proven touch; 3/4 of it keeps a margin (SafetyBound). A shorter
  // lost_after_ms bounds the time since the quorum was last reachable.
  absl::Time deadline = quorum_.proven_since() + FractionOfMs(negotiated_timeout_ms_, 3, 4);
  if (lost_after_ms_ > 0) {
    deadline = std::min(deadline, quorum_.last_quorum_contact() + absl::Milliseconds(lost_after_ms_));
  }
  return deadline;
}

absl::Time Client::LeaseDeadline() const {
  return bound_lapsed_ ? absl::InfinitePast() : ProvenDeadline();
}

absl::Time Client::LostDeadline() const {
  // "May no longer hold" is not "lost". Holds answer by the quorum proof
  // (SUSPENDED once it lapses) and come back RESTORED if the same session
  // resumes, so giving up later costs no safety. The session is given up a
  // session timeout after the connection was lost: the server's last word
  // on it came before connecting_since_, so by then it has expired the
  // session, unless a reconnect attempt reached it (and then that attempt
  // connects, or hears "expired"). A shorter lost_after_ms gives up sooner.
  int timeout_ms = negotiated_timeout_ms_ > 0 ? negotiated_timeout_ms_ : connect_.session_timeout_ms;
  absl::Duration wait = absl::Milliseconds(timeout_ms);
  if (lost_after_ms_ > 0) wait = std::min(wait, absl::Milliseconds(lost_after_ms_));
  return std::max(MonoNow(), connecting_since_ + wait);
}


void Client::ProofAdvanced() {
  ++proofs_;
  if (bound_lapsed_ && MonoNow() < ProvenDeadline()) {
    // The quorum proved the same session again in time: holds are good again.
    bound_lapsed_ = false;
    Log(ZKL_LOG_INFO, "zkl", "the quorum proves the session again: holds restored");
    EventBatch batch(this);
    for (auto &l : LiveListeners()) l->OnConnected(/*same_session=*/true);
  } else if (held_ > 0) {
    KickLoop();  // the bound check moved
  }
  if (!awaiting_proof_.empty() && MonoNow() < LeaseDeadline()) {
    std::vector<uint64_t> ids;
    ids.swap(awaiting_proof_);
    for (uint64_t id : ids) {
      if (auto l = FindListener(id)) l->OnProven();
    }
    Changed();
  }
}

void Client::CallWhenProven(Listener *l) {
  if (std::find(awaiting_proof_.begin(), awaiting_proof_.end(), l->public_id()) == awaiting_proof_.end()) {
    awaiting_proof_.push_back(l->public_id());
  }
  KickLoop();  // a heartbeat may be due: the proof comes from its answer
}

void Client::AdjustHeld(int delta) {
  held_ += delta;
  if (held_ > 0) KickLoop();  // heartbeats and the bound check may be due
}

void Client::SessionLost(int error) {
  EventBatch batch(this);
  ++lost_sessions_;
  quorum_.Forget();
  SetState(ZKL_SESSION_LOST);
  session_id_ = 0;
  lost_deadline_ = absl::InfiniteFuture();
  connecting_since_ = MonoNow();
  bound_lapsed_ = false;
  renew_session_ = true;  // first: nothing the listeners send may go to the old session
  for (auto &l : LiveListeners()) l->OnSessionLost(error);
}

void Client::OnZkReply(void *request, const ZkReply &zr) {
  std::unique_ptr<Request> req(static_cast<Request *>(request));
  outstanding_.erase(req.get());
  if (req->generation != generation_ || closed_) return;
  if (zr.from_server && !IsSessionGone(zr.rc)) {
    absl::Time now = MonoNow();
    rtt_us_.Record(absl::ToInt64Microseconds(now - req->sent));
    quorum_.OnAnswered(req->sent, now);
    if (req->heartbeat && zr.rc == ZkRc::kOk && connected() && quorum_.OnSyncAnswered(req->sent, now)) {
      ProofAdvanced();
    }
  }
  if (req->ensemble_config) {
    OnEnsembleConfig(zr);
    return;
  }
  // Before the sender's own handling, which may be gone: a waiter behind
  // the node hears of the change whatever became of its owner.
  if ((req->change != Request::Change::kNone || !req->multi_changes.empty()) && !local_nodes_.empty()) {
    LocalNodeAnswered(*req, zr);
  }
  std::shared_ptr<Listener> l = req->listener.lock();
  if (!l) return;
  Reply r;
  r.op = req->op;
  r.rc = zr.rc;
  r.value = zr.value;
  r.stat = zr.stat;
  r.children = zr.children;
  r.data = zr.data;
  r.results = zr.results;
  r.path = &req->path;
  l->OnReply(r);
  // Whatever the reply changed, a blocking call may be waiting for it: wake
  // every waiter to look again rather than trust each handler to say so.
  Changed();
}

void Client::OnZkWatch(uint64_t watcher, WatchType type, std::string_view path) {
  if (closed_) return;
  ++watch_events_;
  if (watcher == kEnsembleWatcher) {
    ReadEnsembleConfig();  // changed: read it again (and watch again)
    return;
  }
  auto l = FindListener(watcher);
  if (!l) return;
  l->OnWatch(type, std::string(path));
  Changed();
}

void Client::OnZkLog(int level, std::string_view message) { Log(level, "zookeeper", message); }

void Client::OnZkConnectFailure(ConnectFailure failure) {
  if (closed_) return;
  const char *component = failure.layer == ZKL_LAYER_TLS ? "tls" : failure.layer == ZKL_LAYER_SASL ? "sasl" : "zkl";
  std::string line = connect_failures_.Record(std::move(failure), MonoNow());
  if (!line.empty()) Log(ZKL_LOG_WARN, component, line);
  // No session yet, and every server refused what retrying cannot change:
  // say so as a state (event-driven waits end on it); a later success
  // still connects.
  if ((state_ == ZKL_SESSION_CONNECTING || state_ == ZKL_SESSION_LOST) && session_) {
    if (int definite = connect_failures_.Definite(session_->ServerCount())) {
      last_error_ = definite;
      SetState(ZKL_SESSION_AUTH_FAILED, definite);
    }
  }
  Changed();  // a waiter may have heard enough (WaitConnected)
}

void Client::LogDelivered() {
  MutexLock lock(&mu_);
  if (pending_logs_ > 0) --pending_logs_;
}

// ---------------------------------------------------------------------------
// Listeners, timers, requests
// ---------------------------------------------------------------------------

void Client::Retire(std::shared_ptr<Listener> l) {
  if (closed_) return;  // the closed session took every node with it
  uint64_t id = l->public_id();
  retiring_[id] = std::move(l);
}

void Client::AddListener(const std::shared_ptr<Listener> &l) {
  l->BindSelf(l);
  listeners_[l->public_id()] = l;
}

void Client::RemoveListener(uint64_t id) {
  listeners_.erase(id);
  retiring_.erase(id);
  auto t = timer_of_.find(id);
  if (t != timer_of_.end()) {
    timers_.erase({t->second, id});
    timer_of_.erase(t);
  }
}

void Client::SetTimer(Listener *l, absl::Time when) {
  uint64_t id = l->public_id();
  auto t = timer_of_.find(id);
  if (t != timer_of_.end()) {
    timers_.erase({t->second, id});
    timer_of_.erase(t);
  }
  if (when == absl::InfiniteFuture()) return;
  timers_.insert({when, id});
  timer_of_[id] = when;
  KickLoop();
}

absl::Time Client::HeartbeatDue() const {
  // Always while connected (they replace the C client's idle pings, whose
  // answers zkl cannot see): a waiter granted after a long wait then holds
  // with a fresh proof at once.
  if (!connected() || negotiated_timeout_ms_ <= 0) return absl::InfiniteFuture();
  // A proof lags its sync by about a ping interval plus two periods
  // (quorum_proof.h): a sixteenth of the session timeout keeps a hold
  // provable between two answers with room to spare, and a third of
  // lost_after_ms when that is shorter.
  absl::Duration period = FractionOfMs(negotiated_timeout_ms_, 1, 16);
  if (lost_after_ms_ > 0) period = std::min(period, FractionOfMs(lost_after_ms_, 1, 3));
  return heartbeat_sent_ + period;
}

Request *Client::NewRequest(Listener *l, int op, const std::string &path) {
  ++requests_;
  auto *req = new Request{l ? l->self() : std::weak_ptr<Listener>(), generation_, op, path, MonoNow()};
  outstanding_.insert(req);
  return req;
}

template <typename Fn>
ZkRc Client::Submit(Request *req, Fn submit) {
  // A session given up (renewal pending) takes no request: its answer would
  // be dropped with it, and the request's sender would wait for it forever.
  ZkRc rc = session_ && !renew_session_ ? submit(*session_, req) : ZkRc::kConnectionLoss;
  if (rc != ZkRc::kOk) {
    outstanding_.erase(req);
    delete req;
    return rc;
  }
  KickLoop();
  return rc;
}

void Client::FreeAbandonedRequests(uint64_t generation) {
  // The ZooKeeper C client can drop the completion of a request that was
  // still queued when its handle closed: free what it never answered.
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    if ((*it)->generation <= generation) {
      delete *it;
      outstanding_.erase(it++);
    } else {
      ++it;
    }
  }
}

ZkRc Client::CreateNode(Listener *l, int op, const std::string &path, std::string_view data,
                        int mode) {
  return Submit(NewRequest(l, op, path),
                [&](ZkSession &s, Request *req) { return s.Create(req, path, data, mode); });
}

ZkRc Client::DeleteNode(Listener *l, int op, const std::string &path, int version) {
  Request *req = NewRequest(l, op, path);
  req->change = Request::Change::kDelete;
  return Submit(req, [&](ZkSession &s, Request *r) { return s.Delete(r, path, version); });
}

ZkRc Client::GetChildren(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](ZkSession &s, Request *req) {
    return s.GetChildren(req, path, watch ? l->public_id() : 0);
  });
}

ZkRc Client::GetData(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](ZkSession &s, Request *req) {
    return s.GetData(req, path, watch ? l->public_id() : 0);
  });
}

ZkRc Client::Exists(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](ZkSession &s, Request *req) {
    return s.Exists(req, path, watch ? l->public_id() : 0);
  });
}

ZkRc Client::SetData(Listener *l, int op, const std::string &path, std::string_view data,
                     int version) {
  Request *req = NewRequest(l, op, path);
  req->change = Request::Change::kSet;
  return Submit(req, [&](ZkSession &s, Request *r) { return s.SetData(r, path, data, version); });
}

ZkRc Client::Sync(Listener *l, int op, const std::string &path) {
  return Submit(NewRequest(l, op, path), [&](ZkSession &s, Request *req) { return s.Sync(req, path); });
}

ZkRc Client::Multi(Listener *l, int op, std::vector<ZkOp> ops) {
  std::string first = ops.empty() ? std::string() : ops.front().path;
  Request *req = NewRequest(l, op, first);
  if (!local_nodes_.empty()) {
    for (size_t i = 0; i < ops.size(); ++i) {
      bool deletes = ops[i].type == ZkOp::kDelete;
      if ((deletes || ops[i].type == ZkOp::kSetData) && local_nodes_.contains(ops[i].path)) {
        req->multi_changes.push_back(Request::MultiChange{i, ops[i].path, deletes});
      }
    }
  }
  return Submit(req, [&](ZkSession &s, Request *r) { return s.Multi(r, std::move(ops)); });
}

void Client::NoteLocalNode(const std::string &path) { local_nodes_.try_emplace(path); }

bool Client::WatchLocalNode(Listener *l, const std::string &path, bool *touched) {
  auto it = local_nodes_.find(path);
  if (it == local_nodes_.end()) return false;
  *touched = it->second.touched;
  if (*touched) return true;  // one-shot, and it has already fired
  std::vector<std::weak_ptr<Listener>> &watchers = it->second.watchers;
  for (const auto &w : watchers) {
    if (w.lock().get() == l) return true;
  }
  watchers.push_back(l->self());
  return true;
}

void Client::LocalNodeAnswered(const Request &req, const ZkReply &zr) {
  switch (req.change) {
    case Request::Change::kNone:
      break;
    case Request::Change::kSet:
      if (zr.rc == ZkRc::kOk) LocalNodeChanged(req.path, /*deleted=*/false);
      break;
    case Request::Change::kDelete:
      if (zr.rc == ZkRc::kOk || zr.rc == ZkRc::kNoNode) LocalNodeChanged(req.path, /*deleted=*/true);
      break;
  }
  for (const Request::MultiChange &c : req.multi_changes) {
    // All or nothing; but a delete that failed for NoNode says the node is
    // gone all the same.
    bool gone_anyway = c.deletes && zr.results && c.index < zr.results->size() &&
                       (*zr.results)[c.index].rc == ZkRc::kNoNode;
    if (zr.rc == ZkRc::kOk || gone_anyway) LocalNodeChanged(c.path, c.deletes);
  }
}

void Client::LocalNodeChanged(const std::string &path, bool deleted) {
  auto it = local_nodes_.find(path);
  if (it == local_nodes_.end()) return;
  std::vector<std::weak_ptr<Listener>> watchers = std::move(it->second.watchers);
  it->second.watchers.clear();
  if (deleted) {
    local_nodes_.erase(it);
  } else {
    it->second.touched = true;
  }
  for (const auto &w : watchers) {
    if (auto l = w.lock()) l->OnWatch(deleted ? WatchType::kDeleted : WatchType::kDataChanged, path);
  }
  if (!watchers.empty()) Changed();
}

void Client::DeferDelete(const std::string &path, Listener *l) {
  std::vector<std::weak_ptr<Listener>> &waiting = deferred_deletes_[path];
  for (const auto &w : waiting) {
    if (w.lock().get() == l) return;
  }
  waiting.push_back(l->self());
}

void Client::UndeferDelete(const std::string &path, const Listener *l) {
  auto it = deferred_deletes_.find(path);
  if (it == deferred_deletes_.end()) return;
  std::vector<std::weak_ptr<Listener>> &waiting = it->second;
  waiting.erase(std::remove_if(waiting.begin(), waiting.end(),
                               [&](const std::weak_ptr<Listener> &w) {
                                 auto live = w.lock();
                                 return !live || live.get() == l;
                               }),
                waiting.end());
  if (waiting.empty()) deferred_deletes_.erase(it);
}

void Client::SendDeferredDeletes(const std::string &path, const Listener *creating) {
  auto it = deferred_deletes_.find(path);
  if (it == deferred_deletes_.end()) return;
  // Taken out first: each listener's send undefers itself (UndeferDelete).
  std::vector<std::weak_ptr<Listener>> waiting = std::move(it->second);
  deferred_deletes_.erase(it);
  for (const auto &w : waiting) {
    std::shared_ptr<Listener> l = w.lock();
    if (!l) continue;
    if (l.get() == creating) {
      DeferDelete(path, l.get());  // its own delete goes out with its create
    } else {
      l->SendDeferred();
    }
  }
}

void Client::EnsurePath(Listener *l, int op, const std::string &path, const std::string &leaf_data) {
  // Parents before children; ZooKeeper applies one session's requests in
  // order, so the caller's next request sees them.
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    bool leaf = slash == std::string::npos;
    std::string prefix = leaf ? path : path.substr(0, slash);
    CreateNode(l, op, prefix, leaf ? std::string_view(leaf_data) : std::string_view(), kContainer);
    if (leaf) break;
  }
}

// ---------------------------------------------------------------------------
// User-facing calls
// ---------------------------------------------------------------------------

int Client::WaitConnected(int64_t timeout_ms) {
  MutexLock lock(&mu_);
  absl::Time deadline = MonoDeadline(timeout_ms);
  while (!connected()) {
    if (closed_) return ZKL_ECLOSED;
    if (state_ == ZKL_SESSION_AUTH_FAILED) return last_error_ ? last_error_ : ZKL_EAUTH;
    // Every server refused what retrying cannot change: say so now.
    if (int definite = connect_failures_.Definite(session_ ? session_->ServerCount() : 0)) return definite;
    if (Await(deadline) && !connected()) return last_error_ ? last_error_ : ZKL_ETIMEDOUT;
  }
  return ZKL_OK;
}

int Client::ConnectError(std::string *why) {
  MutexLock lock(&mu_);
  *why = connect_failures_.Describe();
  return connect_failures_.Newest();
}

int Client::SetServers(const char *servers) {
  // The one rule of zkl_client_options.servers (CheckClientOptions).
  if (servers == nullptr || ValidateServers(servers) != ZKL_OK) return ZKL_EINVAL;
  MutexLock lock(&mu_);
  if (closed_) return ZKL_ECLOSED;
  return ApplyServers(servers, "zkl_client_set_servers");
}

int Client::ApplyServers(const std::string &servers, const std::string &cause) {
  // Without a session (a new one is due) the next one starts from the list.
  if (session_ && session_->SetServers(servers) != ZkRc::kOk) return ZKL_ECONNECTION;
  if (servers == servers_) return ZKL_OK;  // resolved again, nothing else changes
  std::string was = std::move(servers_);
  servers_ = servers;
  connect_.hosts = servers_ + chroot_;
  connect_failures_.ForgetServers();
  ++server_list_changes_;
  Log(ZKL_LOG_INFO, "zkl", "server list " + servers_ + " (was " + was + "), from " + cause);
  KickLoop();  // the connection may have moved: the loop plans anew
  Changed();
  return ZKL_OK;
}

int Client::FollowEnsemble(bool on) {
  MutexLock lock(&mu_);
  if (closed_) return ZKL_ECLOSED;
  if (on == follow_ensemble_) return ZKL_OK;
  follow_ensemble_ = on;
  ensemble_pending_.clear();
  ensemble_not_followed_.clear();
  ReadEnsembleConfig();
  return ZKL_OK;
}

void Client::ReadEnsembleConfig() {
  // Not connected: the read follows the next connection (OnZkState).
  if (!follow_ensemble_ || closed_ || !zk_connected()) return;
  Request *req = NewRequest(nullptr, 0, "/zookeeper/config");
  req->ensemble_config = true;
  Submit(req, [&](ZkSession &s, Request *r) { return s.GetConfig(r, kEnsembleWatcher); });
}

void Client::OnEnsembleConfig(const ZkReply &zr) {
  if (!follow_ensemble_) return;
  if (zr.from_server) ++ensemble_reads_;
  if (zr.rc == ZkRc::kNoNode) {
    return EnsembleNotFollowed("the servers publish no /zookeeper/config (ZooKeeper before 3.5)");
  }
  if (zr.rc != ZkRc::kOk) {
    if (IsConnectionError(zr.rc) || IsSessionGone(zr.rc)) return;  // read again on connecting
    return EnsembleNotFollowed(std::string("reading /zookeeper/config failed: ") + zkl_strerror(ZkError(zr.rc)));
  }
  EnsembleConfig config;
  std::string why;
  if (!ParseEnsembleConfig(zr.data, &config, &why)) return EnsembleNotFollowed("/zookeeper/config: " + why);
  ensemble_version_ = config.version;
  ensemble_members_ = static_cast<int>(config.members.size());
  std::string list = ClientServers(config, &why);
  if (list.empty()) return EnsembleNotFollowed("the ensemble's configuration: " + why);
  ensemble_not_followed_.clear();
  if (SameServers(list, servers_)) {
    ensemble_pending_.clear();
    return;
  }
  ensemble_pending_ = std::move(list);
  KickLoop();
}

void Client::EnsembleNotFollowed(std::string why) {
  if (why == ensemble_not_followed_) return;  // said already
  ensemble_not_followed_ = std::move(why);
  Log(ZKL_LOG_INFO, "zkl", "not following the ensemble's configuration: " + ensemble_not_followed_ +
                               "; the server list stays " + servers_);
}

int Client::State() {
  MutexLock lock(&mu_);
  return state_;
}

uint64_t Client::SessionId() {
  MutexLock lock(&mu_);
  return connected() || state_ == ZKL_SESSION_SUSPENDED ? session_id_ : 0;
}

int Client::SessionPassword(void *buf, size_t len) {
  MutexLock lock(&mu_);
  uint8_t passwd[16];
  if (!session_ || session_id_ == 0 || !session_->Password(passwd)) return ZKL_ENOTFOUND;
  if (len < sizeof passwd) return ZKL_ERANGE;
  std::memcpy(buf, passwd, sizeof passwd);
  return static_cast<int>(sizeof passwd);
}

int Client::NegotiatedTimeout() {
  MutexLock lock(&mu_);
  return negotiated_timeout_ms_;
}

std::string Client::StatsJson(uint64_t only) {
  JsonWriter j;
  MutexLock lock(&mu_);
  if (only != 0) {
    if (auto l = FindListener(only)) l->WriteStats(j);
    return j.Take();
  }
  WriteStats(j);
  return j.Take();
}

void Client::WriteStats(JsonWriter &j) {
  absl::Time now = MonoNow();
  j.BeginObject();
  j.Field("schema", 1);
  j.Field("zkl_version", zkl_version_string());
  j.Field("monotonic_ms", absl::ToInt64Milliseconds(now - absl::UnixEpoch()));
  j.Key("client").BeginObject();
  j.Field("state", StateName(state_));
  j.Field("io", host_driven_ ? "host" : "thread");
  j.Field("servers", servers_);
  j.Field("server", session_ ? session_->CurrentServer() : std::string());
  j.Field("server_list_changes", server_list_changes_);
  j.Key("ensemble").BeginObject();
  j.Field("following", follow_ensemble_);
  if (follow_ensemble_) {
    char version[40] = "";
    if (ensemble_version_ != 0) {
      std::snprintf(version, sizeof version, "0x%llx", static_cast<unsigned long long>(ensemble_version_));
    }
    j.Field("config_version", version);
    j.Field("members", ensemble_members_);
    j.Field("reads", ensemble_reads_);
    j.Field("not_followed", ensemble_not_followed_);
  }
  j.EndObject();
  char sid[32];
  std::snprintf(sid, sizeof sid, "0x%llx", static_cast<unsigned long long>(session_id_));
  j.Field("session_id", sid);
  j.Field("session_timeout_ms", negotiated_timeout_ms_);
  j.Field("requests", requests_.load());
  j.Key("rtt_us");
  rtt_us_.Write(j);
  j.Field("watch_events", watch_events_.load());
  j.Field("events", events_.load());
  j.Field("sessions", sessions_.load());
  j.Field("reconnects", reconnects_.load());
  j.Field("expirations", expirations_.load());
  j.Field("sessions_lost", lost_sessions_);
  int64_t suspended = suspended_ms_;
  if (suspended_since_ != absl::InfiniteFuture()) suspended += absl::ToInt64Milliseconds(now - suspended_since_);
  j.Field("suspended_ms", suspended);
  j.Field("heartbeats", heartbeats_.load());
  j.Field("quorum_proofs", proofs_.load());
  j.Field("log_lines_dropped", logs_dropped_);
  connect_failures_.WriteStats(j);
  j.EndObject();
  j.Key("handles").BeginArray();
  for (auto &l : LiveListeners()) l->WriteStats(j);
  j.EndArray();
  j.EndObject();
}

}  // namespace zkl
