// The C boundary: argument checks, handle lookups, and the guarantee that no
// C++ exception crosses into the caller.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "client.h"
#include "client_options.h"
#include "contender.h"
#include "inspect.h"
#include "multilock.h"
#include "observer.h"
#include "paths.h"
#include "recipes.h"
#include "revoke.h"
#include "zkl.h"

using zkl::Client;
using zkl::MutexLock;
using zkl::Contender;
using zkl::HandleKind;
using zkl::Observer;

namespace {

constexpr size_t kMaxData = 1024 * 1024;

// Runs `body`, mapping any escaping exception onto an error code.
template <typename Body>
int Guard(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return ZKL_ENOMEM;
  } catch (...) {
    return ZKL_EINTERNAL;
  }
}

// Options structs: version 1 is the only layout so far. A caller built
// against a newer header gets ZKL_EVERSION instead of a misread struct.
int CheckVersion(uint32_t version, uint32_t supported) {
  if (version == 0 || version > supported) return ZKL_EVERSION;
  return ZKL_OK;
}

int CheckData(const void *data, size_t len) {
  if (data == nullptr && len > 0) return ZKL_EINVAL;
  if (len > kMaxData) return ZKL_ETOOBIG;
  return ZKL_OK;
}

std::shared_ptr<Client> GetClient(zkl_client *c) {
  return zkl::Lookup<Client>(c, HandleKind::kClient);
}
std::shared_ptr<Contender> GetLock(zkl_lock *l) {
  return zkl::Lookup<Contender>(l, HandleKind::kLock);
}
std::shared_ptr<Contender> GetElection(zkl_election *e) {
  return zkl::Lookup<Contender>(e, HandleKind::kElection);
}
std::shared_ptr<zkl::Multilock> GetMultilock(zkl_multilock *m) {
  return zkl::Lookup<zkl::Multilock>(m, HandleKind::kMultilock);
}
std::shared_ptr<Observer> GetObserver(zkl_observer *o) {
  return zkl::Lookup<Observer>(o, HandleKind::kObserver);
}

// The Rule of a lock or election kind (nullptr for an unknown kind or bad
// semaphore counts), from the one table of recipes.
std::unique_ptr<zkl::Rule> ElectionRule(int32_t kind) {
  const zkl::Recipe *r = zkl::FindElectionRecipe(kind);
  return r ? zkl::NewRule(*r) : nullptr;
}
std::unique_ptr<zkl::Rule> LockRule(int32_t kind, int32_t max_leases, int32_t leases = 1) {
  const zkl::Recipe *r = zkl::FindLockRecipe(kind);
  return r ? zkl::NewRule(*r, max_leases, leases) : nullptr;
}

template <typename Public>
int EventHandle(const zkl_event *ev, HandleKind kind, Public **out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->handle && ev->handle->kind() == kind ? zkl::ToPublic<Public>(*ev->handle) : nullptr;
  return ZKL_OK;
}

// Hands a string to the caller as malloc'ed memory (freed by zkl_free).
int ReturnString(const std::string &s, char **out, size_t *len) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p == nullptr) return ZKL_ENOMEM;
  std::memcpy(p, s.c_str(), s.size() + 1);
  *out = p;
  if (len) *len = s.size();
  return ZKL_OK;
}

int HandleStats(const std::shared_ptr<Contender> &h, char **json, size_t *len) {
  if (!h) return ZKL_EBADHANDLE;
  if (!json) return ZKL_EINVAL;
  return ReturnString(h->client().StatsJson(h->public_id()), json, len);
}

// The rule of the recipe an inspect/revoke options struct names.
int InspectRule(const zkl_inspect_options *opts, std::unique_ptr<zkl::Rule> *rule) {
  if (int rc = CheckVersion(opts->version, ZKL_INSPECT_OPTIONS_VERSION)) return rc;
  *rule = opts->election_kind > 0 ? ElectionRule(opts->election_kind) : LockRule(opts->lock_kind, 1);
  return *rule ? ZKL_OK : ZKL_EINVAL;
}

// The participant at index i, or null (then *rc says why).
const zkl::Participant *ParticipantAt(const zkl_participants *p, size_t i, int *rc) {
  *rc = !p ? ZKL_EINVAL : i >= p->list.size() ? ZKL_ERANGE : ZKL_OK;
  return *rc == ZKL_OK ? &p->list[i] : nullptr;
}

