// The non-fair lock (and unfair election): one EPHEMERAL node at a fixed
// name under the lock path. Losers read it with a watch in the same request
// (getData + watch is atomic on the server, so the deletion cannot slip in
// between) and race to create it again when it is deleted. Not FIFO.
#include "rule.h"

namespace zkl {
namespace {

class FixedNodeRule : public Rule {
 public:
  explicit FixedNodeRule(std::string_view node) : node_(node) {}
  std::string_view label() const override { return {}; }
  std::string_view fixed_node() const override { return node_; }
  bool Participates(std::string_view name) const override { return name == node_; }
  Decision Decide(const std::vector<QueueEntry> &, size_t) const override { return {}; }

 private:
  std::string node_;
};

}  // namespace

std::unique_ptr<Rule> MakeFixedNodeRule(std::string_view node) {
  return std::make_unique<FixedNodeRule>(node);
}

}  // namespace zkl
