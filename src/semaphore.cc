// The semaphore: the first max_leases nodes in sequence order hold a lease.
// A waiter watches the children list, since any holder's departure (not
// only its predecessor's) can admit it. The lease count lives in the lock
// node's data, written by whoever creates it, and every acquirer checks it.
#include "rule.h"

namespace zkl {
namespace {

class SemaphoreRule : public Rule {
 public:
  explicit SemaphoreRule(int max_leases) : max_leases_(max_leases) {}
  std::string_view label() const override { return "lease-"; }
  int max_leases() const override { return max_leases_; }
  Decision Decide(const std::vector<QueueEntry> &, size_t own) const override {
    Decision d;
    d.holds = own < static_cast<size_t>(max_leases_);
    d.watch = -1;
    return d;
  }

 private:
  int max_leases_;
};

}  // namespace

std::unique_ptr<Rule> MakeSemaphoreRule(int max_leases) {
  return std::make_unique<SemaphoreRule>(max_leases);
}

}  // namespace zkl
