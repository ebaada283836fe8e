#include "node_reaper.h"

#include <algorithm>
#include <utility>

#include "paths.h"

namespace zkl {

namespace {

// How long an async release waits for a following acquire to go out with.
constexpr absl::Duration kCoalesceWindow = absl::Milliseconds(1);

NodeReaper::Outcome OutcomeOf(NodeReaper::Outcome::Kind kind) {
  NodeReaper::Outcome outcome;
  outcome.kind = kind;
  return outcome;
}

}  // namespace

NodeReaper::NodeReaper(Listener *owner, std::string dir, bool fixed, int delete_op, int check_op)
    : owner_(owner), dir_(std::move(dir)), fixed_(fixed), delete_op_(delete_op), check_op_(check_op) {}

std::string NodeReaper::PathOf(std::string_view name) const { return JoinPath(dir_, name); }

std::vector<NodeReaper::Node>::iterator NodeReaper::Find(std::string_view name) {
  return std::find_if(nodes_.begin(), nodes_.end(), [&](const Node &n) { return n.name == name; });
}

bool NodeReaper::Deleting(std::string_view name) const {
  return std::any_of(nodes_.begin(), nodes_.end(), [&](const Node &n) {
    return n.name == name && (n.state == Node::State::kDeleting || n.state == Node::State::kChecking);
  });
}

void NodeReaper::Add(std::string name, std::optional<uint64_t> release) {
  nodes_.push_back({std::move(name), Node::State::kDue, release});
}

void NodeReaper::AddDeferred(Client &client, std::string name, std::optional<uint64_t> release) {
  nodes_.push_back({std::move(name), Node::State::kDeferred, release});
  flush_deadline_ = std::min(flush_deadline_, MonoNow() + kCoalesceWindow);
  client.DeferDelete(dir_, owner_);
}

bool NodeReaper::Send(Client &client) {
  bool all_sent = true;
  for (Node &n : nodes_) {
    if (n.state != Node::State::kDue && n.state != Node::State::kInDoubt) continue;
    bool check = n.state == Node::State::kInDoubt && fixed_;
    ZkRc rc = check ? client.Exists(owner_, check_op_, PathOf(n.name), false)
                    : client.DeleteNode(owner_, delete_op_, PathOf(n.name));
    if (rc != ZkRc::kOk) {
      all_sent = false;
      continue;
    }
    n.state = check ? Node::State::kChecking : Node::State::kDeleting;
  }
  return all_sent;
}

bool NodeReaper::Flush(Client &client) {
  flush_deadline_ = absl::InfiniteFuture();
  client.UndeferDelete(dir_, owner_);
  for (Node &n : nodes_) {
    if (n.state == Node::State::kDeferred) n.state = Node::State::kDue;
  }
  return Send(client);
}

const std::string *NodeReaper::FirstDeferred() const {
  auto it = std::find_if(nodes_.begin(), nodes_.end(),
                         [](const Node &n) { return n.state == Node::State::kDeferred; });
  return it == nodes_.end() ? nullptr : &it->name;
}

void NodeReaper::TakenAlong(Client &client) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(),
                         [](const Node &n) { return n.state == Node::State::kDeferred; });
  if (it == nodes_.end()) return;
  it->state = Node::State::kDeleting;
  coalesced_ = it->name;
  flush_deadline_ = absl::InfiniteFuture();
  client.UndeferDelete(dir_, owner_);
}

std::string NodeReaper::TakeCoalesced() {
  std::string name = std::move(coalesced_);
  coalesced_.clear();
  return name;
}

void NodeReaper::Requeue(std::string_view name) {
  auto it = Find(name);
  if (it != nodes_.end()) it->state = Node::State::kDue;
}

NodeReaper::Outcome NodeReaper::OnDeleteAnswer(std::string_view name, ZkRc rc) {
  auto it = Find(name);
  if (it == nodes_.end()) return {};
  if (IsConnectionError(rc)) {
    it->state = Node::State::kInDoubt;  // it may still exist: deleted again later
    return OutcomeOf(Outcome::Kind::kInDoubt);
  }
  // Gone (or undeletable: nothing more can be done about it).
  Outcome gone = OutcomeOf(Outcome::Kind::kGone);
  gone.release = it->release;
  gone.error = rc == ZkRc::kOk || rc == ZkRc::kNoNode ? 0 : ZkError(rc);
  nodes_.erase(it);
  return gone;
}

NodeReaper::Outcome NodeReaper::OnCheckAnswer(Client &client, std::string_view name, const Reply &r) {
  auto it = Find(name);
  if (it == nodes_.end()) return {};
  if (IsConnectionError(r.rc)) {
    it->state = Node::State::kInDoubt;
    return OutcomeOf(Outcome::Kind::kInDoubt);
  }
  if (r.rc == ZkRc::kOk && r.stat && static_cast<uint64_t>(r.stat->ephemeral_owner) == client.session_id()) {
    // Still ours: delete exactly this version of it.
    if (client.DeleteNode(owner_, delete_op_, PathOf(name), r.stat->version) != ZkRc::kOk) {
      it->state = Node::State::kInDoubt;
      return OutcomeOf(Outcome::Kind::kUnsent);
    }
    it->state = Node::State::kDeleting;
    return OutcomeOf(Outcome::Kind::kDeleting);
  }
  // Gone, or another session's node now: ours went with the lost answer.
  return OnDeleteAnswer(name, ZkRc::kNoNode);
}

std::vector<uint64_t> NodeReaper::DropAll() {
  std::vector<uint64_t> releases;
  for (const Node &n : nodes_) {
    if (n.release) releases.push_back(*n.release);
  }
  nodes_.clear();
  return releases;
}

}  // namespace zkl
