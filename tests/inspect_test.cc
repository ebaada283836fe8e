// zkl_inspect against a real ZooKeeper: who holds, who waits.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

// ---------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------

TEST(Inspect, HoldersAndWaitersInQueueOrder) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect");
  auto a = NewLock(c1.get(), path), b = NewLock(c2.get(), path), c = NewLock(c3.get(), path);
  ASSERT_NO_FATAL_FAILURE(HoldAndQueue(path, {a.get(), b.get(), c.get()}));
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 3);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 1), 0);
  EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
  uint64_t t0 = 0, t1 = 0, t2 = 0, s0 = 0, own = 0;
  zkl_participants_fencing_token(p, 0, &t0);
  zkl_participants_fencing_token(p, 1, &t1);
  zkl_participants_fencing_token(p, 2, &t2);
  EXPECT_EQ(t0, Token(a.get()));
  EXPECT_LT(t0, t1);
  EXPECT_LT(t1, t2);
  zkl_participants_session_id(p, 0, &s0);
  zkl_client_session_id(c1.get(), &own);
  EXPECT_EQ(s0, own);
  int64_t ctime = 0;
  zkl_participants_ctime_ms(p, 0, &ctime);
  EXPECT_GT(ctime, 1600000000000LL);
  EXPECT_EQ(zkl_participants_is_holder(p, 3), ZKL_ERANGE);
  zkl_participants_free(p);
  ASSERT_EQ(zkl_lock_release(a.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(b.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(c.get(), 1), 0);
}

TEST(Inspect, ReadWriteHoldersJudgedPerNode) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect-rw");
  auto r1 = NewLock(c1.get(), path, ZKL_LOCK_READ);
  auto w = NewLock(c2.get(), path, ZKL_LOCK_WRITE);
  auto r2 = NewLock(c3.get(), path, ZKL_LOCK_READ);
  ASSERT_NO_FATAL_FAILURE(HoldAndQueue(path, {r1.get(), w.get(), r2.get()}));
  for (int kind : {ZKL_LOCK_READ, ZKL_LOCK_WRITE}) {
    zkl_participants *p = nullptr;
    ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(kind), &p), 0);
    ASSERT_EQ(zkl_participants_count(p), 3);
    EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
    EXPECT_EQ(zkl_participants_is_holder(p, 1), 0);
    EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
    zkl_participants_free(p);
  }
  ASSERT_EQ(zkl_lock_release(r1.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(r2.get(), 1), 0);
}

TEST(Inspect, SemaphoreUsesTheStoredLeaseCount) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect-sem");
  auto a = NewLock(c1.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  auto b = NewLock(c2.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  auto c = NewLock(c3.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_EQ(zkl_lock_acquire(a.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire(b.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(c.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 3; }));
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(ZKL_LOCK_SEMAPHORE), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 3);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 1), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
  zkl_participants_free(p);
  ASSERT_EQ(zkl_lock_release(a.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(b.get(), 1), 0);
  ASSERT_EQ(zkl_lock_release(c.get(), 1), 0);
}

}  // namespace
