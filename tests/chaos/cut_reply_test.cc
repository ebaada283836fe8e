// Regression tests for core bugs the chaos run found around a connection
// cut right after a request (the request succeeds or fails on the server,
// the client only sees a connection loss). Standalone server.
//
// CutAfterCreate failed before the core fix of 6a74101, CutAfterDelete
// before 46abf8c (tests/chaos/README.md, "Core bugs found").
#include <gtest/gtest.h>
#include <zkl.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "fault_proxy.h"
#include "history.h"
#include "zk_harness.h"

namespace {

zkl_test::ZkServer &Server() {
  static std::unique_ptr<zkl_test::ZkServer> s = [] {
    zkl_test::QuietZkClientLogs();
    return zkl_test::ZkServer::StartStandalone();
  }();
  return *s;
}

struct ClientDeleter {
  void operator()(zkl_client *c) const { zkl_client_destroy(c); }
};
using Client = std::unique_ptr<zkl_client, ClientDeleter>;
struct LockDeleter {
  void operator()(zkl_lock *l) const { zkl_lock_destroy(l); }
};
using Lock = std::unique_ptr<zkl_lock, LockDeleter>;

Client Connect(const std::string &servers, int session_timeout_ms = 4000) {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = servers.c_str();
  o.session_timeout_ms = session_timeout_ms;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&o, &c), 0);
  if (c != nullptr) {
    EXPECT_EQ(zkl_client_wait_connected(c, 20000), 0);
  }
  return Client(c);
}

std::string NewPath(const std::string &name) {
  static std::atomic<int> n{0};
  return "/zkl-cut/" + std::to_string(getpid()) + "-" + std::to_string(++n) + "-" + name;
}

// Bug 1: after a cut right after the create, the node is found again by its
// protected prefix (Adopt) and its ownership/czxid are read with getData;
// when a second children reply arrives before that answer, Evaluate grants
// the lock with czxid_ still 0: the acquire succeeds with fencing token 0
// (on a node whose ownership was not verified yet). About 1 in 4 rounds.
TEST(CutAfterCreate, FencingTokenIsNeverZero) {
  zkl_test::FaultProxy proxy;
  proxy.Start(Server().connect());
  Client c = Connect(proxy.connect());
  int zero = 0;
  for (int i = 0; i < 30; ++i) {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    lo.kind = i % 2 ? ZKL_LOCK_REENTRANT : ZKL_LOCK_FAIR;
    zkl_lock *l = nullptr;
    std::string path = NewPath("token");
    ASSERT_EQ(zkl_lock_new(c.get(), path.c_str(), &lo, &l), 0);
    ASSERT_EQ(zkl_lock_acquire(l, 1, 10000), 0);  // the parent exists from now on
    ASSERT_EQ(zkl_lock_release(l, 1), 0);
    proxy.CutAfterNextCreate();
    ASSERT_EQ(zkl_lock_acquire(l, 1, 10000), 0) << "round " << i;
    uint64_t token = 0;
    EXPECT_EQ(zkl_lock_fencing_token(l, &token), 0);
    if (token == 0) ++zero;
    EXPECT_EQ(zkl_lock_release(l, 1), 0);
    zkl_lock_destroy(l);
  }
  EXPECT_EQ(zero, 0) << zero << " of 30 acquisitions got fencing token 0";
}

// Bug 2: the first acquire on a path whose parent does not exist yet: the
// create fails with NONODE on the server, the reply is cut, the client
// looks for its node with getChildren, which answers NONODE too — and
// nothing else is ever sent: the acquire waits until its timeout (forever
// with a negative timeout) on a lock nobody holds.
TEST(CutAfterCreate, FirstAcquireOnNewPathCompletes) {
  zkl_test::FaultProxy proxy;
  proxy.Start(Server().connect());
  Client c = Connect(proxy.connect());
  for (int i = 0; i < 5; ++i) {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    zkl_lock *l = nullptr;
    std::string path = NewPath("fresh");
    ASSERT_EQ(zkl_lock_new(c.get(), path.c_str(), &lo, &l), 0);
    proxy.CutAfterNextCreate();
    int64_t t0 = zkl_chaos::MonotonicNs();
    int rc = zkl_lock_acquire(l, 1, 10000);
    EXPECT_EQ(rc, 0) << "round " << i << ": uncontended acquire after a cut create: "
                     << zkl_strerror(rc) << " after "
                     << (zkl_chaos::MonotonicNs() - t0) / 1000000 << " ms";
    if (rc == 0) {
      EXPECT_EQ(zkl_lock_release(l, 1), 0);
    }
    zkl_lock_destroy(l);
  }
}

Lock NonfairLock(zkl_client *c, const std::string &path) {
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.kind = ZKL_LOCK_NONFAIR;
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &lo, &l), 0);
  return Lock(l);
}

// Any LOST among the events queued on `c` so far.
bool SawLost(zkl_client *c) {
  bool lost = false;
  zkl_event *ev = nullptr;
  while (zkl_client_next_event(c, &ev) == ZKL_OK) {
    if (zkl_event_type(ev) == ZKL_EVENT_LOST) lost = true;
    zkl_event_free(ev);
  }
  return lost;
}

// Bug 3: a non-fair lock's node has one fixed name, so when the reply to
// its holder's delete was lost, the delete retried after the reconnect
// could delete the node of the next holder: two processes held the lock.
// The retry must check that the node is still this session's.
TEST(CutAfterDelete, RetriedDeleteSparesTheNextHolder) {
  zkl_test::FaultProxy proxy;
  proxy.Start(Server().connect());
  Client a = Connect(proxy.connect(), 10000);  // no expiry helps the test
  Client b = Connect(Server().connect());
  Client c = Connect(Server().connect());
  std::string path = "/zkl-cut-delete/" + std::to_string(getpid());
  Lock la = NonfairLock(a.get(), path), lb = NonfairLock(b.get(), path), lc = NonfairLock(c.get(), path);

  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 10000), 0);
  proxy.CutAfterNextDeleteThenBlackhole();
  // The delete reaches the server, its reply does not: the release ends with
  // the connection (bounded), its node's fate unknown to A.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(zkl_lock_release(la.get(), 1), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
  ASSERT_EQ(proxy.stats().cut, 1u) << "the delete was not cut";

  // B takes the lock: the fixed node exists again, now B's.
  ASSERT_EQ(zkl_lock_acquire(lb.get(), 1, 10000), 0);

  // A comes back and retries its delete; then two more round trips of A, so
  // that a wrong delete would have reached the server before we look.
  proxy.SetBlackhole(false);
  ASSERT_EQ(zkl_client_wait_connected(a.get(), 20000), 0);
  Lock other = NonfairLock(a.get(), path + "-other");
  ASSERT_EQ(zkl_lock_acquire(other.get(), 1, 10000), 0);
  ASSERT_EQ(zkl_lock_release(other.get(), 1), 0);

  // B still holds: C cannot take it, and B heard no loss.
  EXPECT_EQ(zkl_lock_try_acquire(lc.get(), 1), ZKL_EAGAIN) << "A's retry deleted B's node";
  EXPECT_EQ(zkl_lock_is_held(lb.get()), 1);
  EXPECT_FALSE(SawLost(b.get()));
  EXPECT_EQ(zkl_lock_release(lb.get(), 1), 0);
}

}  // namespace
