// Truth on a real ensemble, under real partitions (issue 22): a 3-server
// ZooKeeper ensemble with the sample configuration's timing (tickTime 2000,
// syncLimit 5), each server in a network namespace of its own
// (tests/harness, scripts/zk-netns). Holder A talks to one server only; B
// talks to the others. When A's server is cut off from the quorum it keeps
// answering A for syncLimit x tickTime (10 s), while the leader expires A's
// session after its timeout (4 s) and B is granted. A must say no (is_held
// 0, SUSPENDED) before B's grant: every test asserts that margin and prints
// it. Also: the leader cut off, and a cut that heals before the session
// could expire (the hold survives).
//
// The whole process runs inside client namespace c1 (entered before any
// zkl thread exists), so every socket of the test lives inside the
// harness's network: nothing is sent anywhere else. Needs root; skipped
// with the reason elsewhere, and a failure when ZKL_REQUIRE_NETNS=1.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <spawn.h>
#include <zkl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "zk_harness.h"

extern char **environ;

namespace zkl_test {
namespace {

constexpr int kSessionMs = 4000;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Partition : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { StartEnsemble(3); }
  static void StartEnsemble(int servers) {
    std::string why = NetnsEnsemble::NetnsUnavailable();
    if (!why.empty()) {
      skip_reason_ = new std::string(why);
      return;
    }
    NetnsOptions o;
    o.servers = servers;
    o.clients = 1;
    o.tick_ms = 2000;
    o.sync_limit = 5;
    ens_ = NetnsEnsemble::Start(o).release();
    if (!ens_->EnterClientNamespace(1)) {
      skip_reason_ = new std::string("cannot enter the client namespace");
    }
  }
  static void TearDownTestSuite() {
    delete ens_;
    ens_ = nullptr;
  }

  void SetUp() override {
    if (skip_reason_ != nullptr) ZKL_SKIP_OR_FAIL_WITHOUT_NETNS(*skip_reason_);
    // Without its network no case can pass: say so at once, not after the
    // health wait.
    ASSERT_TRUE(ens_->Present()) << "the network " << ens_->name() << " was taken down under the test";
    ASSERT_TRUE(ens_->WaitHealthy(std::chrono::seconds(90))) << "the ensemble is not healthy";
    leader_ = ens_->LeaderIndex();
    ASSERT_GT(leader_, 0);
    follower_ = leader_ == 1 ? 2 : 1;
  }

  void TearDown() override {
    if (ens_ != nullptr) ens_->Heal();
  }

  // Servers other than k, as a connect string.
  static std::string AllBut(int k) {
    std::string s;
    for (int i = 1; i <= ens_->size(); ++i) {
      if (i == k) continue;
      if (!s.empty()) s += ",";
      s += ens_->connect_of(i);
    }
    return s;
  }

