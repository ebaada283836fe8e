// Ensemble failover and lost-lock timing, against a real 3-node ZooKeeper
// ensemble on loopback. Every holder's view is recorded (CLOCK_MONOTONIC)
// and fed to the history checker, so "no two holders meanwhile" is checked
// the same way as in the chaos run.
//
//   Failover.LeaderKillHolderKeepsOrRegainsLock
//   Failover.WaiterAcquiresAfterHolderMemberDiesAndSessionExpires
//   LostLockTiming.ServerPause        the holder's member is SIGSTOPped
//   LostLockTiming.ClientPartition    the holder's proxy black-holes it
//
// The timing tests print "lost-lock margin" lines: how long before the other
// client acquired the holder said no (is_held false), which must be before;
// and when it saw LOST relative to that grant (LOST comes once the session
// is surely gone: the server said so, or no server was reached for a session
// timeout after the connection was lost, so it may follow the grant).
#include <gtest/gtest.h>
#include <zkl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fault_proxy.h"
#include "history.h"
#include "zk_harness.h"

using namespace zkl_chaos;
using zkl_test::FaultProxy;
using zkl_test::ZkEnsemble;

namespace {

constexpr int kSessionTimeoutMs = 4000;

ZkEnsemble &Ensemble() {
  static std::unique_ptr<ZkEnsemble> ensemble = [] {
    zkl_test::QuietZkClientLogs();
    return ZkEnsemble::Start(3);
  }();
  return *ensemble;
}

std::string NewPath(const std::string &name) {
  static std::atomic<int> n{0};
  return "/zkl-failover/" + std::to_string(getpid()) + "-" + std::to_string(++n) + "-" + name;
}

struct ClientDeleter {
  void operator()(zkl_client *c) const { zkl_client_destroy(c); }
};
using Client = std::unique_ptr<zkl_client, ClientDeleter>;

Client Connect(const std::string &servers) {
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = servers.c_str();
  o.session_timeout_ms = kSessionTimeoutMs;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&o, &c), 0);
  if (c != nullptr) {
    EXPECT_EQ(zkl_client_wait_connected(c, 30000), 0);
  }
  return Client(c);
}

zkl_lock *NewLock(zkl_client *c, const std::string &path) {
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  return l;
}

// Records one client's view of one lock into a shared History: polls
// is_held every millisecond and pulls the client's events on its own
// thread, noting when SUSPENDED, LOST and RESTORED were seen.
class Monitor {
 public:
  Monitor(std::string name, zkl_client *c, zkl_lock *l, History *h, std::mutex *mu)
      : name_(std::move(name)), c_(c), l_(l), h_(h), mu_(mu) {}
  ~Monitor() { Stop(); }

  // The acquire just returned 0.
  void Acquired(const std::string &path) {
    uint64_t token = kUnknownToken;
    uint64_t t = 0;
    if (zkl_lock_fencing_token(l_, &t) == 0) token = t;
    token_ = token;
    {
      std::lock_guard<std::mutex> g(*mu_);
      h_->Acquire(name_, ++hold_, Recipe::kFair, path, token, MonotonicNs());
    }
    acquired_ns_ = MonotonicNs();
    open_ = true;
    if (!thread_.joinable()) {
      stop_ = false;
      thread_ = std::thread([this] { Run(); });
    }
  }

  // About to release (or done): ends the open interval, stops polling.
  void Released() {
    Stop();
    std::lock_guard<std::mutex> g(*mu_);
    if (open_) h_->End(name_, hold_, MonotonicNs(), "released");
    open_ = false;
  }

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  int64_t suspended_ns() const { return suspended_ns_; }
  int64_t lost_ns() const { return lost_ns_; }
  int64_t restored_ns() const { return restored_ns_; }
  int64_t not_held_ns() const { return not_held_ns_; }
  int64_t acquired_ns() const { return acquired_ns_; }
  uint64_t token() const { return token_; }
  bool open() const { return open_; }

