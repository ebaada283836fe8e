// The event fd and dispatch: level-triggered readiness, callbacks only on
// the dispatching thread, and re-entrancy (release, destroy in a callback).
#include <gtest/gtest.h>
#include <poll.h>

#include <thread>

#include "test_support.h"

using namespace zkl_test;

namespace {

bool Readable(int fd, int timeout_ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

// Runs dispatch from a poll loop until `done` or the timeout.
template <typename Done>
bool PollLoop(zkl_client *c, Done done, int timeout_ms = 10000) {
  int fd = zkl_client_fd(c);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (Readable(fd, 50)) zkl_client_dispatch(c, 0);
  }
  return true;
}

TEST(EventFd, ReadableExactlyWhileEventsArePending) {
  auto c = NewClient();
  int fd = zkl_client_fd(c.get());
  ASSERT_GE(fd, 0);
  while (NextEvent(c.get(), 0)) {}  // session events
  EXPECT_FALSE(Readable(fd, 0));
  auto l1 = NewLock(c.get(), UniquePath("fd1"));
  auto l2 = NewLock(c.get(), UniquePath("fd2"));
  ASSERT_GT(zkl_lock_acquire_async(l1.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(l2.get(), 1, 5000), 0);
  ASSERT_TRUE(Readable(fd, 5000));
  // Wait for both, then take one: still readable (level-triggered).
  for (int spin = 0; spin < 500; ++spin) {
    if (zkl_lock_is_held(l1.get()) == 1 && zkl_lock_is_held(l2.get()) == 1) break;
    usleep(10000);
  }
  auto first = NextEvent(c.get(), 0);
  ASSERT_TRUE(first);
  EXPECT_TRUE(Readable(fd, 0));
  auto second = NextEvent(c.get(), 0);
  ASSERT_TRUE(second);
  EXPECT_FALSE(Readable(fd, 0));
  EXPECT_EQ(zkl_client_fd(c.get()), fd);  // stable
  zkl_lock_release(l1.get(), 1);
  zkl_lock_release(l2.get(), 1);
}

TEST(EventFd, WaitAndWakeup) {
  auto c = NewClient();
  while (NextEvent(c.get(), 0)) {}
  EXPECT_EQ(zkl_client_wait(c.get(), 0), 0);
  std::thread t([&] {
    usleep(50000);
    zkl_client_wakeup(c.get());
  });
  EXPECT_EQ(zkl_client_wait(c.get(), 10000), 0);  // woken, no event
  t.join();
}

struct CallbackState {
  std::thread::id thread;
  int calls = 0;
  bool wrong_thread = false;
  zkl_lock *lock = nullptr;
  int release_rc = -100;
  int destroy_rc = -100;
};

TEST(Dispatch, CallbacksRunOnTheDispatchingThread) {
  auto c = NewClient();
  CallbackState st;
  st.thread = std::this_thread::get_id();
  auto cb = [](const zkl_event *ev, void *ud) {
    auto *s = static_cast<CallbackState *>(ud);
    if (std::this_thread::get_id() != s->thread) s->wrong_thread = true;
    if (zkl_event_type(ev) == ZKL_EVENT_ACQUIRED) s->calls++;
  };
  auto l = NewLock(c.get(), UniquePath("thread"), ZKL_LOCK_FAIR, 1, cb, &st);
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 1, 5000), 0);
  ASSERT_TRUE(PollLoop(c.get(), [&] { return st.calls == 1; }));
  EXPECT_FALSE(st.wrong_thread);
  zkl_lock_release(l.get(), 1);
}

