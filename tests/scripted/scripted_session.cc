#include "scripted_session.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "zkl.h"

namespace zkl::scripted {

const char *KindName(Kind kind) {
  switch (kind) {
    case Kind::kCreate: return "create";
    case Kind::kDelete: return "delete";
    case Kind::kGetChildren: return "getChildren";
    case Kind::kGetData: return "getData";
    case Kind::kExists: return "exists";
    case Kind::kSetData: return "setData";
    case Kind::kMulti: return "multi";
    case Kind::kSync: return "sync";
    case Kind::kGetConfig: return "getConfig";
  }
  return "?";
}

std::string Request::Describe() const {
  std::string s = "#" + std::to_string(id) + " s" + std::to_string(session) + " " + KindName(kind) + " " + path;
  if (watch()) s += " (watch)";
  if (kind == Kind::kMulti) s += " [" + std::to_string(ops.size()) + " ops]";
  return s;
}

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

Answer Error(ZkRc rc) {
  Answer a;
  a.rc = rc;
  return a;
}

Answer Ok() { return Answer(); }

Answer Created(std::string path, int64_t czxid, int64_t ephemeral_owner) {
  Answer a;
  a.value = std::move(path);
  a.stat.czxid = czxid;
  a.stat.ephemeral_owner = ephemeral_owner;
  return a;
}

Answer Children(std::vector<std::string> names) {
  Answer a;
  a.children = std::move(names);
  return a;
}

Answer Data(std::string data, int64_t czxid, int64_t ephemeral_owner, int32_t version) {
  Answer a = Stat(czxid, ephemeral_owner, version);
  a.data = std::move(data);
  return a;
}

Answer Stat(int64_t czxid, int64_t ephemeral_owner, int32_t version) {
  Answer a;
  a.stat.czxid = czxid;
  a.stat.ephemeral_owner = ephemeral_owner;
  a.stat.version = version;
  return a;
}

std::string Sequential(const Request &create, int64_t seq) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%010lld", static_cast<long long>(seq));
  return create.path + suffix;
}

std::string NameOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Answer MultiOk(const Request &multi, int64_t czxid, int64_t ephemeral_owner, int64_t seq) {
  Answer a;
  for (const ZkOp &op : multi.ops) {
    ZkOpResult r;
    if (op.type == ZkOp::kCreate) {
      Request as_create;
      as_create.path = op.path;
      r.value = (op.mode & kSequential) ? Sequential(as_create, seq) : op.path;
      r.stat.czxid = czxid;
      r.stat.ephemeral_owner = (op.mode & kEphemeral) ? ephemeral_owner : 0;
    } else if (op.type == ZkOp::kSetData) {
      r.stat.version = op.version < 0 ? 1 : op.version + 1;
    }
    a.results.push_back(std::move(r));
  }
  return a;
}

Answer MultiFailed(const Request &multi, size_t failed, ZkRc rc) {
  Answer a;
  a.rc = rc;
  for (size_t i = 0; i < multi.ops.size(); ++i) {
    ZkOpResult r;
    // ZooKeeper: ok before the failing op, "runtime inconsistency" after it.
    r.rc = i < failed ? ZkRc::kOk : i == failed ? rc : ZkRc::kOther;
    a.results.push_back(std::move(r));
  }
  return a;
}

// ---------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------

class ScriptedSession final : public ZkSession {
 public:
  ScriptedSession(std::shared_ptr<Script> script, ZkSink *sink, int serial)
      : script_(std::move(script)),
        sink_(sink),
        serial_(serial),
        id_(SessionIdOf(serial)),
        fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        attempt_started_(MonoNow()) {
    if (fd_ < 0) throw std::runtime_error("eventfd failed");
  }

  // Closing answers what is still in flight with kClosing, as the C client
  // does; queued actions are dropped (a barrier among them completes).
  ~ScriptedSession() override {
    std::deque<Script::Action> dropped;
    {
      std::lock_guard<std::mutex> lock(script_->mu_);
      script_->sessions_.erase(serial_);
      dropped.swap(actions_);
      script_->changed_.notify_all();
    }
    for (auto &action : dropped) action(nullptr);
    AnswerAllInFlight(ZkRc::kClosing);
    close(fd_);
  }

