// The runtime layer over the single-threaded ZooKeeper C client (see
// zk_session.h). Nothing outside this file sees a ZooKeeper type.
#include "zk_session.h"

#include "zookeeper.h"

#include <netdb.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "kerberos.h"
#include "sasl_callbacks.h"
#include "sigpipe.h"
#include "sync.h"
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
  // SASL (the C client references the callbacks for the handle's life:
  // every reconnect authenticates again).
  SaslCredentials sasl;
#ifdef HAVE_CYRUS_SASL_H  // a build without libsasl2 rejects SASL options (client_options.cc)
  SaslCallbackList sasl_callbacks{};
#endif
  bool auth_failed_reported = false;
  bool tls = false;  // SIGPIPE is blocked around its calls (NoSigpipe)
  // Recent C client log lines: when each was last logged, how often it came
  // since (LogLine says a repeated line once per window).
  std::unordered_map<std::string, std::pair<std::chrono::steady_clock::time_point, int>> log_repeats;
  // GSSAPI only: the credential cache GSS uses on this thread while our
  // calls run ("" = the process default), and the private one filled from
  // a client keytab (kerberos.h).
  std::string ccache_name;
  std::unique_ptr<KeytabTicket> keytab_ticket;
  struct MultiCall;
  std::unordered_set<MultiCall *> multis;  // submitted, not yet completed
  // Connection attempts: the bound of one (configured, and in force), and
  // when the newest began (GetInterest notes it).
  int attempt_ms = 0;
  int attempt_ms_in_force = 0;
  bool attempt_ms_auto = false;  // a share of the session timeout per server
  int session_timeout_ms = 0;
  // The server list as the C client has it (no chroot), and whether not
  // one of its names resolved at the last try (said once, in the log).
  std::string servers;
  bool resolve_failing = false;
  long attempts_seen = 0;
  absl::Time attempt_started = absl::InfinitePast();
  // This session among the process's: the high half of a socket serial
  // (the C client counts the sockets it starts, the low half).
  const uint64_t instance = NextInstance();
  static uint64_t NextInstance() {
    static std::atomic<uint64_t> last{0};
    return ++last;
  }
};

namespace {

// The session whose call is running on this thread: completions, watches
// and log lines of the single-threaded client happen synchronously inside
// our calls, so this tells them which sink to use (the log callback of the
// C client carries no context of its own).
thread_local ZkSession::Impl *current = nullptr;

class Running {
 public:
  explicit Running(ZkSession::Impl *impl) : saved_(current) {
    current = impl;
    // The outermost call only, on a thread that does not block it anyway.
    if (impl->tls && saved_ == nullptr && !SigpipeBlockedOnThisThread()) no_sigpipe_.emplace();
  }
  ~Running() {
    no_sigpipe_.reset();
    current = saved_;
  }