TEST(Dispatch, CallbackMayRelease) {
  auto c = NewClient();
  std::string path = UniquePath("cb-release");
  CallbackState st;
  auto cb = [](const zkl_event *ev, void *ud) {
    auto *s = static_cast<CallbackState *>(ud);
    if (zkl_event_type(ev) == ZKL_EVENT_ACQUIRED) s->release_rc = zkl_lock_release(s->lock, 1);
  };
  auto l = NewLock(c.get(), path, ZKL_LOCK_FAIR, 1, cb, &st);
  st.lock = l.get();
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 1, 5000), 0);
  ASSERT_TRUE(PollLoop(c.get(), [&] { return st.release_rc != -100; }));
  EXPECT_EQ(st.release_rc, 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(Dispatch, CallbackMayDestroyItsLock) {
  auto c = NewClient();
  std::string path = UniquePath("cb-destroy");
  CallbackState st;
  auto cb = [](const zkl_event *ev, void *ud) {
    auto *s = static_cast<CallbackState *>(ud);
    if (zkl_event_type(ev) == ZKL_EVENT_ACQUIRED) {
      s->destroy_rc = zkl_lock_destroy(s->lock);
      // The event stays readable after its handle is gone.
      uint64_t token = 0;
      zkl_event_fencing_token(ev, &token);
      s->calls = token > 0 ? 1 : -1;
    }
  };
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  o.cb = cb;
  o.user_data = &st;
  ASSERT_EQ(zkl_lock_new(c.get(), path.c_str(), &o, &st.lock), 0);
  ASSERT_GT(zkl_lock_acquire_async(st.lock, 1, 5000), 0);
  ASSERT_TRUE(PollLoop(c.get(), [&] { return st.destroy_rc != -100; }));
  EXPECT_EQ(st.destroy_rc, 0);
  EXPECT_EQ(st.calls, 1);
  EXPECT_EQ(zkl_lock_is_held(st.lock), ZKL_EBADHANDLE);
  for (int spin = 0; !Children(path).empty(); ++spin) {
    ASSERT_LT(spin, 500);
    usleep(10000);
  }
}

TEST(Dispatch, CallbackMayDestroyTheClient) {
  zkl_client *c = NewClientRaw();
  std::string path = UniquePath("cb-destroy-client");
  struct State {
    zkl_client *client;
    int rc = -100;
  } st{c};
  auto cb = [](const zkl_event *ev, void *ud) {
    auto *s = static_cast<State *>(ud);
    if (zkl_event_type(ev) == ZKL_EVENT_ACQUIRED) s->rc = zkl_client_destroy(s->client);
  };
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  o.cb = cb;
  o.user_data = &st;
  zkl_lock *l = nullptr;
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  while (NextEvent(c, 0)) {}  // session events
  ASSERT_GT(zkl_lock_acquire_async(l, 1, 5000), 0);
  ASSERT_EQ(zkl_client_wait(c, 5000), 1);
  // Dispatch must notice the destroy rather than touch the freed client.
  EXPECT_GE(zkl_client_dispatch(c, 0), 1);
  EXPECT_EQ(st.rc, 0);
  EXPECT_EQ(zkl_client_dispatch(c, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_acquire(l, 1, 0), ZKL_ECLOSED);  // outlives its client
  EXPECT_EQ(zkl_lock_destroy(l), 0);
  for (int spin = 0; !Children(path).empty(); ++spin) {
    ASSERT_LT(spin, 500);
    usleep(10000);
  }
}

TEST(Dispatch, MaxEventsLimitsOneCall) {
  auto c = NewClient();
  int calls = 0;
  auto cb = [](const zkl_event *, void *ud) { ++*static_cast<int *>(ud); };
  auto l1 = NewLock(c.get(), UniquePath("max1"), ZKL_LOCK_FAIR, 1, cb, &calls);
  auto l2 = NewLock(c.get(), UniquePath("max2"), ZKL_LOCK_FAIR, 1, cb, &calls);
  ASSERT_EQ(zkl_lock_acquire(l1.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire(l2.get(), 1, 5000), 0);
  while (NextEvent(c.get(), 0)) {}
  uint64_t queued = 0;
  queued = StatCounter(c.get(), "events");
  ASSERT_GT(zkl_lock_release_async(l1.get(), 1), 0);
  ASSERT_GT(zkl_lock_release_async(l2.get(), 1), 0);
  for (int spin = 0;; ++spin) {  // both RELEASED events queued
    ASSERT_LT(spin, 500);
    uint64_t n = 0;
    n = StatCounter(c.get(), "events");
    if (n == queued + 2) break;
    usleep(10000);
  }
  EXPECT_EQ(zkl_client_dispatch(c.get(), 1), 1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(zkl_client_dispatch(c.get(), 0), 1);
  EXPECT_EQ(calls, 2);
}

}  // namespace
