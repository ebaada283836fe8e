// The semaphore: leases of max_leases, taken in FIFO order. A node carries
// the number of leases its acquisition takes (the "leasesN-" label; plain
// "lease-" is one), so every participant can add them up from the children
// list alone: a node holds when it and everyone ahead of it fit into
// max_leases. Strict FIFO: a large acquisition that waits is never overtaken
// by a smaller one behind it (no starvation). The lease count lives in the
// lock node's data, written by whoever creates it, and every acquirer
// checks it.
//
// Waiting without a herd, and without a waiter ever sleeping while it could
// hold: only the first waiter (every node ahead of it holds) watches the
// children list, so a release wakes exactly that one; every other waiter
// watches its predecessor's node. Woken, the first waiter reads the list
// without a watch and sets one again only if still waiting: a watch left
// on a holder would wake it for nothing at the next change. A waiter that
// becomes a holder hands the children watch on by touching its own node,
// which wakes its successor, now first in line (and a departing waiter
// wakes its successor by going).
// So each release costs two notifications whatever the queue length: one
// for the next holder, one for the next in line. When the next in line is
// a handle of the same client, the second is no notification at all: it
// watches its predecessor's node locally, and the answer to the touch (or
// the delete) wakes it (Client::WatchLocalNode: while the session lives,
// only its owner's requests on this client change that node).
#include <charconv>

#include "rule.h"

namespace zkl {

int LeasesOf(std::string_view name) {
  size_t at = name.rfind("-leases");
  if (at == std::string_view::npos) return 1;
  int n = 0;
  auto [end, ec] = std::from_chars(name.data() + at + 7, name.data() + name.size(), n);
  return ec == std::errc() && end < name.data() + name.size() && *end == '-' && n > 0 ? n : 1;
}

namespace {

class SemaphoreRule : public Rule {
 public:
  SemaphoreRule(int max_leases, int leases)
      : max_leases_(max_leases),
        label_(leases == 1 ? std::string("lease-") : "leases" + std::to_string(leases) + "-") {}
  std::string_view label() const override { return label_; }
  int max_leases() const override { return max_leases_; }
  bool hands_off() const override { return true; }
  Decision Decide(const std::vector<QueueEntry> &queue, size_t own) const override {
    Decision d;
    int64_t ahead = 0;  // leases taken by the nodes ahead
    for (size_t i = 0; i < own; ++i) ahead += LeasesOf(queue[i].name);
    d.holds = ahead + LeasesOf(queue[own].name) <= max_leases_;
    if (d.holds) return d;
    // First in line when the node just ahead holds (then everyone ahead
    // does): any departure may admit it, so it watches the children.
    bool first = ahead <= max_leases_;  // the predecessor (so everyone ahead) holds
    d.watch = first ? -1 : static_cast<std::ptrdiff_t>(own) - 1;
    return d;
  }

 private:
  int max_leases_;
  std::string label_;
};

}  // namespace

std::unique_ptr<Rule> MakeSemaphoreRule(int max_leases, int leases) {
  return std::make_unique<SemaphoreRule>(max_leases, leases);
}

}  // namespace zkl
