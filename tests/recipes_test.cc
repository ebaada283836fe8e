// The other recipes against a real ZooKeeper: non-fair lock, read/write
// lock, semaphore, fair and unfair leader election, leader observer.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <initializer_list>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

// The server's count of watches (4lw "wchs").
int TotalWatches() {
  std::string out = Server().FourLetter("wchs");
  size_t at = out.find("Total watches:");
  return at == std::string::npos ? -1 : std::stoi(out.substr(at + 14));
}

// Takes the lock with the first handle, then queues each following one in
// turn, waiting until its node is on the server so the queue order is fixed.
void HoldAndQueue(const std::string &path, std::initializer_list<zkl_lock *> locks) {
  size_t queued = 0;
  for (zkl_lock *l : locks) {
    if (queued == 0) {
      ASSERT_EQ(zkl_lock_acquire(l, 1, 5000), 0);
    } else {
      ASSERT_EQ(zkl_lock_acquire_async(l, 1, 10000), 0);
    }
    ++queued;
    ASSERT_TRUE(Eventually([&] { return Children(path).size() == queued; }));
  }
}

uint64_t Token(zkl_lock *l) {
  uint64_t t = 0;
  EXPECT_EQ(zkl_lock_fencing_token(l, &t), 0);
  return t;
}

// N threads, each with its own client, run `rounds` acquire/release cycles
// on `path` with locks of `kind`; returns the highest number of concurrent
// holders seen.
int MaxConcurrentHolders(const std::string &path, int kind, int leases, int clients, int rounds,
                         std::vector<uint64_t> *tokens = nullptr) {
  std::atomic<int> inside{0}, max_inside{0};
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      auto c = NewClient();
      auto l = NewLock(c.get(), path, kind, leases);
      for (int r = 0; r < rounds; ++r) {
        ASSERT_EQ(zkl_lock_acquire(l.get(), static_cast<uint64_t>(i + 1), 60000), 0);
        int now = inside.fetch_add(1) + 1;
        int seen = max_inside.load();
        while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {}
        if (tokens) {
          std::lock_guard<std::mutex> g(mu);
          tokens->push_back(Token(l.get()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        inside.fetch_sub(1);
        ASSERT_EQ(zkl_lock_release(l.get(), static_cast<uint64_t>(i + 1)), 0);
      }
    });
  }
  for (auto &t : threads) t.join();
  return max_inside.load();
}

// ---------------------------------------------------------------------------
// Non-fair lock
// ---------------------------------------------------------------------------

TEST(NonFairLock, MutualExclusionUnderContention) {
  std::string path = UniquePath("nonfair");
  std::vector<uint64_t> tokens;
  EXPECT_EQ(MaxConcurrentHolders(path, ZKL_LOCK_NONFAIR, 1, 16, 20, &tokens), 1);
  ASSERT_EQ(tokens.size(), 320u);
  for (size_t i = 1; i < tokens.size(); ++i) EXPECT_LT(tokens[i - 1], tokens[i]);
  EXPECT_TRUE(Children(path).empty());
}