// The next event worth handing out: events of a handle destroyed since they
// were queued are dropped; log lines are counted out of the log budget.
std::unique_ptr<zkl_event> NextEvent(Client &client) {
  for (;;) {
    std::unique_ptr<zkl_event> ev = client.queue().Pop();
    if (!ev) return nullptr;
    if (ev->type == ZKL_EVENT_LOG) client.LogDelivered();
    if (ev->handle && !zkl::LookupHandle(reinterpret_cast<void *>(ev->handle->public_id()),
                                         ev->handle->kind())) {
      continue;
    }
    return ev;
  }
}

// Registers a new listener handle with its client.
template <typename T>
void Attach(Client &client, const std::shared_ptr<T> &h) {
  zkl::RegisterHandle(h);
  MutexLock lock(&client.mu());
  client.AddListener(h);
}

// One operation for a zkl_ops list (zkl_ops_create and its siblings).
int AddOp(zkl_ops *ops, zkl::ZkOp::Type type, const char *path, const void *data, size_t len,
          int32_t mode, int32_t version) {
  return Guard([&] {
    if (!ops || !path) return ZKL_EINVAL;
    if (int rc = CheckData(data, len)) return rc;
    std::string bytes = data ? std::string(static_cast<const char *>(data), len) : std::string();
    return zkl::AddOp(ops, zkl::ZkOp{type, path, std::move(bytes), mode, version});
  });
}

// The six zkl_*_write calls. An async write only reads the list (it sends
// a copy); a blocking one writes its results into it.
template <typename H>
int WriteOps(const std::shared_ptr<H> &h, uint64_t owner, const zkl_ops *ops, bool async) {
  if (!h) return ZKL_EBADHANDLE;
  if (!ops) return ZKL_EINVAL;
  return h->Write(owner, const_cast<zkl_ops *>(ops), async);
}

}  // namespace

extern "C" {

int zkl_version(void) {
  return ZKL_VERSION_MAJOR * 10000 + ZKL_VERSION_MINOR * 100 + ZKL_VERSION_PATCH;
}

#define ZKL_STR2(x) #x
#define ZKL_STR(x) ZKL_STR2(x)
const char *zkl_version_string(void) {
  return ZKL_STR(ZKL_VERSION_MAJOR) "." ZKL_STR(ZKL_VERSION_MINOR) "." ZKL_STR(ZKL_VERSION_PATCH);
}

void zkl_free(void *p) { std::free(p); }

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

int zkl_event_type(const zkl_event *ev) { return ev ? ev->type : ZKL_EINVAL; }
int zkl_event_error(const zkl_event *ev) { return ev ? ev->error : ZKL_EINVAL; }
int zkl_event_session_state(const zkl_event *ev) { return ev ? ev->session_state : ZKL_EINVAL; }

int zkl_event_lock(const zkl_event *ev, zkl_lock **out) {
  return EventHandle(ev, HandleKind::kLock, out);
}
int zkl_event_multilock(const zkl_event *ev, zkl_multilock **out) {
  return EventHandle(ev, HandleKind::kMultilock, out);
}
int zkl_event_election(const zkl_event *ev, zkl_election **out) {
  return EventHandle(ev, HandleKind::kElection, out);
}
int zkl_event_observer(const zkl_event *ev, zkl_observer **out) {
  return EventHandle(ev, HandleKind::kObserver, out);
}

int zkl_event_user_data(const zkl_event *ev, void **out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->user_data;
  return ZKL_OK;
}

int zkl_event_owner(const zkl_event *ev, uint64_t *out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->owner;
  return ZKL_OK;
}

int zkl_event_fencing_token(const zkl_event *ev, uint64_t *out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->fencing_token;
  return ZKL_OK;
}

int zkl_event_data(const zkl_event *ev, const char **data, size_t *len) {
  if (!ev || !data || !len) return ZKL_EINVAL;
  *data = ev->data.c_str();
  *len = ev->data.size();
  return ZKL_OK;
}

int zkl_event_log(const zkl_event *ev, int *level, const char **component) {
  if (!ev || !level || !component) return ZKL_EINVAL;
  *level = ev->type == ZKL_EVENT_LOG ? ev->log_level : 0;
  *component = ev->log_component.c_str();
  return ZKL_OK;
}

int zkl_event_request_id(const zkl_event *ev, uint64_t *out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->request_id;
  return ZKL_OK;
}

int zkl_event_ops(const zkl_event *ev, const zkl_ops **out) {
  if (!ev || !out) return ZKL_EINVAL;
  *out = ev->ops.get();
  return ZKL_OK;
}

void zkl_event_free(zkl_event *ev) { delete ev; }

// ---------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------

int zkl_client_options_init(zkl_client_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_CLIENT_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  opts->session_timeout_ms = 10000;
  opts->io = ZKL_IO_THREAD;
  opts->acl = ZKL_ACL_OPEN;
  opts->log_level = ZKL_LOG_OFF;
  return ZKL_OK;
}

int zkl_client_new(const zkl_client_options *opts, zkl_client **out) {
  return zkl_client_create(opts, out, nullptr, 0);  // the same path; no message
}

// A message into a caller's buffer, cut short to fit (always NUL-ended).
static void CopyMessage(std::string_view msg, char *buf, size_t len) {
  if (buf == nullptr || len == 0) return;
  size_t n = std::min(msg.size(), len - 1);
  std::memcpy(buf, msg.data(), n);
  buf[n] = '\0';
}

// The outcome of a client call into errbuf: "" on success, else the checks'
// message, or the code's name for a failure past them (out of memory, the
// ZooKeeper client's own start).
static void CopyOutcome(int rc, const std::string &why, char *errbuf, size_t errbuf_size) {
  std::string_view message = rc == ZKL_OK ? std::string_view()
                             : why.empty() ? std::string_view(zkl_strerror(rc))
                                           : std::string_view(why);
  CopyMessage(message, errbuf, errbuf_size);
}

int zkl_client_create(const zkl_client_options *opts, zkl_client **out, char *errbuf,
                      size_t errbuf_size) {
  std::string why;
  int outcome = Guard([&] {
    if (!opts || !out) {
      why = !opts ? "opts: NULL" : "out: NULL";
      return ZKL_EINVAL;
    }
    std::shared_ptr<Client> client;
    if (int rc = Client::Create(*opts, &client, &why)) return rc;
    zkl::RegisterHandle(client);
    *out = zkl::ToPublic<zkl_client>(*client);
    return ZKL_OK;
  });
  CopyOutcome(outcome, why, errbuf, errbuf_size);
  return outcome;
}

int zkl_client_options_check(const zkl_client_options *opts, char *errbuf, size_t errbuf_size) {
  std::string why;
  int rc = Guard([&] {
    if (!opts) {
      why = "opts: NULL";
      return ZKL_EINVAL;
    }
    return zkl::CheckClientOptions(*opts, &why);
  });
  CopyOutcome(rc, why, errbuf, errbuf_size);
  return rc;
}

int zkl_client_connect_error(zkl_client *c, char *buf, size_t len) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    std::string why;
    int rc = client->ConnectError(&why);
    CopyMessage(why, buf, len);
    return rc;
  });
}