 private:
  void Run() {
    while (!stop_) {
      zkl_client_wait(c_, 1);
      zkl_event *ev = nullptr;
      while (zkl_client_next_event(c_, &ev) == 0) {
        int64_t t = MonotonicNs();
        switch (zkl_event_type(ev)) {
          case ZKL_EVENT_SUSPENDED:
            if (suspended_ns_ == 0) suspended_ns_ = t;
            break;
          case ZKL_EVENT_LOST:
            if (lost_ns_ == 0) lost_ns_ = t;
            break;
          case ZKL_EVENT_RESTORED:
            if (restored_ns_ == 0) restored_ns_ = t;
            break;
          default:
            break;
        }
        zkl_event_free(ev);
      }
      bool held = zkl_lock_is_held(l_) == 1;
      int64_t t = MonotonicNs();
      std::lock_guard<std::mutex> g(*mu_);
      if (open_ && !held) {
        h_->End(name_, hold_, t, lost_ns_ ? "lost" : "not-held");
        if (not_held_ns_ == 0) not_held_ns_ = t;
        open_ = false;
      } else if (!open_ && held && lost_ns_ == 0) {
        uint64_t tok = kUnknownToken, v = 0;
        if (zkl_lock_fencing_token(l_, &v) == 0) tok = v;
        h_->Resume(name_, hold_, tok, t);
        open_ = true;
      }
    }
  }

  std::string name_;
  zkl_client *c_;
  zkl_lock *l_;
  History *h_;
  std::mutex *mu_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> open_{false};
  uint64_t hold_ = 0;
  std::atomic<uint64_t> token_{0};
  std::atomic<int64_t> suspended_ns_{0}, lost_ns_{0}, restored_ns_{0}, not_held_ns_{0},
      acquired_ns_{0};
};

