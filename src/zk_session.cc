// The runtime layer over the single-threaded ZooKeeper C client (see
// zk_session.h). Nothing outside this file sees a ZooKeeper type.
#include "zk_session.h"

#include "zookeeper.h"

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <cstring>
#include <unordered_set>

#include "zkl.h"

namespace zkl {

struct ZkSession::Impl {
  zhandle_t *zh = nullptr;
  ZkSink *sink = nullptr;
  int log_level = 0;
  std::string digest;  // a secret: wiped in the destructor
  struct ACL creator_entries[2]{};
  struct ACL_vector creator_acl{};
  const struct ACL_vector *acl = &ZOO_OPEN_ACL_UNSAFE;
  // SASL DIGEST-MD5 (the C client references the callbacks for the
  // handle's life: every reconnect authenticates again).
  std::string sasl_user;
  std::string sasl_password;  // a secret: wiped in the destructor
  std::vector<unsigned char> sasl_secret;  // the same, as Cyrus wants it
  sasl_callback_t sasl_callbacks[5]{};
  bool auth_failed_reported = false;
  struct MultiCall;
  std::unordered_set<MultiCall *> multis;  // submitted, not yet completed
};

namespace {

// The session whose call is running on this thread: completions, watches
// and log lines of the single-threaded client happen synchronously inside
// our calls, so this tells them which sink to use (the log callback of the
// C client carries no context of its own).
thread_local ZkSession::Impl *current = nullptr;

class Running {
 public:
  explicit Running(ZkSession::Impl *impl) : saved_(current) { current = impl; }
  ~Running() { current = saved_; }

