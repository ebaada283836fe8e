// Guarded writes (zkl_*_write), the leader's proclaim and zkl_fence_check,
// against a real ZooKeeper: operations land only while the hold is real at
// the quorum, and every refusal writes nothing.
#include <cstring>
#include <string>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

constexpr uint64_t kOwner = 7;

struct OpsPtr {
  zkl_ops *o = nullptr;
  OpsPtr() { EXPECT_EQ(zkl_ops_new(&o), 0); }
  ~OpsPtr() { zkl_ops_free(o); }
  OpsPtr(const OpsPtr &) = delete;
  OpsPtr &operator=(const OpsPtr &) = delete;
};

int Create(zkl_ops *o, const std::string &path, const std::string &data, int flags = 0) {
  return zkl_ops_create(o, path.c_str(), data.data(), data.size(), flags);
}
int Set(zkl_ops *o, const std::string &path, const std::string &data, int version = -1) {
  return zkl_ops_set(o, path.c_str(), data.data(), data.size(), version);
}

std::string CreatedPath(const zkl_ops *o, size_t i) {
  char buf[512];
  int n = zkl_ops_path(o, i, buf, sizeof buf);
  return n >= 0 ? std::string(buf) : "<error " + std::to_string(n) + ">";
}

// A client whose I/O runs only when it is driven (ZKL_IO_HOST): nothing it
// has been sent is read until a call of ours drives it.
ClientPtr HostClient() {
  zkl_client_options o;
  EXPECT_EQ(zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION), 0);
  std::string connect = Server().connect();
  o.servers = connect.c_str();
  o.session_timeout_ms = 6000;
  o.io = ZKL_IO_HOST;
  ClientPtr c;
  EXPECT_EQ(NewClientWith(o, &c), 0);
  EXPECT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  return c;
}

}  // namespace

TEST(GuardedWrite, AppliesEveryOperationWhileHeld) {
  auto c = NewClient();
  std::string path = UniquePath("gw-apply");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);

  OpsPtr ops;
  ASSERT_EQ(Create(ops.o, path + "/state", "v1"), 0);
  ASSERT_EQ(Set(ops.o, path + "/state", "v2", 0), 0);
  ASSERT_EQ(Create(ops.o, path + "/state/item-", "x", ZKL_CREATE_SEQUENTIAL), 0);
  ASSERT_EQ(zkl_ops_check(ops.o, (path + "/state").c_str(), 1), 0);
  EXPECT_EQ(zkl_ops_count(ops.o), 4);
  ASSERT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), 0);
  EXPECT_EQ(zkl_ops_failed(ops.o), -1);
  EXPECT_EQ(CreatedPath(ops.o, 0), path + "/state");
  EXPECT_EQ(CreatedPath(ops.o, 2).rfind(path + "/state/item-", 0), 0u) << CreatedPath(ops.o, 2);
  EXPECT_EQ(zkl_ops_path(ops.o, 1, nullptr, 0), ZKL_ENOTFOUND);  // a set creates nothing
  int32_t version = -5;
  ASSERT_EQ(zkl_ops_version(ops.o, 1, &version), 0);
  EXPECT_EQ(version, 1);
  EXPECT_EQ(zkl_ops_path(ops.o, 9, nullptr, 0), ZKL_ERANGE);
  EXPECT_EQ(Data(path + "/state"), "v2");
  EXPECT_TRUE(Exists(CreatedPath(ops.o, 2)));

  // The lock's queue ignores the data beside it: a second contender still
  // waits, and gets the lock on release.
  auto c2 = NewClient();
  auto l2 = NewLock(c2.get(), path);
  EXPECT_EQ(zkl_lock_try_acquire(l2.get(), kOwner), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_release(l.get(), kOwner), 0);
  EXPECT_EQ(zkl_lock_acquire(l2.get(), kOwner, 5000), 0);
  EXPECT_EQ(zkl_lock_release(l2.get(), kOwner), 0);
}

