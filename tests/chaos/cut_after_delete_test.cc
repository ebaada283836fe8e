// Regression test for a mutual-exclusion bug the chaos run found under load
// (fixed in 46abf8c): a non-fair lock's node has one fixed name, so when the
// reply to its holder's delete is lost, the delete retried after the
// reconnect could delete the node of the next holder, and two processes
// held the lock. The retry must check that the node is still this session's.
// Standalone server; the holder talks through a FaultProxy.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zkl.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "fault_proxy.h"
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

Client Connect(const std::string &servers) {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = servers.c_str();
  o.session_timeout_ms = 10000;  // longer than the test: no expiry helps it
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&o, &c), 0);
  if (c != nullptr) {
    EXPECT_EQ(zkl_client_wait_connected(c, 20000), 0);
  }
  return Client(c);
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

TEST(CutAfterDelete, RetriedDeleteSparesTheNextHolder) {
  zkl_test::FaultProxy proxy;
  proxy.Start(Server().connect());
  Client a = Connect(proxy.connect());
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