  static uint64_t SessionIdOf(int serial) { return 0x5c00000000ull + static_cast<uint64_t>(serial); }

  // Called by the script with its mutex held.
  void PushLocked(Script::Action action) {
    actions_.push_back(std::move(action));
    uint64_t one = 1;
    ssize_t n = write(fd_, &one, sizeof one);
    (void)n;  // a full counter is still readable
  }

  ZkRc GetInterest(Interest *out) override {
    if (expired_) {
      out->fd = -1;
      return ZkRc::kInvalidState;
    }
    out->fd = fd_;
    out->socket_serial = static_cast<uint64_t>(serial_);  // one eventfd per session
    out->read = true;  // readable while actions are queued
    out->write = false;
    out->timeout_ms = 60 * 1000;  // nothing of its own to time
    return ZkRc::kOk;
  }

  ZkRc Process(bool readable, bool) override {
    if (!readable) return ZkRc::kOk;
    uint64_t count;
    ssize_t n = read(fd_, &count, sizeof count);
    (void)n;
    // One round delivers what was queued when it began; what the engine's
    // reactions queue goes in the next round, as on a real connection.
    size_t budget;
    {
      std::lock_guard<std::mutex> lock(script_->mu_);
      budget = actions_.size();
    }
    for (size_t i = 0; i < budget; ++i) {
      Script::Action action;
      {
        std::lock_guard<std::mutex> lock(script_->mu_);
        if (actions_.empty()) break;
        action = std::move(actions_.front());
        actions_.pop_front();
      }
      action(this);  // without the script's mutex: the engine calls back in
    }
    {
      std::lock_guard<std::mutex> lock(script_->mu_);
      if (!actions_.empty()) {
        uint64_t one = 1;
        n = write(fd_, &one, sizeof one);
      }
    }
    return ZkRc::kOk;
  }

  ZkRc Create(void *request, const std::string &path, std::string_view data, int mode) override {
    Request r = Base(Kind::kCreate, path);
    r.data = std::string(data);
    r.mode = mode;
    return Record(request, std::move(r));
  }
  ZkRc Delete(void *request, const std::string &path, int version) override {
    Request r = Base(Kind::kDelete, path);
    r.version = version;
    return Record(request, std::move(r));
  }
  ZkRc GetChildren(void *request, const std::string &path, uint64_t watcher) override {
    return Record(request, Watching(Kind::kGetChildren, path, watcher));
  }
  ZkRc GetData(void *request, const std::string &path, uint64_t watcher) override {
    return Record(request, Watching(Kind::kGetData, path, watcher));
  }
  ZkRc Exists(void *request, const std::string &path, uint64_t watcher) override {
    return Record(request, Watching(Kind::kExists, path, watcher));
  }
  ZkRc SetData(void *request, const std::string &path, std::string_view data, int version) override {
    Request r = Base(Kind::kSetData, path);
    r.data = std::string(data);
    r.version = version;
    return Record(request, std::move(r));
  }
  ZkRc Multi(void *request, std::vector<ZkOp> ops) override {
    Request r = Base(Kind::kMulti, ops.empty() ? std::string() : ops.front().path);
    r.ops = std::move(ops);
    return Record(request, std::move(r));
  }
  ZkRc Sync(void *request, const std::string &path) override {
    return Record(request, Base(Kind::kSync, path));
  }
  ZkRc GetConfig(void *request, uint64_t watcher) override {
    return Record(request, Watching(Kind::kGetConfig, "/zookeeper/config", watcher));
  }
  ZkRc SetServers(const std::string &) override { return ZkRc::kOk; }

  bool connected() const override { return connected_; }
  bool unrecoverable() const override { return expired_; }
  uint64_t session_id() const override { return ever_connected_ ? id_ : 0; }
  int negotiated_timeout_ms() const override {
    return ever_connected_ ? script_->options_.negotiated_timeout_ms : 0;
  }
  bool Password(uint8_t out[16]) const override {
    if (!ever_connected_) return false;
    for (int i = 0; i < 16; ++i) out[i] = static_cast<uint8_t>(id_ >> ((i % 8) * 8)) ^ static_cast<uint8_t>(i);
    return true;
  }
  int LastConnectError() const override { return ZKL_OK; }
  int ServerCount() const override { return 1; }
  std::string CurrentServer() const override { return "scripted:2181"; }
  absl::Time AttemptStarted() const override { return attempt_started_; }
  void LimitAttempt(int) override {}