  // Cuts server `cut` off from the other servers (its clients still reach
  // it; with `minority` given, splits those servers from the rest instead),
  // runs `grant` (B's blocking acquire, true on success) while a thread
  // polls `held` (A's is_held) every 2 ms, and returns the margin: from A's
  // last yes to B's grant (ms). Fails the test when A said yes after it.
  int64_t MarginUnderCut(const char *what, int cut, zkl_client *a, const std::function<int()> &held,
                         const std::function<bool()> &grant, const std::vector<int> &minority = {}) {
    // A steady state first: the lease rests on sync round trips, not on the
    // handshake (which proves itself until 3/4 of a timeout after it).
    // (Bounded generously: right after the previous case healed its cut, the
    // ensemble may still be settling under a loaded CI machine.)
    bool steady = Eventually([&] { return StatCounter(a, "quorum_proofs") >= 3 && held() == 1; }, 45000);
    if (!steady) {
      // Nothing to measure without a steady hold: say why, and stop here
      // (before the poller thread exists).
      ADD_FAILURE() << what << ": A holds no steady lease before the cut: quorum_proofs "
                    << StatCounter(a, "quorum_proofs") << ", is_held " << held() << ", state "
                    << StatString(a, "state") << ", server " << StatString(a, "server");
      return -1;
    }
    std::atomic<bool> stop{false};
    std::atomic<int64_t> last_yes{0}, first_no{0};
    std::thread poller([&] {
      while (!stop.load()) {
        int h = held();
        int64_t t = NowMs();
        if (h == 1) {
          last_yes = t;
        } else if (first_no.load() == 0) {
          first_no = t;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    int64_t t_cut = NowMs();
    if (minority.empty()) {
      ens_->Isolate(cut);
    } else {
      ens_->Split(minority);
    }
    bool granted = grant();
    int64_t t_grant = NowMs();
    stop = true;
    poller.join();
    EXPECT_TRUE(granted) << what << ": B was not granted";
    int64_t margin = t_grant - last_yes.load();
    std::printf("[  margin  ] %s: cut at 0, A's first no at +%lld ms, B granted at +%lld ms: "
                "A stopped %lld ms before B's grant\n",
                what, static_cast<long long>(first_no.load() ? first_no.load() - t_cut : -1),
                static_cast<long long>(t_grant - t_cut), static_cast<long long>(margin));
    std::fflush(stdout);
    EXPECT_GT(first_no.load(), 0) << what << ": A never said no";
    EXPECT_GT(margin, 0) << what << ": A said it held after B was granted";
    return margin;
  }

  static std::string *skip_reason_;
  static NetnsEnsemble *ens_;
  int leader_ = 0;
  int follower_ = 0;
};

std::string *Partition::skip_reason_ = nullptr;
NetnsEnsemble *Partition::ens_ = nullptr;

// One lock kind: A holds through a follower cut off from the quorum, B is
// granted on the majority side.
void LockCase(Partition *t, int kind, int b_kind, const char *what, int follower,
              const std::string &a_servers, const std::string &b_servers,
              const std::function<int64_t(const char *, int, zkl_client *, const std::function<int()> &,
                                          const std::function<bool()> &)> &run) {
  auto a = NewClient(kSessionMs, a_servers);
  auto b = NewClient(kSessionMs, b_servers);
  std::string path = UniquePath(what);
  auto la = NewLock(a.get(), path, kind, 1);
  auto lb = NewLock(b.get(), path, b_kind, 1);
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 10000), 0);
  ASSERT_EQ(zkl_lock_try_acquire(lb.get(), 1), ZKL_EAGAIN);
  run(what, follower, a.get(), [&] { return zkl_lock_is_held(la.get()); },
      [&] { return zkl_lock_acquire(lb.get(), 1, 30000) == 0; });
  EXPECT_TRUE(WaitForEvent(a.get(), ZKL_EVENT_SUSPENDED, 1000) != nullptr) << what << ": no SUSPENDED";
  (void)t;
}

TEST_F(Partition, FairLockHolderBehindACutOffFollowerSaysNoBeforeTheGrant) {
  LockCase(this, ZKL_LOCK_FAIR, ZKL_LOCK_FAIR, "fair", follower_, ens_->connect_of(follower_),
           AllBut(follower_), [&](auto... a) { return MarginUnderCut(a...); });
}

TEST_F(Partition, ReadWriteLockWriterBehindACutOffFollowerSaysNoBeforeTheReader) {
  LockCase(this, ZKL_LOCK_WRITE, ZKL_LOCK_READ, "rw", follower_, ens_->connect_of(follower_),
           AllBut(follower_), [&](auto... a) { return MarginUnderCut(a...); });
}

TEST_F(Partition, SemaphoreHolderBehindACutOffFollowerSaysNoBeforeTheGrant) {
  LockCase(this, ZKL_LOCK_SEMAPHORE, ZKL_LOCK_SEMAPHORE, "semaphore", follower_,
           ens_->connect_of(follower_), AllBut(follower_),
           [&](auto... a) { return MarginUnderCut(a...); });
}

TEST_F(Partition, NonFairLockHolderBehindACutOffFollowerSaysNoBeforeTheGrant) {
  LockCase(this, ZKL_LOCK_NONFAIR, ZKL_LOCK_NONFAIR, "nonfair", follower_, ens_->connect_of(follower_),
           AllBut(follower_), [&](auto... a) { return MarginUnderCut(a...); });
}

TEST_F(Partition, MultiLockHolderBehindACutOffFollowerSaysNoBeforeTheGrant) {
  auto a = NewClient(kSessionMs, ens_->connect_of(follower_));
  auto b = NewClient(kSessionMs, AllBut(follower_));
  std::string p1 = UniquePath("multi-a"), p2 = UniquePath("multi-b");
  // The multi-lock owns its members (destroys them with itself).
  zkl_lock *members[] = {NewLock(a.get(), p1).release(), NewLock(a.get(), p2).release()};
  zkl_multilock_options mo;
  zkl_multilock_options_init(&mo, ZKL_MULTILOCK_OPTIONS_VERSION);
  zkl_multilock *ml = nullptr;
  ASSERT_EQ(zkl_multilock_new(a.get(), members, 2, &mo, &ml), 0);
  ASSERT_EQ(zkl_multilock_acquire(ml, 1, 10000), 0);
  auto lb = NewLock(b.get(), p2);
  MarginUnderCut("multilock", follower_, a.get(), [&] { return zkl_multilock_is_held(ml); },
                 [&] { return zkl_lock_acquire(lb.get(), 1, 30000) == 0; });
  zkl_multilock_destroy(ml);
}

void ElectionCase(Partition *, int kind, const char *what, int follower, const std::string &a_servers,
                  const std::string &b_servers,
                  const std::function<int64_t(const char *, int, zkl_client *, const std::function<int()> &,
                                              const std::function<bool()> &)> &run) {
  auto a = NewClient(kSessionMs, a_servers);
  auto b = NewClient(kSessionMs, b_servers);
  std::string path = UniquePath(what);
  ElectionPtr ea, eb;
  NewElection(a.get(), path, kind, "a", &ea);
  ASSERT_EQ(zkl_election_acquire(ea.e, 10000), 0);
  NewElection(b.get(), path, kind, "b", &eb);
  // An observer behind the same server as A reports A only while its view
  // is provably current.
  zkl_observer *obs = nullptr;
  zkl_observer_options oo;
  zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION);
  oo.kind = kind;
  ASSERT_EQ(zkl_observer_new(a.get(), path.c_str(), &oo, &obs), 0);
  ASSERT_TRUE(Eventually([&] { return zkl_observer_leader(obs, nullptr, 0) == 1; }, 10000));
  std::atomic<int64_t> observer_last_a{0};
  run(what, follower, a.get(),
      [&] {
        char id[8];
        if (zkl_observer_leader(obs, id, sizeof id) == 1 && id[0] == 'a') observer_last_a = NowMs();
        return zkl_election_is_leader(ea.e);
      },
      [&] {
        bool ok = zkl_election_acquire(eb.e, 30000) == 0;
        // The observer's last report of A must precede B's election too.
        EXPECT_LT(observer_last_a.load(), NowMs()) << what << ": observer";
        return ok;
      });
  zkl_observer_destroy(obs);
}

TEST_F(Partition, FairElectionLeaderBehindACutOffFollowerStepsDownBeforeTheNextIsElected) {
  ElectionCase(this, ZKL_ELECTION_FAIR, "election-fair", follower_, ens_->connect_of(follower_),
               AllBut(follower_), [&](auto... a) { return MarginUnderCut(a...); });
}

TEST_F(Partition, UnfairElectionLeaderBehindACutOffFollowerStepsDownBeforeTheNextIsElected) {
  ElectionCase(this, ZKL_ELECTION_NONFAIR, "election-unfair", follower_, ens_->connect_of(follower_),
               AllBut(follower_), [&](auto... a) { return MarginUnderCut(a...); });
}

// A chrooted holder: the heartbeat syncs run under the chroot too.
TEST_F(Partition, ChrootedHolderBehindACutOffFollowerSaysNoBeforeTheGrant) {
  auto b = NewClient(kSessionMs, AllBut(follower_));
  // The chroot must exist: B's lock below it creates it and keeps it.
  std::string root = UniquePath("chroot");
  auto anchor = NewLock(b.get(), root + "/anchor");
  ASSERT_EQ(zkl_lock_acquire(anchor.get(), 1, 10000), 0);
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = ens_->connect_of(follower_);
  o.servers = servers.c_str();
  o.chroot = root.c_str();
  o.session_timeout_ms = kSessionMs;
  ClientPtr a;
  ASSERT_EQ(NewClientWith(o, &a), 0);
  ASSERT_EQ(zkl_client_wait_connected(a.get(), 20000), 0);
  auto la = NewLock(a.get(), "/l");
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 10000), 0);
  auto lb = NewLock(b.get(), root + "/l");
  ASSERT_EQ(zkl_lock_try_acquire(lb.get(), 1), ZKL_EAGAIN);
  MarginUnderCut("chroot", follower_, a.get(), [&] { return zkl_lock_is_held(la.get()); },
                 [&] { return zkl_lock_acquire(lb.get(), 1, 30000) == 0; });
}