int zkl_client_destroy(zkl_client *c) {
  return Guard([&] {
    auto h = zkl::UnregisterHandle(c, HandleKind::kClient);
    if (!h) return ZKL_EBADHANDLE;
    auto client = std::static_pointer_cast<Client>(h);
    client->Close();
    client->queue().Clear();
    return ZKL_OK;
  });
}

int zkl_client_close(zkl_client *c) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    client->Close();
    return ZKL_OK;
  });
}

int zkl_client_wait_connected(zkl_client *c, int64_t timeout_ms) {
  return Guard([&] {
    auto client = GetClient(c);
    return client ? client->WaitConnected(timeout_ms) : ZKL_EBADHANDLE;
  });
}

int zkl_client_state(zkl_client *c) {
  return Guard([&] {
    auto client = GetClient(c);
    return client ? client->State() : ZKL_EBADHANDLE;
  });
}

int zkl_client_session_id(zkl_client *c, uint64_t *out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    *out = client->SessionId();
    return ZKL_OK;
  });
}

int zkl_client_session_password(zkl_client *c, void *buf, size_t len) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!buf) return ZKL_EINVAL;
    return client->SessionPassword(buf, len);
  });
}

int zkl_client_session_timeout(zkl_client *c) {
  return Guard([&] {
    auto client = GetClient(c);
    return client ? client->NegotiatedTimeout() : ZKL_EBADHANDLE;
  });
}

int zkl_client_stats(zkl_client *c, char **json, size_t *len) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!json) return ZKL_EINVAL;
    return ReturnString(client->StatsJson(), json, len);
  });
}

int zkl_client_set_servers(zkl_client *c, const char *servers) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    return client->SetServers(servers);
  });
}

int zkl_client_follow_ensemble(zkl_client *c, int on) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (on != 0 && on != 1) return ZKL_EINVAL;
    return client->FollowEnsemble(on == 1);
  });
}

int zkl_client_fd(zkl_client *c) {
  return Guard([&] {
    auto client = GetClient(c);
    return client ? client->Fd() : ZKL_EBADHANDLE;
  });
}

