// The runtime layer: the one place that knows the ZooKeeper C client.
//
// A ZkSession owns one zhandle (one session, and its reconnects to the same
// session), turns the engine's requests into the client's asynchronous
// calls, and hands their completions, watches and session changes back in
// zkl's own types through a ZkSink. It runs no thread: the I/O loop drives
// it with Interest() and Process() (the single-threaded C client), always
// under the client's mutex, so every callback into the sink runs under that
// mutex too, synchronously inside one of this class's calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "connect_failures.h"

namespace zkl {

// ZooKeeper's return codes, in zkl's words (ZkSession maps them).
enum class ZkRc {
  kOk,
  kNoNode,
  kNodeExists,
  kNotEmpty,
  kBadVersion,
  kNoAuth,
  kBadArguments,
  kConnectionLoss,    // the request's fate is unknown
  kOperationTimeout,  // the same
  kSessionExpired,
  kSessionMoved,
  kInvalidState,      // the handle is unusable (expired, auth failed)
  kClosing,           // the handle is being closed
  kAuthFailed,
  kNothing,           // nothing to do (not an error)
  kOther,
};

// The parts of a node's Stat that recipes use.
struct NodeStat {
  int64_t czxid = 0;
  int64_t ctime_ms = 0;
  int32_t version = 0;
  int64_t ephemeral_owner = 0;
};

enum class WatchType { kCreated, kDeleted, kDataChanged, kChildrenChanged, kOther };

// Node modes (flags) for Create.
enum NodeMode : int {
  kPersistent = 0,
  kEphemeral = 1,
  kSequential = 2,
  kContainer = 4,
};

// One operation of a multi (transaction).
struct ZkOp {
  enum Type { kCreate, kDelete, kSetData, kCheck } type;
  std::string path;
  std::string data;  // create, set
  int mode = 0;      // create
  int version = -1;  // delete, set, check
};

struct ZkOpResult {
  ZkRc rc = ZkRc::kOk;
  std::string value;  // create: the created path
  NodeStat stat;      // create (with stat), set
};

// What a request returned. Pointers and views are valid during the
// OnReply call only.
struct ZkReply {
  ZkRc rc = ZkRc::kOk;
  // The server answered (as opposed to the client library making the
  // answer up after a connection loss or close): so it heard the request.
  bool from_server = false;
  std::string_view value;                               // create: the created path
  const NodeStat *stat = nullptr;                       // create, getData, exists, set
  const std::vector<std::string_view> *children = nullptr;  // getChildren
  std::string_view data;                                // getData
  const std::vector<ZkOpResult> *results = nullptr;     // multi
};

// Session states the C client reports.
enum class ZkState { kConnected, kConnecting, kExpired, kAuthFailed };

// Receives everything a ZkSession produces. Called synchronously from
// inside ZkSession's calls (under the client's mutex).
class ZkSink {
 public:
  virtual ~ZkSink() = default;
  virtual void OnZkState(ZkState state) = 0;
  // `request` is the pointer given when the request was submitted.
  virtual void OnZkReply(void *request, const ZkReply &reply) = 0;
  virtual void OnZkWatch(uint64_t watcher, WatchType type, std::string_view path) = 0;
  // One line of the C client's log (level ZKL_LOG_*), without its prefix.
  virtual void OnZkLog(int level, std::string_view message) = 0;
  // A connection attempt failed (which server, layer and why).
  virtual void OnZkConnectFailure(ConnectFailure failure) = 0;
};

// How to connect. Secrets are wiped from memory when the session is done.
struct ZkConnectParams {
  std::string hosts;  // "host:port,...[/chroot]"
  int session_timeout_ms = 10000;
  bool creator_acl = false;  // created nodes: creator all, world read
  std::string digest;        // "user:password" (secret)
  int log_level = 0;         // ZKL_LOG_* the sink wants (0: none)
  // Bound of one connection attempt: TCP connect, TLS and session
  // handshakes (0: the session timeout / max(3, servers of the list), so
  // that a silent server costs only its share, as the Java client does).
  int connect_timeout_ms = 0;
  // TLS: on when tls_ca_file is not empty. Files are PEM.
  std::string tls_ca_file;
  std::string tls_cert_file;     // client certificate (chain), or empty
  std::string tls_key_file;      // its key (empty: in the certificate file)
  std::string tls_key_password;  // secret; only used while Open runs
  bool tls_verify_hostname = true;
  // SASL: on when sasl_mechanism is not empty ("DIGEST-MD5" or "GSSAPI").
  std::string sasl_mechanism;
  std::string sasl_user;      // DIGEST-MD5 user; GSSAPI client principal
  std::string sasl_password;  // DIGEST-MD5; secret: wiped with the session
  std::string sasl_keytab;    // GSSAPI: credentials from this client keytab
  std::string sasl_ccache;    // GSSAPI: or from this credential cache
  std::string sasl_service = "zookeeper";
  // Empty: "zk-sasl-md5" for DIGEST-MD5 (as the Java client); for GSSAPI
  // the host name of the connect string.
  std::string sasl_host;
};

// Overwrites a secret in place (not optimized away), then empties it.
void WipeSecret(std::string &secret);

// An interface, so that tests can put a scripted session below the client
// (tests/scripted/); the one implementation in the library is the C
// client's (zk_session.cc), which Open returns.
class ZkSession {
 public:
  // Starts a session over the ZooKeeper C client (no I/O yet: the first
  // Interest() connects). Null with *error (a ZKL_E* code) on failure.
  static std::unique_ptr<ZkSession> Open(const ZkConnectParams &params, ZkSink *sink,
                                         int *error);
  ZkSession() = default;
  // Closes the session on the server (bounded wait), calling every pending
  // completion with kClosing first.
  virtual ~ZkSession() = default;
  ZkSession(const ZkSession &) = delete;
  ZkSession &operator=(const ZkSession &) = delete;

