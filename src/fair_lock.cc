// The fair lock: the lowest sequence number holds; every other contender
// watches only its immediate predecessor, so a release wakes one waiter.
#include <algorithm>

#include "paths.h"
#include "rule.h"

namespace zkl {

bool Rule::Participates(std::string_view name) const { return SequenceOf(name).has_value(); }

std::vector<QueueEntry> BuildQueue(const Rule &rule, const std::vector<std::string_view> &children,
                                   std::optional<int64_t> upto) {
  std::vector<QueueEntry> queue;
  const bool fixed = !rule.fixed_node().empty();
  for (std::string_view name : children) {
    if (!rule.Participates(name)) continue;
    int64_t seq = fixed ? 0 : *SequenceOf(name);
    if (upto && seq > *upto) continue;
    queue.push_back({seq, name});
  }
  std::sort(queue.begin(), queue.end(),
            [](const QueueEntry &a, const QueueEntry &b) { return a.sequence < b.sequence; });
  return queue;
}

Decision ExclusiveDecision(size_t own) {
  Decision d;
  d.holds = own == 0;
  if (!d.holds) {
    d.watch = static_cast<std::ptrdiff_t>(own) - 1;
    // Sequence numbers only grow, so nobody can appear ahead of us: when
    // the only node ahead goes, we hold without asking again.
    d.holds_when_watched_goes = own == 1;
  }
  return d;
}

namespace {

class ExclusiveRule : public Rule {
 public:
  explicit ExclusiveRule(std::string_view label) : label_(label) {}
  std::string_view label() const override { return label_; }
  Decision Decide(const std::vector<QueueEntry> &, size_t own) const override {
    return ExclusiveDecision(own);
  }

 private:
  std::string label_;
};

}  // namespace

std::unique_ptr<Rule> MakeExclusiveRule(std::string_view label) {
  return std::make_unique<ExclusiveRule>(label);
}

}  // namespace zkl