 private:
  ZkSession::Impl *saved_;
  std::optional<NoSigpipe> no_sigpipe_;
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
    case ZCONNECTIONLOSS:
    case ZSSLCONNECTIONERROR: return ZkRc::kConnectionLoss;  // the C client reconnects
    case ZOPERATIONTIMEOUT: return ZkRc::kOperationTimeout;
    case ZSESSIONEXPIRED: return ZkRc::kSessionExpired;
    case ZSESSIONMOVED: return ZkRc::kSessionMoved;
    case ZINVALIDSTATE: return ZkRc::kInvalidState;
    case ZCLOSING: return ZkRc::kClosing;
    case ZAUTHFAILED:
    case ZSESSIONCLOSEDREQUIRESASLAUTH: return ZkRc::kAuthFailed;
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
  if (zrc == ZSESSIONCLOSEDREQUIRESASLAUTH && !current->auth_failed_reported) {
    // The server requires SASL (enforce.auth) and this client has none, or
    // it failed: the session is closed; report it as the auth failure it is.
    current->auth_failed_reported = true;
    current->sink->OnZkState(ZkState::kAuthFailed);
  }
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

void SyncDone(int zrc, const char *, const void *request) {
  ZkReply r;
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

// The patched C client (0006) tells of each failed connection attempt.
void ConnectFailed(void *ctx, const char *server, int layer, int kind, const char *reason) {
  auto *impl = static_cast<ZkSession::Impl *>(ctx);
  ConnectFailure f;
  f.server = server ? server : "?";
  switch (layer) {
    case ZOO_LAYER_TCP: f.layer = ZKL_LAYER_TCP; break;
    case ZOO_LAYER_TLS: f.layer = ZKL_LAYER_TLS; break;
    case ZOO_LAYER_SASL: f.layer = ZKL_LAYER_SASL; break;
    default: f.layer = ZKL_LAYER_SESSION; break;
  }
  switch (kind) {
    case ZOO_CONN_TCP: f.error = ZKL_ECONNECTION; break;
    case ZOO_CONN_TIMEOUT: f.error = ZKL_ETIMEDOUT; break;
    case ZOO_CONN_TLS_CERT: f.error = ZKL_ECERT; break;
    case ZOO_CONN_TLS_HOSTNAME: f.error = ZKL_EHOSTNAME; break;
    case ZOO_CONN_TLS_CLIENT_CERT: f.error = ZKL_ECLIENTCERT; break;
    case ZOO_CONN_TLS_HANDSHAKE: f.error = ZKL_ETLS; break;
    default: f.error = ZKL_EPROTOCOL; break;
  }
  f.reason = reason ? reason : "";
  impl->sink->OnZkConnectFailure(std::move(f));
}

constexpr std::chrono::seconds kLogRepeatWindow{10};

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
  std::string_view message = text == std::string_view::npos ? s : s.substr(text + 2);
  // A server that keeps failing (a wrong certificate, a refused port) makes
  // the C client say the same every attempt, several times a second: say it
  // once per kLogRepeatWindow, with how often it came meanwhile.
  auto now = std::chrono::steady_clock::now();
  auto &repeats = current->log_repeats;
  if (repeats.size() > 64) repeats.clear();
  auto [it, first] = repeats.try_emplace(std::string(message), now, 0);
  if (!first && now - it->second.first < kLogRepeatWindow) {
    ++it->second.second;
    return;
  }
  int suppressed = first ? 0 : it->second.second;
  it->second = {now, 0};
  if (suppressed == 0) {
    current->sink->OnZkLog(level, message);
  } else {
    current->sink->OnZkLog(level, std::string(message) + " (and " + std::to_string(suppressed) +
                                      " times more since it was last logged)");
  }
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

// Keeps a keytab session's ticket fresh. A keytab that gives no ticket is
// reported (log line and AUTH_FAILED, ZKL_EAUTH) instead of letting GSS
// look elsewhere.
void RefreshTicket(ZkSession::Impl *impl) {
  if (impl->keytab_ticket == nullptr || impl->auth_failed_reported) return;
  KeytabTicket::Outcome outcome = impl->keytab_ticket->RefreshIfDue();
  if (outcome.kind == KeytabTicket::Outcome::kRenewFailed) {
    impl->sink->OnZkLog(ZKL_LOG_WARN, outcome.message);
  } else if (outcome.kind == KeytabTicket::Outcome::kNoTicket) {
    impl->sink->OnZkLog(ZKL_LOG_ERROR, outcome.message);
    impl->auth_failed_reported = true;
    impl->sink->OnZkState(ZkState::kAuthFailed);
  }
}

#if defined(HAVE_CYRUS_SASL_H) && defined(ZKL_HAVE_KRB5)  // used by GSSAPI only
// The host name in the server's principal when none is given (GSSAPI):
// the connect string's host when it names one; with several the C client
// uses the address of the server it connects to.
std::string DefaultSaslHost(const std::string &hosts) {
  std::string list = hosts.substr(0, hosts.find('/'));
  std::set<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string entry = list.substr(start, end - start);
    std::string host;
    if (!entry.empty() && entry[0] == '[') {
      host = entry.substr(1, entry.find(']') - 1);
    } else {
      host = entry.substr(0, entry.rfind(':'));
    }
    if (!host.empty()) names.insert(host);
    start = end + 1;
  }
  return names.size() == 1 ? *names.begin() : std::string();
}
#endif

// The entries of a server list ("a:1,b:2" -> {"a:1", "b:2"}).
std::vector<std::string> ServerEntries(const std::string &list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The server list in the C client's form: it takes the port after the last
// ':' and hands the rest to getaddrinfo, so an IPv6 address goes without
// the brackets zkl's form has ("[::1]:2181" -> "::1:2181"). A chroot
// ("/..." after the list) is kept.
std::string CClientHosts(const std::string &hosts) {
  size_t slash = hosts.find('/');
  std::string out;
  for (std::string entry : ServerEntries(hosts.substr(0, slash))) {
    size_t close = entry.find("]:");
    if (!entry.empty() && entry[0] == '[' && close != std::string::npos) {
      entry = entry.substr(1, close - 1) + entry.substr(close + 1);
    }
    if (!out.empty()) out += ',';
    out += entry;
  }
  return slash == std::string::npos ? out : out + hosts.substr(slash);
}

// Some name of a list in the C client's form resolves (getaddrinfo).
bool AnyNameResolves(const std::string &servers) {
  for (const std::string &entry : ServerEntries(servers)) {
    size_t colon = entry.rfind(':');
    if (colon == std::string::npos) continue;
    struct addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo *res = nullptr;
    if (getaddrinfo(entry.substr(0, colon).c_str(), entry.substr(colon + 1).c_str(), &hints, &res) == 0) {
      freeaddrinfo(res);
      return true;
    }
  }
  return false;
}

// The attempt bound when none is configured: a share of the session
// timeout for each server of the list (a silent one costs only its share).
int AutoAttemptMs(int session_timeout_ms, int servers) {
  return std::max(session_timeout_ms / std::max(3, servers), 1);
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

// The C client's session: everything ZkSession promises, over one zhandle.
class CClientSession final : public ZkSession {
 public:
  explicit CClientSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
  ~CClientSession() override;
  ZkRc GetInterest(Interest *out) override;
  ZkRc Process(bool readable, bool writable) override;
  ZkRc Create(void *request, const std::string &path, std::string_view data, int mode) override;
  ZkRc Delete(void *request, const std::string &path, int version) override;
  ZkRc GetChildren(void *request, const std::string &path, uint64_t watcher) override;
  ZkRc GetData(void *request, const std::string &path, uint64_t watcher) override;
  ZkRc Exists(void *request, const std::string &path, uint64_t watcher) override;
  ZkRc SetData(void *request, const std::string &path, std::string_view data, int version) override;
  ZkRc Multi(void *request, std::vector<ZkOp> ops) override;
  ZkRc Sync(void *request, const std::string &path) override;
  ZkRc GetConfig(void *request, uint64_t watcher) override;
  ZkRc SetServers(const std::string &servers) override;
  bool connected() const override;
  bool unrecoverable() const override;
  uint64_t session_id() const override;
  int negotiated_timeout_ms() const override;
  bool Password(uint8_t out[16]) const override;
  int LastConnectError() const override;
  int ServerCount() const override;
  std::string CurrentServer() const override;
  absl::Time AttemptStarted() const override;
  void LimitAttempt(int budget_ms) override;
  void HoldSends(bool hold) override;
  bool ConnectedInterest(int *fd, bool *write) override;

 private:
  std::unique_ptr<Impl> impl_;
};

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
  impl->tls = !params.tls_ca_file.empty();
  Running running(impl.get());
#ifdef HAVE_CYRUS_SASL_H
  zoo_sasl_params_t sasl{};
  zoo_sasl_params_t *sasl_params = nullptr;
  std::string sasl_host = params.sasl_host;
  if (params.sasl_mechanism == "DIGEST-MD5") {
    if (!SaslReady()) {
      *error = ZKL_ENOTSUP;
      return nullptr;
    }
    impl->sasl.user = params.sasl_user;
    impl->sasl.password = params.sasl_password;
    SetDigestMd5Callbacks(&impl->sasl, impl->sasl_callbacks);
    if (sasl_host.empty()) sasl_host = "zk-sasl-md5";
    sasl.mechlist = "DIGEST-MD5";
    sasl_params = &sasl;
  } else if (params.sasl_mechanism == "GSSAPI") {
#ifdef ZKL_HAVE_KRB5
    const bool krb5_loaded = GssapiAvailable();  // dlopened before SASL loads its plugins
    if (!SaslReady() || !krb5_loaded) {
      *error = ZKL_ENOTSUP;
      return nullptr;
    }
    // The authorization id is left empty: the server takes the
    // authenticated principal (what the ticket proves) as the identity.
    impl->sasl.user.clear();
    SetGssapiCallbacks(&impl->sasl, impl->sasl_callbacks);
    if (!params.sasl_keytab.empty()) {
      impl->keytab_ticket = KeytabTicket::Create(params.sasl_user, params.sasl_keytab);
      if (impl->keytab_ticket == nullptr) {
        *error = ZKL_ENOMEM;
        return nullptr;
      }
      impl->ccache_name = impl->keytab_ticket->ccache_name();
    } else {
      impl->ccache_name = params.sasl_ccache;  // "": the environment's
    }
    if (sasl_host.empty()) sasl_host = DefaultSaslHost(params.hosts);
    sasl.mechlist = "GSSAPI";
    sasl_params = &sasl;
#else
    *error = ZKL_ENOTSUP;
    return nullptr;
#endif
  }
  if (sasl_params != nullptr) {
    sasl.service = params.sasl_service.c_str();
    sasl.host = sasl_host.empty() ? nullptr : sasl_host.c_str();  // copied by the C client
    sasl.callbacks = impl->sasl_callbacks;
  }
#else
  void *sasl_params = nullptr;
  if (!params.sasl_mechanism.empty()) {
    *error = ZKL_ENOTSUP;
    return nullptr;
  }
#endif
  const std::string hosts = CClientHosts(params.hosts);
  impl->servers = hosts.substr(0, hosts.find('/'));
  if (params.tls_ca_file.empty() && sasl_params == nullptr) {
    impl->zh = zookeeper_init2(hosts.c_str(), &SessionWatcher, params.session_timeout_ms,
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
    impl->zh = zookeeper_init_secure(hosts.c_str(), &SessionWatcher,
                                     params.session_timeout_ms, nullptr, impl.get(),
                                     ZOO_NO_LOG_CLIENTENV, &LogLine,
                                     params.tls_ca_file.empty() ? nullptr : &tls, sasl_params);
  }
  if (impl->zh == nullptr) {
    // EPROTO: a TLS file could not be read (or the key's passphrase is wrong).
    // ENOENT or EINVAL (getaddrinfo's errors; zkl checked the rest): not
    // one name of the list resolves, which is no invalid argument.
    int e = errno;
    bool unresolved = (e == ENOENT || e == EINVAL) && !AnyNameResolves(impl->servers);
    *error = unresolved ? ZKL_ECONNECTION : e == EINVAL ? ZKL_EINVAL : e == EPROTO ? ZKL_ECERT
             : e == ENOTSUP ? ZKL_ENOTSUP : ZKL_ENOMEM;
    Wipe(impl->digest);  // (the SASL password goes with impl->sasl)
    return nullptr;
  }
  int attempt_ms = params.connect_timeout_ms;
  impl->attempt_ms_auto = attempt_ms <= 0;
  impl->session_timeout_ms = params.session_timeout_ms;
  if (impl->attempt_ms_auto) attempt_ms = AutoAttemptMs(params.session_timeout_ms, zoo_server_count(impl->zh));
  impl->attempt_ms = impl->attempt_ms_in_force = std::max(attempt_ms, 1);
  zoo_set_connect_timeout(impl->zh, impl->attempt_ms);
  zoo_set_connect_failure_fn(impl->zh, &ConnectFailed, impl.get());
  // The C client otherwise resolves the host list again on every call of
  // zookeeper_interest, connected or not; with -1 it does so only while it
  // has no socket: before each connection attempt (update_addrs skips the
  // resolution only when a socket exists and the delay is -1). So names are
  // resolved at the start and at every reconnect attempt, never while
  // connected (zk_session.h, zkl.h at servers).
  zoo_set_servers_resolution_delay(impl->zh, -1);
  if (!impl->digest.empty()) {
    zoo_add_auth(impl->zh, "digest", impl->digest.data(), static_cast<int>(impl->digest.size()),
                 &IgnoreDone, nullptr);
  }
  return std::make_unique<CClientSession>(std::move(impl));
}

CClientSession::~CClientSession() {
  {
    Running running(impl_.get());
    zookeeper_close(impl_->zh);  // completions run now, with ZCLOSING
  }
  // The C client can drop the completion of a multi that was still queued
  // when its handle closed: free what it never answered.
  for (Impl::MultiCall *call : impl_->multis) delete call;
  Wipe(impl_->digest);  // (the SASL secrets go with impl_->sasl)
}

ZkRc CClientSession::GetInterest(Interest *out) {
  Running running(impl_.get());
  RefreshTicket(impl_.get());
  ThreadCredentialCache credentials(impl_->ccache_name);
  int fd = -1;
  int interest = 0;
  struct timeval tv {};
  // Only this call starts an attempt (and may send its handshake): a time
  // taken before it is no later than the start of any attempt it begins.
  absl::Time before = MonoNow();
  int zrc = zookeeper_interest(impl_->zh, &fd, &interest, &tv);
  long attempts = zoo_connect_attempts(impl_->zh);
  if (attempts != impl_->attempts_seen) {
    impl_->attempts_seen = attempts;
    impl_->attempt_started = before;
  }
  out->fd = fd;
  out->socket_serial = (impl_->instance << 32) | static_cast<uint32_t>(attempts);
  out->read = (interest & ZOOKEEPER_READ) != 0;
  out->write = (interest & ZOOKEEPER_WRITE) != 0;
  out->timeout_ms = static_cast<int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
  if (zrc == ZSYSTEMERROR && fd == -1) {
    // The resolution before an attempt found not one address (or a socket
    // could not be made): zookeeper_interest returned before connecting,
    // without a timeout. Try again in a while, not at once (a DNS outage
    // must not spin the loop).
    out->timeout_ms = kResolveRetryMs;
    if (!impl_->resolve_failing) {
      impl_->resolve_failing = true;
      impl_->sink->OnZkLog(ZKL_LOG_WARN, "not one server of " + impl_->servers +
                                             " can be tried (no name resolves, or no socket): "
                                             "trying again every " +
                                             std::to_string(kResolveRetryMs) + " ms");
    }
  } else if (fd != -1) {
    impl_->resolve_failing = false;
  }
  return FromCode(zrc);
}

ZkRc CClientSession::Process(bool readable, bool writable) {
  Running running(impl_.get());
  ThreadCredentialCache credentials(impl_->ccache_name);
  int events = (readable ? ZOOKEEPER_READ : 0) | (writable ? ZOOKEEPER_WRITE : 0);
  ZkRc rc = FromCode(zookeeper_process(impl_->zh, events));
  ReportSilentAuthFailure(impl_.get());
  return rc;
}

ZkRc CClientSession::Create(void *request, const std::string &path, std::string_view data, int mode) {
  Running running(impl_.get());
  return FromCode(zoo_acreate2(impl_->zh, path.c_str(), DataPtr(data), static_cast<int>(data.size()),
                               impl_->acl, ToMode(mode), &StringStatDone, request));
}

ZkRc CClientSession::Delete(void *request, const std::string &path, int version) {
  Running running(impl_.get());
  return FromCode(zoo_adelete(impl_->zh, path.c_str(), version, &VoidDone, request));
}

ZkRc CClientSession::GetChildren(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awget_children(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                                     reinterpret_cast<void *>(watcher), &StringsDone, request));
}

ZkRc CClientSession::GetData(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awget(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                            reinterpret_cast<void *>(watcher), &DataDone, request));
}

ZkRc CClientSession::Exists(void *request, const std::string &path, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awexists(impl_->zh, path.c_str(), watcher ? &NodeWatcher : nullptr,
                               reinterpret_cast<void *>(watcher), &StatDone, request));
}

ZkRc CClientSession::Sync(void *request, const std::string &path) {
  Running running(impl_.get());
  return FromCode(zoo_async(impl_->zh, path.c_str(), &SyncDone, request));
}

ZkRc CClientSession::GetConfig(void *request, uint64_t watcher) {
  Running running(impl_.get());
  return FromCode(zoo_awgetconfig(impl_->zh, watcher ? &NodeWatcher : nullptr,
                                  reinterpret_cast<void *>(watcher), &DataDone, request));
}

ZkRc CClientSession::SetServers(const std::string &servers) {
  Running running(impl_.get());
  std::string hosts = CClientHosts(servers);
  int zrc = zoo_set_servers(impl_->zh, hosts.c_str());
  if (zrc != ZOK) {
    // Nothing resolved, so nothing moved; but the C client keeps the new
    // string (to resolve before its next attempt): the old one goes back.
    zoo_set_servers(impl_->zh, impl_->servers.c_str());
    return ZkRc::kOther;
  }
  impl_->servers = std::move(hosts);
  if (impl_->attempt_ms_auto) {
    impl_->attempt_ms = AutoAttemptMs(impl_->session_timeout_ms, zoo_server_count(impl_->zh));
    impl_->attempt_ms_in_force = impl_->attempt_ms;
    zoo_set_connect_timeout(impl_->zh, impl_->attempt_ms);
  }
  return ZkRc::kOk;
}

ZkRc CClientSession::SetData(void *request, const std::string &path, std::string_view data,
                        int version) {
  Running running(impl_.get());
  return FromCode(zoo_aset(impl_->zh, path.c_str(), DataPtr(data), static_cast<int>(data.size()),
                           version, &StatDone, request));
}

ZkRc CClientSession::Multi(void *request, std::vector<ZkOp> ops) {
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

bool CClientSession::connected() const { return zoo_state(impl_->zh) == ZOO_CONNECTED_STATE; }

bool CClientSession::unrecoverable() const {
  int state = zoo_state(impl_->zh);
  return state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
}

uint64_t CClientSession::session_id() const {
  const clientid_t *id = zoo_client_id(impl_->zh);
  return id ? static_cast<uint64_t>(id->client_id) : 0;
}

int CClientSession::negotiated_timeout_ms() const { return zoo_recv_timeout(impl_->zh); }

bool CClientSession::Password(uint8_t out[16]) const {
  const clientid_t *id = zoo_client_id(impl_->zh);
  if (id == nullptr || id->client_id == 0) return false;
  static_assert(sizeof id->passwd == 16);
  std::memcpy(out, id->passwd, sizeof id->passwd);
  return true;
}

int CClientSession::ServerCount() const { return zoo_server_count(impl_->zh); }

absl::Time CClientSession::AttemptStarted() const { return impl_->attempt_started; }

void CClientSession::HoldSends(bool hold) {
  Running running(impl_.get());  // the end of a hold writes (TLS: no SIGPIPE)
  zoo_hold_sends(impl_->zh, hold ? 1 : 0);
}

bool CClientSession::ConnectedInterest(int *fd, bool *write) {
  int w = 0;
  if (!zoo_connected_interest(impl_->zh, fd, &w)) return false;
  *write = w != 0;
  return true;
}

void CClientSession::LimitAttempt(int budget_ms) {
  int ms = budget_ms > 0 ? std::min(impl_->attempt_ms, budget_ms) : impl_->attempt_ms;
  if (ms == impl_->attempt_ms_in_force) return;
  impl_->attempt_ms_in_force = ms;
  zoo_set_connect_timeout(impl_->zh, ms);
}

std::string CClientSession::CurrentServer() const {
  const char *server = zoo_get_current_server(impl_->zh);
  return server ? server : "";
}

int CClientSession::LastConnectError() const {
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