  // --- driving (the I/O loop) ---
  struct Interest {
    int fd = -1;  // -1: no socket right now
    // Which socket `fd` is: another one (a reconnect, or another session
    // of the process) has another serial even when it reuses the number.
    uint64_t socket_serial = 0;
    bool read = false;
    bool write = false;
    int64_t timeout_ms = -1;  // call Interest() again after this long
  };
  // What to poll for; may connect, send pings or time out a connection.
  virtual ZkRc GetInterest(Interest *out) = 0;
  // Does the I/O the socket is ready for and runs the resulting callbacks.
  virtual ZkRc Process(bool readable, bool writable) = 0;

  // --- requests: on kOk exactly one OnZkReply(request, ...) follows,
  // unless the session is closed first (then it comes with kClosing). ---
  virtual ZkRc Create(void *request, const std::string &path, std::string_view data, int mode) = 0;
  virtual ZkRc Delete(void *request, const std::string &path, int version = -1) = 0;
  // `watcher` != 0 sets a watch reported through OnZkWatch(watcher, ...).
  virtual ZkRc GetChildren(void *request, const std::string &path, uint64_t watcher) = 0;
  virtual ZkRc GetData(void *request, const std::string &path, uint64_t watcher) = 0;
  virtual ZkRc Exists(void *request, const std::string &path, uint64_t watcher) = 0;
  virtual ZkRc SetData(void *request, const std::string &path, std::string_view data, int version) = 0;
  virtual ZkRc Multi(void *request, std::vector<ZkOp> ops) = 0;
  // The server we talk to catches up with the leader; answered after the
  // leader has seen it (a follower forwards it, see quorum_proof.h).
  virtual ZkRc Sync(void *request, const std::string &path) = 0;
  // Reads the ensemble's configuration (/zookeeper/config, 3.5+; the same
  // node whatever the chroot). `watcher` != 0 sets a watch.
  virtual ZkRc GetConfig(void *request, uint64_t watcher) = 0;

  // Replaces the server list ("host:port,...", no chroot). The C client
  // (zoo_set_servers) resolves it now, and leaves its server when that is
  // no longer listed, or, when the list grew, with the probability that
  // spreads clients evenly over it (ZOOKEEPER-1355): the move is an
  // ordinary disconnect (kConnecting; requests in flight fail with
  // kConnectionLoss; patch 0007), and the same session resumes on another
  // server. kOk; kOther when not a name of it resolves (the list stays).
  // May run callbacks: never call it from inside one of this session's.
  virtual ZkRc SetServers(const std::string &servers) = 0;

  // --- state ---
  virtual bool connected() const = 0;
  // Unusable for good (expired, authentication failed).
  virtual bool unrecoverable() const = 0;
  virtual uint64_t session_id() const = 0;
  virtual int negotiated_timeout_ms() const = 0;
  // The session's 16-byte password; false without a session.
  virtual bool Password(uint8_t out[16]) const = 0;
  // Why the last connection attempt failed, as a ZKL_E* code (ZKL_ETLS,
  // ZKL_ECERT, ZKL_EHOSTNAME, ZKL_ECLIENTCERT, ZKL_EPROTOCOL,
  // ZKL_ETIMEDOUT), or 0 (none failed since the last success).
  virtual int LastConnectError() const = 0;
  // How many addresses the host list resolved to.
  virtual int ServerCount() const = 0;
  // Host names are resolved (getaddrinfo, on the thread that drives the
  // I/O) when the session starts, and again before each connection attempt
  // (whenever the C client has no socket), never while connected. When not
  // one resolves, GetInterest asks to be called again after this long.
  static constexpr int kResolveRetryMs = 1000;
  // The address connected to, or last tried ("ip:port").
  virtual std::string CurrentServer() const = 0;
  // A moment (MonoNow) no later than the start of the current connection
  // attempt: its handshake was sent after it.
  virtual absl::Time AttemptStarted() const = 0;
  // Bounds one connection attempt to `budget_ms` when that is below the
  // configured bound (0: the configured bound again).
  virtual void LimitAttempt(int budget_ms) = 0;
  // While held, requests queue unwritten; the end of the hold writes them
  // together (one syscall and one TCP segment). Only an optimization: a
  // session may ignore it.
  virtual void HoldSends(bool hold) {}
  // While connected: the socket and whether requests wait to be written,
  // without GetInterest's attempt and timeout work. All a request made
  // since the last GetInterest can change: its send moves the ping and
  // receive deadlines later, never sooner. False when only GetInterest can
  // tell (not connected, or a session that does not know cheaply).
  virtual bool ConnectedInterest(int *fd, bool *write) { return false; }

  struct Impl;  // the C client's side (zk_session.cc)
};

// Mapping onto ZKL_E* codes and the two questions recipes ask.
int ZkError(ZkRc rc);
// The request's fate is unknown: the server may or may not have applied it.
bool IsConnectionError(ZkRc rc);
// The handle can no longer be used (expired, closing, auth failed).
bool IsSessionGone(ZkRc rc);

}  // namespace zkl
