// The client: one ZooKeeper session at a time (re-created after loss), its
// state as the user sees it, the event queue, timers, and the I/O loop that
// drives it all — on zkl's own I/O thread (ZKL_IO_THREAD) or from the
// host's dispatch (ZKL_IO_HOST).
//
// Threads and locking: one mutex (mu()) guards everything here and in the
// recipes. The ZooKeeper session is only touched under it, and its
// completions, watches and session changes arrive under it, on whichever
// thread drives the loop. Calls from other threads submit their requests
// directly (the single-threaded C client sends without blocking) and wake
// the loop only when it must wait for something else than it planned.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "event_queue.h"
#include "histogram.h"
#include "handles.h"
#include "io_loop.h"
#include "quorum_proof.h"
#include "sync.h"
#include "zk_session.h"
#include "zkl.h"

namespace zkl {

class Client;
struct Request;

// Makes the ZooKeeper session a client runs on (ZkSession::Open's shape).
// Internal, not in zkl.h: tests put a scripted session there.
using ZkSessionFactory =
    std::function<std::unique_ptr<ZkSession>(const ZkConnectParams &, ZkSink *, int *error)>;

// What a ZooKeeper request returned, handed to the listener that issued it.
// Views and pointers are valid during the OnReply call only.
struct Reply {
  int op = 0;  // the listener's own tag for the request
  ZkRc rc = ZkRc::kOk;
  std::string_view value;                                   // create: the created path
  const NodeStat *stat = nullptr;                           // create, getData, exists, set
  const std::vector<std::string_view> *children = nullptr;  // getChildren
  std::string_view data;                                    // getData
  const std::vector<ZkOpResult> *results = nullptr;         // multi
  const std::string *path = nullptr;                        // the path the request was for
};

// Recipes and observers: everything that owns nodes or watches on a client.
// Every method is called with the client's mutex held.
class Listener : public Handle {
 public:
  explicit Listener(HandleKind kind) : Handle(kind) {}
  virtual void OnReply(const Reply &reply) = 0;
  // A watch set with Client::GetData/GetChildren/Exists fired.
  virtual void OnWatch(WatchType type, const std::string &path) = 0;
  // (Re)connected: `same_session` false means a brand-new session. Also
  // called (same session) when the server is heard from again after the
  // safety bound had lapsed.
  virtual void OnConnected(bool same_session) = 0;
  // A hold may be lost: disconnected, or not heard from for as long as is
  // safe.
  virtual void OnSuspended() = 0;
  // The quorum proves the session again after Client::CallWhenProven.
  virtual void OnProven() {}
  // The session is gone (expired, abandoned by the client-side deadline, or
  // authentication failed): every node of it is or will be gone.
  virtual void OnSessionLost(int error) = 0;
  virtual void OnTimer() = 0;
  virtual void OnClientClosed() = 0;
  // Another handle is about to create on a path where this one holds a
  // delete back (Client::SendDeferredDeletes): send it now.
  virtual void SendDeferred() {}
  // Appends this handle's statistics object (handles without any: nothing).
  virtual void WriteStats(JsonWriter &) {}

  std::weak_ptr<Listener> self() const { return self_; }
  void BindSelf(const std::shared_ptr<Listener> &me) { self_ = me; }

 private:
  std::weak_ptr<Listener> self_;  // set by Client::AddListener
};

class Client : public Handle, private ZkSink, private IoDriver {
 public:
  // Checks the options (CheckClientOptions), then starts the client. On
  // failure *why (may be NULL) says why, for zkl_client_create.
  static int Create(const zkl_client_options &opts, std::shared_ptr<Client> *out, std::string *why);
  // The same on sessions `factory` makes (every session of the client's
  // life: the first, and each one that replaces a lost one).
  static int Create(const zkl_client_options &opts, ZkSessionFactory factory,
                    std::shared_ptr<Client> *out, std::string *why);
  ~Client() override;

  // Closes the session and stops every background activity. Idempotent.
  // Must not be called from a callback of this client's loop.
  void Close();

  EventQueue &queue() { return queue_; }
  Mutex &mu() ABSL_LOCK_RETURNED(mu_) { return mu_; }

