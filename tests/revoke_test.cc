// Revocation (issue 16): anyone asks a holder to let go (Curator's marker in
// the holder's node); revocable holders hear REVOKE_REQUESTED and decide, or
// let zkl release for them. And lease-time locks: a hold that ends by itself.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

using namespace zkl_test;

namespace {

LockPtr NewRevocableLock(zkl_client *c, const std::string &path, int on_revoke, int kind = ZKL_LOCK_FAIR,
                         int max_leases = 1) {
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  o.kind = kind;
  o.max_leases = max_leases;
  o.on_revoke = on_revoke;
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  return LockPtr(l);
}

TEST(Revoke, RevocableHolderIsAskedAndDecides) {
  auto holder = NewClient(), other = NewClient();
  std::string path = UniquePath("revoke-notify");
  auto l = NewRevocableLock(holder.get(), path, ZKL_REVOKE_NOTIFY);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t token = 0;
  ASSERT_EQ(zkl_lock_fencing_token(l.get(), &token), 0);
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), nullptr), 1);
  auto ev = WaitForEvent(holder.get(), ZKL_EVENT_REVOKE_REQUESTED, 5000);
  ASSERT_TRUE(ev);
  uint64_t ev_token = 0;
  zkl_event_fencing_token(ev.get(), &ev_token);
  EXPECT_EQ(ev_token, token);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);  // cooperative: still held until it lets go
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(Revoke, ReleaseOnRequestHandsTheLockOn) {
  auto holder = NewClient(), waiter = NewClient(), other = NewClient();
  std::string path = UniquePath("revoke-release");
  auto l = NewRevocableLock(holder.get(), path, ZKL_REVOKE_RELEASE);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  auto w = NewLock(waiter.get(), path);
  ASSERT_GT(zkl_lock_acquire_async(w.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), nullptr), 1);
  ASSERT_TRUE(WaitForEvent(holder.get(), ZKL_EVENT_REVOKE_REQUESTED, 5000));
  auto lost = WaitForEvent(holder.get(), ZKL_EVENT_LOST, 5000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_EREVOKED);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  ASSERT_TRUE(WaitForEvent(waiter.get(), ZKL_EVENT_ACQUIRED, 5000));
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ELOST);  // told once
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ENOTHELD);
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
}

TEST(Revoke, NonRevocableHolderIsNotDisturbed) {
  auto holder = NewClient(), other = NewClient();
  std::string path = UniquePath("revoke-ignore");
  auto l = NewLock(holder.get(), path);  // on_revoke IGNORE (the default): no watch
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), nullptr), 1);
  EXPECT_FALSE(WaitForEvent(holder.get(), ZKL_EVENT_REVOKE_REQUESTED, 500));
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

TEST(Revoke, OneNamedHolderOfASemaphore) {
  auto a = NewClient(), b = NewClient(), other = NewClient();
  std::string path = UniquePath("revoke-semaphore");
  auto la = NewRevocableLock(a.get(), path, ZKL_REVOKE_NOTIFY, ZKL_LOCK_SEMAPHORE, 2);
  auto lb = NewRevocableLock(b.get(), path, ZKL_REVOKE_NOTIFY, ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire(lb.get(), 1, 5000), 0);
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(other.get(), path.c_str(), InspectLock(ZKL_LOCK_SEMAPHORE), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 2);
  const char *second = nullptr;
  ASSERT_EQ(zkl_participants_name(p, 1, &second), 0);  // b's node (queue order)
  std::string name = second;
  zkl_participants_free(p);
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectLock(ZKL_LOCK_SEMAPHORE), name.c_str()), 1);
  ASSERT_TRUE(WaitForEvent(b.get(), ZKL_EVENT_REVOKE_REQUESTED, 5000));
  EXPECT_FALSE(WaitForEvent(a.get(), ZKL_EVENT_REVOKE_REQUESTED, 300));
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectLock(ZKL_LOCK_SEMAPHORE), "no-such-node"),
            ZKL_ENOTFOUND);
  EXPECT_EQ(zkl_revoke(other.get(), UniquePath("nobody").c_str(), InspectLock(ZKL_LOCK_FAIR), nullptr), 0);
  EXPECT_EQ(zkl_revoke(other.get(), "bad//path", InspectLock(ZKL_LOCK_FAIR), nullptr), ZKL_EBADPATH);
  EXPECT_EQ(zkl_revoke(nullptr, path.c_str(), InspectLock(ZKL_LOCK_FAIR), nullptr), ZKL_EBADHANDLE);
  ASSERT_EQ(zkl_lock_release(la.get(), 1), 0);
  ASSERT_EQ(zkl_lock_release(lb.get(), 1), 0);
}

TEST(Revoke, LeaderReleasesOnRequest) {
  auto c1 = NewClient(), c2 = NewClient(), other = NewClient();
  std::string path = UniquePath("revoke-leader");
  zkl_election_options o;
  zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
  o.id = "alpha";
  o.on_revoke = ZKL_REVOKE_RELEASE;
  zkl_election *a = nullptr, *b = nullptr;
  ASSERT_EQ(zkl_election_new(c1.get(), path.c_str(), &o, &a), 0);
  o.id = "beta";
  o.on_revoke = ZKL_REVOKE_IGNORE;
  ASSERT_EQ(zkl_election_new(c2.get(), path.c_str(), &o, &b), 0);
  ASSERT_EQ(zkl_election_acquire(a, 5000), 0);
  ASSERT_GT(zkl_election_acquire_async(b, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  EXPECT_EQ(zkl_revoke(other.get(), path.c_str(), InspectElection(ZKL_ELECTION_FAIR), nullptr), 1);
  auto lost = WaitForEvent(c1.get(), ZKL_EVENT_LOST, 5000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_EREVOKED);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_is_leader(a), 0);
  EXPECT_EQ(zkl_election_release(b), 0);
  zkl_election_destroy(a);
  zkl_election_destroy(b);
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

// A lease-time lock: the hold ends after max_hold_ms, zkl deletes the node
// and says LOST with ZKL_EMAXHOLD; the next holder gets it.
TEST(MaxHold, HoldEndsByItselfAndTheNextHolderGetsIt) {
  auto c = NewClient(), c2 = NewClient();
  std::string path = UniquePath("max-hold");
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  o.max_hold_ms = 300;
  zkl_lock *raw = nullptr;
  ASSERT_EQ(zkl_lock_new(c.get(), path.c_str(), &o, &raw), 0);
  LockPtr l(raw);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  auto w = NewLock(c2.get(), path);
  ASSERT_GT(zkl_lock_acquire_async(w.get(), 1, 10000), 0);
  auto lost = WaitForEvent(c.get(), ZKL_EVENT_LOST, 5000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_EMAXHOLD);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ELOST);
  // A new acquisition gets a fresh budget.
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  // Bad values are refused.
  o.max_hold_ms = -1;
  EXPECT_EQ(zkl_lock_new(c.get(), path.c_str(), &o, &raw), ZKL_EINVAL);
}

}  // namespace