TEST(NonFairLock, OneFixedNodeAndLosersWaitForIt) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("nonfair-node");
  auto a = NewLock(c1.get(), path, ZKL_LOCK_NONFAIR);
  auto b = NewLock(c2.get(), path, ZKL_LOCK_NONFAIR);
  ASSERT_EQ(zkl_lock_acquire(a.get(), 1, 5000), 0);
  EXPECT_EQ(Children(path), std::vector<std::string>{"lock"});
  EXPECT_EQ(zkl_lock_try_acquire(b.get(), 2), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_acquire_async(b.get(), 2, 10000), 0);
  uint64_t first = Token(a.get());
  ASSERT_EQ(zkl_lock_release(a.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  EXPECT_GT(Token(b.get()), first);
  ASSERT_EQ(zkl_lock_release(b.get(), 2), 0);
  EXPECT_TRUE(Children(path).empty());
}

// Not FIFO: a waiter that queued first has no priority. The holder's client
// releases and, right behind the delete on the same connection, a late-comer
// of that client races for the node; the early waiter needs a notification
// and a round trip first, so the late-comer usually wins. Timing decides,
// so the race is run a few times: the late-comer must win at least once,
// and every round both get the lock in the end.
TEST(NonFairLock, EarlyWaiterIsNotFavoured) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("nonfair-order");
  auto holder = NewLock(c1.get(), path, ZKL_LOCK_NONFAIR);
  auto late = NewLock(c1.get(), path, ZKL_LOCK_NONFAIR);
  auto early = NewLock(c2.get(), path, ZKL_LOCK_NONFAIR);
  int late_wins = 0;
  for (int round = 0; round < 5; ++round) {
    while (NextEvent(c1.get(), 0)) {}
    while (NextEvent(c2.get(), 0)) {}
    ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
    int watches_before = TotalWatches();
    ASSERT_EQ(zkl_lock_acquire_async(early.get(), 2, 20000), 0);
    // The early waiter is really waiting: its watch is set on the server.
    ASSERT_TRUE(Eventually([&] { return TotalWatches() == watches_before + 1; }));
    ASSERT_EQ(zkl_lock_release_async(holder.get(), 1), 0);
    ASSERT_EQ(zkl_lock_acquire_async(late.get(), 3, 20000), 0);
    // Whoever gets it first releases; then the other must get it.
    zkl_lock *first = nullptr;
    ASSERT_TRUE(Eventually([&] {
      if (zkl_lock_is_held(late.get()) == 1) first = late.get();
      if (zkl_lock_is_held(early.get()) == 1) first = early.get();
      return first != nullptr;
    }));
    bool late_first = first == late.get();
    late_wins += late_first;
    zkl_lock *second = late_first ? early.get() : late.get();
    EXPECT_EQ(zkl_lock_is_held(second), 0);
    ASSERT_EQ(zkl_lock_release(first, late_first ? 3 : 2), 0);
    ASSERT_TRUE(Eventually([&] { return zkl_lock_is_held(second) == 1; }));
    ASSERT_EQ(zkl_lock_release(second, late_first ? 2 : 3), 0);
  }
  EXPECT_GE(late_wins, 1) << "the late-comer never won: the lock behaved FIFO";
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

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
  ASSERT_EQ(zkl_lock_acquire_async(w.get(), 1, 5000), 0);
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
  ASSERT_EQ(zkl_lock_acquire_async(w.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  EXPECT_EQ(zkl_lock_try_acquire(r2.get(), 1), ZKL_EAGAIN);
  ASSERT_EQ(zkl_lock_acquire_async(r2.get(), 1, 10000), 0);
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

// ---------------------------------------------------------------------------
// Semaphore
// ---------------------------------------------------------------------------

TEST(Semaphore, LeaseCountNeverExceeded) {
  std::string path = UniquePath("semaphore");
  int max = MaxConcurrentHolders(path, ZKL_LOCK_SEMAPHORE, 3, 16, 10);
  EXPECT_LE(max, 3);
  EXPECT_GE(max, 2);  // leases are actually shared
  for (auto &k : Children(path)) ADD_FAILURE() << "leaked " << k;
}

TEST(Semaphore, MismatchedLeaseCountIsRejected) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("semaphore-mismatch");
  auto three = NewLock(c1.get(), path, ZKL_LOCK_SEMAPHORE, 3);
  auto five = NewLock(c2.get(), path, ZKL_LOCK_SEMAPHORE, 5);
  ASSERT_EQ(zkl_lock_acquire(three.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_acquire(five.get(), 1, 5000), ZKL_EMISMATCH);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 1; }));
  ASSERT_EQ(zkl_lock_release(three.get(), 1), 0);
}