 private:
  ZkSession::Impl *saved_;
};

ZkRc FromCode(int zrc) {
  switch (zrc) {
    case ZOK: return ZkRc::kOk;
    case ZNONODE: return ZkRc::kNoNode;
    case ZNODEEXISTS: return ZkRc::kNodeExists;
    case ZNOTEMPTY: return ZkRc::kNotEmpty;
    case ZBADVERSION: return ZkRc::kBadVersion;
    case ZNOAUTH: return ZkRc::kNoAuth;
    case ZBADARGUMENTS: return ZkRc::kBadArguments;
    case ZCONNECTIONLOSS: return ZkRc::kConnectionLoss;
    case ZOPERATIONTIMEOUT: return ZkRc::kOperationTimeout;
    case ZSESSIONEXPIRED: return ZkRc::kSessionExpired;
    case ZSESSIONMOVED: return ZkRc::kSessionMoved;
    case ZINVALIDSTATE: return ZkRc::kInvalidState;
    case ZCLOSING: return ZkRc::kClosing;
    case ZAUTHFAILED: return ZkRc::kAuthFailed;
    case ZNOTHING: return ZkRc::kNothing;
    default: return ZkRc::kOther;
  }
}

// The server sent this answer (the client library makes up connection
// loss, closing and the like itself).
bool FromServer(int zrc) {
  return zrc == ZOK || (zrc <= ZAPIERROR && zrc != ZCLOSING && zrc != ZNOTHING &&
                        zrc != ZINVALIDCALLBACK && zrc != ZNOWATCHER);
}

NodeStat ToStat(const struct Stat &s) {
  NodeStat out;
  out.czxid = s.czxid;
  out.ctime_ms = s.ctime;
  out.version = s.version;
  out.ephemeral_owner = s.ephemeralOwner;
  return out;
}

void Deliver(const void *request, int zrc, ZkReply &reply) {
  if (current == nullptr) return;  // cannot happen: completions run inside our calls
  reply.rc = FromCode(zrc);
  reply.from_server = FromServer(zrc);
  current->sink->OnZkReply(const_cast<void *>(request), reply);
}

void StringStatDone(int zrc, const char *value, const struct Stat *stat, const void *request) {
  ZkReply r;
  NodeStat s;
  if (stat) {
    s = ToStat(*stat);
    r.stat = &s;
  }
  if (value) r.value = value;
  Deliver(request, zrc, r);
}

void VoidDone(int zrc, const void *request) {
  ZkReply r;
  Deliver(request, zrc, r);
}

void StringsDone(int zrc, const struct String_vector *strings, const void *request) {
  ZkReply r;
  std::vector<std::string_view> children;
  if (strings) {
    children.reserve(static_cast<size_t>(strings->count));
    for (int i = 0; i < strings->count; ++i) children.emplace_back(strings->data[i]);
  }
  r.children = &children;
  Deliver(request, zrc, r);
}

void DataDone(int zrc, const char *value, int len, const struct Stat *stat, const void *request) {
  ZkReply r;
  NodeStat s;
  if (stat) {
    s = ToStat(*stat);
    r.stat = &s;
  }
  if (value && len > 0) r.data = std::string_view(value, static_cast<size_t>(len));
  Deliver(request, zrc, r);
}

void StatDone(int zrc, const struct Stat *stat, const void *request) {
  ZkReply r;
  NodeStat s;
  if (stat) {
    s = ToStat(*stat);
    r.stat = &s;
  }
  Deliver(request, zrc, r);
}

void IgnoreDone(int, const void *) {}

WatchType ToWatchType(int type) {
  if (type == ZOO_CREATED_EVENT) return WatchType::kCreated;
  if (type == ZOO_DELETED_EVENT) return WatchType::kDeleted;
  if (type == ZOO_CHANGED_EVENT) return WatchType::kDataChanged;
  if (type == ZOO_CHILD_EVENT) return WatchType::kChildrenChanged;
  return WatchType::kOther;
}

void SessionWatcher(zhandle_t *, int type, int state, const char *, void *ctx) {
  if (type != ZOO_SESSION_EVENT) return;
  auto *impl = static_cast<ZkSession::Impl *>(ctx);
  if (state == ZOO_CONNECTED_STATE) {
    impl->sink->OnZkState(ZkState::kConnected);
  } else if (state == ZOO_CONNECTING_STATE) {
    impl->sink->OnZkState(ZkState::kConnecting);
  } else if (state == ZOO_EXPIRED_SESSION_STATE) {
    impl->sink->OnZkState(ZkState::kExpired);
  } else if (state == ZOO_AUTH_FAILED_STATE) {
    if (impl->auth_failed_reported) return;
    impl->auth_failed_reported = true;
    impl->sink->OnZkState(ZkState::kAuthFailed);
  }
}

// A failed SASL exchange puts the handle in ZOO_AUTH_FAILED_STATE without
// a session event (zoo_sasl_mark_failed): report it ourselves, once.
void ReportSilentAuthFailure(ZkSession::Impl *impl) {
  if (impl->auth_failed_reported || zoo_state(impl->zh) != ZOO_AUTH_FAILED_STATE) return;
  impl->auth_failed_reported = true;
  impl->sink->OnZkState(ZkState::kAuthFailed);
}

void NodeWatcher(zhandle_t *zh, int type, int, const char *path, void *ctx) {
  if (type == ZOO_SESSION_EVENT) return;  // states come through SessionWatcher
  auto *impl = static_cast<ZkSession::Impl *>(const_cast<void *>(zoo_get_context(zh)));
  impl->sink->OnZkWatch(reinterpret_cast<uintptr_t>(ctx), ToWatchType(type), path ? path : "");
}

// The C client's log lines: "<time>:<pid>:ZOO_<LEVEL>@<func>@<line>: <text>".
void LogLine(const char *line) {
  if (current == nullptr) return;
  std::string_view s(line);
  int level = ZKL_LOG_DEBUG;
  if (s.find(":ZOO_ERROR@") != std::string_view::npos) level = ZKL_LOG_ERROR;
  else if (s.find(":ZOO_WARN@") != std::string_view::npos) level = ZKL_LOG_WARN;
  else if (s.find(":ZOO_INFO@") != std::string_view::npos) level = ZKL_LOG_INFO;
  if (level > current->log_level) return;
  size_t text = s.find("@");
  text = text == std::string_view::npos ? 0 : s.find(": ", text);
  current->sink->OnZkLog(level, text == std::string_view::npos ? s : s.substr(text + 2));
}

// The C client filters by one process-wide level before it formats a line.
// It is set once, before the first session exists (other sessions' threads
// read it without a lock): INFO, so that connection changes can reach the
// log callbacks; the per-line DEBUG chatter of every request is never
// formatted. Each session then filters by its own level.
void SetClientLogLevelOnce() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_INFO); });
}

