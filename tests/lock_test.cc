// Fair and reentrant locks against a real ZooKeeper server.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

TEST(FairLock, AcquireReleaseLeavesNoNode) {
  auto c = NewClient();
  std::string path = UniquePath("basic");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  EXPECT_GT(Token(l.get()), 0u);
  auto kids = Children(path);
  ASSERT_EQ(kids.size(), 1u);
  // Curator's protected name: _c_<uuid>-lock-<10 digits>.
  EXPECT_EQ(kids[0].rfind("_c_", 0), 0u);
  EXPECT_NE(kids[0].find("-lock-"), std::string::npos);
  uint64_t sid = 0;
  zkl_client_session_id(c.get(), &sid);
  EXPECT_EQ(static_cast<uint64_t>(EphemeralOwner(path + "/" + kids[0])), sid);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(FairLock, UncontendedCycleCostsThreeRequests) {
  auto c = NewClient();
  auto l = NewLock(c.get(), UniquePath("cost"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);  // first one creates parents
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  // The session's heartbeats (a sync every T/16) are not the recipe's: one
  // may fall inside the cycle on a slow machine.
  uint64_t before = StatCounter(c.get(), "requests") - StatCounter(c.get(), "heartbeats");
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  uint64_t after = StatCounter(c.get(), "requests") - StatCounter(c.get(), "heartbeats");
  EXPECT_EQ(after - before, 3u);  // create + getChildren (pipelined), delete
}

// 16 clients x 50 acquisitions: a shared counter detects two holders at once,
// and fencing tokens of successive holders strictly increase (grants follow
// the queue order: FIFO).
TEST(FairLock, MutualExclusionAndFifoUnderContention) {
  constexpr int kClients = 16, kRounds = 50;
  std::string path = UniquePath("contended");
  std::atomic<int> inside{0};
  std::atomic<int> violations{0};
  std::mutex history_mu;
  std::vector<uint64_t> history;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      auto c = NewClient();
      auto l = NewLock(c.get(), path);
      for (int r = 0; r < kRounds; ++r) {
        ASSERT_EQ(zkl_lock_acquire(l.get(), static_cast<uint64_t>(i + 1), 60000), 0);
        if (inside.fetch_add(1) != 0) violations++;
        {
          std::lock_guard<std::mutex> g(history_mu);
          history.push_back(Token(l.get()));
        }
        inside.fetch_sub(1);
        ASSERT_EQ(zkl_lock_release(l.get(), static_cast<uint64_t>(i + 1)), 0);
      }
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);
  ASSERT_EQ(history.size(), static_cast<size_t>(kClients * kRounds));
  for (size_t i = 1; i < history.size(); ++i) {
    ASSERT_LT(history[i - 1], history[i]) << "fencing token not increasing at " << i;
  }
  EXPECT_TRUE(Children(path).empty());
}

// 100 waiters in line: each release wakes exactly one of them.
TEST(FairLock, OneWatchNotificationPerReleaseWithHundredWaiters) {
  constexpr int kClients = 10, kPerClient = 10;  // 100 contenders
  std::string path = UniquePath("herd");
  std::vector<ClientPtr> clients;
  std::vector<std::vector<LockPtr>> locks(kClients);
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(NewClient(15000));
    for (int j = 0; j < kPerClient; ++j) locks[i].push_back(NewLock(clients[i].get(), path));
  }
  ASSERT_EQ(zkl_lock_acquire(locks[0][0].get(), 1, 10000), 0);
  for (int i = 0; i < kClients; ++i) {
    for (int j = (i == 0 ? 1 : 0); j < kPerClient; ++j) {
      ASSERT_GT(zkl_lock_acquire_async(locks[i][j].get(), 1, 120000), 0);
    }
  }
  // Wait until all 100 are queued (bounded).
  for (int spin = 0; Children(path).size() < 100u; ++spin) {
    ASSERT_LT(spin, 2000) << "waiters did not queue up";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto watch_events = [&] {
    uint64_t total = 0;
    for (auto &c : clients) {
      uint64_t n = 0;
      n = StatCounter(c.get(), "watch_events");
      total += n;
    }
    return total;
  };
  EXPECT_EQ(watch_events(), 0u);
  zkl_lock *holder = locks[0][0].get();
  for (int released = 1; released < 100; ++released) {
    ASSERT_EQ(zkl_lock_release(holder, 1), 0);
    // Exactly one client gets an ACQUIRED event: find it.
    holder = nullptr;
    for (int spin = 0; holder == nullptr; ++spin) {
      ASSERT_LT(spin, 1000) << "no waiter acquired after release " << released;
      for (auto &c : clients) {
        zkl_event *ev = nullptr;
        if (zkl_client_next_event(c.get(), &ev) == 0) {
          if (zkl_event_type(ev) == ZKL_EVENT_ACQUIRED) {
            ASSERT_EQ(holder, nullptr) << "two holders";
            zkl_event_lock(ev, &holder);
          }
          zkl_event_free(ev);
        }
      }
      if (holder == nullptr) zkl_client_wait(clients[0].get(), 10);
    }
    EXPECT_EQ(watch_events(), static_cast<uint64_t>(released));
  }
  ASSERT_EQ(zkl_lock_release(holder, 1), 0);
  EXPECT_EQ(watch_events(), 99u);
  EXPECT_TRUE(Children(path).empty());
}

// An async release followed by the next acquire of the same handle goes out
// as one transaction, multi(delete, create): one request, one round trip,
// one log write. The released node held with none ahead and the new one got
// the next number, so no children read is needed (docs/SAFETY.md). The new
// hold's token is its node's real czxid.
TEST(FairLock, AsyncReleaseThenAcquireIsOneTransaction) {
  auto c = NewClient();
  std::string path = UniquePath("coalesce");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t first = Token(l.get());
  uint64_t before = StatCounter(c.get(), "requests");
  ASSERT_GT(zkl_lock_release_async(l.get(), 1), 0);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t after = StatCounter(c.get(), "requests");
  EXPECT_EQ(after - before, 1u);  // the multi alone (not delete + create + read)
  uint64_t second = Token(l.get());
  EXPECT_GT(second, first);
  // The released node is gone and the new one carries the token we hold.
  std::vector<std::string> children = Children(path);
  ASSERT_EQ(children.size(), 1u);
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), &p), 0);
  uint64_t on_server = 0;
  ASSERT_EQ(zkl_participants_fencing_token(p, 0, &on_server), 0);
  zkl_participants_free(p);
  EXPECT_EQ(on_server, second);
  auto released = WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000);
  ASSERT_TRUE(released);
  EXPECT_EQ(zkl_event_error(released.get()), 0);
  // Without a following acquire the release still goes out by itself.
  ASSERT_GT(zkl_lock_release_async(l.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000));
  EXPECT_TRUE(Children(path).empty());
}

