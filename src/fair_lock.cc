// The fair lock: the lowest sequence number holds; every other contender
// watches only its immediate predecessor, so a release wakes one waiter.
#include "paths.h"
#include "rule.h"

namespace zkl {

bool Rule::Participates(std::string_view name) const { return SequenceOf(name).has_value(); }

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