TEST(GuardedWrite, AFailedOperationWritesNothingAndSaysWhich) {
  auto c = NewClient();
  std::string path = UniquePath("gw-fail");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
  {
    OpsPtr setup;
    ASSERT_EQ(Create(setup.o, path + "/data", "0"), 0);
    ASSERT_EQ(zkl_lock_write(l.get(), kOwner, setup.o), 0);
  }
  struct Case {
    const char *what;
    int expected;
    void (*add)(zkl_ops *, const std::string &);
  } cases[] = {
      {"exists", ZKL_EEXISTS, [](zkl_ops *o, const std::string &p) { Create(o, p + "/data", "again"); }},
      {"version", ZKL_EBADVERSION, [](zkl_ops *o, const std::string &p) { Set(o, p + "/data", "x", 41); }},
      {"missing", ZKL_ENOTFOUND, [](zkl_ops *o, const std::string &p) { Set(o, p + "/nothing", "x"); }},
      {"check", ZKL_EBADVERSION,
       [](zkl_ops *o, const std::string &p) { zkl_ops_check(o, (p + "/data").c_str(), 3); }},
  };
  for (const Case &k : cases) {
    OpsPtr ops;
    ASSERT_EQ(Create(ops.o, path + "/first", "must not stay"), 0);
    k.add(ops.o, path);
    EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), k.expected) << k.what;
    EXPECT_EQ(zkl_ops_failed(ops.o), 1) << k.what;
    EXPECT_FALSE(Exists(path + "/first")) << k.what;
    EXPECT_EQ(Data(path + "/data"), "0") << k.what;
  }
  // A list used again: a refusal before sending leaves no stale results.
  OpsPtr again;
  ASSERT_EQ(Create(again.o, path + "/data", "x"), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, again.o), ZKL_EEXISTS);
  EXPECT_EQ(zkl_ops_failed(again.o), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner + 1, again.o), ZKL_ENOTOWNER);
  EXPECT_EQ(zkl_ops_failed(again.o), -1);
  // A delete of a node with children.
  OpsPtr ops;
  ASSERT_EQ(Create(ops.o, path + "/data/child", ""), 0);
  ASSERT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), 0);
  OpsPtr del;
  ASSERT_EQ(zkl_ops_delete(del.o, (path + "/data").c_str(), ZKL_ANY_VERSION), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, del.o), ZKL_ENOTEMPTY);
  EXPECT_EQ(zkl_ops_failed(del.o), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), kOwner), 0);
}

// The guard is decided by the quorum, not by the client's belief: a holder
// whose node was deleted and whose lock another client now holds writes
// nothing, although it had not yet heard of the loss when it sent.
TEST(GuardedWrite, TheQuorumRefusesAHolderThatIsNoLongerOne) {
  for (int kind : {ZKL_LOCK_FAIR, ZKL_LOCK_SEMAPHORE}) {
    SCOPED_TRACE(kind);
    auto a = HostClient();
    std::string path = UniquePath("gw-stale");
    auto la = NewLock(a.get(), path, kind);
    ASSERT_EQ(zkl_lock_acquire(la.get(), kOwner, 5000), 0);
    uint64_t token_a = Token(la.get());
    std::vector<std::string> nodes = Children(path);
    ASSERT_EQ(nodes.size(), 1u);
    // Nothing drives a's I/O now: the deletion's watch stays unread.
    DeleteRecursive(path + "/" + nodes[0]);
    auto b = NewClient();
    auto lb = NewLock(b.get(), path, kind);
    ASSERT_EQ(zkl_lock_acquire(lb.get(), kOwner, 5000), 0);
    EXPECT_GT(Token(lb.get()), token_a);
    EXPECT_EQ(zkl_lock_hold_count(la.get()), 1);  // a still believes it holds

    OpsPtr ops;
    ASSERT_EQ(Create(ops.o, path + "/owner", "a"), 0);
    EXPECT_EQ(zkl_lock_write(la.get(), kOwner, ops.o), ZKL_ELOST);
    EXPECT_EQ(zkl_ops_failed(ops.o), -1);
    EXPECT_FALSE(Exists(path + "/owner"));
    // The real holder writes.
    OpsPtr mine;
    ASSERT_EQ(Create(mine.o, path + "/owner", "b"), 0);
    EXPECT_EQ(zkl_lock_write(lb.get(), kOwner, mine.o), 0);
    EXPECT_EQ(Data(path + "/owner"), "b");
    // The refused guard told a's lock that its node is gone: LOST.
    EXPECT_EQ(zkl_lock_hold_count(la.get()), 0);
    EXPECT_EQ(zkl_lock_release(la.get(), kOwner), ZKL_ELOST);
    EXPECT_EQ(zkl_lock_release(lb.get(), kOwner), 0);
  }
}