// A waiter that came between a hold and its holder's release-and-acquire is
// ahead of the new node: the multi's create gets a later number than the
// one after the released node, so the new node reads the children and
// waits its turn instead of holding beside the waiter.
TEST(FairLock, AsyncReleaseThenAcquireQueuesBehindAWaiterThatCameBetween) {
  auto a = NewClient(), b = NewClient();
  std::string path = UniquePath("coalesce-behind");
  auto la = NewLock(a.get(), path), lb = NewLock(b.get(), path);
  HoldAndQueue(path, {la.get(), lb.get()});  // la holds, lb waits
  uint64_t before = StatCounter(a.get(), "requests");
  ASSERT_GT(zkl_lock_release_async(la.get(), 1), 0);
  ASSERT_GT(zkl_lock_acquire_async(la.get(), 1, 10000), 0);
  ASSERT_TRUE(WaitForEvent(b.get(), ZKL_EVENT_ACQUIRED, 10000));
  // la's node is behind lb's; la never holds beside it.
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2u; }));
  EXPECT_FALSE(WaitForEvent(a.get(), ZKL_EVENT_ACQUIRED, 300));
  EXPECT_EQ(zkl_lock_is_held(la.get()), 0);
  // multi, then the children read and the watch on lb's node.
  EXPECT_GE(StatCounter(a.get(), "requests") - before, 3u);
  ASSERT_EQ(zkl_lock_release(lb.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(a.get(), ZKL_EVENT_ACQUIRED, 10000));
  EXPECT_EQ(zkl_lock_is_held(la.get()), 1);
  ASSERT_EQ(zkl_lock_release(la.get(), 1), 0);
}

