// The one mechanism behind every recipe: a participant that owns at most one
// node under the lock path. It creates the node (Curator's protected name,
// pipelined with the children read), finds it again after a connection loss
// (by its uuid, confirmed by ephemeralOwner), decides with its Rule whether
// it holds, watches exactly what the Rule says, and turns session trouble
// into SUSPENDED / RESTORED / LOST events. Locks, semaphores and elections
// are Contenders with different Rules and event names.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "contender_stats.h"
#include "guarded_write.h"
#include "json.h"
#include "node_reaper.h"
#include "own_node.h"
#include "rule.h"

namespace zkl {

class Contender;

// Who drives a contender instead of its user (a multi-lock): it hears the
// contender's events, under the client's mutex.
class ContenderGroup {
 public:
  virtual ~ContenderGroup() = default;
  virtual void OnMemberEvent(Contender *member, int type, int error, uint64_t token) = 0;
};

class Contender : public Listener {
 public:
  enum class Mode { kBlocking, kTry, kAsync };
  enum class Role { kLock, kElection };

  struct Options {
    std::string path;
    std::unique_ptr<Rule> rule;
    bool reentrant = false;
    Role role = Role::kLock;
    std::string data;  // node data (holder or participant id)
    std::string kind_name;  // for statistics: "fair", "read", "election-fair", ...
    absl::Duration max_hold = absl::ZeroDuration();  // > 0: a hold ends by itself
    int on_revoke = ZKL_REVOKE_IGNORE;
    zkl_event_cb cb = nullptr;
    void *user_data = nullptr;
  };

  Contender(std::shared_ptr<Client> client, HandleKind kind, Options opts);

  // Public operations; each takes the client's mutex.
  // An async acquire or release returns its request id (> 0): the event
  // that answers it carries it (zkl_event_request_id).
  int Acquire(uint64_t owner, int64_t timeout_ms, Mode mode);
  int Cancel();
  int Release(uint64_t owner, bool wait);
  // Elections: leaves the election, as leader or from the line.
  int Resign();
  int IsHeld();
  // How long (ms) the hold stays provably valid; ZKL_ENOTHELD with 0.
  int ValidFor(int64_t *ms);
  int FencingToken(uint64_t *out);
  int HoldCount();
  // Guarded writes (guarded_write.h): `ops` behind a check of this hold.
  int Write(uint64_t owner, zkl_ops *ops, bool async);
  // Elections: the leader publishes `data` as its id (etcd's Proclaim).
  int Proclaim(std::string_view data);
  // Leaves (releasing or cancelling); the node is cleaned up in the
  // background even though the handle is gone.
  void Destroy();
  Client &client() const { return *client_; }
  const std::string &path() const { return path_; }
  bool reentrant() const { return reentrant_; }
  bool fixed_node() const { return fixed(); }

  // --- for a group (multi-lock); the caller holds the client's mutex ---
  // The group takes the contender over: its public calls then say EBUSY and
  // its events go to the group. Null gives it back.
  void SetGroup(ContenderGroup *group) { group_ = group; }
  ContenderGroup *group() const { return group_; }
  // A multi-lock's members share its client, so its mutex: held for the
  // group is held for them. Says so to the thread-safety analysis, which
  // cannot see the alias, and checks it.
  void AssertLocked() const ABSL_ASSERT_EXCLUSIVE_LOCK(client_->mu()) { client_->mu().AssertHeld(); }
  bool idle() const ABSL_SHARED_LOCKS_REQUIRED(client_->mu()) { return phase_ == Phase::kIdle; }
  bool held() const ABSL_SHARED_LOCKS_REQUIRED(client_->mu()) { return phase_ == Phase::kHeld; }
  uint64_t token() const ABSL_SHARED_LOCKS_REQUIRED(client_->mu()) { return own_.czxid(); }
  // The check that proves `owner`'s hold, for a guarded write.
  int GuardLocked(uint64_t owner, WriteGuard *guard) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // Whether a guarded write may touch `op`'s path (in this lock's tree).
  bool InTree(const ZkOp &op) const { return InLockTree(*rule_, path_, op); }
  int64_t ValidForMs() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // As Acquire/Cancel/Release without taking the mutex. *started is the
  // request's number when an acquire was started (0: answered at once).
  int AcquireLocked(uint64_t owner, int64_t timeout_ms, Mode mode, uint64_t *started) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  int TakeOverRejoin(uint64_t owner, int64_t timeout_ms, Mode mode, bool no_wait, uint64_t *started) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  int CancelLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // `coalesce`: an async release may hold its delete back a moment for a
  // following acquire of this handle to take along (a multi-lock's members
  // are never re-acquired that way, so they say false). An async release
  // by the user returns its request id; the group's get ZKL_OK.
  int ReleaseLocked(uint64_t owner, bool wait, bool coalesce = true) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

