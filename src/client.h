// The client: one ZooKeeper session at a time (re-created after loss), its
// state as the user sees it, the event queue, and a maintenance thread for
// deadlines and session re-creation (things that must not run on a
// ZooKeeper thread).
#pragma once

#include <zookeeper/zookeeper.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "sync.h"
#include "absl/time/time.h"
#include "event_queue.h"
#include "handles.h"
#include "zkl.h"

namespace zkl {

class Client;
struct Request;

// What a ZooKeeper request returned, handed to the listener that issued it.
struct Reply {
  int op = 0;               // the listener's own tag for the request
  int rc = 0;               // ZooKeeper return code
  const char *value = nullptr;   // create: the created path
  const struct Stat *stat = nullptr;
  const struct String_vector *children = nullptr;
  const char *data = nullptr;    // getData
  int data_len = 0;
  const std::string *path = nullptr;  // the path the request was for
};

// Recipes and observers: everything that owns nodes or watches on a client.
// Every method is called with the client's mutex held.
class Listener : public Handle {
 public:
  explicit Listener(HandleKind kind) : Handle(kind) {}
  virtual void OnReply(const Reply &reply) = 0;
  // A watch set with Client::WatchData/WatchChildren fired.
  virtual void OnWatch(int type, const std::string &path) = 0;
  // (Re)connected: `same_session` false means a brand-new session.
  virtual void OnConnected(bool same_session) = 0;
  virtual void OnSuspended() = 0;
  // The session is gone (expired, abandoned by the client-side deadline, or
  // authentication failed): every node of it is or will be gone.
  virtual void OnSessionLost(int error) = 0;
  virtual void OnTimer() = 0;
  virtual void OnClientClosed() = 0;
  // Appends this handle's statistics object (handles without any: nothing).
  virtual void WriteStats(class JsonWriter &) {}

  std::weak_ptr<Listener> self() const { return self_; }
  void BindSelf(const std::shared_ptr<Listener> &me) { self_ = me; }

 private:
  friend class Client;
struct Request;
  std::weak_ptr<Listener> self_;  // set by Client::AddListener
};

class Client : public Handle {
 public:
  static int Create(const zkl_client_options &opts, std::shared_ptr<Client> *out);
  ~Client() override;

  // Closes the session and stops every background activity. Idempotent.
  // Must not be called from a ZooKeeper thread.
  void Close();

  EventQueue &queue() { return queue_; }
  Mutex &mu() ABSL_LOCK_RETURNED(mu_) { return mu_; }
  CondVar &changed() { return changed_; }  // signalled on any result

  // --- user-facing state (these take the mutex) ---
  int WaitConnected(int64_t timeout_ms);
  int State();
  uint64_t SessionId();
  int NegotiatedTimeout();
  int SessionPassword(void *buf, size_t len);
  // The statistics document (docs/STATISTICS.md); with `only` a handle id,
  // just that handle's object.
  std::string StatsJson(uint64_t only = 0);

  // --- for listeners; the caller holds mu() ---
  bool closed() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return closed_; }
  bool connected() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The ZooKeeper handle itself is connected (our state may lag behind it).
  bool zk_connected() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Keeps a destroyed listener alive until it has cleaned up its nodes.
  void Retire(std::shared_ptr<Listener> l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t session_id() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return session_id_; }
  int state() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return state_; }
  void AddListener(const std::shared_ptr<Listener> &l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveListener(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs l->OnTimer() at `when` (replaces its previous timer); InfiniteFuture
  // cancels.
  void SetTimer(Listener *l, absl::Time when) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Emit(std::unique_ptr<zkl_event> ev) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Listeners report how many locks they hold: heartbeats run while any is.
  void AdjustHeld(int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Until when a hold of the current session is provably valid: the server
  // cannot have expired the session before this moment (monotonic clock),
  // however long it is not heard from again. InfinitePast without a
  // session.
  absl::Time LeaseDeadline() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  // Asynchronous ZooKeeper requests. Each returns the ZooKeeper rc of the
  // submission; on ZOK exactly one Reply reaches `l` later (unless the
  // session it was sent on is gone by then).
  int CreateNode(Listener *l, int op, const std::string &path,
                 const std::string &data, int flags) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int DeleteNode(Listener *l, int op, const std::string &path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int GetChildren(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int GetData(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int Exists(Listener *l, int op, const std::string &path, bool watch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Creates every missing ancestor of `path` and `path` itself as container
  // nodes (pipelined; each reply reaches `l` with tag `op`).
  void EnsurePath(Listener *l, int op, const std::string &path, const std::string &leaf_data)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  friend struct ZkCallbacks;
  Client();
  int StartSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Request *NewRequest(Listener *l, int op, const std::string &path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename Fn>
  int Submit(Request *req, Fn submit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FreeAbandonedRequests(uint64_t generation) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnSessionEvent(zhandle_t *zh, int state);
  void OnNodeWatch(zhandle_t *zh, uint64_t listener_id, int type, const char *path);
  void SessionLost(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Time LostDeadline() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Duration SafetyBound() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Time HeartbeatDue() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetState(int state, int error = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaintenanceLoop();
  std::vector<std::shared_ptr<Listener>> LiveListeners() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const struct ACL_vector *NodeAcl() const;

  // Options (immutable after Create).
  std::string connect_;
  int32_t requested_timeout_ms_ = 10000;
  int32_t lost_after_ms_ = 0;
  std::string digest_;
  int32_t acl_mode_ = ZKL_ACL_OPEN;
  zkl_event_cb session_cb_ = nullptr;
  void *session_user_data_ = nullptr;

  EventQueue queue_;
  Mutex mu_;
  CondVar changed_;
  CondVar maintenance_wakeup_;
  // The deadline the maintenance thread sleeps until (InfinitePast while it
  // runs: it looks at everything before it sleeps again). Wake it only for
  // something due earlier.
  absl::Time maintenance_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  zhandle_t *zh_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // one per zhandle
  int state_ ABSL_GUARDED_BY(mu_) = ZKL_SESSION_CONNECTING;
  uint64_t session_id_ ABSL_GUARDED_BY(mu_) = 0;
  int negotiated_timeout_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool renew_session_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time lost_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  // The server heard from us at or after this moment (send time of the
  // newest request it answered, or of the last handshake).
  absl::Time heard_since_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time connecting_since_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time heartbeat_sent_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int held_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, std::weak_ptr<Listener>> listeners_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, std::shared_ptr<Listener>> retiring_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<Request *> outstanding_ ABSL_GUARDED_BY(mu_);  // sent, unanswered
  std::set<std::pair<absl::Time, uint64_t>> timers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, absl::Time> timer_of_ ABSL_GUARDED_BY(mu_);
  std::thread maintenance_;
  struct ACL_vector acl_ {};
  struct ACL acl_entries_[2] {};

  std::atomic<uint64_t> requests_{0}, watch_events_{0}, events_{0}, sessions_{0}, heartbeats_{0};
};

}  // namespace zkl