int ToMode(int mode) {
  if (mode & kContainer) return ZOO_CONTAINER;
  int out = 0;
  if (mode & kEphemeral) out |= ZOO_EPHEMERAL;
  if (mode & kSequential) out |= ZOO_SEQUENCE;
  return out;
}

// Node data for the C client: never a null pointer (an empty view may have
// one), which it would hand to memcpy.
const char *DataPtr(std::string_view data) { return data.empty() ? "" : data.data(); }

void Wipe(std::string &secret) { WipeSecret(secret); }

const char *OrNull(const std::string &s) { return s.empty() ? nullptr : s.c_str(); }

void WipeBytes(std::vector<unsigned char> &secret) {
  volatile unsigned char *p = secret.data();
  for (size_t i = 0; i < secret.size(); ++i) p[i] = 0;
  secret.clear();
}

// Cyrus SASL's client side is initialized once per process.
bool SaslReady() {
  static const bool ok = sasl_client_init(nullptr) == SASL_OK;
  return ok;
}

// The realm the server offers (DIGEST-MD5: "zk-sasl-md5" from Java).
int SaslRealm(void *, int, const char **available, const char **result) {
  if (result == nullptr) return SASL_BADPARAM;
  *result = available != nullptr && available[0] != nullptr ? available[0] : "";
  return SASL_OK;
}

int SaslUser(void *context, int id, const char **result, unsigned *len) {
  auto *impl = static_cast<ZkSession::Impl *>(context);
  if (result == nullptr || (id != SASL_CB_USER && id != SASL_CB_AUTHNAME)) return SASL_BADPARAM;
  *result = impl->sasl_user.c_str();
  if (len) *len = static_cast<unsigned>(impl->sasl_user.size());
  return SASL_OK;
}

int SaslPassword(sasl_conn_t *conn, void *context, int id, sasl_secret_t **out) {
  auto *impl = static_cast<ZkSession::Impl *>(context);
  if (conn == nullptr || out == nullptr || id != SASL_CB_PASS) return SASL_BADPARAM;
  // sasl_secret_t: an unsigned long length, then the bytes (one buffer,
  // kept until the session ends and wiped then).
  const std::string &pw = impl->sasl_password;
  if (impl->sasl_secret.empty()) {
    impl->sasl_secret.assign(sizeof(sasl_secret_t) + pw.size(), 0);
    auto *secret = reinterpret_cast<sasl_secret_t *>(impl->sasl_secret.data());
    secret->len = pw.size();
    std::memcpy(secret->data, pw.data(), pw.size());
  }
  *out = reinterpret_cast<sasl_secret_t *>(impl->sasl_secret.data());
  return SASL_OK;
}

// Cyrus SASL stores every callback as int (*)(void) and calls it with its
// real type (through void (*)(void): the generic function pointer type).
using SaslFn = int (*)(void);
template <typename Fn>
SaslFn AsSaslCallback(Fn *fn) {
  return reinterpret_cast<SaslFn>(reinterpret_cast<void (*)()>(fn));
}

}  // namespace

void WipeSecret(std::string &secret) {
  // volatile: the wipe is not optimized away as a dead store.
  volatile char *p = secret.data();
  for (size_t i = 0; i < secret.size(); ++i) p[i] = 0;
  secret.clear();
}

// One multi in flight: the C client needs the ops, results and buffers to
// live until its completion.
struct ZkSession::Impl::MultiCall {
  Impl *impl;
  void *request;
  std::vector<ZkOp> ops;
  std::vector<zoo_op_t> zops;
  std::vector<zoo_op_result_t> zresults;
  std::vector<std::string> path_buffers;
  std::vector<struct Stat> stats;