template <typename Pred>
bool Eventually(Pred pred, int timeout_ms) {
  int64_t deadline = MonotonicNs() + int64_t{timeout_ms} * 1000000;
  while (!pred()) {
    if (MonotonicNs() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void ExpectSafe(const History &h) {
  Verdict v = Check(h);
  EXPECT_TRUE(v.ok()) << Report(h, v);
  std::printf("%s\n", v.Summary().c_str());
}

// A waiter that blocks in zkl_lock_acquire on its own thread and records
// its hold (held for `hold_ms`, then released).
class Waiter {
 public:
  Waiter(const std::string &servers, const std::string &path, History *h, std::mutex *mu,
         int hold_ms = 300)
      : client_(Connect(servers)), lock_(NewLock(client_.get(), path)),
        monitor_("waiter", client_.get(), lock_, h, mu) {
    thread_ = std::thread([this, path, hold_ms] {
      int rc = zkl_lock_acquire(lock_, 1, 60000);
      rc_ = rc;
      if (rc != 0) return;
      acquired_ns_ = MonotonicNs();
      monitor_.Acquired(path);
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
      monitor_.Released();
      zkl_lock_release(lock_, 1);
      done_ = true;
    });
  }
  ~Waiter() {
    if (thread_.joinable()) {
      zkl_lock_cancel(lock_);
      thread_.join();
    }
    monitor_.Stop();
    zkl_lock_destroy(lock_);
  }
  int64_t acquired_ns() const { return acquired_ns_; }
  bool done() const { return done_; }
  int rc() const { return rc_; }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  Client client_;
  zkl_lock *lock_;
  Monitor monitor_;
  std::thread thread_;
  std::atomic<int64_t> acquired_ns_{0};
  std::atomic<bool> done_{false};
  std::atomic<int> rc_{1};
};

int AnyFollower(ZkEnsemble &e) {
  int leader = e.WaitForLeader();
  return leader == 1 ? 2 : 1;
}

std::string ConnectOf(ZkEnsemble &e, std::vector<int> members) {
  std::string s;
  for (int k : members) s += (s.empty() ? "" : ",") + e.member(k).connect();
  return s;
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// ---------------------------------------------------------------------------

TEST(Failover, LeaderKillHolderKeepsOrRegainsLock) {
  ZkEnsemble &e = Ensemble();
  History h;
  std::mutex mu;
  std::string path = NewPath("leader-kill");
  // The holder is connected to the leader (through a proxy whose first
  // upstream is the leader; it moves on to the followers when that fails).
  int leader = e.WaitForLeader();
  ASSERT_GT(leader, 0);
  std::vector<int> order{leader};
  for (int k = 1; k <= 3; ++k) {
    if (k != leader) order.push_back(k);
  }
  FaultProxy proxy;
  proxy.Start(ConnectOf(e, order));
  Client hc = Connect(proxy.connect());
  zkl_lock *hl = NewLock(hc.get(), path);
  Monitor holder("holder", hc.get(), hl, &h, &mu);
  ASSERT_EQ(zkl_lock_acquire(hl, 1, 20000), 0);
  holder.Acquired(path);
  uint64_t token = holder.token();

  auto waiter = std::make_unique<Waiter>(e.connect(), path, &h, &mu);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // queued behind
  ASSERT_EQ(e.LeaderIndex(), leader);
  e.member(leader).Kill();
  // The holder keeps its session through the election (RESTORED) or gives
  // it up (LOST); either way, within bounds.
  bool settled = Eventually(
      [&] { return holder.lost_ns() != 0 || zkl_lock_is_held(hl) == 1; }, 30000);
  ASSERT_TRUE(settled) << "holder neither held again nor lost it within 30 s";
  bool kept = holder.lost_ns() == 0;
  std::printf("leader %d killed: holder %s (suspended after %.0f ms, %s)\n", leader,
              kept ? "kept its lock" : "lost its lock",
              holder.suspended_ns() ? Ms(holder.suspended_ns() - holder.acquired_ns()) : -1.0,
              holder.restored_ns() ? "restored" : "not restored");
  e.member(leader).Start();
  if (kept) {
    uint64_t now_token = 0;
    EXPECT_EQ(zkl_lock_fencing_token(hl, &now_token), 0);
    EXPECT_EQ(now_token, token);
    EXPECT_EQ(waiter->acquired_ns(), 0) << "the waiter acquired while the holder kept the lock";
    holder.Released();
    ASSERT_EQ(zkl_lock_release(hl, 1), 0);
    ASSERT_TRUE(Eventually([&] { return waiter->done(); }, 20000)) << "waiter rc " << waiter->rc();
  } else {
    holder.Released();
    zkl_lock_release(hl, 1);  // ELOST
    ASSERT_TRUE(Eventually([&] { return waiter->done(); }, 30000)) << "waiter rc " << waiter->rc();
    // Re-acquire after the loss: a new, larger token.
    ASSERT_EQ(zkl_lock_acquire(hl, 1, 20000), 0);
    holder.Acquired(path);
    EXPECT_GT(holder.token(), token);
    holder.Released();
    ASSERT_EQ(zkl_lock_release(hl, 1), 0);
  }
  waiter.reset();
  holder.Stop();
  zkl_lock_destroy(hl);
  ExpectSafe(h);
}

TEST(Failover, WaiterAcquiresAfterHolderMemberDiesAndSessionExpires) {
  ZkEnsemble &e = Ensemble();
  History h;
  std::mutex mu;
  std::string path = NewPath("member-kill");
  int x = AnyFollower(e);
  std::vector<int> others;
  for (int k = 1; k <= 3; ++k) {
    if (k != x) others.push_back(k);
  }
  Client hc = Connect(e.member(x).connect());  // the holder knows only member x
  zkl_lock *hl = NewLock(hc.get(), path);
  Monitor holder("holder", hc.get(), hl, &h, &mu);
  ASSERT_EQ(zkl_lock_acquire(hl, 1, 20000), 0);
  holder.Acquired(path);
  Waiter waiter(ConnectOf(e, others), path, &h, &mu);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int64_t killed = MonotonicNs();
  e.member(x).Kill();
  ASSERT_TRUE(Eventually([&] { return waiter.acquired_ns() != 0; }, 30000))
      << "the waiter did not acquire after the holder's session expired (rc " << waiter.rc() << ")";
  ASSERT_NE(holder.not_held_ns(), 0) << "the holder never said no";
  EXPECT_LT(holder.not_held_ns(), waiter.acquired_ns());
  // Its server is gone for good: the session is given up a session
  // timeout after the connection was lost.
  ASSERT_TRUE(Eventually([&] { return holder.lost_ns() != 0; }, 2 * kSessionTimeoutMs + 5000))
      << "the holder never saw LOST";
  std::printf("member %d killed: holder SUSPENDED +%.0f ms, LOST +%.0f ms, waiter acquired "
              "+%.0f ms (margin %.0f ms after LOST)\n",
              x, Ms(holder.suspended_ns() - killed), Ms(holder.lost_ns() - killed),
              Ms(waiter.acquired_ns() - killed), Ms(waiter.acquired_ns() - holder.lost_ns()));
  waiter.Join();
  holder.Released();
  EXPECT_EQ(zkl_lock_release(hl, 1), ZKL_ELOST);
  e.member(x).Start();
  holder.Stop();
  zkl_lock_destroy(hl);
  ExpectSafe(h);
}

// ---------------------------------------------------------------------------
// Lost-lock timing

struct Margin {
  double suspended_ms;  // other's ACQUIRED minus holder's is_held() == 0
  double lost_ms;       // other's ACQUIRED minus holder's LOST
};

void ReportMargins(const char *scenario, const std::vector<Margin> &m) {
  double min_s = 1e18, min_l = 1e18, sum_s = 0, sum_l = 0;
  for (const Margin &x : m) {
    min_s = std::min(min_s, x.suspended_ms);
    min_l = std::min(min_l, x.lost_ms);
    sum_s += x.suspended_ms;
    sum_l += x.lost_ms;
    std::printf("lost-lock margin (%s): not-held %.0f ms before the other client acquired, "
                "LOST %.0f ms before it (negative: after)\n",
                scenario, x.suspended_ms, x.lost_ms);
  }
  if (m.empty()) return;
  std::printf("lost-lock margin (%s) over %zu runs: LOST min %.0f ms / mean %.0f ms; not-held "
              "min %.0f ms / mean %.0f ms (session timeout %d ms)\n",
              scenario, m.size(), min_l, sum_l / m.size(), min_s, sum_s / m.size(),
              kSessionTimeoutMs);
  ::testing::Test::RecordProperty(std::string(scenario) + "_lost_margin_min_ms",
                                  static_cast<int>(min_l));
  ::testing::Test::RecordProperty(std::string(scenario) + "_not_held_margin_min_ms",
                                  static_cast<int>(min_s));
}

// One round: the holder is cut off by `cut`, the other client (connected
// elsewhere) waits; returns the margins; `heal` undoes the cut.
template <typename Cut, typename Heal>
Margin OneRound(const std::string &holder_servers, const std::string &other_servers,
                const char *name, Cut cut, Heal heal) {
  History h;
  std::mutex mu;
  std::string path = NewPath(name);
  Margin m{0, 0};
  Client hc = Connect(holder_servers);
  zkl_lock *hl = NewLock(hc.get(), path);
  Monitor holder("holder", hc.get(), hl, &h, &mu);
  EXPECT_EQ(zkl_lock_acquire(hl, 1, 20000), 0);
  holder.Acquired(path);
  {
    Waiter other(other_servers, path, &h, &mu, 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    cut();
    bool acquired = Eventually([&] { return other.acquired_ns() != 0; }, 30000);
    heal();
    EXPECT_TRUE(acquired) << "the other client did not acquire within 30 s";
    EXPECT_NE(holder.not_held_ns(), 0);
    if (acquired && holder.not_held_ns() != 0) {
      m.suspended_ms = Ms(other.acquired_ns() - holder.not_held_ns());
      EXPECT_GT(m.suspended_ms, 0) << "the holder said no only after the other client acquired";
    }
    // The session was expired (the other acquired): LOST follows, at the
    // latest a session timeout after the holder's connection was lost.
    EXPECT_TRUE(Eventually([&] { return holder.lost_ns() != 0; }, 2 * kSessionTimeoutMs + 5000))
        << "the holder never saw LOST";
    if (acquired && holder.lost_ns() != 0) m.lost_ms = Ms(other.acquired_ns() - holder.lost_ns());
    other.Join();
  }
  holder.Released();
  zkl_lock_release(hl, 1);
  holder.Stop();
  zkl_lock_destroy(hl);
  ExpectSafe(h);
  return m;
}

constexpr int kTimingRounds = 3;

TEST(LostLockTiming, ServerPause) {
  ZkEnsemble &e = Ensemble();
  std::vector<Margin> margins;
  for (int i = 0; i < kTimingRounds && !HasFailure(); ++i) {
    int x = AnyFollower(e);
    std::vector<int> others;
    for (int k = 1; k <= 3; ++k) {
      if (k != x) others.push_back(k);
    }
    // The holder talks only to member x; x hangs (SIGSTOP).
    margins.push_back(OneRound(
        e.member(x).connect(), ConnectOf(e, others), "pause", [&] { e.member(x).Pause(); },
        [&] { e.member(x).Resume(); }));
    e.WaitForLeader();
  }
  ReportMargins("server pause", margins);
}

TEST(LostLockTiming, ClientPartition) {
  ZkEnsemble &e = Ensemble();
  std::vector<Margin> margins;
  for (int i = 0; i < kTimingRounds && !HasFailure(); ++i) {
    FaultProxy proxy;
    proxy.Start(e.connect());
    // Only the holder's connection is black-holed; the other client is
    // connected directly.
    margins.push_back(OneRound(
        proxy.connect(), e.connect(), "partition", [&] { proxy.SetBlackhole(true); },
        [&] { proxy.SetBlackhole(false); }));
  }
  ReportMargins("client partition", margins);
}

// ---------------------------------------------------------------------------
// A silent server: the member a client talks to freezes (SIGSTOP) and says
// nothing more. The C client gives the connection up after 2/3 of the
// session timeout without an answer; zkl then resumes the same session on
// another member (each attempt bounded by its share), and the hold comes
// back RESTORED. Prints the time to detect the silence and to resume.

std::string CurrentServer(zkl_client *c) {
  char *json = nullptr;
  size_t len = 0;
  if (zkl_client_stats(c, &json, &len) != 0) return "";
  std::string stats(json, len);
  zkl_free(json);
  const std::string key = "\"server\":\"";
  size_t at = stats.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return stats.substr(at, stats.find('"', at) - at);
}

TEST(SilentServer, IsLeftWithinTwoThirdsOfTheTimeoutAndTheSessionResumesElsewhere) {
  ZkEnsemble &e = Ensemble();
  for (int round = 0; round < 3 && !HasFailure(); ++round) {
    int leader = e.WaitForLeader();
    // A client on a follower (the list is shuffled: try a few).
    Client c;
    int x = 0;
    for (int attempt = 0; attempt < 20 && x == 0; ++attempt) {
      c = Connect(e.connect());
      std::string server = CurrentServer(c.get());
      for (int k = 1; k <= 3; ++k) {
        if (k != leader && e.member(k).connect() == server) x = k;
      }
    }
    ASSERT_NE(x, 0) << "no client landed on a follower";
    std::string path = NewPath("silent");
    zkl_lock *l = NewLock(c.get(), path);
    ASSERT_EQ(zkl_lock_acquire(l, 1, 20000), 0);
    uint64_t token = 0, session = 0;
    zkl_lock_fencing_token(l, &token);
    zkl_client_session_id(c.get(), &session);
    zkl_event *ev = nullptr;
    while (zkl_client_next_event(c.get(), &ev) == 0) zkl_event_free(ev);
    int64_t frozen = MonotonicNs();
    e.member(x).Pause();
    int64_t detected = 0, resumed = 0;
    bool lost = false;
    int64_t deadline = frozen + int64_t{3 * kSessionTimeoutMs} * 1000000;
    while ((detected == 0 || resumed == 0 || zkl_lock_is_held(l) != 1) && !lost &&
           MonotonicNs() < deadline) {
      zkl_client_wait(c.get(), 20);
      while (zkl_client_next_event(c.get(), &ev) == 0) {
        int64_t t = MonotonicNs();
        if (zkl_event_type(ev) == ZKL_EVENT_SESSION) {
          int state = zkl_event_session_state(ev);
          if (state == ZKL_SESSION_SUSPENDED && detected == 0) detected = t;
          if (state == ZKL_SESSION_RECONNECTED && detected != 0 && resumed == 0) resumed = t;
        }
        if (zkl_event_type(ev) == ZKL_EVENT_LOST) lost = true;
        zkl_event_free(ev);
      }
    }
    e.member(x).Resume();
    EXPECT_FALSE(lost);
    ASSERT_NE(detected, 0) << "the frozen server was never left";
    ASSERT_NE(resumed, 0) << "the session did not resume on another member";
    EXPECT_EQ(zkl_lock_is_held(l), 1);
    uint64_t token_after = 0, session_after = 0;
    zkl_lock_fencing_token(l, &token_after);
    zkl_client_session_id(c.get(), &session_after);
    EXPECT_EQ(token_after, token);
    EXPECT_EQ(session_after, session);
    EXPECT_NE(CurrentServer(c.get()), e.member(x).connect());
    std::printf("silent server (member %d frozen): left after %.0f ms (2/3 T = %d ms), session "
                "resumed on %s %.0f ms later\n",
                x, Ms(detected - frozen), kSessionTimeoutMs * 2 / 3, CurrentServer(c.get()).c_str(),
                Ms(resumed - detected));
    // The C client's receive timeout (2/3 T) plus scheduling.
    EXPECT_LT(Ms(detected - frozen), kSessionTimeoutMs * 2 / 3 + 1000);
    EXPECT_LT(Ms(resumed - detected), kSessionTimeoutMs / 3 + 2000);
    ASSERT_EQ(zkl_lock_release(l, 1), 0);
    zkl_lock_destroy(l);
  }
}

}  // namespace