// Each async call returns its own request id, and exactly the event that
// answers it carries it: the matching a caller (or a binding) needs, with
// any number of calls in flight on one client.
TEST(FairLock, AsyncCallsReturnTheIdTheirEventCarries) {
  auto c = NewClient();
  std::string path = UniquePath("request-ids");
  auto first = NewLock(c.get(), path), second = NewLock(c.get(), path);
  int a = zkl_lock_acquire_async(first.get(), 1, 5000);
  ASSERT_GT(a, 0);
  auto granted = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000);
  ASSERT_TRUE(granted);
  EXPECT_EQ(RequestId(granted.get()), static_cast<uint64_t>(a));
  // Queued behind `first`: a timeout, then a cancel, each answered by id.
  int timed = zkl_lock_acquire_async(second.get(), 2, 200);
  ASSERT_GT(timed, 0);
  EXPECT_NE(timed, a);
  auto timeout = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRE_FAILED, 5000);
  ASSERT_TRUE(timeout);
  EXPECT_EQ(zkl_event_error(timeout.get()), ZKL_ETIMEDOUT);
  EXPECT_EQ(RequestId(timeout.get()), static_cast<uint64_t>(timed));
  int canceled = zkl_lock_acquire_async(second.get(), 2, -1);
  ASSERT_GT(canceled, 0);
  ASSERT_EQ(zkl_lock_cancel(second.get()), 0);
  auto cancel = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRE_FAILED, 5000);
  ASSERT_TRUE(cancel);
  EXPECT_EQ(zkl_event_error(cancel.get()), ZKL_ECANCELED);
  EXPECT_EQ(RequestId(cancel.get()), static_cast<uint64_t>(canceled));
  // A failure at once returns the error, and no event follows.
  EXPECT_EQ(zkl_lock_acquire_async(first.get(), 7, 5000), ZKL_EBUSY);
  int released = zkl_lock_release_async(first.get(), 1);
  ASSERT_GT(released, 0);
  auto done = WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000);
  ASSERT_TRUE(done);
  EXPECT_EQ(RequestId(done.get()), static_cast<uint64_t>(released));
  EXPECT_FALSE(NextEvent(c.get(), 200));
}

// A reentrant lock answers an inner acquire and release at once, each with
// its one event and id; the node stays until the last release.
TEST(ReentrantLock, InnerAsyncCallsAreAnsweredAtOnceWithTheirIds) {
  auto c = NewClient();
  std::string path = UniquePath("reentrant-ids");
  auto l = NewLock(c.get(), path, ZKL_LOCK_REENTRANT);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 42, 5000), 0);
  int inner = zkl_lock_acquire_async(l.get(), 42, 5000);
  ASSERT_GT(inner, 0);
  auto acquired = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000);
  ASSERT_TRUE(acquired);
  EXPECT_EQ(RequestId(acquired.get()), static_cast<uint64_t>(inner));
  EXPECT_EQ(zkl_lock_hold_count(l.get()), 2);
  int let_go = zkl_lock_release_async(l.get(), 42);
  ASSERT_GT(let_go, 0);
  auto released = WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000);
  ASSERT_TRUE(released);
  EXPECT_EQ(RequestId(released.get()), static_cast<uint64_t>(let_go));
  EXPECT_EQ(zkl_lock_hold_count(l.get()), 1);
  EXPECT_EQ(Children(path).size(), 1u);  // still held once
  ASSERT_EQ(zkl_lock_release(l.get(), 42), 0);
  EXPECT_TRUE(Children(path).empty());
}