int zkl_client_dispatch(zkl_client *c, int max_events) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    client->DriveNow();  // host mode: the I/O first
    // Only the events pending at entry: a callback that causes new events
    // cannot keep this call running forever.
    size_t budget = client->queue().size();
    if (max_events > 0 && static_cast<size_t>(max_events) < budget) budget = max_events;
    int delivered = 0;
    for (size_t i = 0; i < budget; ++i) {
      std::unique_ptr<zkl_event> ev = NextEvent(*client);
      if (!ev) break;
      if (!zkl::LookupHandle(c, HandleKind::kClient)) break;  // destroyed by a callback
      if (ev->type == ZKL_EVENT_LOG) {
        if (zkl_log_cb log = client->log_cb()) {
          log(ev->log_level, ev->log_component.c_str(), ev->data.c_str(), client->log_user_data());
          ++delivered;
        }
      } else if (ev->cb) {
        ev->cb(ev.get(), ev->user_data);
        ++delivered;
      }
    }
    return delivered;
  });
}

int zkl_client_next_event(zkl_client *c, zkl_event **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    client->DriveNow();
    std::unique_ptr<zkl_event> ev = NextEvent(*client);
    if (!ev) return ZKL_EAGAIN;
    *out = ev.release();
    return ZKL_OK;
  });
}

int zkl_client_wait(zkl_client *c, int64_t timeout_ms) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    return client->WaitForEvent(timeout_ms);
  });
}

int zkl_client_wakeup(zkl_client *c) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    client->Wakeup();
    return ZKL_OK;
  });
}

// ---------------------------------------------------------------------------
// Locks
// ---------------------------------------------------------------------------

int zkl_lock_options_init(zkl_lock_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_LOCK_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  opts->kind = ZKL_LOCK_FAIR;
  opts->max_leases = 1;
  opts->leases = 1;
  opts->on_revoke = ZKL_REVOKE_IGNORE;
  return ZKL_OK;
}

int zkl_lock_new(zkl_client *c, const char *path, const zkl_lock_options *opts, zkl_lock **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts || !out) return ZKL_EINVAL;
    if (int rc = CheckVersion(opts->version, ZKL_LOCK_OPTIONS_VERSION)) return rc;
    if (int rc = zkl::ValidatePath(path)) return rc;
    if (int rc = CheckData(opts->data, opts->data_len)) return rc;
    if (opts->max_hold_ms < 0 || opts->on_revoke < ZKL_REVOKE_IGNORE ||
        opts->on_revoke > ZKL_REVOKE_RELEASE) {
      return ZKL_EINVAL;
    }
    if (opts->leases < 1 || (opts->kind == ZKL_LOCK_SEMAPHORE && opts->leases > opts->max_leases) ||
        (opts->kind != ZKL_LOCK_SEMAPHORE && opts->leases != 1)) {
      return ZKL_EINVAL;
    }
    Contender::Options o;
    o.rule = LockRule(opts->kind, opts->max_leases, opts->leases);
    if (!o.rule) return ZKL_EINVAL;
    o.path = path;
    o.reentrant = opts->kind == ZKL_LOCK_REENTRANT;
    o.kind_name = zkl::FindLockRecipe(opts->kind)->name;
    if (opts->data_len > 0) o.data.assign(static_cast<const char *>(opts->data), opts->data_len);
    o.max_hold = absl::Milliseconds(opts->max_hold_ms);
    o.on_revoke = opts->on_revoke;
    o.cb = opts->cb;
    o.user_data = opts->user_data;
    {
      MutexLock lock(&client->mu());
      if (client->closed()) return ZKL_ECLOSED;
    }
    auto lock = std::make_shared<Contender>(client, HandleKind::kLock, std::move(o));
    Attach(*client, lock);
    *out = zkl::ToPublic<zkl_lock>(*lock);
    return ZKL_OK;
  });
}

int zkl_lock_destroy(zkl_lock *l) {
  return Guard([&] {
    if (auto lock = GetLock(l)) {
      MutexLock guard(&lock->client().mu());
      if (lock->group() != nullptr) return ZKL_EBUSY;  // destroy its multi-lock
    }
    auto h = zkl::UnregisterHandle(l, HandleKind::kLock);
    if (!h) return ZKL_EBADHANDLE;
    std::static_pointer_cast<Contender>(h)->Destroy();
    return ZKL_OK;
  });
}

int zkl_lock_acquire(zkl_lock *l, uint64_t owner, int64_t timeout_ms) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Acquire(owner, timeout_ms, Contender::Mode::kBlocking) : ZKL_EBADHANDLE;
  });
}

