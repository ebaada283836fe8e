#include "client.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "errors.h"
#include "json.h"
#include "paths.h"

namespace zkl {

// The context of one asynchronous request: who asked, on which zhandle.
struct Request {
  Client *client;
  std::weak_ptr<Listener> listener;  // empty for heartbeats
  uint64_t generation;
  int op;
  std::string path;
  absl::Time sent;
};

// The server sent this answer (as opposed to the client library making it up
// on a connection loss or close): so it heard the request.
static bool ServerAnswered(int rc) {
  return rc == ZOK || (rc <= ZAPIERROR && rc != ZCLOSING && rc != ZNOTHING &&
                       rc != ZINVALIDCALLBACK && rc != ZNOWATCHER);
}

// Static trampolines from the ZooKeeper C client into Client/Listener.
struct ZkCallbacks {
  static void Global(zhandle_t *zh, int type, int state, const char *, void *ctx) {
    if (type == ZOO_SESSION_EVENT) static_cast<Client *>(ctx)->OnSessionEvent(zh, state);
  }

  static void Node(zhandle_t *zh, int type, int, const char *path, void *ctx) {
    if (type == ZOO_SESSION_EVENT) return;  // state is tracked by Global
    auto *client = static_cast<Client *>(const_cast<void *>(zoo_get_context(zh)));
    client->OnNodeWatch(zh, reinterpret_cast<uintptr_t>(ctx), type, path ? path : "");
  }

  // Delivers `reply` to the request's listener unless the request is stale.
  static void Deliver(const void *data, Reply reply) {
    std::unique_ptr<Request> req(static_cast<Request *>(const_cast<void *>(data)));
    Client *client = req->client;
    MutexLock lock(&client->mu_);
    client->outstanding_.erase(req.get());
    if (req->generation != client->generation_ || client->closed_) return;
    if (ServerAnswered(reply.rc)) client->heard_since_ = std::max(client->heard_since_, req->sent);
    std::shared_ptr<Listener> l = req->listener.lock();
    if (!l) return;
    reply.op = req->op;
    reply.path = &req->path;
    l->OnReply(reply);
  }

