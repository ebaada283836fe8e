// The recipes' rules on recorded child lists, without a server: who holds,
// whom a waiter watches, and how the queue is ordered. Child names are as
// ZooKeeper lists them (unordered), with the prefixes zkl, Apache Curator
// and kazoo write.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "recipes.h"
#include "rule.h"
#include "zkl.h"

namespace zkl {
namespace {

std::unique_ptr<Rule> LockRuleOf(int32_t kind, int32_t max_leases = 1, int32_t leases = 1) {
  const Recipe *r = FindLockRecipe(kind);
  EXPECT_NE(r, nullptr);
  return r ? NewRule(*r, max_leases, leases) : nullptr;
}

std::vector<std::string_view> Views(const std::vector<std::string> &names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

// The decision for the node named `own` among `children`.
Decision DecideFor(const Rule &rule, const std::vector<std::string> &children, std::string_view own,
                   std::vector<QueueEntry> *queue_out = nullptr) {
  auto views = Views(children);
  std::vector<QueueEntry> queue = BuildQueue(rule, views);
  for (size_t i = 0; i < queue.size(); ++i) {
    if (queue[i].name == own) {
      if (queue_out) *queue_out = queue;
      return rule.Decide(queue, i);
    }
  }
  ADD_FAILURE() << own << " is not in the queue";
  return {};
}

std::string NameAt(const std::vector<QueueEntry> &queue, std::ptrdiff_t i) {
  return i < 0 ? std::string("<children>") : std::string(queue[static_cast<size_t>(i)].name);
}

TEST(RecipeTable, EveryPublicKindHasARow) {
  for (int32_t k : {ZKL_LOCK_FAIR, ZKL_LOCK_REENTRANT, ZKL_LOCK_NONFAIR, ZKL_LOCK_READ, ZKL_LOCK_WRITE,
                    ZKL_LOCK_SEMAPHORE}) {
    ASSERT_NE(FindLockRecipe(k), nullptr) << k;
  }
  ASSERT_NE(FindElectionRecipe(ZKL_ELECTION_FAIR), nullptr);
  ASSERT_NE(FindElectionRecipe(ZKL_ELECTION_NONFAIR), nullptr);
  EXPECT_EQ(FindLockRecipe(0), nullptr);
  EXPECT_EQ(FindLockRecipe(99), nullptr);
  EXPECT_EQ(FindElectionRecipe(ZKL_LOCK_READ), nullptr);
  EXPECT_STREQ(FindLockRecipe(ZKL_LOCK_READ)->name, "read");
  // Semaphore counts are checked by the table's factory.
  const Recipe &sem = *FindLockRecipe(ZKL_LOCK_SEMAPHORE);
  EXPECT_EQ(NewRule(sem, 0, 1), nullptr);
  EXPECT_EQ(NewRule(sem, 2, 3), nullptr);
  EXPECT_NE(NewRule(sem, 3, 3), nullptr);
}

TEST(Queue, OrdersByIntegerSuffixWhateverThePrefix) {
  auto rule = LockRuleOf(ZKL_LOCK_FAIR);
  // A string compare would put "lock-0000000010" before "_c_...-lock-0000000009".
  std::vector<std::string> children = {
      "lock-0000000010",                                          // kazoo-like, no protection
      "_c_3f2b2c4e-1a2b-4c3d-9e8f-0123456789ab-lock-0000000009",  // Curator / zkl
      "stray-node",                                               // no suffix: not a participant
      "x-0000000002",                                             // foreign prefix: still counts
  };
  auto views = Views(children);
  auto queue = BuildQueue(*rule, views);
  ASSERT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue[0].sequence, 2);
  EXPECT_EQ(queue[1].sequence, 9);
  EXPECT_EQ(queue[2].sequence, 10);
  // Only the nodes up to a contender's own are kept when asked.
  EXPECT_EQ(BuildQueue(*rule, views, 9).size(), 2u);
}

TEST(FairLock, HeadHoldsOthersWatchOnlyTheirPredecessor) {
  auto rule = LockRuleOf(ZKL_LOCK_FAIR);
  std::vector<std::string> children = {"lock-0000000003", "lock-0000000001", "lock-0000000002"};
  EXPECT_TRUE(DecideFor(*rule, children, "lock-0000000001").holds);
  std::vector<QueueEntry> q;
  Decision second = DecideFor(*rule, children, "lock-0000000002", &q);
  EXPECT_FALSE(second.holds);
  EXPECT_EQ(NameAt(q, second.watch), "lock-0000000001");
  EXPECT_TRUE(second.holds_when_watched_goes);
  Decision third = DecideFor(*rule, children, "lock-0000000003", &q);
  EXPECT_EQ(NameAt(q, third.watch), "lock-0000000002");  // no herd: not the head
  EXPECT_FALSE(third.holds_when_watched_goes);
}

TEST(ReadWriteLock, ReaderWaitsOnlyForTheNearestEarlierWriter) {
  auto read = LockRuleOf(ZKL_LOCK_READ);
  auto write = LockRuleOf(ZKL_LOCK_WRITE);
  std::vector<std::string> children = {
      "__READ__0000000001", "__WRIT__0000000002", "__READ__0000000003",
      "__WRIT__0000000004", "__READ__0000000005", "__READ__0000000006",
  };
  std::vector<QueueEntry> q;
  EXPECT_TRUE(DecideFor(*read, children, "__READ__0000000001").holds);
  Decision w2 = DecideFor(*write, children, "__WRIT__0000000002", &q);
  EXPECT_FALSE(w2.holds);
  EXPECT_EQ(NameAt(q, w2.watch), "__READ__0000000001");
  Decision r3 = DecideFor(*read, children, "__READ__0000000003", &q);
  EXPECT_FALSE(r3.holds);
  EXPECT_EQ(NameAt(q, r3.watch), "__WRIT__0000000002");
  EXPECT_TRUE(r3.holds_when_watched_goes);
  Decision r6 = DecideFor(*read, children, "__READ__0000000006", &q);
  EXPECT_EQ(NameAt(q, r6.watch), "__WRIT__0000000004");  // nearest writer, not a reader
  EXPECT_FALSE(r6.holds_when_watched_goes);              // another writer is ahead too
  // Two readers with no writer ahead hold together.
  std::vector<std::string> readers = {"__READ__0000000007", "__READ__0000000008"};
  EXPECT_TRUE(DecideFor(*read, readers, "__READ__0000000008").holds);
}

TEST(ReadWriteLock, AWriterBehindAReaderNeverBlocksThatReader) {
  // kazoo#649: a reader must not wait for a writer that queued after it.
  auto read = LockRuleOf(ZKL_LOCK_READ);
  std::vector<std::string> children = {"__READ__0000000001", "__WRIT__0000000002"};
  EXPECT_TRUE(DecideFor(*read, children, "__READ__0000000001").holds);
}

TEST(Semaphore, LeasesAddUpInQueueOrder) {
  // Names as zkl writes them: the protected prefix, then the lease label.
  auto rule = LockRuleOf(ZKL_LOCK_SEMAPHORE, 3);
  std::vector<std::string> children = {
      "_c_u-lease-0000000001",
      "_c_u-leases2-0000000002",  // takes two: 1 + 2 = 3 fit
      "_c_u-lease-0000000003",    // 4 > 3: waits, first in line
      "_c_u-lease-0000000004",    // waits behind it
  };
  std::vector<QueueEntry> q;
  EXPECT_TRUE(DecideFor(*rule, children, "_c_u-leases2-0000000002").holds);
  Decision first = DecideFor(*rule, children, "_c_u-lease-0000000003", &q);
  EXPECT_FALSE(first.holds);
  EXPECT_EQ(first.watch, -1);  // any departure may admit it: watches the children
  Decision second = DecideFor(*rule, children, "_c_u-lease-0000000004", &q);
  EXPECT_FALSE(second.holds);
  EXPECT_EQ(NameAt(q, second.watch), "_c_u-lease-0000000003");  // herd-free: its predecessor only
}

TEST(Semaphore, LargeRequestIsNotOvertaken) {
  auto rule = LockRuleOf(ZKL_LOCK_SEMAPHORE, 2);
  std::vector<std::string> children = {"_c_u-lease-0000000001", "_c_u-leases2-0000000002", "_c_u-lease-0000000003"};
  // One lease is free, but the two-lease request ahead waits for it: FIFO.
  EXPECT_FALSE(DecideFor(*rule, children, "_c_u-leases2-0000000002").holds);
  EXPECT_FALSE(DecideFor(*rule, children, "_c_u-lease-0000000003").holds);
  EXPECT_EQ(LeasesOf("_c_u-leases2-0000000002"), 2);
  EXPECT_EQ(LeasesOf("_c_u-lease-0000000002"), 1);
  EXPECT_EQ(LeasesOf("_c_u-leasesX-0000000002"), 1);  // malformed: one lease
}

TEST(NonfairLock, OnlyTheFixedNodeTakesPart) {
  auto rule = LockRuleOf(ZKL_LOCK_NONFAIR);
  std::vector<std::string> children = {"lock-0000000001", "lock", "other"};
  auto views = Views(children);
  auto queue = BuildQueue(*rule, views);
  ASSERT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue[0].name, "lock");
}

TEST(Election, FairElectionIsAnExclusiveQueueOfLatches) {
  auto rule = NewRule(*FindElectionRecipe(ZKL_ELECTION_FAIR));
  std::vector<std::string> children = {"_c_aaaa-latch-0000000012", "_c_bbbb-latch-0000000011"};
  EXPECT_TRUE(DecideFor(*rule, children, "_c_bbbb-latch-0000000011").holds);
  EXPECT_FALSE(DecideFor(*rule, children, "_c_aaaa-latch-0000000012").holds);
}

}  // namespace
}  // namespace zkl