  static void Done(int zrc, const void *data) {
    auto *call = static_cast<MultiCall *>(const_cast<void *>(data));
    std::unique_ptr<MultiCall> owned(call);
    call->impl->multis.erase(call);
    std::vector<ZkOpResult> results(call->ops.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const zoo_op_result_t &zr = call->zresults[i];
      results[i].rc = FromCode(zr.err);
      if (call->ops[i].type == ZkOp::kCreate && zr.err == ZOK && zr.value) {
        results[i].value = zr.value;
      }
      if (zr.err == ZOK && (call->ops[i].type == ZkOp::kCreate || call->ops[i].type == ZkOp::kSetData)) {
        results[i].stat = ToStat(call->stats[i]);
      }
    }
    ZkReply r;
    r.results = &results;
    Deliver(call->request, zrc, r);
  }
};

ZkSession::ZkSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<ZkSession> ZkSession::Open(const ZkConnectParams &params, ZkSink *sink,
                                           int *error) {
  auto impl = std::make_unique<Impl>();
  impl->sink = sink;
  impl->log_level = params.log_level;
  impl->digest = params.digest;
  if (params.creator_acl) {
    // The authenticated identity that made a node may do anything with it
    // (and, on parents, with its children); the world reads.
    impl->creator_entries[0].perms = ZOO_PERM_ALL;
    impl->creator_entries[0].id.scheme = const_cast<char *>("auth");
    impl->creator_entries[0].id.id = const_cast<char *>("");
    impl->creator_entries[1].perms = ZOO_PERM_READ;
    impl->creator_entries[1].id.scheme = const_cast<char *>("world");
    impl->creator_entries[1].id.id = const_cast<char *>("anyone");
    impl->creator_acl.count = 2;
    impl->creator_acl.data = impl->creator_entries;
    impl->acl = &impl->creator_acl;
  }
  SetClientLogLevelOnce();
  Running running(impl.get());
  zoo_sasl_params_t sasl{};
  zoo_sasl_params_t *sasl_params = nullptr;
  if (!params.sasl_user.empty()) {
    if (!SaslReady()) {
      *error = ZKL_ENOTSUP;
      return nullptr;
    }
    impl->sasl_user = params.sasl_user;
    impl->sasl_password = params.sasl_password;
    void *ctx = impl.get();
    impl->sasl_callbacks[0] = {SASL_CB_GETREALM, AsSaslCallback(&SaslRealm), ctx};
    impl->sasl_callbacks[1] = {SASL_CB_USER, AsSaslCallback(&SaslUser), ctx};
    impl->sasl_callbacks[2] = {SASL_CB_AUTHNAME, AsSaslCallback(&SaslUser), ctx};
    impl->sasl_callbacks[3] = {SASL_CB_PASS, AsSaslCallback(&SaslPassword), ctx};
    impl->sasl_callbacks[4] = {SASL_CB_LIST_END, nullptr, nullptr};
    sasl.service = params.sasl_service.c_str();
    sasl.host = params.sasl_host.c_str();
    sasl.mechlist = "DIGEST-MD5";
    sasl.callbacks = impl->sasl_callbacks;
    sasl_params = &sasl;
  }
  if (params.tls_ca_file.empty() && sasl_params == nullptr) {
    impl->zh = zookeeper_init2(params.hosts.c_str(), &SessionWatcher, params.session_timeout_ms,
                               nullptr, impl.get(), ZOO_NO_LOG_CLIENTENV, &LogLine);
  } else {
    // Our patched client (0004): a verified, non-blocking TLS handshake.
    // The context (with the decrypted key) is built now; the passphrase is
    // not kept by the C client.
    // SASL (when given) runs over the same connection, after TLS.
    zoo_tls_params_t tls{};
    tls.ca_file = params.tls_ca_file.c_str();
    tls.cert_file = OrNull(params.tls_cert_file);
    tls.key_file = OrNull(params.tls_key_file);
    tls.key_password = OrNull(params.tls_key_password);
    tls.verify_hostname = params.tls_verify_hostname ? 1 : 0;
    errno = 0;
    impl->zh = zookeeper_init_secure(params.hosts.c_str(), &SessionWatcher,
                                     params.session_timeout_ms, nullptr, impl.get(),
                                     ZOO_NO_LOG_CLIENTENV, &LogLine,
                                     params.tls_ca_file.empty() ? nullptr : &tls, sasl_params);
  }
  if (impl->zh == nullptr) {
    // EPROTO: a TLS file could not be read (or the key's passphrase is wrong).
    *error = errno == EINVAL ? ZKL_EINVAL : errno == EPROTO ? ZKL_ECERT
             : errno == ENOTSUP ? ZKL_ENOTSUP : ZKL_ENOMEM;
    Wipe(impl->digest);
    Wipe(impl->sasl_password);
    return nullptr;
  }
  if (params.connect_timeout_ms > 0) zoo_set_connect_timeout(impl->zh, params.connect_timeout_ms);
  // The C client otherwise re-resolves the host list on every loop
  // iteration; reconnects still resolve.
  zoo_set_servers_resolution_delay(impl->zh, -1);
  if (!impl->digest.empty()) {
    zoo_add_auth(impl->zh, "digest", impl->digest.data(), static_cast<int>(impl->digest.size()),
                 &IgnoreDone, nullptr);
  }
  return std::unique_ptr<ZkSession>(new ZkSession(std::move(impl)));
}