  static void StringStat(int rc, const char *value, const struct Stat *stat, const void *data) {
    Reply r;
    r.rc = rc;
    r.value = value;
    r.stat = stat;
    Deliver(data, r);
  }
  static void Void(int rc, const void *data) {
    Reply r;
    r.rc = rc;
    Deliver(data, r);
  }
  static void Strings(int rc, const struct String_vector *strings, const void *data) {
    Reply r;
    r.rc = rc;
    r.children = strings;
    Deliver(data, r);
  }
  static void Data(int rc, const char *value, int len, const struct Stat *stat, const void *data) {
    Reply r;
    r.rc = rc;
    r.data = value;
    r.data_len = len;
    r.stat = stat;
    Deliver(data, r);
  }
  static void Stat(int rc, const struct Stat *stat, const void *data) {
    Reply r;
    r.rc = rc;
    r.stat = stat;
    Deliver(data, r);
  }
  static void IgnoreVoid(int, const void *) {}
};

namespace {

std::once_flag quiet_zookeeper_log;

// The ZooKeeper C client logs every refused connection on stderr. zkl is a
// library: it stays silent unless ZKL_ZOOKEEPER_LOG is set in the
// environment (then the client's messages go to stderr as usual).
void ZooKeeperLog(const char *message) {
  static const bool enabled = getenv("ZKL_ZOOKEEPER_LOG") != nullptr;
  if (enabled) fprintf(stderr, "%s\n", message);
}

}  // namespace

Client::Client() : Handle(HandleKind::kClient) {}

Client::~Client() { Close(); }

int Client::Create(const zkl_client_options &opts, std::shared_ptr<Client> *out) {
  if (opts.servers == nullptr || ValidateServers(opts.servers) != ZKL_OK) return ZKL_EINVAL;
  if (opts.session_timeout_ms < 0 || opts.lost_after_ms < 0 || opts.connect_timeout_ms < 0 ||
      opts.stats_interval_ms < 0 || opts.log_level < ZKL_LOG_OFF || opts.log_level > ZKL_LOG_DEBUG) {
    return ZKL_EINVAL;
  }
  if (opts.io != ZKL_IO_THREAD && opts.io != ZKL_IO_HOST) return ZKL_EINVAL;
  if (opts.tls_insecure_skip_hostname_check != 0 && opts.tls_insecure_skip_hostname_check != 1) {
    return ZKL_EINVAL;
  }
  // Not yet implemented by this build.
  if (opts.io == ZKL_IO_HOST || opts.tls_ca_file != nullptr || opts.sasl_mechanism != nullptr ||
      opts.stats_interval_ms > 0) {
    return ZKL_ENOTSUP;
  }
  if (opts.acl != ZKL_ACL_OPEN && opts.acl != ZKL_ACL_CREATOR) return ZKL_EINVAL;
  if (opts.acl == ZKL_ACL_CREATOR && opts.digest_auth == nullptr) return ZKL_EINVAL;
  if (opts.digest_auth != nullptr && std::strchr(opts.digest_auth, ':') == nullptr) return ZKL_EINVAL;
  std::string connect = opts.servers;
  if (opts.chroot != nullptr && opts.chroot[0] != '\0') {
    if (ValidatePath(opts.chroot) != ZKL_OK) return ZKL_EBADPATH;
    connect += opts.chroot;
  }

  std::call_once(quiet_zookeeper_log, [] {
    zoo_set_debug_level(getenv("ZKL_ZOOKEEPER_LOG") ? ZOO_LOG_LEVEL_INFO : ZOO_LOG_LEVEL_ERROR);
  });

  std::shared_ptr<Client> c(new Client());
  c->connect_ = std::move(connect);
  c->requested_timeout_ms_ = opts.session_timeout_ms > 0 ? opts.session_timeout_ms : 10000;
  c->lost_after_ms_ = opts.lost_after_ms;
  c->digest_ = opts.digest_auth ? opts.digest_auth : "";
  c->acl_mode_ = opts.acl;
  c->session_cb_ = opts.cb;
  c->session_user_data_ = opts.user_data;
  // Creator-only nodes: the authenticated identity that made a node may do
  // anything with it (and, on parents, with its children); the world reads.
  c->acl_entries_[0].perms = ZOO_PERM_ALL;
  c->acl_entries_[0].id.scheme = const_cast<char *>("auth");
  c->acl_entries_[0].id.id = const_cast<char *>("");
  c->acl_entries_[1].perms = ZOO_PERM_READ;
  c->acl_entries_[1].id.scheme = const_cast<char *>("world");
  c->acl_entries_[1].id.id = const_cast<char *>("anyone");
  c->acl_.count = 2;
  c->acl_.data = c->acl_entries_;
  {
    MutexLock lock(&c->mu_);
    c->connecting_since_ = MonoNow();
    int rc = c->StartSession();
    if (rc != ZKL_OK) return rc;
  }
  c->maintenance_ = std::thread([raw = c.get()] { raw->MaintenanceLoop(); });
  *out = std::move(c);
  return ZKL_OK;
}

int Client::StartSession() {
  ++generation_;
  zh_ = zookeeper_init2(connect_.c_str(), &ZkCallbacks::Global, requested_timeout_ms_,
                        nullptr, this, 0, &ZooKeeperLog);
  if (zh_ == nullptr) return errno == EINVAL ? ZKL_EINVAL : ZKL_ECONNECTION;
  // The C client otherwise re-resolves the host list (getaddrinfo + srand)
  // on every I/O loop iteration; reconnects still resolve.
  zoo_set_servers_resolution_delay(zh_, -1);
  if (!digest_.empty()) {
    zoo_add_auth(zh_, "digest", digest_.data(), static_cast<int>(digest_.size()),
                 &ZkCallbacks::IgnoreVoid, nullptr);
  }
  return ZKL_OK;
}

void Client::Close() {
  zhandle_t *zh = nullptr;
  std::vector<std::shared_ptr<Listener>> listeners;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Listener>> retiring;
  {
    MutexLock lock(&mu_);
    if (!closed_) {
      closed_ = true;
      listeners = LiveListeners();
      for (auto &l : listeners) l->OnClientClosed();
      SetState(ZKL_SESSION_CLOSED);
      // Destroyed handles waiting to clean up: the closing session does it.
      retiring.swap(retiring_);
    }
    stop_ = true;
    maintenance_wakeup_.SignalAll();
    changed_.SignalAll();
  }
  if (maintenance_.joinable() && maintenance_.get_id() != std::this_thread::get_id()) {
    maintenance_.join();
  }
  uint64_t closed_generation;
  {
    MutexLock lock(&mu_);
    zh = zh_;
    zh_ = nullptr;
    closed_generation = generation_++;
  }
  // Outside the mutex: closing runs the remaining completions, which take it.
  if (zh != nullptr) zookeeper_close(zh);
  MutexLock lock(&mu_);
  FreeAbandonedRequests(closed_generation);
}

bool Client::zk_connected() const {
  return zh_ != nullptr && zoo_state(zh_) == ZOO_CONNECTED_STATE;
}

void Client::Retire(std::shared_ptr<Listener> l) {
  if (closed_) return;  // the closed session took every node with it
  uint64_t id = l->public_id();
  retiring_[id] = std::move(l);
}

bool Client::connected() const {
  return state_ == ZKL_SESSION_CONNECTED || state_ == ZKL_SESSION_RECONNECTED;
}

void Client::SetState(int state, int error) {
  if (state == state_) return;
  state_ = state;
  auto ev = std::make_unique<zkl_event>();
  ev->type = ZKL_EVENT_SESSION;
  ev->error = error;
  ev->session_state = state;
  ev->cb = session_cb_;
  ev->user_data = session_user_data_;
  Emit(std::move(ev));
  changed_.SignalAll();
}

void Client::Emit(std::unique_ptr<zkl_event> ev) {
  if (ev->session_state == 0) ev->session_state = state_;
  ++events_;
  queue_.Push(std::move(ev));
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

void Client::OnSessionEvent(zhandle_t *zh, int zstate) {
  MutexLock lock(&mu_);
  if (zh != zh_ || closed_) return;
  if (zstate == ZOO_CONNECTED_STATE) {
    const clientid_t *id = zoo_client_id(zh);
    uint64_t sid = id ? static_cast<uint64_t>(id->client_id) : 0;
    bool same = session_id_ != 0 && sid == session_id_ && state_ == ZKL_SESSION_SUSPENDED;
    session_id_ = sid;
    negotiated_timeout_ms_ = zoo_recv_timeout(zh);
    lost_deadline_ = absl::InfiniteFuture();
    // The handshake was sent after connecting started: the server heard us
    // since then.
    heard_since_ = std::max(heard_since_, connecting_since_);
    maintenance_wakeup_.SignalAll();  // heartbeats may be due
    if (!same) ++sessions_;
    SetState(same ? ZKL_SESSION_RECONNECTED : ZKL_SESSION_CONNECTED);
    for (auto &l : LiveListeners()) l->OnConnected(same);
  } else if (zstate == ZOO_CONNECTING_STATE) {
    if (!connected()) return;  // no session yet, or already suspended
    SetState(ZKL_SESSION_SUSPENDED);
    connecting_since_ = MonoNow();
    lost_deadline_ = LostDeadline();
    maintenance_wakeup_.SignalAll();
    for (auto &l : LiveListeners()) l->OnSuspended();
  } else if (zstate == ZOO_EXPIRED_SESSION_STATE) {
    SessionLost(ZKL_ESESSION);
  } else if (zstate == ZOO_AUTH_FAILED_STATE) {
    for (auto &l : LiveListeners()) l->OnSessionLost(ZKL_EAUTH);
    SetState(ZKL_SESSION_AUTH_FAILED, ZKL_EAUTH);
  }
}

absl::Duration Client::SafetyBound() const {
  // The server may expire the session once the session timeout has passed
  // since it last heard from us. Trusting a hold for 3/4 of the timeout
  // after that moment keeps a quarter of the timeout as margin for
  // scheduling delays and clock rate differences; lost_after_ms shortens it.
  absl::Duration bound = absl::Milliseconds(negotiated_timeout_ms_) * 3 / 4;
  if (lost_after_ms_ > 0) bound = std::min(bound, absl::Milliseconds(lost_after_ms_));
  return bound;
}

absl::Time Client::LeaseDeadline() const {
  if (!connected() || negotiated_timeout_ms_ <= 0) return absl::InfinitePast();
  return heard_since_ + SafetyBound();
}

absl::Time Client::LostDeadline() const {
  // The client-side deadline: heard_since_ (the send time of the newest
  // request the server answered) is a lower bound of the moment the server
  // last heard from us, kept fresh by heartbeats while something is held.
  absl::Time deadline = std::max(MonoNow(), heard_since_ + SafetyBound());
  if (lost_after_ms_ > 0) deadline = std::min(deadline, MonoNow() + absl::Milliseconds(lost_after_ms_));
  return deadline;
}

void Client::AdjustHeld(int delta) {
  held_ += delta;
  if (held_ > 0 && HeartbeatDue() < maintenance_until_) maintenance_wakeup_.SignalAll();
}

void Client::SessionLost(int error) {
  SetState(ZKL_SESSION_LOST);
  session_id_ = 0;
  lost_deadline_ = absl::InfiniteFuture();
  connecting_since_ = MonoNow();
  for (auto &l : LiveListeners()) l->OnSessionLost(error);
  renew_session_ = true;
  maintenance_wakeup_.SignalAll();
}

void Client::OnNodeWatch(zhandle_t *zh, uint64_t listener_id, int type, const char *path) {
  MutexLock lock(&mu_);
  if (zh != zh_ || closed_) return;
  ++watch_events_;
  auto it = listeners_.find(listener_id);
  if (it == listeners_.end()) return;
  if (auto l = it->second.lock()) l->OnWatch(type, path);
}

void Client::MaintenanceLoop() {
  MutexLock lock(&mu_);
  while (!stop_) {
    absl::Time next = lost_deadline_;
    if (!timers_.empty()) next = std::min(next, timers_.begin()->first);
    absl::Time heartbeat = HeartbeatDue();
    next = std::min(next, heartbeat);
    if (!renew_session_) {
      maintenance_until_ = next;
      WaitUntil(maintenance_wakeup_, &mu_, next);
      maintenance_until_ = absl::InfinitePast();
    }
    if (stop_) break;
    if (renew_session_) {
      renew_session_ = false;
      zhandle_t *old = zh_;
      zh_ = nullptr;
      uint64_t old_generation = generation_++;
      mu_.Unlock();
      if (old != nullptr) zookeeper_close(old);  // runs stale completions
      mu_.Lock();
      FreeAbandonedRequests(old_generation);
      if (stop_ || closed_) break;
      if (StartSession() != ZKL_OK) {
        // Could not even allocate a handle; try again shortly.
        renew_session_ = true;
        maintenance_wakeup_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
      }
      continue;
    }
    absl::Time now = MonoNow();
    if (lost_deadline_ <= now) {
      // Disconnected too long: the server may soon expire the session, so
      // give it up now (its nodes die with it) and start a new one.
      SessionLost(ZKL_ESESSION);
      continue;
    }
    if (heartbeat <= now) {
      // While locks are held, keep proof that the server hears us recent
      // enough for the deadline above to leave room for a reconnect.
      heartbeat_sent_ = now;
      ++heartbeats_;
      Submit(NewRequest(nullptr, 0, "/"), [&](Request *req) {
        return zoo_aexists(zh_, "/", 0, &ZkCallbacks::Stat, req);
      });
    }
    while (!timers_.empty() && timers_.begin()->first <= now) {
      uint64_t id = timers_.begin()->second;
      timers_.erase(timers_.begin());
      timer_of_.erase(id);
      auto it = listeners_.find(id);
      if (it == listeners_.end()) continue;
      if (auto l = it->second.lock()) l->OnTimer();
    }
  }
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
  if (when < maintenance_until_) maintenance_wakeup_.SignalAll();
}

absl::Time Client::HeartbeatDue() const {
  if (held_ == 0 || !connected() || negotiated_timeout_ms_ <= 0) return absl::InfiniteFuture();
  absl::Duration period = absl::Milliseconds(negotiated_timeout_ms_) / 4;
  return std::max(heard_since_, heartbeat_sent_) + period;
}

const struct ACL_vector *Client::NodeAcl() const {
  return acl_mode_ == ZKL_ACL_CREATOR ? &acl_ : &ZOO_OPEN_ACL_UNSAFE;
}

Request *Client::NewRequest(Listener *l, int op, const std::string &path) {
  ++requests_;
  auto *req = new Request{this, l ? l->self() : std::weak_ptr<Listener>(), generation_, op, path,
                          MonoNow()};
  outstanding_.insert(req);
  return req;
}

template <typename Fn>
int Client::Submit(Request *req, Fn submit) {
  int rc = zh_ == nullptr ? ZCONNECTIONLOSS : submit(req);
  if (rc != ZOK) {
    outstanding_.erase(req);
    delete req;
  }
  return rc;
}

void Client::FreeAbandonedRequests(uint64_t generation) {
  // The ZooKeeper C client (3.8) can drop the completion of a request that
  // was still queued when its handle closed: free what it never answered.
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    if ((*it)->generation <= generation) {
      delete *it;
      outstanding_.erase(it++);
    } else {
      ++it;
    }
  }
}

int Client::CreateNode(Listener *l, int op, const std::string &path, const std::string &data,
                       int flags) {
  return Submit(NewRequest(l, op, path), [&](Request *req) {
    return zoo_acreate2(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                        NodeAcl(), flags, &ZkCallbacks::StringStat, req);
  });
}

int Client::DeleteNode(Listener *l, int op, const std::string &path) {
  return Submit(NewRequest(l, op, path), [&](Request *req) {
    return zoo_adelete(zh_, path.c_str(), -1, &ZkCallbacks::Void, req);
  });
}

int Client::GetChildren(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](Request *req) {
    return zoo_awget_children(zh_, path.c_str(), watch ? &ZkCallbacks::Node : nullptr,
                              reinterpret_cast<void *>(l->public_id()), &ZkCallbacks::Strings,
                              req);
  });
}