  // --- what the script's actions do (inside Process, client mutex held) ---
  void DoConnect() {
    if (expired_) return;
    connected_ = true;
    ever_connected_ = true;
    sink_->OnZkState(ZkState::kConnected);
  }
  void DoDrop() {
    if (!connected_) return;
    connected_ = false;
    attempt_started_ = MonoNow();  // the next connect is a new attempt
    sink_->OnZkState(ZkState::kConnecting);
    AnswerAllInFlight(ZkRc::kConnectionLoss);
  }
  void DoExpire(bool announce) {
    connected_ = false;
    expired_ = true;
    if (announce) sink_->OnZkState(ZkState::kExpired);
    AnswerAllInFlight(ZkRc::kSessionExpired);
  }
  void DoFailAuth() {
    connected_ = false;
    expired_ = true;
    sink_->OnZkState(ZkState::kAuthFailed);
    AnswerAllInFlight(ZkRc::kAuthFailed);
  }
  void DoReply(uint64_t id, const Answer &answer) {
    auto it = in_flight_.find(id);
    if (it == in_flight_.end()) return;  // answered already (by a connection loss...)
    InFlight f = std::move(it->second);
    in_flight_.erase(it);
    ZkReply reply;
    reply.rc = answer.rc;
    reply.from_server = answer.from_server;
    reply.value = answer.value;
    bool has_stat = answer.rc == ZkRc::kOk &&
                    (f.kind == Kind::kCreate || f.kind == Kind::kGetData || f.kind == Kind::kExists ||
                     f.kind == Kind::kSetData || f.kind == Kind::kGetConfig);
    if (has_stat) reply.stat = &answer.stat;
    std::vector<std::string_view> children(answer.children.begin(), answer.children.end());
    if (f.kind == Kind::kGetChildren && answer.rc == ZkRc::kOk) reply.children = &children;
    reply.data = answer.data;
    if (f.kind == Kind::kMulti) reply.results = &answer.results;
    sink_->OnZkReply(f.cookie, reply);
  }
  // Fires the watches set on `path` (only `watcher`'s when it is not 0).
  void DoWatch(const std::string &path, uint64_t watcher, WatchType type) {
    std::vector<uint64_t> fire;
    for (auto it = watches_.begin(); it != watches_.end();) {
      if (it->first == path && (watcher == 0 || it->second == watcher)) {
        if (std::find(fire.begin(), fire.end(), it->second) == fire.end()) fire.push_back(it->second);
        it = watches_.erase(it);
      } else {
        ++it;
      }
    }
    if (watcher != 0 && fire.empty()) fire.push_back(watcher);  // before its reply: not yet listed
    for (uint64_t w : fire) sink_->OnZkWatch(w, type, path);
  }

 private:
  struct InFlight {
    void *cookie;
    Kind kind;
  };

  Request Base(Kind kind, const std::string &path) const {
    Request r;
    r.kind = kind;
    r.path = path;
    r.session = serial_;
    return r;
  }
  Request Watching(Kind kind, const std::string &path, uint64_t watcher) const {
    Request r = Base(kind, path);
    r.watcher = watcher;
    return r;
  }

  // Under the client's mutex (every caller holds it).
  ZkRc Record(void *cookie, Request r) {
    if (expired_) return ZkRc::kInvalidState;
    if (r.watcher != 0) watches_.emplace_back(r.path, r.watcher);
    std::lock_guard<std::mutex> lock(script_->mu_);
    r.id = ++script_->last_request_;
    in_flight_[r.id] = InFlight{cookie, r.kind};
    auto shared = std::make_shared<const Request>(std::move(r));
    if (shared->kind == Kind::kSync && script_->auto_sync_) {
      ++script_->auto_synced_;
      uint64_t id = shared->id;
      PushLocked([id](ScriptedSession *s) {
        if (s) s->DoReply(id, Ok());
      });
    } else {
      script_->pending_.push_back(std::move(shared));
    }
    script_->changed_.notify_all();
    return ZkRc::kOk;
  }

