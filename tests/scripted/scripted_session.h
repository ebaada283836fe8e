// A scripted ZooKeeper session: the test seam below the client.
//
// A Script stands in for the ZooKeeper ensemble. The client makes its
// sessions through Script::Factory() (Client::Create's internal overload),
// and every request a session is given is recorded for the test, which
// answers it with any return code and payload, in any order, and drops the
// connection, reconnects, expires the session or fires watches whenever it
// likes. Syncs (the lease heartbeats) are answered by themselves unless
// told otherwise, so holds stay provable.
//
// Threads: the test thread scripts; what it scripts is queued and delivered
// inside the session's Process() on whichever thread drives the client's
// loop, under the client's mutex, as the C client delivers its callbacks.
// Each session's "socket" is an eventfd that is readable while actions are
// queued, so both I/O modes wake for them. Every wait is bounded: a missing
// request or action throws (the test fails) instead of hanging.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client.h"
#include "zk_session.h"

namespace zkl::scripted {

enum class Kind { kCreate, kDelete, kGetChildren, kGetData, kExists, kSetData, kMulti, kSync, kGetConfig };
const char *KindName(Kind kind);

// One request the engine sent, as the script recorded it.
struct Request {
  uint64_t id = 0;   // submission order over the whole script (1, 2, ...)
  int session = 0;   // serial of the session it was sent on (1, 2, ...)
  Kind kind = Kind::kSync;
  std::string path;  // multi: the first op's path
  std::string data;  // create, setData
  int mode = 0;      // create (NodeMode flags)
  int version = -1;  // delete, setData
  uint64_t watcher = 0;   // != 0: the request sets a watch
  std::vector<ZkOp> ops;  // multi

  bool watch() const { return watcher != 0; }
  std::string Describe() const;
};
using RequestPtr = std::shared_ptr<const Request>;

// What the script answers with. Builders below cover the usual shapes.
struct Answer {
  ZkRc rc = ZkRc::kOk;
  bool from_server = true;
  std::string value;                  // create: the created path
  NodeStat stat;                      // create, getData, exists, setData (rc kOk)
  std::vector<std::string> children;  // getChildren
  std::string data;                   // getData
  std::vector<ZkOpResult> results;    // multi
};

Answer Error(ZkRc rc);
Answer Ok();
// A create's answer: `path` as created (a sequential one with its suffix).
Answer Created(std::string path, int64_t czxid, int64_t ephemeral_owner);
Answer Children(std::vector<std::string> names);
Answer Data(std::string data, int64_t czxid, int64_t ephemeral_owner, int32_t version = 0);
Answer Stat(int64_t czxid, int64_t ephemeral_owner, int32_t version = 0);
// A multi applied: each op succeeds (a sequential create gets `seq`).
Answer MultiOk(const Request &multi, int64_t czxid, int64_t ephemeral_owner, int64_t seq = 0);
// A multi refused: op `failed` with `rc`, those before it ok, those after it
// rolled back (as ZooKeeper reports them), the whole with `rc`.
Answer MultiFailed(const Request &multi, size_t failed, ZkRc rc);

// The node a sequential create makes: its path and a 10-digit sequence.
std::string Sequential(const Request &create, int64_t seq);
// The last path component.
std::string NameOf(std::string_view path);

class ScriptedSession;

class Script : public std::enable_shared_from_this<Script> {
 public:
  struct Options {
    int negotiated_timeout_ms = 10000;
    bool auto_sync = true;     // answer Sync at once (kOk, from the server)
    bool auto_connect = true;  // a new session connects by itself
  };
  static std::shared_ptr<Script> Make(Options options);
  static std::shared_ptr<Script> Make() { return Make(Options()); }

  // For Client::Create: every session the client starts is scripted here.
  ZkSessionFactory Factory();
  // Host mode: how a waiting test drives the client's loop (nobody else
  // does); called between bounded waits.
  void SetPump(std::function<void()> pump);

  // --- requests ---
  // The oldest unclaimed request of `kind` whose path starts with
  // `path_prefix`, waiting up to `timeout_ms` for it; claims it. Throws
  // (listing what is pending) when none comes.
  RequestPtr Next(Kind kind, std::string_view path_prefix = "", int64_t timeout_ms = 5000);
  // Unclaimed requests right now (after Flush: everything the engine sent
  // in reaction to what was delivered).
  std::vector<RequestPtr> Pending() const;
  bool HasPending(Kind kind, std::string_view path_prefix = "") const;
  std::string DescribePending() const;
  // Sync requests the session answered by itself.
  int auto_synced() const;
  // Turns the answering of syncs on (answering those pending) or off.
  void SetAutoSync(bool on);

  // --- scripting (queued; delivered in order inside Process) ---
  // What is not addressed to a request's session acts on the current one:
  // the newest alive, or, while the client replaces an ended session (its
  // I/O thread destroys the old one, then starts the next), the next one.
  void Reply(const RequestPtr &request, Answer answer);
  // The connection breaks: state kConnecting, then every request in flight
  // is answered kConnectionLoss (not from the server).
  void DropConnection();
  // The same session (re)connects: state kConnected.
  void Connect();
  // The session expires: state kExpired, every request in flight answered
  // kSessionExpired. The client then starts a new session. `announce`
  // false: the handle just becomes unusable, without the state event.
  void Expire(bool announce = true);
  // The server refuses the session's credentials: state kAuthFailed, every
  // request in flight answered kAuthFailed, the handle unusable for good
  // (as the C client's after a SASL failure).
  void FailAuth();
  // The watch `setter` set fires (even before `setter` is answered).
  void FireWatch(const RequestPtr &setter, WatchType type);
  // Every watch set on `path` in the current session fires (once each).
  void FireWatch(std::string_view path, WatchType type);
  // Waits until everything queued so far has been delivered (and whatever
  // the engine did in reaction has run).
  void Flush(int64_t timeout_ms = 5000);

  // --- sessions ---
  // The next `count` sessions the client starts cannot be made (as when not
  // one server name resolves): the factory fails with ZKL_ECONNECTION.
  void RefuseSessions(int count);
  // The serial of the newest session (0: none yet).
  int session_serial() const;
  // Waits until session `serial` exists; throws otherwise.
  void WaitSession(int serial, int64_t timeout_ms = 5000);
  // The ZooKeeper session id a serial stands for (the current one: 0).
  uint64_t session_id(int serial = 0) const;
  int negotiated_timeout_ms() const { return options_.negotiated_timeout_ms; }

 private:
  friend class ScriptedSession;
  explicit Script(Options options) : options_(options), auto_sync_(options.auto_sync) {}
  using Action = std::function<void(ScriptedSession *alive)>;  // null: the session is gone
  // Queues `action` on session `serial`; an action for a session that is
  // gone is dropped. 0: the current session, or, when the client is
  // between two (the old one destroyed, the next not yet started), the
  // next one, waited for up to `timeout_ms`; throws when none comes.
  void Queue(int serial, Action action, int64_t timeout_ms = 5000);
  ScriptedSession *CurrentLocked() const;
  template <typename Ready>
  bool WaitFor(std::unique_lock<std::mutex> &lock, int64_t timeout_ms, Ready ready);

  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::function<void()> pump_;
  std::map<int, ScriptedSession *> sessions_;  // alive, by serial
  int last_serial_ = 0;
  uint64_t last_request_ = 0;
  std::deque<RequestPtr> pending_;  // unclaimed
  int auto_synced_ = 0;
  int refuse_sessions_ = 0;
  bool auto_sync_ = true;
};

}  // namespace zkl::scripted