  // --- the user-facing calls (these take the mutex) ---
  int WaitConnected(int64_t timeout_ms);
  // zkl_client_connect_error: the newest kept failure's code; *why says
  // each server's.
  int ConnectError(std::string *why);
  int State();
  uint64_t SessionId();
  int NegotiatedTimeout();
  int SessionPassword(void *buf, size_t len);
  // The fd to poll (the event queue's, or the loop's in host mode).
  int Fd() const;
  // Host mode: does the pending I/O (never blocks). Thread mode: nothing.
  void DriveNow();
  // zkl_client_wait: 1 when an event is pending, 0 on timeout or wakeup.
  int WaitForEvent(int64_t timeout_ms);
  void Wakeup();
  // zkl_client_set_servers: replaces the server list (the rule of
  // zkl_client_options.servers; the chroot stays).
  int SetServers(const char *servers);
  // zkl_client_follow_ensemble: the list follows /zookeeper/config.
  int FollowEnsemble(bool on);
  // The statistics document (docs/STATISTICS.md); with `only` a handle id,
  // just that handle's object.
  std::string StatsJson(uint64_t only = 0);
  // Hands a log line to the log callback (via the queue) or stderr.
  void Log(int level, std::string_view component, std::string_view message)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A LOG event left the queue (dispatched or taken).
  void LogDelivered();
  zkl_log_cb log_cb() const { return log_cb_; }
  void *log_user_data() const { return log_user_data_; }

