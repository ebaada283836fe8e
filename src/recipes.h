// The recipes zkl knows, in one table: for each public kind (ZKL_LOCK_*,
// ZKL_ELECTION_*) its name in statistics and tools, and the Rule that
// decides who holds. Adding a recipe means a Rule (rule.h) and a row here.
#pragma once

#include <cstdint>
#include <memory>

#include "rule.h"

namespace zkl {

struct Recipe {
  int32_t kind;      // ZKL_LOCK_* or ZKL_ELECTION_*
  bool election;     // an election kind (else a lock kind)
  const char *name;  // "fair", "read", "election-fair", ...
};

// The row of a lock or election kind, or nullptr for an unknown kind.
const Recipe *FindLockRecipe(int32_t kind);
const Recipe *FindElectionRecipe(int32_t kind);

// A fresh Rule for the recipe. Semaphores need 1 <= leases <= max_leases
// (nullptr otherwise); other recipes ignore both.
std::unique_ptr<Rule> NewRule(const Recipe &recipe, int32_t max_leases = 1, int32_t leases = 1);

}  // namespace zkl