TEST(GuardedWrite, RefusesWithoutAHoldAndWritesNothing) {
  auto c = NewClient();
  std::string path = UniquePath("gw-unheld");
  auto l = NewLock(c.get(), path);
  OpsPtr ops;
  ASSERT_EQ(Create(ops.o, path + "/x", "1"), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), ZKL_ENOTHELD);    // never held
  EXPECT_EQ(zkl_lock_write_async(l.get(), kOwner, ops.o), ZKL_ENOTHELD);
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner + 1, ops.o), ZKL_ENOTOWNER);  // wrong owner
  ASSERT_EQ(zkl_lock_release(l.get(), kOwner), 0);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), ZKL_ENOTHELD);  // released
  EXPECT_FALSE(Exists(path + "/x"));

  // Lost (the session expired): ELOST until the owner's release hears it.
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
  ExpireClientSession(c.get());
  ASSERT_TRUE(Eventually([&] { return zkl_lock_hold_count(l.get()) == 0; }));
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), ZKL_ELOST);
  EXPECT_EQ(zkl_lock_release(l.get(), kOwner), ZKL_ELOST);
  EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), ZKL_ENOTHELD);
  EXPECT_FALSE(Exists(path + "/x"));

  // Destroyed handle, NULL arguments.
  zkl_lock *raw = l.release();
  ASSERT_EQ(zkl_lock_destroy(raw), 0);
  EXPECT_EQ(zkl_lock_write(raw, kOwner, ops.o), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_write_async(raw, kOwner, ops.o), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_lock_write(nullptr, kOwner, ops.o), ZKL_EBADHANDLE);
  auto l2 = NewLock(c.get(), path);
  EXPECT_EQ(zkl_lock_write(l2.get(), kOwner, nullptr), ZKL_EINVAL);
  OpsPtr empty;
  ASSERT_EQ(zkl_lock_acquire(l2.get(), kOwner, 5000), 0);
  EXPECT_EQ(zkl_lock_write(l2.get(), kOwner, empty.o), ZKL_EINVAL);
  EXPECT_EQ(zkl_lock_release(l2.get(), kOwner), 0);
}

TEST(GuardedWrite, OperationsOutsideTheLocksTreeAreRefused) {
  auto c = NewClient();
  std::string path = UniquePath("gw-tree");
  for (int kind : {ZKL_LOCK_FAIR, ZKL_LOCK_NONFAIR}) {
    SCOPED_TRACE(kind);
    std::string p = path + (kind == ZKL_LOCK_FAIR ? "/fair" : "/nonfair");
    auto l = NewLock(c.get(), p, kind);
    ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
    std::string own = p + "/" + Children(p).at(0);
    struct Bad {
      const char *what;
      std::string path;
      int flags;
    };
    std::vector<Bad> bad = {
        {"elsewhere", UniquePath("gw-elsewhere"), 0},
        {"a sibling with the same prefix", p + "-other/x", 0},
        {"the lock path itself", p, 0},
        {"a participant's node", own, 0},
        {"below a participant's node", own + "/x", 0},
    };
    if (kind == ZKL_LOCK_FAIR) {
      bad.push_back({"a node that would take part", p + "/x-0000000001", 0});
      bad.push_back({"a sequential create that would take part", p + "/lock-", ZKL_CREATE_SEQUENTIAL});
    } else {
      bad.push_back({"the fixed node of the non-fair recipe", p + "/lock", 0});
    }
    for (const Bad &b : bad) {
      OpsPtr ops;
      ASSERT_EQ(Create(ops.o, p + "/ok", "fine"), 0);
      ASSERT_EQ(Create(ops.o, b.path, "no", b.flags), 0) << b.what;
      EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ops.o), ZKL_EBADPATH) << b.what;
      EXPECT_FALSE(Exists(p + "/ok")) << b.what;
    }
    // Deeper sequential creates are the caller's own business.
    OpsPtr ok;
    ASSERT_EQ(Create(ok.o, p + "/queue", ""), 0);
    ASSERT_EQ(Create(ok.o, p + "/queue/job-", "1", ZKL_CREATE_SEQUENTIAL), 0);
    EXPECT_EQ(zkl_lock_write(l.get(), kOwner, ok.o), 0);
    EXPECT_EQ(zkl_lock_release(l.get(), kOwner), 0);
  }
}