int zkl_lock_try_acquire(zkl_lock *l, uint64_t owner) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Acquire(owner, -1, Contender::Mode::kTry) : ZKL_EBADHANDLE;
  });
}

int zkl_lock_acquire_async(zkl_lock *l, uint64_t owner, int64_t timeout_ms) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Acquire(owner, timeout_ms, Contender::Mode::kAsync) : ZKL_EBADHANDLE;
  });
}

int zkl_lock_cancel(zkl_lock *l) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Cancel() : ZKL_EBADHANDLE;
  });
}

int zkl_lock_release(zkl_lock *l, uint64_t owner) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Release(owner, true) : ZKL_EBADHANDLE;
  });
}

int zkl_lock_release_async(zkl_lock *l, uint64_t owner) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->Release(owner, false) : ZKL_EBADHANDLE;
  });
}

int zkl_lock_is_held(zkl_lock *l) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->IsHeld() : ZKL_EBADHANDLE;
  });
}

int zkl_lock_valid_for(zkl_lock *l, int64_t *ms) {
  return Guard([&] {
    if (ms) *ms = 0;
    auto lock = GetLock(l);
    if (!lock) return ZKL_EBADHANDLE;
    if (!ms) return ZKL_EINVAL;
    return lock->ValidFor(ms);
  });
}

int zkl_lock_fencing_token(zkl_lock *l, uint64_t *out) {
  return Guard([&] {
    auto lock = GetLock(l);
    if (!lock) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    return lock->FencingToken(out);
  });
}

int zkl_lock_hold_count(zkl_lock *l) {
  return Guard([&] {
    auto lock = GetLock(l);
    return lock ? lock->HoldCount() : ZKL_EBADHANDLE;
  });
}

int zkl_lock_stats(zkl_lock *l, char **json, size_t *len) {
  return Guard([&] { return HandleStats(GetLock(l), json, len); });
}

// ---------------------------------------------------------------------------
// Multi-locks
// ---------------------------------------------------------------------------

int zkl_multilock_options_init(zkl_multilock_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_MULTILOCK_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  return ZKL_OK;
}

int zkl_multilock_new(zkl_client *c, zkl_lock *const *members, size_t n,
                      const zkl_multilock_options *opts, zkl_multilock **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!members || n == 0 || !opts || !out) return ZKL_EINVAL;
    if (int rc = CheckVersion(opts->version, ZKL_MULTILOCK_OPTIONS_VERSION)) return rc;
    std::vector<std::shared_ptr<Contender>> locks;
    for (size_t i = 0; i < n; ++i) {
      auto l = GetLock(members[i]);
      if (!l) return ZKL_EBADHANDLE;
      locks.push_back(std::move(l));
    }
    std::shared_ptr<zkl::Multilock> ml;
    if (int rc = zkl::Multilock::Create(client, std::move(locks), opts->cb, opts->user_data, &ml)) {
      return rc;
    }
    zkl::RegisterHandle(ml);
    *out = zkl::ToPublic<zkl_multilock>(*ml);
    return ZKL_OK;
  });
}

int zkl_multilock_destroy(zkl_multilock *m) {
  return Guard([&] {
    auto h = zkl::UnregisterHandle(m, HandleKind::kMultilock);
    if (!h) return ZKL_EBADHANDLE;
    std::static_pointer_cast<zkl::Multilock>(h)->Destroy();
    return ZKL_OK;
  });
}

int zkl_multilock_acquire(zkl_multilock *m, uint64_t owner, int64_t timeout_ms) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Acquire(owner, timeout_ms, Contender::Mode::kBlocking) : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_try_acquire(zkl_multilock *m, uint64_t owner) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Acquire(owner, 0, Contender::Mode::kTry) : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_acquire_async(zkl_multilock *m, uint64_t owner, int64_t timeout_ms) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Acquire(owner, timeout_ms, Contender::Mode::kAsync) : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_cancel(zkl_multilock *m) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Cancel() : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_release(zkl_multilock *m, uint64_t owner) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Release(owner, true) : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_release_async(zkl_multilock *m, uint64_t owner) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Release(owner, false) : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_is_held(zkl_multilock *m) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->IsHeld() : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_valid_for(zkl_multilock *m, int64_t *ms) {
  return Guard([&] {
    if (ms) *ms = 0;
    auto ml = GetMultilock(m);
    if (!ml) return ZKL_EBADHANDLE;
    if (!ms) return ZKL_EINVAL;
    return ml->ValidFor(ms);
  });
}