// The ensemble's leader itself cut off: it keeps answering its clients until
// it notices it lost the quorum; the majority elects a new leader, which
// expires A's session a session timeout later.
TEST_F(Partition, FairLockHolderBehindACutOffLeaderSaysNoBeforeTheGrant) {
  LockCase(this, ZKL_LOCK_FAIR, ZKL_LOCK_FAIR, "fair-leader-cut", leader_, ens_->connect_of(leader_),
           AllBut(leader_), [&](auto... a) { return MarginUnderCut(a...); });
}

// A cut shorter than the safety margin: the same session goes on and the
// hold survives (SUSPENDED then RESTORED at most; never LOST).
TEST_F(Partition, AShortCutHealsAndTheHoldSurvives) {
  auto a = NewClient(kSessionMs, ens_->connect_of(follower_));
  auto la = NewLock(a.get(), UniquePath("short-cut"));
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 10000), 0);
  uint64_t token = Token(la.get());
  ASSERT_TRUE(Eventually([&] { return StatCounter(a.get(), "quorum_proofs") >= 3; }, 15000));
  ens_->Isolate(follower_);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // the cut's length, not a sync
  ens_->Heal();
  // Held again (and provably) within a session timeout, same token.
  EXPECT_TRUE(Eventually([&] { return zkl_lock_is_held(la.get()) == 1; }, kSessionMs * 2));
  EXPECT_EQ(Token(la.get()), token);
  EXPECT_TRUE(WaitForEvent(a.get(), ZKL_EVENT_LOST, 0) == nullptr) << "the hold was lost";
}

