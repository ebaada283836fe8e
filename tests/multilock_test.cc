// The multi-lock (issue 16): several locks, all or none, one deadline, one
// canonical order (so overlapping multi-locks never deadlock), the loss of
// one member is the loss of the whole.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

struct MultilockPtr {
  zkl_multilock *m = nullptr;
  ~MultilockPtr() {
    if (m) zkl_multilock_destroy(m);
  }
};

// A multi-lock over fresh locks of `kinds` on `paths` (in the order given).
void NewMultilock(zkl_client *c, const std::vector<std::string> &paths, const std::vector<int> &kinds,
                  MultilockPtr *out, int max_leases = 2) {
  std::vector<zkl_lock *> locks;
  for (size_t i = 0; i < paths.size(); ++i) {
    locks.push_back(NewLock(c, paths[i], kinds[i], max_leases).release());
  }
  zkl_multilock_options o;
  ASSERT_EQ(zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION), 0);
  ASSERT_EQ(zkl_multilock_new(c, locks.data(), locks.size(), &o, &out->m), 0);
}

TEST(Multilock, AllOrNothingWithATokenPerPath) {
  auto c = NewClient(), other = NewClient();
  std::string a = UniquePath("ml-a"), b = UniquePath("ml-b"), s = UniquePath("ml-s");
  MultilockPtr ml;
  NewMultilock(c.get(), {b, a, s}, {ZKL_LOCK_WRITE, ZKL_LOCK_FAIR, ZKL_LOCK_SEMAPHORE}, &ml);
  EXPECT_EQ(zkl_multilock_count(ml.m), 3);
  // Canonical order: by path, whatever the order given.
  zkl_lock *first = nullptr;
  ASSERT_EQ(zkl_multilock_member(ml.m, 0, &first), 0);
  uint64_t unused = 0;
  EXPECT_EQ(zkl_multilock_fencing_token(ml.m, a.c_str(), &unused), ZKL_ENOTHELD);
  ASSERT_EQ(zkl_multilock_acquire(ml.m, 1, 5000), 0);
  EXPECT_EQ(zkl_multilock_is_held(ml.m), 1);
  int64_t ms = 0;
  EXPECT_EQ(zkl_multilock_valid_for(ml.m, &ms), 0);
  EXPECT_GT(ms, 0);
  for (const std::string &p : {a, b, s}) {
    uint64_t t = 0;
    EXPECT_EQ(zkl_multilock_fencing_token(ml.m, p.c_str(), &t), 0);
    EXPECT_GT(t, 0u);
    EXPECT_EQ(Children(p).size(), 1u);
  }
  EXPECT_EQ(zkl_multilock_fencing_token(ml.m, "/not/a/member", &unused), ZKL_ENOTFOUND);
  // Members belong to the multi-lock now.
  EXPECT_EQ(zkl_lock_release(first, 1), ZKL_EBUSY);
  EXPECT_EQ(zkl_lock_destroy(first), ZKL_EBUSY);
  EXPECT_EQ(zkl_lock_is_held(first), 1);  // getters still work
  // Another client cannot take b while we hold it.
  auto lb = NewLock(other.get(), b, ZKL_LOCK_WRITE);
  EXPECT_EQ(zkl_lock_try_acquire(lb.get(), 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_multilock_release(ml.m, 1), 0);
  EXPECT_EQ(zkl_multilock_release(ml.m, 1), ZKL_ENOTHELD);
  for (const std::string &p : {a, b, s}) EXPECT_TRUE(Children(p).empty());
}

// When one member is taken by someone else, nothing stays held: a timeout
// releases what was taken.
TEST(Multilock, TimeoutReleasesWhatWasTaken) {
  auto c = NewClient(), other = NewClient();
  std::string a = UniquePath("ml-t-a"), b = UniquePath("ml-t-b");
  auto lb = NewLock(other.get(), b);
  ASSERT_EQ(zkl_lock_acquire(lb.get(), 1, 5000), 0);
  MultilockPtr ml;
  NewMultilock(c.get(), {a, b}, {ZKL_LOCK_FAIR, ZKL_LOCK_FAIR}, &ml);
  EXPECT_EQ(zkl_multilock_acquire(ml.m, 1, 300), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_multilock_is_held(ml.m), 0);
  EXPECT_TRUE(Eventually([&] { return Children(a).empty(); }));  // a was taken, then released
  EXPECT_EQ(Children(b).size(), 1u);                               // only the other holder
  EXPECT_EQ(zkl_multilock_try_acquire(ml.m, 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_release(lb.get(), 1), 0);
  ASSERT_EQ(zkl_multilock_try_acquire(ml.m, 1), 0);
  ASSERT_EQ(zkl_multilock_release(ml.m, 1), 0);
}

// Two multi-locks name the same two paths in opposite orders; each of
// many rounds must complete (taken in one canonical order, they cannot
// wait for each other in a cycle).
TEST(Multilock, OppositeOrdersNeverDeadlock) {
  std::string a = UniquePath("ml-d-a"), b = UniquePath("ml-d-b");
  std::atomic<int> inside{0}, overlap{0};
  auto run = [&](std::vector<std::string> order) {
    auto c = NewClient();
    MultilockPtr ml;
    NewMultilock(c.get(), order, {ZKL_LOCK_FAIR, ZKL_LOCK_FAIR}, &ml);
    for (int round = 0; round < 25; ++round) {
      ASSERT_EQ(zkl_multilock_acquire(ml.m, 1, 20000), 0) << "round " << round;
      if (inside.fetch_add(1) != 0) ++overlap;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      inside.fetch_sub(1);
      ASSERT_EQ(zkl_multilock_release(ml.m, 1), 0);
    }
  };
  std::thread t1(run, std::vector<std::string>{a, b});
  std::thread t2(run, std::vector<std::string>{b, a});
  t1.join();
  t2.join();
  EXPECT_EQ(overlap.load(), 0);
}

// The loss of one member is the loss of the whole; the others are released.
TEST(Multilock, LossOfOneMemberIsLossOfTheWhole) {
  auto c = NewClient(6000), admin = NewClient();
  std::string a = UniquePath("ml-l-a"), b = UniquePath("ml-l-b");
  MultilockPtr ml;
  NewMultilock(c.get(), {a, b}, {ZKL_LOCK_FAIR, ZKL_LOCK_FAIR}, &ml);
  ASSERT_GT(zkl_multilock_acquire_async(ml.m, 1, 5000), 0);
  auto acquired = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000);
  ASSERT_TRUE(acquired);
  zkl_multilock *which = nullptr;
  ASSERT_EQ(zkl_event_multilock(acquired.get(), &which), 0);
  EXPECT_EQ(which, ml.m);
  ExpireClientSession(c.get());
  auto lost = WaitForEvent(c.get(), ZKL_EVENT_LOST, 15000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_ESESSION);
  ASSERT_EQ(zkl_event_multilock(lost.get(), &which), 0);
  EXPECT_EQ(which, ml.m);
  EXPECT_FALSE(WaitForEvent(c.get(), ZKL_EVENT_LOST, 300));  // one LOST, not one per member
  EXPECT_EQ(zkl_multilock_is_held(ml.m), 0);
  EXPECT_EQ(zkl_multilock_release(ml.m, 1), ZKL_ELOST);
}

TEST(Multilock, AsyncCallsReturnTheIdTheirEventCarries) {
  auto c = NewClient();
  MultilockPtr ml;
  NewMultilock(c.get(), {UniquePath("ids-a"), UniquePath("ids-b")}, {ZKL_LOCK_FAIR, ZKL_LOCK_WRITE}, &ml);
  int acquire = zkl_multilock_acquire_async(ml.m, 1, 5000);
  ASSERT_GT(acquire, 0);
  auto acquired = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000);
  ASSERT_TRUE(acquired);
  EXPECT_EQ(RequestId(acquired.get()), static_cast<uint64_t>(acquire));
  int release = zkl_multilock_release_async(ml.m, 1);
  ASSERT_GT(release, 0);
  EXPECT_NE(release, acquire);
  auto released = WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 5000);
  ASSERT_TRUE(released);
  EXPECT_EQ(RequestId(released.get()), static_cast<uint64_t>(release));
  EXPECT_FALSE(NextEvent(c.get(), 200));  // the members' own events stay inside
}