// Two handles of one client taking turns: the next handle's create sends
// the other's held-back delete first (same session, applied in order), so
// it never queues behind a node on its way out: one round trip, no watch.
TEST(FairLock, AsyncReleaseThenAnotherHandlesAcquireDoesNotQueue) {
  auto c = NewClient();
  std::string path = UniquePath("two-handles");
  auto first = NewLock(c.get(), path), second = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(first.get(), 1, 5000), 0);
  uint64_t before = StatCounter(c.get(), "requests");
  ASSERT_GT(zkl_lock_release_async(first.get(), 1), 0);
  ASSERT_EQ(zkl_lock_acquire(second.get(), 1, 5000), 0);
  uint64_t after = StatCounter(c.get(), "requests");
  EXPECT_EQ(after - before, 3u);  // delete, create, children (no watch, no second read)
  EXPECT_EQ(Children(path).size(), 1u);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000));
  ASSERT_EQ(zkl_lock_release(second.get(), 1), 0);
}

TEST(ReentrantLock, SameOwnerReentersWithoutRoundTrip) {
  auto c = NewClient();
  std::string path = UniquePath("reentrant");
  auto l = NewLock(c.get(), path, ZKL_LOCK_REENTRANT);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 42, 5000), 0);
  uint64_t token = Token(l.get());
  uint64_t before = 0, after = 0;
  before = StatCounter(c.get(), "requests");
  ASSERT_EQ(zkl_lock_acquire(l.get(), 42, 5000), 0);
  ASSERT_EQ(zkl_lock_try_acquire(l.get(), 42), 0);
  after = StatCounter(c.get(), "requests");
  EXPECT_EQ(after, before);
  EXPECT_EQ(zkl_lock_hold_count(l.get()), 3);
  EXPECT_EQ(Token(l.get()), token);
  // Another owner can neither release nor take this handle.
  EXPECT_EQ(zkl_lock_release(l.get(), 7), ZKL_ENOTOWNER);
  EXPECT_EQ(zkl_lock_acquire(l.get(), 7, 0), ZKL_EBUSY);
  ASSERT_EQ(zkl_lock_release(l.get(), 42), 0);
  ASSERT_EQ(zkl_lock_release(l.get(), 42), 0);
  EXPECT_EQ(Children(path).size(), 1u);  // still held once
  ASSERT_EQ(zkl_lock_release(l.get(), 42), 0);
  EXPECT_TRUE(Children(path).empty());  // the last release deletes the node
  EXPECT_EQ(zkl_lock_release(l.get(), 42), ZKL_ENOTHELD);
}

TEST(ReentrantLock, ReleaseFromAnotherThread) {
  auto c = NewClient();
  auto l = NewLock(c.get(), UniquePath("crossthread"), ZKL_LOCK_REENTRANT);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 99, 5000), 0);
  int rc = -1;
  std::thread([&] { rc = zkl_lock_release(l.get(), 99); }).join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
}