ZkSession::~ZkSession() {
  {
    Running running(impl_.get());
    zookeeper_close(impl_->zh);  // completions run now, with ZCLOSING
  }
  // The C client can drop the completion of a multi that was still queued
  // when its handle closed: free what it never answered.
  for (Impl::MultiCall *call : impl_->multis) delete call;
  Wipe(impl_->digest);
  Wipe(impl_->sasl_password);
  WipeBytes(impl_->sasl_secret);
}

ZkRc ZkSession::GetInterest(Interest *out) {
  Running running(impl_.get());
  int fd = -1;
  int interest = 0;
  struct timeval tv {};
  int zrc = zookeeper_interest(impl_->zh, &fd, &interest, &tv);
  out->fd = fd;
  out->read = (interest & ZOOKEEPER_READ) != 0;
  out->write = (interest & ZOOKEEPER_WRITE) != 0;
  out->timeout_ms = static_cast<int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
  return FromCode(zrc);
}

ZkRc ZkSession::Process(bool readable, bool writable) {
  Running running(impl_.get());
  int events = (readable ? ZOOKEEPER_READ : 0) | (writable ? ZOOKEEPER_WRITE : 0);
  ZkRc rc = FromCode(zookeeper_process(impl_->zh, events));
  ReportSilentAuthFailure(impl_.get());
  return rc;
}

ZkRc ZkSession::Create(void *request, const std::string &path, std::string_view data, int mode) {
  Running running(impl_.get());
  return FromCode(zoo_acreate2(impl_->zh, path.c_str(), DataPtr(data), static_cast<int>(data.size()),
                               impl_->acl, ToMode(mode), &StringStatDone, request));
}

ZkRc ZkSession::Delete(void *request, const std::string &path, int version) {
  Running running(impl_.get());
  return FromCode(zoo_adelete(impl_->zh, path.c_str(), version, &VoidDone, request));
}

ZkRc ZkSession::GetChildren(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awget_children(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                                     reinterpret_cast<void *>(watcher), &StringsDone, request));
}

ZkRc ZkSession::GetData(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awget(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                            reinterpret_cast<void *>(watcher), &DataDone, request));
}

ZkRc ZkSession::Exists(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awexists(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                               reinterpret_cast<void *>(watcher), &StatDone, request));
}

ZkRc ZkSession::SetData(void *request, const std::string &path, std::string_view data,
                        int version) {
  Running running(impl_.get());
  return FromCode(zoo_aset(impl_->zh, path.c_str(), DataPtr(data), static_cast<int>(data.size()),
                           version, &StatDone, request));
}