TEST(Semaphore, LeasesAreReleasedOnSessionLoss) {
  auto c1 = NewClient(6000), c2 = NewClient();
  std::string path = UniquePath("semaphore-loss");
  auto a = NewLock(c1.get(), path, ZKL_LOCK_SEMAPHORE, 1);
  auto b = NewLock(c2.get(), path, ZKL_LOCK_SEMAPHORE, 1);
  ASSERT_EQ(zkl_lock_acquire(a.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire_async(b.get(), 1, 20000), 0);
  ExpireClientSession(c1.get());
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_LOST, 10000));
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 10000));
  ASSERT_EQ(zkl_lock_release(b.get(), 1), 0);
}

// ---------------------------------------------------------------------------
// Leader election
// ---------------------------------------------------------------------------

struct ElectionPtr {
  zkl_election *e = nullptr;
  ~ElectionPtr() {
    if (e) zkl_election_destroy(e);
  }
};

void NewElection(zkl_client *c, const std::string &path, int kind, const char *id,
                 ElectionPtr *out) {
  zkl_election_options o;
  ASSERT_EQ(zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION), 0);
  o.kind = kind;
  o.id = id;
  ASSERT_EQ(zkl_election_new(c, path.c_str(), &o, &out->e), 0);
}

class Election : public ::testing::TestWithParam<int> {};

TEST_P(Election, EventsFailoverOnExpiryAndResign) {
  int kind = GetParam();
  auto c1 = NewClient(6000), c2 = NewClient();
  std::string path = UniquePath("election");
  ElectionPtr a, b;
  NewElection(c1.get(), path, kind, "alpha", &a);
  NewElection(c2.get(), path, kind, "beta", &b);
  ASSERT_EQ(zkl_election_acquire_async(a.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 5000));
  ASSERT_EQ(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  EXPECT_EQ(zkl_election_is_leader(b.e), 0);
  uint64_t term_a = 0, term_b = 0;
  ASSERT_EQ(zkl_election_fencing_token(a.e, &term_a), 0);
  // The leader's session expires: it hears LOST, beta is elected with a
  // later term, and alpha rejoins by itself behind beta.
  ExpireClientSession(c1.get());
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_LOST, 10000));
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 10000));
  ASSERT_EQ(zkl_election_fencing_token(b.e, &term_b), 0);
  EXPECT_GT(term_b, term_a);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_NOT_ELECTED, 15000));
  // Resign hands over to alpha.
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(c1.get(), ZKL_EVENT_ELECTED, 10000));
  EXPECT_EQ(zkl_election_is_leader(a.e), 1);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

TEST_P(Election, ObserverReportsLeaderWithoutTakingPart) {
  int kind = GetParam();
  auto c1 = NewClient(), c2 = NewClient(), obs_client = NewClient();
  std::string path = UniquePath("observer");
  zkl_observer *obs = nullptr;
  zkl_observer_options oo;
  ASSERT_EQ(zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION), 0);
  oo.kind = kind;
  ASSERT_EQ(zkl_observer_new(obs_client.get(), path.c_str(), &oo, &obs), 0);
  char buf[64];
  ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, buf, sizeof buf) == ZKL_ENOTFOUND; }));
  ElectionPtr a, b;
  NewElection(c1.get(), path, kind, "alpha", &a);
  NewElection(c2.get(), path, kind, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  ASSERT_EQ(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, buf, sizeof buf) == 5; }));
  EXPECT_STREQ(buf, "alpha");
  auto ev = WaitForEvent(obs_client.get(), ZKL_EVENT_LEADER_CHANGED, 5000);
  ASSERT_TRUE(ev);
  // The term is the leader's fencing token, and it grows with each leader.
  uint64_t term_a = 0, term_seen = 0, term_b = 0;
  ASSERT_EQ(zkl_election_fencing_token(a.e, &term_a), 0);
  ASSERT_EQ(zkl_observer_term(obs, &term_seen), 0);
  EXPECT_EQ(term_seen, term_a);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  ASSERT_TRUE(Eventually([&] {
    return zkl_observer_leader(obs, buf, sizeof buf) == 4 && std::string(buf) == "beta";
  }));
  ASSERT_EQ(zkl_observer_term(obs, &term_b), 0);
  EXPECT_GT(term_b, term_a);
  EXPECT_EQ(Children(path).size(), 1u);  // the observer created no node
  // Inspection agrees.
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(obs_client.get(), path.c_str(), InspectElection(kind), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  const char *data = nullptr;
  size_t len = 0;
  zkl_participants_data(p, 0, &data, &len);
  EXPECT_EQ(std::string(data, len), "beta");
  zkl_participants_free(p);
  // The last participant leaves: the observer says there is no leader.
  ASSERT_EQ(zkl_election_release(b.e), 0);
  ASSERT_TRUE(WaitForEvent(obs_client.get(), ZKL_EVENT_NO_LEADER, 5000));
  // (A non-fair election is leaderless for a moment at every handover too,
  // so the first NO_LEADER may be an earlier one.)
  EXPECT_TRUE(Eventually([&] { return zkl_observer_term(obs, &term_b) == ZKL_ENOTFOUND; }));
  ASSERT_EQ(zkl_observer_destroy(obs), 0);
}