int Client::GetData(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](Request *req) {
    return zoo_awget(zh_, path.c_str(), watch ? &ZkCallbacks::Node : nullptr,
                     reinterpret_cast<void *>(l->public_id()), &ZkCallbacks::Data, req);
  });
}

int Client::Exists(Listener *l, int op, const std::string &path, bool watch) {
  return Submit(NewRequest(l, op, path), [&](Request *req) {
    return zoo_awexists(zh_, path.c_str(), watch ? &ZkCallbacks::Node : nullptr,
                        reinterpret_cast<void *>(l->public_id()), &ZkCallbacks::Stat, req);
  });
}

void Client::EnsurePath(Listener *l, int op, const std::string &path,
                        const std::string &leaf_data) {
  // Parents before children; ZooKeeper applies one session's requests in
  // order, so the caller's next request sees them.
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    bool leaf = slash == std::string::npos;
    std::string prefix = leaf ? path : path.substr(0, slash);
    const std::string &data = leaf ? leaf_data : std::string();
    Submit(NewRequest(l, op, prefix), [&](Request *req) {
      return zoo_acreate2(zh_, prefix.c_str(), data.data(), static_cast<int>(data.size()),
                          NodeAcl(), ZOO_CONTAINER, &ZkCallbacks::StringStat, req);
    });
    if (leaf) break;
  }
}

