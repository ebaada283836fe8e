// Digest authentication and creator-only ACLs: another authenticated
// identity can see a holder's node but neither delete nor change it, and
// cannot queue on the lock; the same identity (the service's account) can.
#include <gtest/gtest.h>
#include <zookeeper.h>

#include <chrono>
#include <string>
#include <thread>

#include "test_support.h"

using namespace zkl_test;

namespace {

zkl_client *NewAuthClient(const char *digest) {
  zkl_client_options opts;
  zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  opts.servers = servers.c_str();
  opts.digest_auth = digest;
  opts.acl = ZKL_ACL_CREATOR;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&opts, &c), 0);
  EXPECT_EQ(zkl_client_wait_connected(c, 20000), 0);
  return c;
}

// A raw ZooKeeper handle authenticated as `digest`.
zhandle_t *RawAs(const char *digest) {
  zhandle_t *zh = zookeeper_init(Server().connect().c_str(), nullptr, 10000, nullptr, nullptr, 0);
  for (int i = 0; zoo_state(zh) != ZOO_CONNECTED_STATE; ++i) {
    if (i > 2000) return zh;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  zoo_add_auth(zh, "digest", digest, static_cast<int>(strlen(digest)), nullptr, nullptr);
  return zh;
}

TEST(Acl, OtherIdentityCannotDeleteOrQueue) {
  std::string path = UniquePath("acl");
  ClientPtr alice(NewAuthClient("alice:secret"));
  auto l = NewLock(alice.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  auto kids = Children(path);  // world-readable
  ASSERT_EQ(kids.size(), 1u);
  std::string node = path + "/" + kids[0];

  zhandle_t *mallory = RawAs("mallory:guess");
  EXPECT_EQ(zoo_delete(mallory, node.c_str(), -1), ZNOAUTH);
  EXPECT_EQ(zoo_set(mallory, node.c_str(), "x", 1, -1), ZNOAUTH);
  EXPECT_EQ(zoo_delete(mallory, path.c_str(), -1), ZNOAUTH);
  zookeeper_close(mallory);
  EXPECT_TRUE(Exists(node));

  // Mallory's zkl client cannot create a node under the lock.
  ClientPtr mallory_client(NewAuthClient("mallory:guess"));
  auto ml = NewLock(mallory_client.get(), path);
  EXPECT_EQ(zkl_lock_acquire(ml.get(), 1, 5000), ZKL_EAUTH);
  EXPECT_EQ(Children(path).size(), 1u);

  // Another client of the same identity queues and takes over.
  ClientPtr alice2(NewAuthClient("alice:secret"));
  auto l2 = NewLock(alice2.get(), path);
  ASSERT_GT(zkl_lock_acquire_async(l2.get(), 1, 10000), 0);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(alice2.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(l2.get(), 1), 0);
}

TEST(Acl, ProtectedParentGivesAuthError) {
  std::string parent = UniquePath("acl-parent");
  ClientPtr alice(NewAuthClient("alice:secret"));
  auto l = NewLock(alice.get(), parent + "/x");
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);  // creates parent as alice
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  ClientPtr mallory(NewAuthClient("mallory:guess"));
  auto m = NewLock(mallory.get(), parent + "/y");  // /y is missing: needs a create under alice's node
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zkl_lock_acquire(m.get(), 1, 5000), ZKL_EAUTH);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(Acl, CreatorAclNeedsCredentials) {
  zkl_client_options opts;
  zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  opts.servers = servers.c_str();
  opts.acl = ZKL_ACL_CREATOR;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&opts, &c), ZKL_EINVAL);
  opts.digest_auth = "no-colon";
  EXPECT_EQ(zkl_client_new(&opts, &c), ZKL_EINVAL);
}

}  // namespace