int zkl_multilock_count(zkl_multilock *m) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    return ml ? ml->Count() : ZKL_EBADHANDLE;
  });
}

int zkl_multilock_member(zkl_multilock *m, size_t i, zkl_lock **out) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    if (!ml) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    if (i >= static_cast<size_t>(ml->Count())) return ZKL_ERANGE;
    *out = zkl::ToPublic<zkl_lock>(*ml->Member(i));
    return ZKL_OK;
  });
}

int zkl_multilock_fencing_token(zkl_multilock *m, const char *path, uint64_t *out) {
  return Guard([&] {
    auto ml = GetMultilock(m);
    if (!ml) return ZKL_EBADHANDLE;
    if (!path || !out) return ZKL_EINVAL;
    return ml->FencingToken(path, out);
  });
}

// ---------------------------------------------------------------------------
// Elections and observers
// ---------------------------------------------------------------------------

int zkl_election_options_init(zkl_election_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_ELECTION_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  opts->kind = ZKL_ELECTION_FAIR;
  opts->on_revoke = ZKL_REVOKE_IGNORE;
  return ZKL_OK;
}

int zkl_election_new(zkl_client *c, const char *path, const zkl_election_options *opts,
                     zkl_election **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts || !out || !opts->id) return ZKL_EINVAL;
    if (int rc = CheckVersion(opts->version, ZKL_ELECTION_OPTIONS_VERSION)) return rc;
    if (int rc = zkl::ValidatePath(path)) return rc;
    if (int rc = CheckData(opts->id, std::strlen(opts->id))) return rc;
    if (opts->on_revoke < ZKL_REVOKE_IGNORE || opts->on_revoke > ZKL_REVOKE_RELEASE) {
      return ZKL_EINVAL;
    }
    Contender::Options o;
    o.rule = ElectionRule(opts->kind);
    if (!o.rule) return ZKL_EINVAL;
    o.path = path;
    o.role = Contender::Role::kElection;
    o.kind_name = zkl::FindElectionRecipe(opts->kind)->name;
    o.data = opts->id;
    o.on_revoke = opts->on_revoke;
    o.cb = opts->cb;
    o.user_data = opts->user_data;
    {
      MutexLock lock(&client->mu());
      if (client->closed()) return ZKL_ECLOSED;
    }
    auto e = std::make_shared<Contender>(client, HandleKind::kElection, std::move(o));
    Attach(*client, e);
    *out = zkl::ToPublic<zkl_election>(*e);
    return ZKL_OK;
  });
}

int zkl_election_destroy(zkl_election *e) {
  return Guard([&] {
    auto h = zkl::UnregisterHandle(e, HandleKind::kElection);
    if (!h) return ZKL_EBADHANDLE;
    std::static_pointer_cast<Contender>(h)->Destroy();
    return ZKL_OK;
  });
}

int zkl_election_acquire(zkl_election *e, int64_t timeout_ms) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->Acquire(0, timeout_ms, Contender::Mode::kBlocking) : ZKL_EBADHANDLE;
  });
}

int zkl_election_try_acquire(zkl_election *e) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->Acquire(0, -1, Contender::Mode::kTry) : ZKL_EBADHANDLE;
  });
}

int zkl_election_acquire_async(zkl_election *e, int64_t timeout_ms) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->Acquire(0, timeout_ms, Contender::Mode::kAsync) : ZKL_EBADHANDLE;
  });
}

int zkl_election_cancel(zkl_election *e) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->Cancel() : ZKL_EBADHANDLE;
  });
}

int zkl_election_release(zkl_election *e) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->Resign() : ZKL_EBADHANDLE;
  });
}

int zkl_election_is_leader(zkl_election *e) {
  return Guard([&] {
    auto el = GetElection(e);
    return el ? el->IsHeld() : ZKL_EBADHANDLE;
  });
}

int zkl_election_valid_for(zkl_election *e, int64_t *ms) {
  return Guard([&] {
    if (ms) *ms = 0;
    auto el = GetElection(e);
    if (!el) return ZKL_EBADHANDLE;
    if (!ms) return ZKL_EINVAL;
    return el->ValidFor(ms);
  });
}

int zkl_election_fencing_token(zkl_election *e, uint64_t *out) {
  return Guard([&] {
    auto el = GetElection(e);
    if (!el) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    return el->FencingToken(out);
  });
}

int zkl_election_stats(zkl_election *e, char **json, size_t *len) {
  return Guard([&] { return HandleStats(GetElection(e), json, len); });
}

int zkl_observer_options_init(zkl_observer_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_OBSERVER_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  opts->kind = ZKL_ELECTION_FAIR;
  return ZKL_OK;
}