int Client::WaitConnected(int64_t timeout_ms) {
  MutexLock lock(&mu_);
  absl::Time deadline = MonoDeadline(timeout_ms);
  while (!connected()) {
    if (closed_) return ZKL_ECLOSED;
    if (state_ == ZKL_SESSION_AUTH_FAILED) return ZKL_EAUTH;
    if (WaitUntil(changed_, &mu_, deadline) && !connected()) return ZKL_ETIMEDOUT;
  }
  return ZKL_OK;
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
  const clientid_t *id = zh_ ? zoo_client_id(zh_) : nullptr;
  if (id == nullptr || session_id_ == 0) return ZKL_ENOTFOUND;
  if (len < sizeof id->passwd) return ZKL_ERANGE;
  std::memcpy(buf, id->passwd, sizeof id->passwd);
  return static_cast<int>(sizeof id->passwd);
}

int Client::NegotiatedTimeout() {
  MutexLock lock(&mu_);
  return negotiated_timeout_ms_;
}

std::string Client::StatsJson(uint64_t only) {
  JsonWriter j;
  MutexLock lock(&mu_);
  if (only != 0) {
    auto it = listeners_.find(only);
    std::shared_ptr<Listener> l = it == listeners_.end() ? nullptr : it->second.lock();
    if (l) l->WriteStats(j);
    return j.Take();
  }
  j.BeginObject();
  j.Field("schema", 1);
  j.Field("zkl_version", zkl_version_string());
  j.Key("client").BeginObject();
  j.Field("state", state_);
  j.Field("requests", requests_.load());
  j.Field("watch_events", watch_events_.load());
  j.Field("events", events_.load());
  j.Field("sessions", sessions_.load());
  j.Field("heartbeats", heartbeats_.load());
  j.EndObject();
  j.Key("handles").BeginArray();
  for (auto &l : LiveListeners()) l->WriteStats(j);
  j.EndArray();
  j.EndObject();
  return j.Take();
}

}  // namespace zkl
