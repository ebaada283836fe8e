// Bad input: one test per row of the list. Each returns a clear error code,
// never crashes, and never leaves a node behind.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

zkl_lock_options LockOptions() {
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  return o;
}

TEST(BadInput, NullHandles) {
  EXPECT_EQ(zkl_client_destroy(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_fd(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_dispatch(nullptr, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_wait(nullptr, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_state(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_set_servers(nullptr, "127.0.0.1:2181"), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_follow_ensemble(nullptr, 1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_acquire(nullptr, 1, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_try_acquire(nullptr, 1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_acquire_async(nullptr, 1, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_release(nullptr, 1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_cancel(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_is_held(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_destroy(nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_election_acquire_async(nullptr, -1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_observer_destroy(nullptr), ZKL_EBADHANDLE);
  // A pointer that was never a handle.
  int not_a_handle = 0;
  EXPECT_EQ(zkl_lock_acquire(reinterpret_cast<zkl_lock *>(&not_a_handle), 1, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_state(reinterpret_cast<zkl_client *>(&not_a_handle)), ZKL_EBADHANDLE);
}

TEST(BadInput, NullArguments) {
  auto c = NewClient();
  zkl_lock_options o = LockOptions();
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_client_new(nullptr, nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_options_init(nullptr, 1), ZKL_EINVAL);
  EXPECT_EQ(zkl_lock_new(c.get(), nullptr, &o, &l), ZKL_EINVAL);
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", nullptr, &l), ZKL_EINVAL);
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", &o, nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_session_id(c.get(), nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_next_event(c.get(), nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_set_servers(c.get(), nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_follow_ensemble(c.get(), 2), ZKL_EINVAL);
  EXPECT_EQ(zkl_event_type(nullptr), ZKL_EINVAL);
  zkl_event_free(nullptr);  // accepted
  auto lock = NewLock(c.get(), UniquePath("nullargs"));
  EXPECT_EQ(zkl_lock_fencing_token(lock.get(), nullptr), ZKL_EINVAL);
  // Options: missing servers, unknown kind, bad lease count, newer version.
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  zkl_client *c2 = nullptr;
  EXPECT_EQ(zkl_client_new(&co, &c2), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION + 1), ZKL_EVERSION);
  o.kind = 77;
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", &o, &l), ZKL_EINVAL);
  o = LockOptions();
  o.kind = ZKL_LOCK_SEMAPHORE;
  o.max_leases = 0;
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", &o, &l), ZKL_EINVAL);
  o = LockOptions();
  o.version = 99;
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", &o, &l), ZKL_EVERSION);
  o = LockOptions();
  o.data = nullptr;
  o.data_len = 5;
  EXPECT_EQ(zkl_lock_new(c.get(), "/x", &o, &l), ZKL_EINVAL);
}

class BadPath : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPath, IsRejected) {
  auto c = NewClient();
  zkl_lock_options o = LockOptions();
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c.get(), GetParam().c_str(), &o, &l), ZKL_EBADPATH) << GetParam();
  EXPECT_EQ(l, nullptr);
  zkl_participants *p = nullptr;
  EXPECT_EQ(zkl_inspect(c.get(), GetParam().c_str(), InspectLock(ZKL_LOCK_FAIR, 1000), &p), ZKL_EBADPATH);
}

// Empty, relative, trailing slash, "//", "." and ".." segments, control
// characters (a NUL in the middle cannot be expressed in a C string: the
// bindings reject it before calling zkl), the root, ZooKeeper's own tree.
INSTANTIATE_TEST_SUITE_P(Rows, BadPath,
                         ::testing::Values("", "relative/path", "/trailing/", "/a//b", "/a/./b",
                                           "/a/../b", "/.", "/..", "/a/b\x01", "/tab\there", "/",
                                           "/zookeeper", "/zookeeper/quota"));

class BadServers : public ::testing::TestWithParam<std::string> {};

TEST_P(BadServers, AreRejectedBeforeConnecting) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = GetParam().c_str();
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&co, &c), ZKL_EINVAL) << GetParam();
  EXPECT_EQ(c, nullptr);
}

// zkl_client_set_servers takes the same rule.
TEST_P(BadServers, AreRejectedBySetServers) {
  ClientPtr client = NewClient();
  EXPECT_EQ(zkl_client_set_servers(client.get(), GetParam().c_str()), ZKL_EINVAL) << GetParam();
  EXPECT_EQ(zkl_client_state(client.get()), ZKL_SESSION_CONNECTED);
}

INSTANTIATE_TEST_SUITE_P(Rows, BadServers,
                         ::testing::Values("", "localhost", ":2181", "host:", "host:0", "host:65536",
                                           "host:12a", "a b:2181", "127.0.0.1:2181/chroot",
                                           "127.0.0.1:2181,", ",127.0.0.1:2181", "[::1:2181",
                                           "host:2181;rm -rf /"));

TEST(BadInput, ChrootMustBeAValidPath) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = "127.0.0.1:1";
  co.chroot = "no-slash";
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&co, &c), ZKL_EBADPATH);
}

TEST(BadInput, MissingChrootIsNotFound) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  co.servers = servers.c_str();
  std::string chroot = UniquePath("no-such-chroot");
  co.chroot = chroot.c_str();
  zkl_client *c = nullptr;
  ASSERT_EQ(zkl_client_new(&co, &c), 0);
  ClientPtr client(c);
  ASSERT_EQ(zkl_client_wait_connected(c, 10000), 0);
  auto l = NewLock(c, "/lock");
  EXPECT_EQ(zkl_lock_acquire(l.get(), 1, 5000), ZKL_ENOTFOUND);
  EXPECT_FALSE(Exists(chroot));
}

TEST(BadInput, DataOverOneMebibyte) {
  auto c = NewClient();
  std::string big(1024 * 1024 + 1, 'x');
  zkl_lock_options o = LockOptions();
  o.data = big.data();
  o.data_len = big.size();
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c.get(), "/zkl-test/big", &o, &l), ZKL_ETOOBIG);
  o.data_len = 1024 * 1024;  // exactly 1 MiB is accepted by zkl
  EXPECT_EQ(zkl_lock_new(c.get(), "/zkl-test/big", &o, &l), 0);
  EXPECT_EQ(zkl_lock_destroy(l), 0);
}

TEST(BadInput, DestroyedHandles) {
  zkl_client *c = NewClientRaw();
  std::string path = UniquePath("destroyed");
  zkl_lock_options o = LockOptions();
  zkl_lock *l = nullptr;
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  ASSERT_EQ(zkl_lock_acquire(l, 1, 5000), 0);
  ASSERT_EQ(zkl_lock_destroy(l), 0);  // releases
  EXPECT_EQ(zkl_lock_destroy(l), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_acquire(l, 1, 0), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_release(l, 1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_is_held(l), ZKL_EBADHANDLE);
  zkl_lock *l2 = nullptr;
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l2), 0);
  ASSERT_EQ(zkl_client_destroy(c), 0);
  EXPECT_EQ(zkl_client_destroy(c), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_state(c), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_set_servers(c, Server().connect().c_str()), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_follow_ensemble(c, 1), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), ZKL_EBADHANDLE);
  // A lock of a destroyed client: the client is closed under it.
  EXPECT_EQ(zkl_lock_acquire(l2, 1, 0), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_destroy(l2), 0);
  for (int spin = 0; !Children(path).empty(); ++spin) {
    ASSERT_LT(spin, 500);
    usleep(10000);
  }
}

