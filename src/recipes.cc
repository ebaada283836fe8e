#include "recipes.h"

#include "zkl.h"

namespace zkl {
namespace {

// Node labels are Apache Curator's where Curator has the recipe
// (InterProcessMutex "lock-", LeaderLatch "latch-", the read/write lock's
// __READ__/__WRIT__), so both libraries exclude each other on one path.
constexpr Recipe kRecipes[] = {
    {ZKL_LOCK_FAIR, false, "fair"},
    {ZKL_LOCK_REENTRANT, false, "reentrant"},
    {ZKL_LOCK_NONFAIR, false, "nonfair"},
    {ZKL_LOCK_READ, false, "read"},
    {ZKL_LOCK_WRITE, false, "write"},
    {ZKL_LOCK_SEMAPHORE, false, "semaphore"},
    {ZKL_ELECTION_FAIR, true, "election-fair"},
    {ZKL_ELECTION_NONFAIR, true, "election-nonfair"},
};

const Recipe *Find(int32_t kind, bool election) {
  for (const Recipe &r : kRecipes) {
    if (r.kind == kind && r.election == election) return &r;
  }
  return nullptr;
}

}  // namespace

const Recipe *FindLockRecipe(int32_t kind) { return Find(kind, false); }
const Recipe *FindElectionRecipe(int32_t kind) { return Find(kind, true); }

std::unique_ptr<Rule> NewRule(const Recipe &recipe, int32_t max_leases, int32_t leases) {
  if (recipe.election) {
    return recipe.kind == ZKL_ELECTION_FAIR ? MakeExclusiveRule("latch-") : MakeFixedNodeRule("leader");
  }
  switch (recipe.kind) {
    case ZKL_LOCK_FAIR:
    case ZKL_LOCK_REENTRANT: return MakeExclusiveRule("lock-");
    case ZKL_LOCK_NONFAIR: return MakeFixedNodeRule("lock");
    case ZKL_LOCK_READ: return MakeReadRule();
    case ZKL_LOCK_WRITE: return MakeWriteRule();
    case ZKL_LOCK_SEMAPHORE:
      return max_leases >= 1 && leases >= 1 && leases <= max_leases ? MakeSemaphoreRule(max_leases, leases)
                                                                      : nullptr;
    default: return nullptr;
  }
}

}  // namespace zkl