TEST(FairLock, NonReentrantReacquireIsDeadlockError) {
  auto c = NewClient();
  auto l = NewLock(c.get(), UniquePath("nonreentrant"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_acquire(l.get(), 1, 100), ZKL_EDEADLK);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

TEST(FairLock, TimeoutLeavesNoNode) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("timeout");
  auto holder = NewLock(c1.get(), path), waiter = NewLock(c2.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zkl_lock_acquire(waiter.get(), 2, 300), ZKL_ETIMEDOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  // The waiter's node is deleted: only the holder's remains.
  for (int spin = 0; Children(path).size() != 1u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(zkl_lock_is_held(waiter.get()), 0);
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  // And the lock is free for the next one.
  EXPECT_EQ(zkl_lock_acquire(waiter.get(), 2, 5000), 0);
  ASSERT_EQ(zkl_lock_release(waiter.get(), 2), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(FairLock, ZeroTimeoutDoesNotWaitAndLeavesNoNode) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("zero-timeout");
  auto holder = NewLock(c1.get(), path), other = NewLock(c2.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 0), 0);  // free: taken at once
  EXPECT_EQ(zkl_lock_acquire(other.get(), 2, 0), ZKL_ETIMEDOUT);
  ASSERT_GT(zkl_lock_acquire_async(other.get(), 7, 0), 0);
  auto ev = WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRE_FAILED, 5000);
  ASSERT_TRUE(ev);
  EXPECT_EQ(zkl_event_error(ev.get()), ZKL_ETIMEDOUT);
  uint64_t owner = 0;
  zkl_event_owner(ev.get(), &owner);
  EXPECT_EQ(owner, 7u);  // the failure names the owner that asked
  for (int spin = 0; Children(path).size() != 1u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
}

TEST(FairLock, TryAcquireLeavesNoNode) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("try");
  auto holder = NewLock(c1.get(), path), other = NewLock(c2.get(), path);
  ASSERT_EQ(zkl_lock_try_acquire(holder.get(), 1), 0);
  EXPECT_EQ(zkl_lock_try_acquire(other.get(), 2), ZKL_EAGAIN);
  for (int spin = 0; Children(path).size() != 1u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  EXPECT_EQ(zkl_lock_try_acquire(other.get(), 2), 0);
  ASSERT_EQ(zkl_lock_release(other.get(), 2), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(FairLock, CancelAsyncAcquireLeavesNoNode) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("cancel");
  auto holder = NewLock(c1.get(), path), waiter = NewLock(c2.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(waiter.get(), 2, -1), 0);
  for (int spin = 0; Children(path).size() != 2u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(zkl_lock_cancel(waiter.get()), 0);
  auto ev = WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRE_FAILED, 5000);
  ASSERT_TRUE(ev);
  EXPECT_EQ(zkl_event_error(ev.get()), ZKL_ECANCELED);
  for (int spin = 0; Children(path).size() != 1u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(zkl_lock_cancel(waiter.get()), ZKL_ENOTHELD);
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(FairLock, CancelWakesBlockingAcquire) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("cancel-blocking");
  auto holder = NewLock(c1.get(), path), waiter = NewLock(c2.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  int rc = 0;
  std::thread t([&] { rc = zkl_lock_acquire(waiter.get(), 2, 30000); });
  for (int spin = 0; Children(path).size() != 2u; ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(zkl_lock_cancel(waiter.get()), 0);
  t.join();
  EXPECT_EQ(rc, ZKL_ECANCELED);
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  for (int spin = 0; !Children(path).empty(); ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(FairLock, AsyncAcquireDeliversAcquiredEventWithToken) {
  auto c = NewClient();
  auto l = NewLock(c.get(), UniquePath("async"));
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 5, 5000), 0);
  auto ev = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000);
  ASSERT_TRUE(ev);
  uint64_t token = 0, owner = 0;
  zkl_event_fencing_token(ev.get(), &token);
  zkl_event_owner(ev.get(), &owner);
  EXPECT_EQ(token, Token(l.get()));
  EXPECT_EQ(owner, 5u);
  zkl_lock *which = nullptr;
  zkl_event_lock(ev.get(), &which);
  EXPECT_EQ(which, l.get());
  ASSERT_EQ(zkl_lock_release(l.get(), 5), 0);
}

TEST(FairLock, AsyncReleaseIsOrderedBeforeNextAcquire) {
  auto c = NewClient();
  std::string path = UniquePath("release-async");
  auto l = NewLock(c.get(), path);
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
    uint64_t token = Token(l.get());
    EXPECT_GT(token, last);
    last = token;
    ASSERT_GT(zkl_lock_release_async(l.get(), 1), 0);
  }
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000));
  for (int spin = 0; !Children(path).empty(); ++spin) {
    ASSERT_LT(spin, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(FencingToken, IncreasesAcrossParentDeletion) {
  auto c = NewClient();
  std::string path = UniquePath("fencing");
  auto l = NewLock(c.get(), path);
  std::vector<uint64_t> tokens;
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
    tokens.push_back(Token(l.get()));
    ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
    DeleteRecursive(path);  // the sequence restarts; czxid does not
    ASSERT_FALSE(Exists(path));
  }
  for (size_t i = 1; i < tokens.size(); ++i) EXPECT_LT(tokens[i - 1], tokens[i]);
}

TEST(FairLock, ParentsAreCreatedAsContainers) {
  auto c = NewClient();
  std::string path = UniquePath("deep") + "/a/b/c";
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_TRUE(Exists(path));
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

}  // namespace