TEST(BadInput, DoubleRelease) {
  auto c = NewClient();
  std::string path = UniquePath("double-release");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ENOTHELD);
  EXPECT_EQ(zkl_lock_release_async(l.get(), 1), ZKL_ENOTHELD);
  EXPECT_TRUE(Children(path).empty());
}

TEST(BadInput, ReleaseByNonOwner) {
  auto c = NewClient();
  std::string path = UniquePath("non-owner");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 2), ZKL_ENOTOWNER);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(BadInput, ReleaseWithoutAcquire) {
  auto c = NewClient();
  auto l = NewLock(c.get(), UniquePath("never"));
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ENOTHELD);
  EXPECT_EQ(zkl_lock_cancel(l.get()), ZKL_ENOTHELD);
  uint64_t t = 0;
  EXPECT_EQ(zkl_lock_fencing_token(l.get(), &t), ZKL_ENOTHELD);
}

TEST(BadInput, AcquireOnClosedClient) {
  zkl_client *c = NewClientRaw();
  std::string path = UniquePath("closed");
  zkl_lock_options o = LockOptions();
  zkl_lock *l = nullptr;
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  ASSERT_EQ(zkl_client_close(c), 0);
  EXPECT_EQ(zkl_lock_acquire(l, 1, 1000), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_try_acquire(l, 1), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_acquire_async(l, 1, 1000), ZKL_ECLOSED);
  zkl_lock *l2 = nullptr;
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &o, &l2), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_wait_connected(c, 100), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_set_servers(c, Server().connect().c_str()), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_follow_ensemble(c, 1), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_destroy(l), 0);
  EXPECT_EQ(zkl_client_destroy(c), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(BadInput, UnreachableServerTimesOut) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = "127.0.0.1:1";  // nothing listens there
  zkl_client *c = nullptr;
  ASSERT_EQ(zkl_client_new(&co, &c), 0);
  EXPECT_EQ(zkl_client_wait_connected(c, 300), ZKL_ETIMEDOUT);
  zkl_lock_options o = LockOptions();
  zkl_lock *l = nullptr;
  ASSERT_EQ(zkl_lock_new(c, "/zkl-test/unreachable", &o, &l), 0);
  EXPECT_EQ(zkl_lock_try_acquire(l, 1), ZKL_ECONNECTION);
  EXPECT_EQ(zkl_lock_acquire(l, 1, 200), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_lock_destroy(l), 0);
  EXPECT_EQ(zkl_client_destroy(c), 0);
}

TEST(BadInput, StrerrorNamesEveryCode) {
  for (int code = 0; code >= ZKL_ERANGE; --code) {
    EXPECT_STRNE(zkl_strerror(code), "unknown zkl error") << code;
  }
  EXPECT_STREQ(zkl_strerror(-1000), "unknown zkl error");
  EXPECT_EQ(zkl_version(), ZKL_VERSION_MAJOR * 10000 + ZKL_VERSION_MINOR * 100 + ZKL_VERSION_PATCH);
}

}  // namespace