TEST(GuardedWrite, BadOperationsAreRefusedWhenAdded) {
  OpsPtr ops;
  EXPECT_EQ(zkl_ops_create(ops.o, "relative", "x", 1, 0), ZKL_EBADPATH);
  EXPECT_EQ(zkl_ops_create(ops.o, "/a/", "x", 1, 0), ZKL_EBADPATH);
  EXPECT_EQ(zkl_ops_create(ops.o, "/a", "x", 1, 4), ZKL_EINVAL);  // container: not a flag here
  EXPECT_EQ(zkl_ops_create(ops.o, "/a", nullptr, 3, 0), ZKL_EINVAL);
  EXPECT_EQ(zkl_ops_set(ops.o, "/a", "x", 1, -2), ZKL_EINVAL);
  EXPECT_EQ(zkl_ops_delete(ops.o, nullptr, -1), ZKL_EINVAL);
  EXPECT_EQ(zkl_ops_check(nullptr, "/a", -1), ZKL_EINVAL);
  EXPECT_EQ(zkl_ops_count(ops.o), 0);
  EXPECT_EQ(zkl_ops_count(nullptr), ZKL_EINVAL);
  // Over one request: a node's data over 1 MiB, or the list as a whole.
  std::string big(600 * 1000, 'x');
  std::string huge(1024 * 1024 + 1, 'x');
  EXPECT_EQ(zkl_ops_set(ops.o, "/a", huge.data(), huge.size(), -1), ZKL_ETOOBIG);
  EXPECT_EQ(zkl_ops_set(ops.o, "/a", big.data(), big.size(), -1), 0);
  EXPECT_EQ(zkl_ops_set(ops.o, "/b", big.data(), big.size(), -1), ZKL_ETOOBIG);
  EXPECT_EQ(zkl_ops_count(ops.o), 1);
  zkl_ops_free(nullptr);
}

TEST(GuardedWrite, AsyncAnswersWithTheRequestId) {
  auto c = NewClient();
  std::string path = UniquePath("gw-async");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
  OpsPtr first, second;
  ASSERT_EQ(Create(first.o, path + "/n-", "1", ZKL_CREATE_SEQUENTIAL | 0), ZKL_OK);
  // Directly below the lock path a sequential create would join the queue:
  // refused before anything is sent, as the blocking form.
  EXPECT_EQ(zkl_lock_write_async(l.get(), kOwner, first.o), ZKL_EBADPATH);
  OpsPtr ok;
  ASSERT_EQ(Create(ok.o, path + "/s", "1"), 0);
  ASSERT_EQ(Create(second.o, path + "/s", "again"), 0);
  int id1 = zkl_lock_write_async(l.get(), kOwner, ok.o);
  int id2 = zkl_lock_write_async(l.get(), kOwner, second.o);
  ASSERT_GT(id1, 0);
  ASSERT_GT(id2, id1);
  uint64_t token = Token(l.get());
  for (int want : {id1, id2}) {
    auto ev = WaitForEvent(c.get(), ZKL_EVENT_WRITTEN, 10000);
    ASSERT_TRUE(ev);
    uint64_t id = 0, tok = 0, owner = 0;
    ASSERT_EQ(zkl_event_request_id(ev.get(), &id), 0);
    EXPECT_EQ(id, static_cast<uint64_t>(want));  // one session: answered in order
    ASSERT_EQ(zkl_event_fencing_token(ev.get(), &tok), 0);
    EXPECT_EQ(tok, token);
    ASSERT_EQ(zkl_event_owner(ev.get(), &owner), 0);
    EXPECT_EQ(owner, kOwner);
    zkl_lock *which = nullptr;
    ASSERT_EQ(zkl_event_lock(ev.get(), &which), 0);
    EXPECT_EQ(which, l.get());
    const zkl_ops *results = nullptr;
    ASSERT_EQ(zkl_event_ops(ev.get(), &results), 0);
    ASSERT_NE(results, nullptr);
    if (want == id1) {
      EXPECT_EQ(zkl_event_error(ev.get()), 0);
      EXPECT_EQ(CreatedPath(results, 0), path + "/s");
    } else {
      EXPECT_EQ(zkl_event_error(ev.get()), ZKL_EEXISTS);
      EXPECT_EQ(zkl_ops_failed(results), 0);
    }
  }
  EXPECT_EQ(Data(path + "/s"), "1");
  // Other events carry their own call's request id (or 0), and no results.
  int release = zkl_lock_release_async(l.get(), kOwner);
  ASSERT_GT(release, 0);
  auto released = WaitForEvent(c.get(), ZKL_EVENT_RELEASED, 10000);
  ASSERT_TRUE(released);
  uint64_t id = 0;
  const zkl_ops *none = first.o;
  EXPECT_EQ(zkl_event_request_id(released.get(), &id), 0);
  EXPECT_EQ(id, static_cast<uint64_t>(release));
  EXPECT_EQ(zkl_event_ops(released.get(), &none), 0);
  EXPECT_EQ(none, nullptr);
}

