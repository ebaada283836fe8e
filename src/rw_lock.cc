// The read/write lock, on Apache Curator's node names (__READ__/__WRIT__).
// A reader waits only for the nearest writer ahead of it (never for a later
// writer: the kazoo#649 deadlock); a writer waits for its predecessor, so
// writers and readers are served in queue order.
#include "rule.h"

namespace zkl {

bool IsWriteNode(std::string_view name) { return name.find("__WRIT__") != std::string_view::npos; }

namespace {

bool IsReadOrWrite(std::string_view name) {
  return IsWriteNode(name) || name.find("__READ__") != std::string_view::npos;
}

class ReadRule : public Rule {
 public:
  std::string_view label() const override { return "__READ__"; }
  bool Participates(std::string_view name) const override {
    return Rule::Participates(name) && IsReadOrWrite(name);
  }
  Decision Decide(const std::vector<QueueEntry> &queue, size_t own) const override {
    Decision d;
    std::ptrdiff_t nearest = -1;
    size_t writers_ahead = 0;
    for (size_t i = 0; i < own; ++i) {
      if (IsWriteNode(queue[i].name)) {
        nearest = static_cast<std::ptrdiff_t>(i);
        ++writers_ahead;
      }
    }
    d.holds = nearest < 0;
    if (!d.holds) {
      d.watch = nearest;
      d.holds_when_watched_goes = writers_ahead == 1;
    }
    return d;
  }
};

class WriteRule : public Rule {
 public:
  std::string_view label() const override { return "__WRIT__"; }
  bool Participates(std::string_view name) const override {
    return Rule::Participates(name) && IsReadOrWrite(name);
  }
  Decision Decide(const std::vector<QueueEntry> &, size_t own) const override {
    return ExclusiveDecision(own);  // whoever is ahead, reader or writer
  }
};

}  // namespace

std::unique_ptr<Rule> MakeReadRule() { return std::make_unique<ReadRule>(); }
std::unique_ptr<Rule> MakeWriteRule() { return std::make_unique<WriteRule>(); }

}  // namespace zkl