  // --- for listeners; the caller holds mu() ---
  bool closed() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return closed_; }
  bool connected() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The ZooKeeper session itself is connected (our state may lag behind it).
  bool zk_connected() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  uint64_t session_id() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return session_id_; }
  int state() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return state_; }
  // Why the state is AUTH_FAILED: ZKL_EAUTH, or the verification error
  // (ZKL_ECERT, ...) every server of the list answered with.
  int auth_failure() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return last_error_ ? last_error_ : ZKL_EAUTH; }
  // The longest a request's answer can take while the session lives: a
  // session timeout (the connection is given up after 2/3 of it, which
  // answers every request in flight) and a margin. A wait for one answer
  // that outlives it lost its answer to a bug: it ends instead of hanging.
  absl::Duration AnswerBound() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    int ms = negotiated_timeout_ms_ > 0 ? negotiated_timeout_ms_ : connect_.session_timeout_ms;
    return absl::Milliseconds(ms) + absl::Seconds(2);
  }
  // Waits until something changed (a result arrived) or `deadline` passes;
  // true when it has passed. In host mode the waiting thread drives the I/O.
  bool Await(absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return Await(deadline, false); }
  // The waits of one blocking call for its answers (Await as often as
  // needed). In thread mode, while connected, the first such call waits for
  // the socket itself and handles what comes while the I/O thread sleeps on
  // (it keeps the timers): an answer costs one context switch, not the I/O
  // thread's wakeup and then this thread's. The socket stays with the call
  // from one Await to the next and goes back to the I/O thread at the end of
  // the scope. Live only with mu_ held, on the stack of one call.
  class BlockingWait {
   public:
    explicit BlockingWait(Client *c) : c_(c) {}
    ~BlockingWait() ABSL_NO_THREAD_SAFETY_ANALYSIS { c_->EndBlockingWait(); }
    BlockingWait(const BlockingWait &) = delete;
    BlockingWait &operator=(const BlockingWait &) = delete;
    // With the client's mutex held (clang cannot name it through c_: the
    // callers' own annotations check that they hold it).
    bool Await(absl::Time deadline) ABSL_NO_THREAD_SAFETY_ANALYSIS { return c_->Await(deadline, true); }

   private:
    Client *const c_;
  };
  // Wakes every Await (a result arrived).
  void Changed() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A short-lived listener (an inspection, a revocation) registered for the
  // length of one blocking call, so that a close or a session loss reaches
  // it (OnClientClosed, OnSessionLost) instead of leaving the call to its
  // deadline; the end of the scope unregisters it. Live only with mu_ held.
  class ListenerScope {
   public:
    ListenerScope(Client *c, const std::shared_ptr<Listener> &l) ABSL_NO_THREAD_SAFETY_ANALYSIS;
    ~ListenerScope() ABSL_NO_THREAD_SAFETY_ANALYSIS;
    ListenerScope(const ListenerScope &) = delete;
    ListenerScope &operator=(const ListenerScope &) = delete;

   private:
    Client *const c_;
    const uint64_t id_;
    const HandleKind kind_;
  };
  // The requests made in this scope go out together at its end (one write
  // instead of one each). Live only with mu_ held; scopes nest.
  class SendBatch {
   public:
    explicit SendBatch(Client *c) ABSL_NO_THREAD_SAFETY_ANALYSIS : c_(c) { c_->BeginSendBatch(); }
    ~SendBatch() ABSL_NO_THREAD_SAFETY_ANALYSIS { c_->EndSendBatch(); }
    SendBatch(const SendBatch &) = delete;
    SendBatch &operator=(const SendBatch &) = delete;

   private:
    Client *const c_;
  };
  // Keeps a destroyed listener alive until it has cleaned up its nodes.
  void Retire(std::shared_ptr<Listener> l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddListener(const std::shared_ptr<Listener> &l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveListener(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs l->OnTimer() at `when` (replaces its previous timer); InfiniteFuture
  // cancels.
  void SetTimer(Listener *l, absl::Time when) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Emit(std::unique_ptr<zkl_event> ev) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Holds back what Emit queues while it lives, and queues it all at once
  // when it ends (the outermost one, when nested). The event queue has a
  // lock of its own, so a reader on another thread could otherwise take a
  // session event before the handle events the same change causes (a LOST
  // after SESSION_LOST, a SUSPENDED after SUSPENDED) are queued, and see
  // the session lost with its locks still apparently held.
  class EventBatch {
   public:
    explicit EventBatch(Client *c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c->mu_);
    ~EventBatch() ABSL_NO_THREAD_SAFETY_ANALYSIS;  // still under the lock: it lives in its scope
    EventBatch(const EventBatch &) = delete;
    EventBatch &operator=(const EventBatch &) = delete;

   private:
    Client *const client_;
    const bool outer_;
    std::vector<std::unique_ptr<zkl_event>> events_;
  };
  // Listeners report how many holds they have: heartbeats run while any is.
  void AdjustHeld(int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Until when a hold of the current session is provably valid: the leader
  // cannot have expired the session before this moment (monotonic clock),
  // however long nothing is heard again (quorum_proof.h, docs/SAFETY.md).
  // InfinitePast without a session, or after the bound lapsed until the
  // quorum proves the session again.
  absl::Time LeaseDeadline() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Runs l->OnProven() once the quorum proves the session again (the next
  // proof that leaves LeaseDeadline in the future); a new session's holds
  // hear OnConnected instead.
  void CallWhenProven(Listener *l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Test switch ZKL_TEST_LYING_IS_HELD=1 (the fenced chaos run): holds say
  // yes whenever the engine believes it holds, ignoring the lease bound.
  bool lying_is_held() const { return lying_is_held_; }

  // The id of a new asynchronous call (1..INT_MAX, then round again).
  uint64_t NextRequestId() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (next_request_id_ >= 0x7fffffff) next_request_id_ = 0;
    return ++next_request_id_;
  }
  // The server we talk to catches up with the leader (ZkSession::Sync).
  ZkRc Sync(Listener *l, int op, const std::string &path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Asynchronous ZooKeeper requests. Each returns the submission's rc; on
  // kOk exactly one Reply reaches `l` later (unless the session it was sent
  // on is gone by then).
  ZkRc CreateNode(Listener *l, int op, const std::string &path, std::string_view data, int mode)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc DeleteNode(Listener *l, int op, const std::string &path, int version = -1)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc GetChildren(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc GetData(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc Exists(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc SetData(Listener *l, int op, const std::string &path, std::string_view data, int version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZkRc Multi(Listener *l, int op, std::vector<ZkOp> ops) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Local watches (semaphore.cc): while the session lives, a node it made
  // for a semaphore changes only by its owner's requests on this client
  // (the hand-off touch, the delete), so a waiter of the same client behind
  // it hears of the change from the answer to that request, and the server
  // sends no notification. NoteLocalNode: `path` was just made by this
  // session. WatchLocalNode: a one-shot watch of it (OnWatch, kDataChanged
  // or kDeleted); false when `path` is not such a node (made by another
  // client, before a reconnect lost its create's answer, or gone): then
  // watch through the server. *touched: it was set already (the change
  // came before the watch; none is set then).
  void NoteLocalNode(const std::string &path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WatchLocalNode(Listener *l, const std::string &path, bool *touched)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fires a local node's watches (no-op for other paths): on the answer to
  // our set or delete of it, or when its owner finds it gone (deleted by
  // someone else, e.g. an administrator).
  void LocalNodeChanged(const std::string &path, bool deleted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes held back a moment (an async release waiting for its handle's
  // next acquire to take it along), by lock path. A create by another
  // handle on the path sends them first: on one session ZooKeeper applies
  // requests in order, so the create does not queue behind a node that is
  // on its way out (one round trip instead of three).
  void DeferDelete(const std::string &path, Listener *l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UndeferDelete(const std::string &path, const Listener *l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendDeferredDeletes(const std::string &path, const Listener *creating)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Creates every missing ancestor of `path` and `path` itself as container
  // nodes (pipelined; each reply reaches `l` with tag `op`).
  void EnsurePath(Listener *l, int op, const std::string &path, const std::string &leaf_data)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  Client();
  int StartSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WipeSecrets() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteConnectError() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Request *NewRequest(Listener *l, int op, const std::string &path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename Fn>
  ZkRc Submit(Request *req, Fn submit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FreeAbandonedRequests(uint64_t generation) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SessionLost(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Time LostDeadline() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Time HeartbeatDue() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The lease deadline the proof gives, whether or not the bound lapsed.
  absl::Time ProvenDeadline() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The proof moved forward: holds suspended by a lapsed bound come back.
  void ProofAdvanced() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Time NextDeadline() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RunDueWork() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts `servers` in force: the session moves if it must (ZkSession::
  // SetServers), and the next session starts from it. `cause` goes in the
  // log line. Never from inside a callback of the session (it calls in).
  int ApplyServers(const std::string &servers, const std::string &cause)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Following the ensemble: read /zookeeper/config with a watch; take what
  // it says (ensemble_config.h), or say once why not.
  void ReadEnsembleConfig() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnEnsembleConfig(const ZkReply &reply) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EnsembleNotFollowed(std::string why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetState(int state, int error = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes the loop if it sleeps on a plan that no longer fits.
  void KickLoop() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Await(absl::Time deadline, bool may_drive) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BeginSendBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndSendBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The end of a BlockingWait: the socket goes back to the I/O thread
  // unless another call waits for it.
  void EndBlockingWait() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::shared_ptr<Listener>> LiveListeners() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The listener with public id `id`, if it is registered and alive.
  std::shared_ptr<Listener> FindListener(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void IoThreadMain();
  // The answer to a set or delete that may change a local node.
  void LocalNodeAnswered(const Request &req, const ZkReply &zr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ZkSink (called under mu_ from inside the session's calls).
  void OnZkState(ZkState state) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnZkReply(void *request, const ZkReply &reply) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnZkWatch(uint64_t watcher, WatchType type, std::string_view path) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnZkLog(int level, std::string_view message) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnZkConnectFailure(ConnectFailure failure) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // IoDriver (called under mu_ by the loop).
  void PrepareIo(IoPlan *plan) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnIo(bool readable, bool writable, bool woken) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Options (immutable after Create, but for connect_.hosts, which
  // SetServers and the followed ensemble change under mu_; the secrets in
  // connect_ are wiped by Close, under mu_).
  ZkConnectParams connect_;
  ZkSessionFactory session_factory_;  // immutable after Create
  std::string chroot_;  // "" or "/..."
  int32_t lost_after_ms_ = 0;
  bool host_driven_ = false;
  zkl_event_cb session_cb_ = nullptr;
  void *session_user_data_ = nullptr;
  zkl_log_cb log_cb_ = nullptr;
  void *log_user_data_ = nullptr;
  int log_level_ = 0;  // effective: lines up to this level are kept

  EventQueue queue_;
  IoLoop loop_;
  Mutex mu_;
  CondVar changed_;
  std::thread io_thread_;

  std::unique_ptr<ZkSession> session_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<zkl_event>> *batch_ ABSL_GUARDED_BY(mu_) = nullptr;  // EventBatch
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // one per ZkSession
  int state_ ABSL_GUARDED_BY(mu_) = ZKL_SESSION_CONNECTING;
  uint64_t session_id_ ABSL_GUARDED_BY(mu_) = 0;
  int negotiated_timeout_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int last_error_ ABSL_GUARDED_BY(mu_) = 0;  // why the last attempt failed
  ConnectFailures connect_failures_ ABSL_GUARDED_BY(mu_);  // why, server by server
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool renew_session_ ABSL_GUARDED_BY(mu_) = false;
  // The loop: someone is inside RunOnce (host mode: only one may be), and
  // the plan it sleeps on (thread mode: KickLoop compares against it).
  bool driving_ ABSL_GUARDED_BY(mu_) = false;
  // Thread mode: a blocking call waits for the socket itself (Await), on
  // this thread.
  bool caller_driving_ ABSL_GUARDED_BY(mu_) = false;
  std::thread::id driver_thread_ ABSL_GUARDED_BY(mu_);
  bool loop_waiting_ ABSL_GUARDED_BY(mu_) = false;
  bool kicking_ ABSL_GUARDED_BY(mu_) = false;
  // SendBatch: its depth, the session holding its sends, and a kick the
  // batch put off (the loop plans once, after the write).
  int send_batch_depth_ ABSL_GUARDED_BY(mu_) = 0;
  ZkSession *send_batch_session_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool kick_after_batch_ ABSL_GUARDED_BY(mu_) = false;
  IoPlan planned_ ABSL_GUARDED_BY(mu_);
  bool wakeup_ ABSL_GUARDED_BY(mu_) = false;  // zkl_client_wakeup in host mode
  bool handover_ ABSL_GUARDED_BY(mu_) = false;  // a dispatch waits to drive

  // A session that could not even start (not one name resolves) is tried
  // again at this moment, not at once.
  absl::Time renew_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // The server list in force (without the chroot), and the ensemble's.
  std::string servers_ ABSL_GUARDED_BY(mu_);
  uint64_t server_list_changes_ ABSL_GUARDED_BY(mu_) = 0;
  bool follow_ensemble_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t ensemble_version_ ABSL_GUARDED_BY(mu_) = 0;  // of the last configuration read
  int ensemble_members_ ABSL_GUARDED_BY(mu_) = 0;       // its servers
  uint64_t ensemble_reads_ ABSL_GUARDED_BY(mu_) = 0;    // answers to reads of it
  std::string ensemble_not_followed_ ABSL_GUARDED_BY(mu_);  // why not ("": followed)
  // A list the configuration gave, applied by the loop (RunDueWork): not
  // from inside the reply's callback, which runs inside the C client.
  std::string ensemble_pending_ ABSL_GUARDED_BY(mu_);

  absl::Time lost_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  // What the leader provably saw of the session (sync heartbeats).
  QuorumProof quorum_ ABSL_GUARDED_BY(mu_);
  absl::Time connecting_since_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time heartbeat_sent_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // The safety bound passed without a new proof while connected: holds are
  // suspended until the quorum proves the session again.
  bool bound_lapsed_ ABSL_GUARDED_BY(mu_) = false;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<uint64_t> awaiting_proof_ ABSL_GUARDED_BY(mu_);  // listener ids (CallWhenProven)
  uint64_t next_request_id_ ABSL_GUARDED_BY(mu_) = 0;
  size_t pending_logs_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t dropped_logs_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, std::weak_ptr<Listener>> listeners_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, std::shared_ptr<Listener>> retiring_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<Request *> outstanding_ ABSL_GUARDED_BY(mu_);  // sent, unanswered
  absl::flat_hash_map<std::string, std::vector<std::weak_ptr<Listener>>> deferred_deletes_
      ABSL_GUARDED_BY(mu_);
  struct LocalNode {
    bool touched = false;
    std::vector<std::weak_ptr<Listener>> watchers;
  };
  absl::flat_hash_map<std::string, LocalNode> local_nodes_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<absl::Time, uint64_t>> timers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, absl::Time> timer_of_ ABSL_GUARDED_BY(mu_);

  std::atomic<uint64_t> requests_{0}, watch_events_{0}, events_{0}, sessions_{0}, heartbeats_{0},
      proofs_{0}, reconnects_{0}, expirations_{0};
  // Statistics (docs/STATISTICS.md), guarded by mu_.
  void WriteStats(JsonWriter &j) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Histogram rtt_us_ ABSL_GUARDED_BY(mu_);
  uint64_t lost_sessions_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t logs_dropped_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t suspended_ms_ ABSL_GUARDED_BY(mu_) = 0;  // finished suspensions
  absl::Time suspended_since_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  int32_t stats_interval_ms_ = 0;
  bool lying_is_held_ = false;  // immutable after Create
  absl::Time stats_due_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

}  // namespace zkl
