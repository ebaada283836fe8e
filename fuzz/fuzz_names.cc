// Node names as the server might return them (any prefix, any suffix): the
// sequence parser and every recipe's rule never crash, and the exclusive
// rules grant exactly the head of the queue.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "paths.h"
#include "rule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= input.size() && names.size() < 256) {
    size_t end = input.find('\n', start);
    if (end == std::string::npos) end = input.size();
    names.push_back(input.substr(start, end - start));
    start = end + 1;
  }
  std::unique_ptr<zkl::Rule> rules[] = {
      zkl::MakeExclusiveRule("lock-"), zkl::MakeReadRule(), zkl::MakeWriteRule(),
      zkl::MakeSemaphoreRule(1 + static_cast<int>(size % 4)), zkl::MakeFixedNodeRule("lock")};
  for (auto &rule : rules) {
    std::vector<zkl::QueueEntry> queue;
    for (auto &n : names) {
      (void)zkl::StripProtectedPrefix(n);
      if (!rule->Participates(n)) continue;
      if (!rule->fixed_node().empty()) continue;
      auto seq = zkl::SequenceOf(n);
      if (!seq || *seq < 0) __builtin_trap();  // Participates implies a sequence
      queue.push_back({*seq, n});
    }
    std::sort(queue.begin(), queue.end(),
              [](const zkl::QueueEntry &a, const zkl::QueueEntry &b) { return a.sequence < b.sequence; });
    size_t holders = 0;
    for (size_t i = 0; i < queue.size(); ++i) {
      zkl::Decision d = rule->Decide(queue, i);
      if (d.holds) ++holders;
      if (!d.holds && d.watch >= static_cast<std::ptrdiff_t>(i)) __builtin_trap();  // only earlier nodes
      if (!d.holds && d.watch < -1) __builtin_trap();
    }
    if (rule->label() == "lock-" && !queue.empty() && holders != 1) __builtin_trap();
    if (rule->max_leases() > 0 && holders > static_cast<size_t>(rule->max_leases())) __builtin_trap();
  }
  return 0;
}
