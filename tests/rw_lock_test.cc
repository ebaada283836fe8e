// The read/write lock against a real ZooKeeper (Curator's node names).
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
// Read/write lock
// ---------------------------------------------------------------------------

TEST(ReadWriteLock, ReadersShareWritersExclude) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("rw");
  auto r1 = NewLock(c1.get(), path, ZKL_LOCK_READ);
  auto r2 = NewLock(c2.get(), path, ZKL_LOCK_READ);
  auto w = NewLock(c3.get(), path, ZKL_LOCK_WRITE);
  ASSERT_EQ(zkl_lock_acquire(r1.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire(r2.get(), 1, 5000), 0);  // readers overlap
  EXPECT_EQ(zkl_lock_try_acquire(w.get(), 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_release(r1.get(), 1), 0);
  EXPECT_EQ(zkl_lock_try_acquire(w.get(), 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_release(r2.get(), 1), 0);
  ASSERT_EQ(zkl_lock_acquire(w.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_try_acquire(r1.get(), 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
  auto kids = Children(path);
  EXPECT_TRUE(kids.empty());
}

TEST(ReadWriteLock, CuratorNodeNames) {
  auto c = NewClient();
  std::string path = UniquePath("rw-names");
  auto r = NewLock(c.get(), path, ZKL_LOCK_READ);
  auto w = NewLock(c.get(), path, ZKL_LOCK_WRITE);
  ASSERT_EQ(zkl_lock_acquire(r.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(w.get(), 1, 5000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  int reads = 0, writes = 0;
  for (auto &k : Children(path)) {
    EXPECT_EQ(k.rfind("_c_", 0), 0u) << k;
    reads += k.find("__READ__") != std::string::npos;
    writes += k.find("__WRIT__") != std::string::npos;
  }
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(writes, 1);
  ASSERT_EQ(zkl_lock_release(r.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
}

// kazoo#649: a reader queued between two writers must not wait for the
// later writer. W1 holds, R queues, W2 queues; when W1 releases, R gets it.
TEST(ReadWriteLock, ReaderDoesNotWaitForLaterWriter) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("rw-649");
  auto w1 = NewLock(c1.get(), path, ZKL_LOCK_WRITE);
  auto r = NewLock(c2.get(), path, ZKL_LOCK_READ);
  auto w2 = NewLock(c3.get(), path, ZKL_LOCK_WRITE);
  ASSERT_NO_FATAL_FAILURE(HoldAndQueue(path, {w1.get(), r.get(), w2.get()}));
  ASSERT_EQ(zkl_lock_release(w1.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000)) << "reader deadlocked";
  EXPECT_EQ(zkl_lock_is_held(w2.get()), 0);
  ASSERT_EQ(zkl_lock_release(r.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(w2.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

// Queue order decides: a reader that arrives after a waiting writer waits
// too, even though only readers hold (writers are not starved).
TEST(ReadWriteLock, LateReaderWaitsBehindQueuedWriter) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("rw-order");
  auto r1 = NewLock(c1.get(), path, ZKL_LOCK_READ);
  auto w = NewLock(c2.get(), path, ZKL_LOCK_WRITE);
  auto r2 = NewLock(c3.get(), path, ZKL_LOCK_READ);
  ASSERT_EQ(zkl_lock_acquire(r1.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(w.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  EXPECT_EQ(zkl_lock_try_acquire(r2.get(), 1), ZKL_EAGAIN);
  ASSERT_GT(zkl_lock_acquire_async(r2.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 3; }));
  ASSERT_EQ(zkl_lock_release(r1.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  EXPECT_EQ(zkl_lock_is_held(r2.get()), 0);
  uint64_t wtoken = Token(w.get());
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  EXPECT_GT(Token(r2.get()), wtoken);
  ASSERT_EQ(zkl_lock_release(r2.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(ReadWriteLock, WritersExclusiveReadersOverlapUnderContention) {
  std::string path = UniquePath("rw-contended");
  std::atomic<int> readers{0}, writers{0}, violations{0}, max_readers{0};
  std::atomic<bool> gave_up{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      bool writer = i % 4 == 0;
      auto c = NewClient();
      auto l = NewLock(c.get(), path, writer ? ZKL_LOCK_WRITE : ZKL_LOCK_READ);
      for (int r = 0; r < 10; ++r) {
        ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 60000), 0);
        if (writer) {
          if (writers.fetch_add(1) != 0 || readers.load() != 0) violations++;
        } else {
          int now = readers.fetch_add(1) + 1;
          if (writers.load() != 0) violations++;
          int seen = max_readers.load();
          while (now > seen && !max_readers.compare_exchange_weak(seen, now)) {}
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        // Under load a hand-off outlasts a 2 ms hold: a reader stays (once,
        // at most 5 s) until two readers have been inside together.
        if (!writer) AwaitSecondHolder(max_readers, &gave_up);
        (writer ? writers : readers).fetch_sub(1);
        ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
      }
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(max_readers.load(), 1);  // readers did overlap
  EXPECT_TRUE(Children(path).empty());
}

}  // namespace