int zkl_observer_new(zkl_client *c, const char *path, const zkl_observer_options *opts,
                     zkl_observer **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts || !out) return ZKL_EINVAL;
    if (int rc = CheckVersion(opts->version, ZKL_OBSERVER_OPTIONS_VERSION)) return rc;
    if (int rc = zkl::ValidatePath(path)) return rc;
    auto rule = ElectionRule(opts->kind);
    if (!rule) return ZKL_EINVAL;
    {
      MutexLock lock(&client->mu());
      if (client->closed()) return ZKL_ECLOSED;
    }
    auto o = std::make_shared<Observer>(client, path, std::move(rule), opts->cb, opts->user_data);
    Attach(*client, o);
    o->Start();
    *out = zkl::ToPublic<zkl_observer>(*o);
    return ZKL_OK;
  });
}

int zkl_observer_destroy(zkl_observer *o) {
  return Guard([&] {
    auto h = zkl::UnregisterHandle(o, HandleKind::kObserver);
    if (!h) return ZKL_EBADHANDLE;
    std::static_pointer_cast<Observer>(h)->Destroy();
    return ZKL_OK;
  });
}

int zkl_observer_leader(zkl_observer *o, char *buf, size_t len) {
  return Guard([&] {
    auto ob = GetObserver(o);
    if (!ob) return ZKL_EBADHANDLE;
    if (!buf && len > 0) return ZKL_EINVAL;
    return ob->Leader(buf, len);
  });
}

int zkl_observer_term(zkl_observer *o, uint64_t *out) {
  return Guard([&] {
    auto ob = GetObserver(o);
    if (!ob) return ZKL_EBADHANDLE;
    if (!out) return ZKL_EINVAL;
    return ob->Term(out);
  });
}

// ---------------------------------------------------------------------------
// Inspection and revocation
// ---------------------------------------------------------------------------

int zkl_inspect_options_init(zkl_inspect_options *opts, uint32_t version) {
  if (!opts) return ZKL_EINVAL;
  if (int rc = CheckVersion(version, ZKL_INSPECT_OPTIONS_VERSION)) return rc;
  std::memset(opts, 0, sizeof *opts);
  opts->version = version;
  opts->lock_kind = ZKL_LOCK_FAIR;
  opts->timeout_ms = -1;
  return ZKL_OK;
}

int zkl_inspect(zkl_client *c, const char *path, const zkl_inspect_options *opts,
                zkl_participants **out) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts || !out) return ZKL_EINVAL;
    if (int rc = zkl::ValidatePath(path)) return rc;
    std::unique_ptr<zkl::Rule> rule;
    if (int rc = InspectRule(opts, &rule)) return rc;
    auto result = std::make_unique<zkl_participants>();
    if (int rc = zkl::Inspect(*client, path, std::move(rule), opts->timeout_ms, &result->list)) {
      return rc;
    }
    *out = result.release();
    return ZKL_OK;
  });
}

int zkl_participants_count(const zkl_participants *p) {
  return p ? static_cast<int>(p->list.size()) : ZKL_EINVAL;
}

int zkl_participants_name(const zkl_participants *p, size_t i, const char **out) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  if (!e) return rc;
  if (!out) return ZKL_EINVAL;
  *out = e->name.c_str();
  return ZKL_OK;
}

int zkl_participants_is_holder(const zkl_participants *p, size_t i) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  return e ? (e->holder ? 1 : 0) : rc;
}

int zkl_participants_leases(const zkl_participants *p, size_t i) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  return e ? e->leases : rc;
}

int zkl_participants_fencing_token(const zkl_participants *p, size_t i, uint64_t *out) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  if (!e) return rc;
  if (!out) return ZKL_EINVAL;
  *out = e->czxid;
  return ZKL_OK;
}

int zkl_participants_session_id(const zkl_participants *p, size_t i, uint64_t *out) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  if (!e) return rc;
  if (!out) return ZKL_EINVAL;
  *out = e->session_id;
  return ZKL_OK;
}

int zkl_participants_ctime_ms(const zkl_participants *p, size_t i, int64_t *out) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  if (!e) return rc;
  if (!out) return ZKL_EINVAL;
  *out = e->ctime_ms;
  return ZKL_OK;
}

int zkl_participants_data(const zkl_participants *p, size_t i, const char **data, size_t *len) {
  int rc;
  const zkl::Participant *e = ParticipantAt(p, i, &rc);
  if (!e) return rc;
  if (!data || !len) return ZKL_EINVAL;
  *data = e->data.c_str();
  *len = e->data.size();
  return ZKL_OK;
}