  void AnswerAllInFlight(ZkRc rc) {
    // Only what is in flight now: requests the answers provoke stay queued
    // (the C client queues them for the next connection).
    std::vector<uint64_t> ids;
    for (auto &entry : in_flight_) ids.push_back(entry.first);
    Answer lost = Error(rc);
    lost.from_server = false;
    for (uint64_t id : ids) DoReply(id, lost);
  }

  const std::shared_ptr<Script> script_;
  ZkSink *const sink_;
  const int serial_;
  const uint64_t id_;
  const int fd_;
  // Touched only under the client's mutex.
  bool connected_ = false;
  bool ever_connected_ = false;
  bool expired_ = false;
  absl::Time attempt_started_;
  std::map<uint64_t, InFlight> in_flight_;  // by request id: submission order
  std::vector<std::pair<std::string, uint64_t>> watches_;  // path, watcher
  // Guarded by the script's mutex.
  std::deque<Script::Action> actions_;
};

// ---------------------------------------------------------------------------
// The script
// ---------------------------------------------------------------------------

std::shared_ptr<Script> Script::Make(Options options) {
  return std::shared_ptr<Script>(new Script(options));
}

ZkSessionFactory Script::Factory() {
  std::weak_ptr<Script> weak = shared_from_this();
  return [weak](const ZkConnectParams &, ZkSink *sink, int *error) -> std::unique_ptr<ZkSession> {
    std::shared_ptr<Script> script = weak.lock();
    if (!script) {
      *error = ZKL_EINTERNAL;
      return nullptr;
    }
    std::unique_ptr<ScriptedSession> session;
    {
      std::lock_guard<std::mutex> lock(script->mu_);
      if (script->refuse_sessions_ > 0) {
        --script->refuse_sessions_;
        *error = ZKL_ECONNECTION;
        return nullptr;
      }
      int serial = ++script->last_serial_;
      session = std::make_unique<ScriptedSession>(script, sink, serial);
      script->sessions_[serial] = session.get();
      if (script->options_.auto_connect) {
        session->PushLocked([](ScriptedSession *s) {
          if (s) s->DoConnect();
        });
      }
      script->changed_.notify_all();
    }
    return session;
  };
}

void Script::SetPump(std::function<void()> pump) {
  std::lock_guard<std::mutex> lock(mu_);
  pump_ = std::move(pump);
}

template <typename Ready>
bool Script::WaitFor(std::unique_lock<std::mutex> &lock, int64_t timeout_ms, Ready ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (pump_) {
      // Host mode: only the waiting test drives the loop; it does one round,
      // then waits a short slice for what another thread may queue.
      auto pump = pump_;
      lock.unlock();
      pump();
      lock.lock();
      if (ready()) break;
      changed_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(5)));
    } else {
      changed_.wait_until(lock, deadline);
    }
  }
  return true;
}

static bool Matches(const Request &r, Kind kind, std::string_view prefix) {
  return r.kind == kind && std::string_view(r.path).substr(0, prefix.size()) == prefix;
}

RequestPtr Script::Next(Kind kind, std::string_view path_prefix, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  auto find = [&] {
    return std::find_if(pending_.begin(), pending_.end(),
                        [&](const RequestPtr &r) { return Matches(*r, kind, path_prefix); });
  };
  if (!WaitFor(lock, timeout_ms, [&] { return find() != pending_.end(); })) {
    std::string pending;
    for (const RequestPtr &r : pending_) pending += "\n  " + r->Describe();
    throw std::runtime_error(std::string("no ") + KindName(kind) + " request on " + std::string(path_prefix) +
                             " within " + std::to_string(timeout_ms) + " ms; pending:" +
                             (pending.empty() ? " none" : pending));
  }
  auto it = find();
  RequestPtr r = *it;
  pending_.erase(it);
  return r;
}

std::vector<RequestPtr> Script::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {pending_.begin(), pending_.end()};
}

bool Script::HasPending(Kind kind, std::string_view path_prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(pending_.begin(), pending_.end(),
                     [&](const RequestPtr &r) { return Matches(*r, kind, path_prefix); });
}

