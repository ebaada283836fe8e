// What a contender knows of its own node on the server: at most one node,
// in one of five states, changed only by the transitions below (the
// diagram is in docs/ARCHITECTURE.md). The state, the name, the uuid that
// finds the node again after a lost create answer, and the czxid (the
// fencing token) are one value, so that no combination of loose fields can
// say "created and unknown" or "known with no name".
// Guarded by the client's mutex, as its owner.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "paths.h"

namespace zkl {

class OwnNode {
 public:
  enum class State {
    kNone,      // none of ours, as far as we know
    kCreating,  // a create is on its way
    kUnknown,   // a create's answer was lost with the connection: the node
                // may exist, found again by the uuid in its name or data
    kFound,     // found by that uuid, not yet confirmed as this session's
    kKnown,     // ours: created, or found and confirmed (czxid read)
  };

  State state() const { return state_; }
  bool none() const { return state_ == State::kNone; }
  bool creating() const { return state_ == State::kCreating; }
  bool unknown() const { return state_ == State::kUnknown; }
  // Found or known: the name is set.
  bool named() const { return state_ == State::kFound || state_ == State::kKnown; }
  bool known() const { return state_ == State::kKnown; }
  const std::string &name() const { return name_; }  // empty unless named
  uint64_t czxid() const { return czxid_; }          // 0 unless known
  const std::string &uuid() const { return uuid_; }  // empty until a create

  // The uuid a create carries (in a sequential node's name, in a fixed
  // node's data): drawn for the first create, kept until Forget, so that a
  // create retried after a lost answer is found by the same one.
  const std::string &UuidForCreate() {
    if (uuid_.empty()) uuid_ = NewUuid();
    return uuid_;
  }

  // --- Transitions ---
  // A create was sent. From kUnknown only on a brand-new session, whose
  // create can never find the old session's node (ephemeralOwner differs).
  // A named node stays: one known to be ours outranks a create's outcome.
  void CreateSent() {
    if (!named()) state_ = State::kCreating;
  }
  // The create made `name` (a path's last component).
  void Created(std::string name, uint64_t czxid) { Set(State::kKnown, std::move(name), czxid); }
  // The create's answer says it made nothing.
  void CreateFailed() {
    if (creating()) state_ = State::kNone;
  }
  // The create's answer was lost: it may have made the node.
  void CreateLost() {
    if (!named()) state_ = State::kUnknown;
  }
  // A node with our uuid (the lost create made it, or the same name again).
  void Found(std::string name) { Set(State::kFound, std::move(name), 0); }
  // Its ephemeralOwner is this session: ours, with this czxid. A node that
  // was forgotten meanwhile stays forgotten.
  void Confirmed(uint64_t czxid) {
    if (named()) Set(State::kKnown, std::move(name_), czxid);
  }
  // A fixed node read as ours (this session's, with our uuid): known at once.
  void Adopted(std::string name, uint64_t czxid) { Set(State::kKnown, std::move(name), czxid); }
  // No node carries our uuid: the lost create made nothing.
  void NotFound() {
    if (unknown()) state_ = State::kNone;
  }
  // Gone, deleted, or never ours: none, and the next create draws a new uuid.
  void Forget() {
    Set(State::kNone, std::string(), 0);
    uuid_.clear();
  }

 private:
  void Set(State state, std::string name, uint64_t czxid) {
    state_ = state;
    name_ = std::move(name);
    czxid_ = czxid;
  }

  State state_ = State::kNone;
  std::string name_;
  uint64_t czxid_ = 0;
  std::string uuid_;
};

}  // namespace zkl
