// A recipe, reduced to what differs between recipes: how its nodes are named
// and who blocks whom in the queue. Everything else (creating, finding the
// own node after a connection loss, ordering, watching, loss handling) is
// the Contender's, shared by all recipes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkl {

// One participant's node in the queue under the lock path.
// `name` points into the children list being evaluated (no copy).
struct QueueEntry {
  int64_t sequence;
  std::string_view name;
};

struct Decision {
  bool holds = false;
  // When not holding: the queue index of the one node to watch, or -1 to
  // watch the list of children (recipes where any departure may help).
  std::ptrdiff_t watch = -1;
  // The watched node is the only one in the way: its deletion alone grants.
  bool holds_when_watched_goes = false;
};

class Rule {
 public:
  virtual ~Rule() = default;
  // Sequential recipes: the label between the protected prefix and the
  // sequence number ("lock-", "__READ__", ...).
  virtual std::string_view label() const = 0;
  // Fixed-node recipes (non-fair lock, unfair election) name their single
  // node here; sequential recipes return "".
  virtual std::string_view fixed_node() const { return {}; }
  // Whether this child takes part in the queue (default: any child with a
  // sequence suffix, whatever its prefix, so foreign clients count too).
  virtual bool Participates(std::string_view name) const;
  // The verdict for the node at queue[own] (queue sorted by sequence).
  virtual Decision Decide(const std::vector<QueueEntry> &queue, size_t own) const = 0;
  // Semaphores keep their lease count in the lock node's data; 0 = none.
  virtual int max_leases() const { return 0; }
  // A waiter that becomes a holder touches its node, so that its successor
  // (which watches it) takes over its watch (see semaphore.cc).
  virtual bool hands_off() const { return false; }
};

// The waiter queue as `rule` sees it: the children that take part, in
// sequence order (by the suffix's integer value, never by string, whatever
// their prefixes). With `upto`, only nodes whose sequence is <= it (the
// nodes ahead of a contender: nobody behind is in its way). Fixed-node
// rules give their one node with sequence 0. Entries point into `children`.
std::vector<QueueEntry> BuildQueue(const Rule &rule, const std::vector<std::string_view> &children,
                                   std::optional<int64_t> upto = std::nullopt);

// fair_lock.cc: exclusive FIFO queue (fair and reentrant locks, fair election).
// The exclusive verdict for the node at queue index `own`: the head holds,
// everybody else watches only its predecessor.
Decision ExclusiveDecision(size_t own);
std::unique_ptr<Rule> MakeExclusiveRule(std::string_view label);
// rw_lock.cc
std::unique_ptr<Rule> MakeReadRule();
std::unique_ptr<Rule> MakeWriteRule();
bool IsWriteNode(std::string_view name);
// semaphore.cc: `leases` per acquisition (one node carries them all).
std::unique_ptr<Rule> MakeSemaphoreRule(int max_leases, int leases = 1);
// The leases a semaphore node takes (its "leasesN-" label; 1 otherwise).
int LeasesOf(std::string_view name);
// nonfair_lock.cc: one ephemeral node; everybody races for it.
std::unique_ptr<Rule> MakeFixedNodeRule(std::string_view node);

}  // namespace zkl