  // Listener (client mutex held).
  void OnReply(const Reply &reply) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnWatch(WatchType type, const std::string &path) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnConnected(bool same_session) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnSuspended() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnProven() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnSessionLost(int error) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnTimer() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnClientClosed() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void SendDeferred() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu()) { FlushDeferred(); }
  void WriteStats(JsonWriter &j) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

 private:
  enum Op {
    kCreate = 1,
    kChildren,
    kWatchNode,
    kOwnData,
    kDelete,
    kLeaseCount,
    kFixedData,
    kParent,
    kReleaseAndCreate,
    kRevokeWatch,
    kHandOff,
    kChildrenWatched,  // getChildren that set a children watch
    kDeleteCheck,      // a fixed node's retried delete: is it still ours?
  };

  // Where the contender is (docs/ARCHITECTURE.md has the diagram):
  //   kIdle       no hold wanted; nodes of earlier holds may still be
  //               on their way out (reaper_)
  //   kAcquiring  an acquire or campaign of the user's: creating the node,
  //               finding it again after a lost reply, or queued behind
  //               the holders the rule names
  //   kHeld       granted (hold_ says how often, and whether provably so
  //               right now)
  //   kRejoining  an election candidate back in line by itself after a
  //               loss, no call pending: the next campaign takes it over
  enum class Phase { kIdle, kAcquiring, kHeld, kRejoining };
  // Moves to `next`; entering or leaving kHeld updates what a hold carries
  // (hold_, reset on leaving; the client's count of holds; statistics).
  void EnterPhase(Phase next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // A hold is wanted: acquiring, held or rejoining.
  bool want_hold() const ABSL_SHARED_LOCKS_REQUIRED(client_->mu()) { return phase_ != Phase::kIdle; }
  // Wanted, not held yet.
  bool pending() const ABSL_SHARED_LOCKS_REQUIRED(client_->mu()) {
    return phase_ == Phase::kAcquiring || phase_ == Phase::kRejoining;
  }
  bool fixed() const { return !rule_->fixed_node().empty(); }
  std::string OwnPath() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  std::string FixedPath() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  std::string NodeData() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

  void Begin() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void SendCreate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Check() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Resync() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void ResyncWhenConnected() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Evaluate(const std::vector<std::string_view> &children, bool watched_children = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // Takes the node found by our uuid, and reads it to confirm it is ours.
  void Adopt(const std::string &name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Granted() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void AwaitProof() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Fail(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Lost(int error, uint64_t token) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // The hold ends on zkl's own decision (max hold time, revocation): the
  // node goes and the holder hears LOST with `error`.
  void EndHold(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void WatchOwnNode() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void NodeGone() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // Hands the own node to the reaper, which sends its delete (or, with
  // `defer`, lets a following acquire take it along). `release`: the async
  // release whose RELEASED follows once the node is gone.
  void DeleteOwn(std::optional<uint64_t> release = std::nullopt, bool defer = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void SendDeletes() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void FlushDeferred() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void ArmTimer() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // One handler per reply kind (OnReply dispatches by the request's tag).
  void OnReleaseAndCreate(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void GrantIfNextNumber(int64_t released) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnChildren(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnWatchedNode(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnOwnData(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnRevokeWatch(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnParentCreated(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnLeaseCount(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnFixedData(const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void CreateDone(ZkRc rc, std::string_view value, const NodeStat *stat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // The reaper's answers: a delete's, a fixed node's check before a retried
  // delete; Reaped reacts to a node gone off its list.
  void DeleteDone(const std::string &name, ZkRc rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void DeleteCheckDone(const std::string &name, const Reply &r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Reaped(const NodeReaper::Outcome &gone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void ForgetNode() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Finish(int rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());  // result of the current acquire request
  // `request`: the id of the async call the event answers (0: none).
  void Notify(int type, int error, uint64_t token, uint64_t request = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // The id for an async call of the user's (a group's calls get none:
  // their events go to the group).
  uint64_t NewRequestId(Mode mode) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void MaybeRetire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  bool Submitted(ZkRc zrc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

  std::shared_ptr<Client> client_;
  const std::string path_;
  const std::unique_ptr<Rule> rule_;
  const bool reentrant_;
  const Role role_;
  std::string data_ ABSL_GUARDED_BY(client_->mu());  // changed by Proclaim
  const std::string kind_name_;
  const absl::Duration max_hold_;
  const int on_revoke_;
  const zkl_event_cb cb_;
  void *const user_data_;
  ContenderGroup *group_ = nullptr;

  // One acquire (or campaign) of the user's: set up by AcquireLocked, over
  // when Granted or Fail. An election's rejoin after a loss goes on as one,
  // which the next campaign takes over (TakeOverRejoin).
  struct Attempt {
    // Where its last look put it: not waiting (granted at its first look,
    // if at all), behind another node, or first in line (a semaphore's
    // first waiter watches the children).
    enum class Wait { kNotYet, kBehind, kFirst };

    Mode mode = Mode::kBlocking;
    bool no_wait = false;  // a try, or a zero timeout: fail instead of queueing
    uint64_t request = 0;  // the async call's id, on its events (0: none)
    absl::Time deadline = absl::InfiniteFuture();
    Wait wait = Wait::kNotYet;
    bool announced_waiting = false;  // an election's NOT_ELECTED went out
    int create_attempts = 0;         // creates that found a parent missing
    // The node waited on (or, for children watches, the parent); `{}` lets
    // AcquireLocked's designated initializer leave it out.
    std::string watched{};
    bool holds_when_watched_goes = false;
    // First in line, but the quorum has not proven the session recently
    // enough to say "held" (AwaitProof): the grant waits for the next proof.
    bool awaiting_proof = false;
    // Its node's look found no node ahead at all (queue index 0).
    bool first = false;
    // Created in one multi with the delete of a node of ours that held with
    // none ahead, whose sequence number this is: the next number proves the
    // new node first without a read (GrantIfNextNumber).
    std::optional<int64_t> follows{};
    bool by_number = false;  // GrantIfNextNumber decided: counted at the grant
  };
  // What a hold carries, from Granted until the phase leaves kHeld
  // (EnterPhase resets it): a count of 0 is no hold.
  struct Hold {
    uint32_t count = 0;      // the owner's acquisitions (reentrant: more than one)
    bool suspended = false;  // not provably held right now
    bool revoke_seen = false;  // REVOKE_REQUESTED went out
    absl::Time deadline = absl::InfiniteFuture();  // max hold time
  };

  Phase phase_ ABSL_GUARDED_BY(client_->mu()) = Phase::kIdle;
  bool destroyed_ ABSL_GUARDED_BY(client_->mu()) = false;  // the handle is gone; its nodes still go
  uint64_t owner_ ABSL_GUARDED_BY(client_->mu()) = 0;      // who acquired, until the hold ends
  Attempt attempt_ ABSL_GUARDED_BY(client_->mu());
  Hold hold_ ABSL_GUARDED_BY(client_->mu());
  // The owner told LOST who has not released since: its release hears ELOST, once.
  std::optional<uint64_t> lost_owner_ ABSL_GUARDED_BY(client_->mu());
  // The node of the last grant, if it was granted with no node ahead (its
  // release followed by a create: SendCreate).
  std::string granted_first_ ABSL_GUARDED_BY(client_->mu());
  // A blocking acquire waits until done_seq_ reaches its number (request_seq_).
  uint64_t request_seq_ ABSL_GUARDED_BY(client_->mu()) = 0;
  uint64_t done_seq_ ABSL_GUARDED_BY(client_->mu()) = 0;
  int done_rc_ ABSL_GUARDED_BY(client_->mu()) = 0;

  // What is true on the server, as far as we know.
  OwnNode own_ ABSL_GUARDED_BY(client_->mu());  // none, creating, unknown, found or known
  // Nodes of earlier holds on their way out (deleted, retried until gone).
  NodeReaper reaper_ ABSL_GUARDED_BY(client_->mu());
  // A request's effect is unknown (its connection was lost) or it was not
  // submitted: look again (Resync) once connected. In any phase: an idle
  // contender's reaper retries too.
  bool resync_needed_ ABSL_GUARDED_BY(client_->mu()) = false;

  // Statistics (docs/STATISTICS.md).
  void SetSuspended(bool suspended) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  ContenderStats stats_ ABSL_GUARDED_BY(client_->mu());
};

}  // namespace zkl