ZkRc ZkSession::Multi(void *request, std::vector<ZkOp> ops) {
  Running running(impl_.get());
  auto call = std::make_unique<Impl::MultiCall>();
  call->impl = impl_.get();
  call->request = request;
  call->ops = std::move(ops);
  size_t n = call->ops.size();
  call->zops.resize(n);
  call->zresults.resize(n);
  call->path_buffers.resize(n);
  call->stats.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ZkOp &op = call->ops[i];
    zoo_op_t &z = call->zops[i];
    // Results point at our Stat: the create-with-stat and set ops fill it.
    call->zresults[i].stat = &call->stats[i];
    switch (op.type) {
      case ZkOp::kCreate:
        call->path_buffers[i].resize(op.path.size() + 32);
        zoo_create2_op_init(&z, op.path.c_str(), DataPtr(op.data), static_cast<int>(op.data.size()),
                            impl_->acl, ToMode(op.mode), call->path_buffers[i].data(),
                            static_cast<int>(call->path_buffers[i].size()));
        break;
      case ZkOp::kDelete:
        zoo_delete_op_init(&z, op.path.c_str(), op.version);
        break;
      case ZkOp::kSetData:
        zoo_set_op_init(&z, op.path.c_str(), DataPtr(op.data), static_cast<int>(op.data.size()),
                        op.version, &call->stats[i]);
        break;
      case ZkOp::kCheck:
        zoo_check_op_init(&z, op.path.c_str(), op.version);
        break;
    }
  }
  Impl::MultiCall *raw = call.get();
  int zrc = zoo_amulti(impl_->zh, static_cast<int>(n), raw->zops.data(), raw->zresults.data(),
                       &Impl::MultiCall::Done, raw);
  if (zrc == ZOK) {
    impl_->multis.insert(call.release());
  }
  return FromCode(zrc);
}

bool ZkSession::connected() const { return zoo_state(impl_->zh) == ZOO_CONNECTED_STATE; }

bool ZkSession::unrecoverable() const {
  int state = zoo_state(impl_->zh);
  return state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
}

uint64_t ZkSession::session_id() const {
  const clientid_t *id = zoo_client_id(impl_->zh);
  return id ? static_cast<uint64_t>(id->client_id) : 0;
}

int ZkSession::negotiated_timeout_ms() const { return zoo_recv_timeout(impl_->zh); }

bool ZkSession::Password(uint8_t out[16]) const {
  const clientid_t *id = zoo_client_id(impl_->zh);
  if (id == nullptr || id->client_id == 0) return false;
  static_assert(sizeof id->passwd == 16);
  std::memcpy(out, id->passwd, sizeof id->passwd);
  return true;
}

int ZkSession::LastConnectError() const {
  switch (zoo_last_connect_error(impl_->zh)) {
    case ZOO_CONN_TLS_HANDSHAKE: return ZKL_ETLS;
    case ZOO_CONN_TLS_CERT: return ZKL_ECERT;
    case ZOO_CONN_TLS_HOSTNAME: return ZKL_EHOSTNAME;
    case ZOO_CONN_TLS_CLIENT_CERT: return ZKL_ECLIENTCERT;
    case ZOO_CONN_PROTOCOL: return ZKL_EPROTOCOL;
    case ZOO_CONN_TIMEOUT: return ZKL_ETIMEDOUT;
    default: return ZKL_OK;
  }
}

int ZkError(ZkRc rc) {
  switch (rc) {
    case ZkRc::kOk: return ZKL_OK;
    case ZkRc::kConnectionLoss:
    case ZkRc::kOperationTimeout: return ZKL_ECONNECTION;
    case ZkRc::kSessionExpired:
    case ZkRc::kSessionMoved:
    case ZkRc::kInvalidState: return ZKL_ESESSION;
    case ZkRc::kClosing: return ZKL_ECLOSED;
    case ZkRc::kNoAuth:
    case ZkRc::kAuthFailed: return ZKL_EAUTH;
    case ZkRc::kNoNode: return ZKL_ENOTFOUND;
    case ZkRc::kBadArguments: return ZKL_EINVAL;
    default: return ZKL_EZOOKEEPER;
  }
}

bool IsConnectionError(ZkRc rc) {
  return rc == ZkRc::kConnectionLoss || rc == ZkRc::kOperationTimeout;
}

bool IsSessionGone(ZkRc rc) {
  return rc == ZkRc::kSessionExpired || rc == ZkRc::kInvalidState || rc == ZkRc::kClosing ||
         rc == ZkRc::kSessionMoved || rc == ZkRc::kAuthFailed;
}

}  // namespace zkl
