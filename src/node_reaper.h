// The nodes of a contender's earlier holds on their way out. Each one's
// delete is sent, and sent again after a connection loss until the node is
// gone (NoNode on a retry is success). A fixed node's name is shared by
// every acquisition, so after a lost answer its retry first checks that the
// node there is still this session's: it may be gone and another client's
// since, and a blind retry would delete that holder's node. An async
// release may hold its delete back a moment (AddDeferred) for a following
// create to take along in one multi (TakenAlong).
//
// The reaper sends; its contender reacts to what each answer came to (an
// Outcome: RELEASED events, a look again once connected). Guarded by the
// client's mutex, as its owner; the calls that send take the client, which
// names that mutex for the thread-safety analysis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "client.h"

namespace zkl {

class NodeReaper {
 public:
  // What an answer about a node came to.
  struct Outcome {
    enum class Kind {
      kNotListed,  // not on the list (gone already): nothing to do
      kInDoubt,    // the answer was lost with the connection: sent again
                   // once connected
      kGone,       // off the list: deleted, gone already, or undeletable
      kDeleting,   // a check found it still ours: its delete is on its way
      kUnsent,     // a check found it still ours: its delete was not submitted
    };
    Kind kind = Kind::kNotListed;
    // kGone: the release waiting for RELEASED (its request id; 0 for a
    // group's), and the error that event carries (0: the node is gone).
    std::optional<uint64_t> release;
    int error = 0;
  };

  // Answers go to `owner`, tagged `delete_op` (a delete) and `check_op` (a
  // fixed node's check before a retried delete). `dir`: the lock's path.
  NodeReaper(Listener *owner, std::string dir, bool fixed, int delete_op, int check_op);

  bool empty() const { return nodes_.empty(); }
  // Whether `name`'s delete (or its check) is on its way.
  bool Deleting(std::string_view name) const;
  // When the deferred deletes are due (InfiniteFuture: none waits).
  absl::Time flush_deadline() const { return flush_deadline_; }

  // Takes `name` on; Send sends its delete. `release`: the async release
  // that hears RELEASED once the node is gone.
  void Add(std::string name, std::optional<uint64_t> release);
  // The same, but the delete waits until flush_deadline() for a create to
  // take it along; the client is told, so that another handle's create on
  // this path sends it first (Client::SendDeferredDeletes).
  void AddDeferred(Client &client, std::string name, std::optional<uint64_t> release)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());
  // Sends every delete (or check) that is due. False: one could not be
  // submitted, and waits for the next Send.
  bool Send(Client &client) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());
  // The deferred deletes are due now: sends them (false as Send).
  bool Flush(Client &client) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());

  // A deferred node a create may take along in one multi (null: none).
  const std::string *FirstDeferred() const;
  // That multi was submitted: the node's delete is on its way with it.
  void TakenAlong(Client &client) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());
  // The multi's answer came: the node it deleted (or meant to).
  std::string TakeCoalesced();
  // The multi failed on its create, so the delete did not happen either:
  // due again, alone.
  void Requeue(std::string_view name);

  Outcome OnDeleteAnswer(std::string_view name, ZkRc rc);
  Outcome OnCheckAnswer(Client &client, std::string_view name, const Reply &r)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());
  // The session ended: its nodes went (or will go) with it. Empties the
  // list; returns the releases waiting for RELEASED.
  std::vector<uint64_t> DropAll();

 private:
  struct Node {
    enum class State {
      kDeferred,  // held back for a following create (AddDeferred)
      kDue,       // its delete is to be sent
      kDeleting,  // its delete (alone, or in a create's multi) is on its way
      kInDoubt,   // a delete's answer was lost: to be sent again, a fixed
                  // node's behind a check
      kChecking,  // a fixed node's check (still this session's?) is on its way
    };
    std::string name;
    State state;
    std::optional<uint64_t> release;
  };
  std::vector<Node>::iterator Find(std::string_view name);
  std::string PathOf(std::string_view name) const;

  Listener *const owner_;
  const std::string dir_;
  const bool fixed_;
  const int delete_op_;
  const int check_op_;
  std::vector<Node> nodes_;
  std::string coalesced_;  // the node a create's multi deletes
  absl::Time flush_deadline_ = absl::InfiniteFuture();
};

}  // namespace zkl