// The CLI: `zkl lock` behind the cut-off follower stops its command before
// the other side's grant (it exits once it has stopped the command).
TEST_F(Partition, CliStopsItsCommandBeforeTheOtherSidesGrant) {
  std::string path = UniquePath("cli");
  std::string servers = ens_->connect_of(follower_);
  std::vector<std::string> args = {ZKL_CLI_BIN, "lock", "--servers", servers, "--session-timeout", "4s",
                                   path, "--", "sleep", "600"};
  std::vector<char *> argv;
  for (auto &s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  TempDir dir("zkl-partition-cli-");
  std::string out = dir.path() + "/out";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  auto cli_output = [&] {
    std::string text;
    if (FILE *f = std::fopen(out.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    return text;
  };
  // zkl lock reports the lock's session in its own statistics only, so B
  // watches from outside: the CLI holds once B can no longer take it.
  auto b = NewClient(kSessionMs, AllBut(follower_));
  auto lb = NewLock(b.get(), path);
  ASSERT_TRUE(Eventually(
      [&] {
        int rc = zkl_lock_try_acquire(lb.get(), 1);
        if (rc == 0) zkl_lock_release(lb.get(), 1);
        return rc == ZKL_EAGAIN;
      },
      15000))
      << cli_output();
  // Its lease in a steady state (see MarginUnderCut): about three proofs in.
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kSessionMs / 4));
  std::atomic<bool> cli_running{true};
  std::atomic<int64_t> cli_exit{0};
  int status = 0;
  MarginUnderCut(
      "cli", follower_, b.get(),
      [&] {
        if (cli_running.load() && waitpid(pid, &status, WNOHANG) == pid) {
          cli_running = false;
          cli_exit = NowMs();
        }
        return cli_running.load() ? 1 : 0;
      },
      [&] { return zkl_lock_acquire(lb.get(), 1, 30000) == 0; });
  if (cli_running.load()) {
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
  }
  EXPECT_NE(cli_exit.load(), 0) << "the CLI kept running after B's grant\n" << cli_output();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 75) << cli_output();
}

// Five servers split 2 / 3, the leader and one follower on the minority
// side, the holder talking to that follower: its syncs are answered by the
// old leader (which still believes it leads) until it steps down; the
// majority elects a new leader, which expires the holder's session a
// session timeout after it starts (docs/SAFETY.md, "The leader cut off").
class Partition5 : public Partition {
 protected:
  static void SetUpTestSuite() { StartEnsemble(5); }
};

TEST_F(Partition5, HolderOnTheMinoritySideOfASplitSaysNoBeforeTheMajoritysGrant) {
  std::vector<int> minority = {leader_, follower_};
  std::string majority;
  for (int i = 1; i <= ens_->size(); ++i) {
    if (i == leader_ || i == follower_) continue;
    majority += (majority.empty() ? "" : ",") + ens_->connect_of(i);
  }
  auto a = NewClient(kSessionMs, ens_->connect_of(follower_));
  auto b = NewClient(kSessionMs, majority);
  std::string path = UniquePath("split");
  auto la = NewLock(a.get(), path), lb = NewLock(b.get(), path);
  ASSERT_EQ(zkl_lock_acquire(la.get(), 1, 10000), 0);
  MarginUnderCut("split-2-3", follower_, a.get(), [&] { return zkl_lock_is_held(la.get()); },
                 [&] { return zkl_lock_acquire(lb.get(), 1, 40000) == 0; }, minority);
}

}  // namespace
}  // namespace zkl_test