TEST(Multilock, CancelAndBadInput) {
  auto c = NewClient(), other = NewClient(), third = NewClient();
  std::string a = UniquePath("ml-c-a");
  auto la = NewLock(other.get(), a);
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 5000), 0);
  MultilockPtr ml;
  NewMultilock(c.get(), {a, UniquePath("ml-c-b")}, {ZKL_LOCK_FAIR, ZKL_LOCK_FAIR}, &ml);
  ASSERT_GT(zkl_multilock_acquire_async(ml.m, 1, -1), 0);
  EXPECT_EQ(zkl_multilock_acquire(ml.m, 1, 100), ZKL_EBUSY);
  ASSERT_TRUE(Eventually([&] { return Children(a).size() == 2; }));
  ASSERT_EQ(zkl_multilock_cancel(ml.m), 0);
  auto failed = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRE_FAILED, 5000);
  ASSERT_TRUE(failed);
  EXPECT_EQ(zkl_event_error(failed.get()), ZKL_ECANCELED);
  EXPECT_TRUE(Eventually([&] { return Children(a).size() == 1; }));
  EXPECT_EQ(zkl_multilock_cancel(ml.m), ZKL_ENOTHELD);

  zkl_multilock_options o;
  zkl_multilock_options_init(&o, ZKL_MULTILOCK_OPTIONS_VERSION);
  zkl_multilock *m = nullptr;
  std::string xpath = UniquePath("ml-x");
  auto x = NewLock(c.get(), xpath);
  auto y = NewLock(c.get(), xpath);  // the same path twice
  zkl_lock *same[] = {x.get(), y.get()};
  EXPECT_EQ(zkl_multilock_new(c.get(), same, 2, &o, &m), ZKL_EINVAL);
  auto foreign = NewLock(third.get(), UniquePath("ml-y"));
  zkl_lock *mixed[] = {x.get(), foreign.get()};
  EXPECT_EQ(zkl_multilock_new(c.get(), mixed, 2, &o, &m), ZKL_EINVAL);  // another client's
  auto reentrant = NewLock(c.get(), UniquePath("ml-r"), ZKL_LOCK_REENTRANT);
  zkl_lock *re[] = {reentrant.get()};
  EXPECT_EQ(zkl_multilock_new(c.get(), re, 1, &o, &m), ZKL_EINVAL);
  ASSERT_EQ(zkl_lock_acquire(x.get(), 1, 5000), 0);
  zkl_lock *busy[] = {x.get()};
  EXPECT_EQ(zkl_multilock_new(c.get(), busy, 1, &o, &m), ZKL_EBUSY);  // not idle
  ASSERT_EQ(zkl_lock_release(x.get(), 1), 0);
  EXPECT_EQ(zkl_multilock_new(c.get(), nullptr, 1, &o, &m), ZKL_EINVAL);
  EXPECT_EQ(zkl_multilock_new(c.get(), busy, 0, &o, &m), ZKL_EINVAL);
  EXPECT_EQ(zkl_multilock_acquire(nullptr, 1, 0), ZKL_EBADHANDLE);
  zkl_multilock *gone = ml.m;
  ASSERT_EQ(zkl_multilock_destroy(gone), 0);
  ml.m = nullptr;
  EXPECT_EQ(zkl_multilock_destroy(gone), ZKL_EBADHANDLE);
  int64_t ms = 7;
  EXPECT_EQ(zkl_multilock_valid_for(gone, &ms), ZKL_EBADHANDLE);
  EXPECT_EQ(ms, 0);
  ASSERT_EQ(zkl_lock_release(la.get(), 1), 0);
}

}  // namespace