TEST(GuardedWrite, MultilockIsGuardedByEveryMember) {
  auto c = NewClient();
  std::string base = UniquePath("gw-multi");
  zkl_lock *members[2] = {nullptr, nullptr};
  zkl_lock_options lo;
  ASSERT_EQ(zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION), 0);
  ASSERT_EQ(zkl_lock_new(c.get(), (base + "/a").c_str(), &lo, &members[0]), 0);
  ASSERT_EQ(zkl_lock_new(c.get(), (base + "/b").c_str(), &lo, &members[1]), 0);
  zkl_multilock *m = nullptr;
  zkl_multilock_options mo;
  ASSERT_EQ(zkl_multilock_options_init(&mo, ZKL_MULTILOCK_OPTIONS_VERSION), 0);
  ASSERT_EQ(zkl_multilock_new(c.get(), members, 2, &mo, &m), 0);
  OpsPtr ops;
  ASSERT_EQ(Create(ops.o, base + "/a/x", "1"), 0);
  ASSERT_EQ(Create(ops.o, base + "/b/y", "2"), 0);
  EXPECT_EQ(zkl_multilock_write(m, kOwner, ops.o), ZKL_ENOTHELD);
  ASSERT_EQ(zkl_multilock_acquire(m, kOwner, 5000), 0);
  EXPECT_EQ(zkl_lock_write(members[0], kOwner, ops.o), ZKL_EBUSY);  // the group's
  EXPECT_EQ(zkl_multilock_write(m, kOwner + 1, ops.o), ZKL_ENOTOWNER);
  ASSERT_EQ(zkl_multilock_write(m, kOwner, ops.o), 0);
  EXPECT_EQ(Data(base + "/a/x"), "1");
  EXPECT_EQ(Data(base + "/b/y"), "2");
  OpsPtr outside;
  ASSERT_EQ(Create(outside.o, base + "/c", "no"), 0);
  EXPECT_EQ(zkl_multilock_write(m, kOwner, outside.o), ZKL_EBADPATH);
  // One member's node gone: the whole write is refused.
  std::vector<std::string> b_nodes = Children(base + "/b");
  std::string b_node;
  for (const auto &n : b_nodes) {
    if (n != "y") b_node = n;
  }
  ASSERT_FALSE(b_node.empty());
  OpsPtr after;
  ASSERT_EQ(Set(after.o, base + "/a/x", "late"), 0);
  DeleteRecursive(base + "/b/" + b_node);
  int rc = zkl_multilock_write(m, kOwner, after.o);
  EXPECT_TRUE(rc == ZKL_ELOST || rc == ZKL_ENOTHELD) << zkl_strerror(rc);
  EXPECT_EQ(Data(base + "/a/x"), "1");
  int id = zkl_multilock_write_async(m, kOwner, after.o);
  EXPECT_TRUE(id == ZKL_ELOST || id == ZKL_ENOTHELD || id > 0) << id;
  if (id > 0) {
    auto ev = WaitForEvent(c.get(), ZKL_EVENT_WRITTEN, 10000);
    ASSERT_TRUE(ev);
    EXPECT_EQ(zkl_event_error(ev.get()), ZKL_ELOST);
  }
  EXPECT_EQ(Data(base + "/a/x"), "1");
  zkl_multilock_destroy(m);
}