void zkl_participants_free(zkl_participants *p) { delete p; }

// --- guarded writes ---

int zkl_ops_new(zkl_ops **out) {
  return Guard([&] {
    if (!out) return ZKL_EINVAL;
    *out = new zkl_ops();
    return ZKL_OK;
  });
}

void zkl_ops_free(zkl_ops *ops) { delete ops; }

int zkl_ops_create(zkl_ops *ops, const char *path, const void *data, size_t len, int32_t flags) {
  return AddOp(ops, zkl::ZkOp::kCreate, path, data, len, flags, -1);
}

int zkl_ops_set(zkl_ops *ops, const char *path, const void *data, size_t len, int32_t version) {
  return AddOp(ops, zkl::ZkOp::kSetData, path, data, len, 0, version);
}

int zkl_ops_delete(zkl_ops *ops, const char *path, int32_t version) {
  return AddOp(ops, zkl::ZkOp::kDelete, path, nullptr, 0, 0, version);
}

int zkl_ops_check(zkl_ops *ops, const char *path, int32_t version) {
  return AddOp(ops, zkl::ZkOp::kCheck, path, nullptr, 0, 0, version);
}

int zkl_ops_count(const zkl_ops *ops) { return ops ? static_cast<int>(ops->ops.size()) : ZKL_EINVAL; }

int zkl_ops_failed(const zkl_ops *ops) { return ops ? ops->failed : ZKL_EINVAL; }

int zkl_ops_path(const zkl_ops *ops, size_t i, char *buf, size_t len) {
  if (!ops || (!buf && len > 0)) return ZKL_EINVAL;
  if (i >= ops->results.size()) return ZKL_ERANGE;
  const std::string &path = ops->results[i].path;
  if (path.empty()) return ZKL_ENOTFOUND;
  if (len > 0) {
    size_t n = std::min(len - 1, path.size());
    path.copy(buf, n);
    buf[n] = '\0';
  }
  return static_cast<int>(path.size());
}

int zkl_ops_version(const zkl_ops *ops, size_t i, int32_t *out) {
  if (!ops || !out) return ZKL_EINVAL;
  if (i >= ops->results.size()) return ZKL_ERANGE;
  if (ops->results[i].version < 0) return ZKL_ENOTFOUND;
  *out = ops->results[i].version;
  return ZKL_OK;
}

int zkl_lock_write(zkl_lock *l, uint64_t owner, zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetLock(l), owner, ops, false); });
}

int zkl_lock_write_async(zkl_lock *l, uint64_t owner, const zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetLock(l), owner, ops, true); });
}

int zkl_multilock_write(zkl_multilock *m, uint64_t owner, zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetMultilock(m), owner, ops, false); });
}

int zkl_multilock_write_async(zkl_multilock *m, uint64_t owner, const zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetMultilock(m), owner, ops, true); });
}

int zkl_election_write(zkl_election *e, zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetElection(e), 0, ops, false); });
}

int zkl_election_write_async(zkl_election *e, const zkl_ops *ops) {
  return Guard([&] { return WriteOps(GetElection(e), 0, ops, true); });
}

int zkl_election_proclaim(zkl_election *e, const void *data, size_t len) {
  return Guard([&] {
    auto el = GetElection(e);
    if (!el) return ZKL_EBADHANDLE;
    if (int rc = CheckData(data, len)) return rc;
    return el->Proclaim(data ? std::string_view(static_cast<const char *>(data), len) : std::string_view());
  });
}

int zkl_fence_check(zkl_client *c, const char *path, const zkl_inspect_options *opts, uint64_t token) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts) return ZKL_EINVAL;
    if (int rc = zkl::ValidatePath(path)) return rc;
    std::unique_ptr<zkl::Rule> rule;
    if (int rc = InspectRule(opts, &rule)) return rc;
    return zkl::FenceCheck(*client, path, std::move(rule), opts->timeout_ms, token);
  });
}

int zkl_revoke(zkl_client *c, const char *path, const zkl_inspect_options *opts,
               const char *holder) {
  return Guard([&] {
    auto client = GetClient(c);
    if (!client) return ZKL_EBADHANDLE;
    if (!path || !opts) return ZKL_EINVAL;
    if (int rc = zkl::ValidatePath(path)) return rc;
    std::unique_ptr<zkl::Rule> rule;
    if (int rc = InspectRule(opts, &rule)) return rc;
    return zkl::Revoke(*client, path, std::move(rule), opts->timeout_ms, holder);
  });
}

}  // extern "C"