// The leader is a separate process that is SIGKILLed: its session expires on
// the server and the follower takes over.
TEST_P(Election, FailoverWhenLeaderProcessIsKilled) {
  int kind = GetParam();
  std::string path = UniquePath("election-kill");
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(out[1], 1);
    close(out[0]);
    std::string kind_arg = kind == ZKL_ELECTION_FAIR ? "election-fair" : "election-unfair";
    std::string servers = Server().connect();
    execl(ZKL_HOLD_BIN, "zkl-hold", "--kind", kind_arg.c_str(), "--id", "doomed", "--hold",
          "600000", servers.c_str(), path.c_str(), (char *)nullptr);
    _exit(127);
  }
  close(out[1]);
  FILE *f = fdopen(out[0], "r");
  char line[128] = {0};
  ASSERT_NE(fgets(line, sizeof line, f), nullptr);
  ASSERT_EQ(std::string(line).rfind("elected ", 0), 0u) << line;
  auto c = NewClient();
  ElectionPtr e;
  NewElection(c.get(), path, kind, "survivor", &e);
  ASSERT_EQ(zkl_election_acquire_async(e.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  fclose(f);
  // zkl-hold uses the default 10 s session timeout.
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_ELECTED, 30000));
  ASSERT_EQ(zkl_election_release(e.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

INSTANTIATE_TEST_SUITE_P(Kinds, Election, ::testing::Values(ZKL_ELECTION_FAIR, ZKL_ELECTION_NONFAIR),
                         [](const auto &param_info) {
                           return param_info.param == ZKL_ELECTION_FAIR ? "Fair" : "Unfair";
                         });

// ---------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------

TEST(Inspect, HoldersAndWaitersInQueueOrder) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect");
  auto a = NewLock(c1.get(), path), b = NewLock(c2.get(), path), c = NewLock(c3.get(), path);
  ASSERT_NO_FATAL_FAILURE(HoldAndQueue(path, {a.get(), b.get(), c.get()}));
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(ZKL_LOCK_FAIR), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 3);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 1), 0);
  EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
  uint64_t t0 = 0, t1 = 0, t2 = 0, s0 = 0, own = 0;
  zkl_participants_fencing_token(p, 0, &t0);
  zkl_participants_fencing_token(p, 1, &t1);
  zkl_participants_fencing_token(p, 2, &t2);
  EXPECT_EQ(t0, Token(a.get()));
  EXPECT_LT(t0, t1);
  EXPECT_LT(t1, t2);
  zkl_participants_session_id(p, 0, &s0);
  zkl_client_session_id(c1.get(), &own);
  EXPECT_EQ(s0, own);
  int64_t ctime = 0;
  zkl_participants_ctime_ms(p, 0, &ctime);
  EXPECT_GT(ctime, 1600000000000LL);
  EXPECT_EQ(zkl_participants_is_holder(p, 3), ZKL_ERANGE);
  zkl_participants_free(p);
  ASSERT_EQ(zkl_lock_release(a.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(b.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(c.get(), 1), 0);
}

TEST(Inspect, ReadWriteHoldersJudgedPerNode) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect-rw");
  auto r1 = NewLock(c1.get(), path, ZKL_LOCK_READ);
  auto w = NewLock(c2.get(), path, ZKL_LOCK_WRITE);
  auto r2 = NewLock(c3.get(), path, ZKL_LOCK_READ);
  ASSERT_NO_FATAL_FAILURE(HoldAndQueue(path, {r1.get(), w.get(), r2.get()}));
  for (int kind : {ZKL_LOCK_READ, ZKL_LOCK_WRITE}) {
    zkl_participants *p = nullptr;
    ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(kind), &p), 0);
    ASSERT_EQ(zkl_participants_count(p), 3);
    EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
    EXPECT_EQ(zkl_participants_is_holder(p, 1), 0);
    EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
    zkl_participants_free(p);
  }
  ASSERT_EQ(zkl_lock_release(r1.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(w.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(r2.get(), 1), 0);
}

TEST(Inspect, SemaphoreUsesTheStoredLeaseCount) {
  auto c1 = NewClient(), c2 = NewClient(), c3 = NewClient();
  std::string path = UniquePath("inspect-sem");
  auto a = NewLock(c1.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  auto b = NewLock(c2.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  auto c = NewLock(c3.get(), path, ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_EQ(zkl_lock_acquire(a.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire(b.get(), 1, 5000), 0);
  ASSERT_EQ(zkl_lock_acquire_async(c.get(), 1, 10000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 3; }));
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(c1.get(), path.c_str(), InspectLock(ZKL_LOCK_SEMAPHORE), &p), 0);
  ASSERT_EQ(zkl_participants_count(p), 3);
  EXPECT_EQ(zkl_participants_is_holder(p, 0), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 1), 1);
  EXPECT_EQ(zkl_participants_is_holder(p, 2), 0);
  zkl_participants_free(p);
  ASSERT_EQ(zkl_lock_release(a.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c3.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(b.get(), 1), 0);
  ASSERT_EQ(zkl_lock_release(c.get(), 1), 0);
}

// One meaning for a campaign with a timeout: when it runs out, the call has
// left the election again (no node), as a lock acquire does.
TEST(ElectionApi, CampaignTimeoutLeavesTheElection) {
  auto c1 = NewClient(), c2 = NewClient();
  std::string path = UniquePath("campaign-timeout");
  ElectionPtr a, b;
  NewElection(c1.get(), path, ZKL_ELECTION_FAIR, "alpha", &a);
  NewElection(c2.get(), path, ZKL_ELECTION_FAIR, "beta", &b);
  ASSERT_EQ(zkl_election_acquire(a.e, 5000), 0);
  EXPECT_EQ(zkl_election_acquire(a.e, 5000), 0);  // already leader: at once
  EXPECT_EQ(zkl_election_acquire(b.e, 200), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_election_is_leader(b.e), 0);
  EXPECT_TRUE(Eventually([&] { return Children(path).size() == 1; }));
  EXPECT_EQ(zkl_election_try_acquire(b.e), ZKL_EAGAIN);
  // An async campaign keeps its place; a blocking one meanwhile is EBUSY.
  ASSERT_EQ(zkl_election_acquire_async(b.e, -1), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_NOT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_acquire(b.e, 100), ZKL_EBUSY);
  ASSERT_EQ(zkl_election_release(a.e), 0);
  ASSERT_TRUE(WaitForEvent(c2.get(), ZKL_EVENT_ELECTED, 5000));
  EXPECT_EQ(zkl_election_is_leader(b.e), 1);
  int64_t ms = 0;
  EXPECT_EQ(zkl_election_valid_for(b.e, &ms), 0);
  EXPECT_GT(ms, 0);
  ASSERT_EQ(zkl_election_release(b.e), 0);
  EXPECT_EQ(zkl_election_release(b.e), ZKL_ENOTHELD);
  EXPECT_EQ(zkl_election_valid_for(b.e, &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
}

}  // namespace