std::string Script::DescribePending() const {
  std::string out;
  for (const RequestPtr &r : Pending()) out += r->Describe() + "\n";
  return out;
}

void Script::SetAutoSync(bool on) {
  std::vector<RequestPtr> syncs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto_sync_ = on;
    if (!on) return;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if ((*it)->kind == Kind::kSync) {
        syncs.push_back(*it);
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const RequestPtr &sync : syncs) Reply(sync, Ok());
}

int Script::auto_synced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return auto_synced_;
}

ScriptedSession *Script::CurrentLocked() const {
  return sessions_.empty() ? nullptr : sessions_.rbegin()->second;
}

void Script::Queue(int serial, Action action, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  ScriptedSession *s = nullptr;
  if (serial == 0) {
    // The current session. When none is alive the client is between two:
    // it has just ended one (EndSession destroys it: an expiry, a loss)
    // and is about to start the next (StartSession, the same round of its
    // loop, on its own thread). The test, woken by an event the ending
    // emitted, may get here in that gap: wait for the next one.
    if (!WaitFor(lock, timeout_ms, [&] { return CurrentLocked() != nullptr; })) {
      throw std::runtime_error("no scripted session to act on (none started within " +
                               std::to_string(timeout_ms) + " ms; last one: " + std::to_string(last_serial_) +
                               ")");
    }
    s = CurrentLocked();
  } else {
    auto it = sessions_.find(serial);
    // Answers for a session that is gone are lost, as on the wire.
    if (it == sessions_.end()) return;
    s = it->second;
  }
  s->PushLocked(std::move(action));
  changed_.notify_all();  // a pumping waiter drives the loop again
}

void Script::Reply(const RequestPtr &request, Answer answer) {
  if (!request) throw std::runtime_error("Reply: no request");
  uint64_t id = request->id;
  Queue(request->session, [id, answer = std::move(answer)](ScriptedSession *s) {
    if (s) s->DoReply(id, answer);
  });
}

void Script::DropConnection() {
  Queue(0, [](ScriptedSession *s) {
    if (s) s->DoDrop();
  });
}

void Script::Connect() {
  Queue(0, [](ScriptedSession *s) {
    if (s) s->DoConnect();
  });
}

void Script::Expire(bool announce) {
  Queue(0, [announce](ScriptedSession *s) {
    if (s) s->DoExpire(announce);
  });
}

void Script::FailAuth() {
  Queue(0, [](ScriptedSession *s) {
    if (s) s->DoFailAuth();
  });
}

void Script::RefuseSessions(int count) {
  std::lock_guard<std::mutex> lock(mu_);
  refuse_sessions_ = count;
}

void Script::FireWatch(const RequestPtr &setter, WatchType type) {
  if (!setter || !setter->watch()) throw std::runtime_error("FireWatch: the request set no watch");
  Queue(setter->session, [path = setter->path, w = setter->watcher, type](ScriptedSession *s) {
    if (s) s->DoWatch(path, w, type);
  });
}

void Script::FireWatch(std::string_view path, WatchType type) {
  Queue(0, [path = std::string(path), type](ScriptedSession *s) {
    if (s) s->DoWatch(path, 0, type);
  });
}

void Script::Flush(int64_t timeout_ms) {
  auto done = std::make_shared<bool>(false);
  Queue(
      0,
      [this, done](ScriptedSession *) {
        std::lock_guard<std::mutex> lock(mu_);
        *done = true;
        changed_.notify_all();
      },
      timeout_ms);
  std::unique_lock<std::mutex> lock(mu_);
  if (!WaitFor(lock, timeout_ms, [&] { return *done; })) {
    throw std::runtime_error("Flush: the scripted actions were not delivered within " +
                             std::to_string(timeout_ms) + " ms");
  }
}

int Script::session_serial() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_serial_;
}

void Script::WaitSession(int serial, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!WaitFor(lock, timeout_ms, [&] { return last_serial_ >= serial; })) {
    throw std::runtime_error("session " + std::to_string(serial) + " was not started within " +
                             std::to_string(timeout_ms) + " ms");
  }
}

uint64_t Script::session_id(int serial) const {
  return ScriptedSession::SessionIdOf(serial == 0 ? session_serial() : serial);
}

}  // namespace zkl::scripted