TEST(GuardedWrite, ElectionWriteAndProclaim) {
  for (int kind : {ZKL_ELECTION_FAIR, ZKL_ELECTION_NONFAIR}) {
    SCOPED_TRACE(kind);
    auto c = NewClient();
    auto c2 = NewClient();
    auto obs_client = NewClient();
    std::string path = UniquePath("gw-election");
    zkl_observer *obs = nullptr;
    zkl_observer_options oo;
    ASSERT_EQ(zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION), 0);
    oo.kind = kind;
    ASSERT_EQ(zkl_observer_new(obs_client.get(), path.c_str(), &oo, &obs), 0);
    ElectionPtr leader, follower;
    NewElection(c.get(), path, kind, "alpha", &leader);
    NewElection(c2.get(), path, kind, "beta", &follower);
    ASSERT_EQ(zkl_election_acquire(leader.e, 5000), 0);
    ASSERT_GT(zkl_election_acquire_async(follower.e, -1), 0);
    char buf[64];
    ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, buf, sizeof buf) == 5; }));
    uint64_t term = 0, term_after = 0;
    ASSERT_EQ(zkl_observer_term(obs, &term), 0);

    OpsPtr ops;
    ASSERT_EQ(Create(ops.o, path + "/config", "from alpha"), 0);
    EXPECT_EQ(zkl_election_write(follower.e, ops.o), ZKL_ENOTHELD);
    EXPECT_EQ(zkl_election_proclaim(follower.e, "x", 1), ZKL_ENOTHELD);
    ASSERT_EQ(zkl_election_write(leader.e, ops.o), 0);
    EXPECT_EQ(Data(path + "/config"), "from alpha");

    // Proclaim: a new value, the same term, seen by the observer.
    ASSERT_EQ(zkl_election_proclaim(leader.e, "alpha@v2", 8), 0);
    ASSERT_TRUE(Eventually([&] {
      return zkl_observer_leader(obs, buf, sizeof buf) == 8 && std::string(buf) == "alpha@v2";
    }));
    ASSERT_EQ(zkl_observer_term(obs, &term_after), 0);
    EXPECT_EQ(term_after, term);
    EXPECT_EQ(zkl_election_is_leader(leader.e), 1);
    EXPECT_EQ(zkl_election_proclaim(leader.e, nullptr, 2), ZKL_EINVAL);
    std::string huge(1024 * 1024 + 1, 'x');
    EXPECT_EQ(zkl_election_proclaim(leader.e, huge.data(), huge.size()), ZKL_ETOOBIG);

    int id = zkl_election_write_async(leader.e, ops.o);  // exists now
    ASSERT_GT(id, 0);
    auto ev = WaitForEvent(c.get(), ZKL_EVENT_WRITTEN, 10000);
    ASSERT_TRUE(ev);
    EXPECT_EQ(zkl_event_error(ev.get()), ZKL_EEXISTS);
    zkl_election *which = nullptr;
    ASSERT_EQ(zkl_event_election(ev.get(), &which), 0);
    EXPECT_EQ(which, leader.e);

    ASSERT_EQ(zkl_election_release(leader.e), 0);
    ASSERT_TRUE(Eventually([&] { return zkl_election_is_leader(follower.e) == 1; }));
    EXPECT_EQ(zkl_election_write(leader.e, ops.o), ZKL_ENOTHELD);
    ASSERT_TRUE(Eventually([&] {
      return zkl_observer_leader(obs, buf, sizeof buf) == 4 && std::string(buf) == "beta";
    }));
    zkl_observer_destroy(obs);
  }
}

TEST(FenceCheck, SaysWhetherATokenIsTheCurrentHolders) {
  auto c = NewClient();
  auto c2 = NewClient();
  std::string path = UniquePath("fence-check");
  auto l = NewLock(c.get(), path);
  auto l2 = NewLock(c2.get(), path);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), 1), ZKL_ESTALE);
  ASSERT_EQ(zkl_lock_acquire(l.get(), kOwner, 5000), 0);
  uint64_t t1 = Token(l.get());
  EXPECT_EQ(zkl_fence_check(c2.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), t1), 0);
  ASSERT_GT(zkl_lock_acquire_async(l2.get(), kOwner, -1), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ASSERT_EQ(zkl_lock_release(l.get(), kOwner), 0);
  auto ev = WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 10000);
  ASSERT_TRUE(ev);
  uint64_t t2 = Token(l2.get());
  EXPECT_GT(t2, t1);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), t1), ZKL_ESTALE);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), t2), 0);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), t2 + 1), ZKL_ESTALE);
  // Bad input.
  EXPECT_EQ(zkl_fence_check(nullptr, path.c_str(), InspectLock(ZKL_LOCK_FAIR), t2), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_fence_check(c.get(), "bad", InspectLock(ZKL_LOCK_FAIR), t2), ZKL_EBADPATH);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), nullptr, t2), ZKL_EINVAL);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(99), t2), ZKL_EINVAL);
  EXPECT_EQ(zkl_lock_release(l2.get(), kOwner), 0);
  EXPECT_EQ(zkl_fence_check(c.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), t2), ZKL_ESTALE);
}
