// Rolling restart (issue 23, item 3): a 3-server ensemble in network
// namespaces (tests/harness NetnsEnsemble, scripts/zk-netns; tickTime 2000,
// syncLimit 5), each server restarted in turn (the followers, then the
// leader: stop, wait until stopped, start, wait until it serves again and
// the ensemble has one leader) while clients hold locks, wait in queues and
// lead elections. Two variants: a clean stop (SIGTERM) and kill -9.
//
// Six clients: p1..p3 talk to server k only (connect_of(k)), so every server
// has clients and each of those is cut off for the whole restart of its
// server; r1..r3 have the full list and fail over. What is asserted, per
// variant:
//  - no LOST event for any hold or election, no session given up or expired;
//  - each client's long hold keeps its fencing token and is held again after
//    every restart; a waiter queued behind it (on another client) is never
//    granted until the hold is released at the end;
//  - churn: workers on several clients take and release a fair and a
//    non-fair lock all along; their hold intervals (taken after the acquire
//    returned, ended before the release) never overlap, and fencing tokens
//    strictly increase in hold order;
//  - a queue of six waiters (one per client) on one fair lock, released
//    one by one during and after the restarts, is granted in FIFO order;
//  - the leaders of a fair and a non-fair election (one of them on a pinned
//    client whose own server restarts) stay the same participant with the
//    same term: no ELECTED for anybody else, no re-election.
// Also: one session per client from start to end (a second CONNECTED,
// rather than RECONNECTED, means zkl took its session for a new one), and
// the churn moves on after the last restart. Every hold's SUSPENDED ->
// RESTORED time is recorded; "ROLLING:" lines give them per client and
// min/median/max per variant, with each restart's timing. On failure the
// timeline (events, zkl's INFO log lines, restart steps), each client's
// statistics, the churn locks' queues and the servers' log tails are
// printed (ZKL_ROLLING_TIMELINE=1: also when it passes).
//
// Session timeout 10 s (ZKL_ROLLING_SESSION_MS overrides it): a pinned
// client is cut off for its server's whole restart (stop, JVM start, quorum
// join, reconnect), and its session must outlive that: the leader expires
// it a timeout after it last heard from the client, and zkl gives it up a
// timeout after the connection was lost. The restarts took 1.5-2.5 s here
// with other tests running; a JVM start on two cores that several test
// suites share can take several times that, and 6 s would leave too little
// margin for it. A longer timeout costs nothing in run time (no step waits
// for a timeout to pass).
//
// The whole process runs inside client namespace c1 (entered before any
// zkl thread exists). Needs root; skipped with the reason elsewhere, and a
// failure when ZKL_REQUIRE_NETNS=1.
#include <gtest/gtest.h>
#include <zkl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "zk_harness.h"

namespace zkl_test {
namespace {

constexpr int kDefaultSessionMs = 10000;

int SessionMs() {
  const char *v = std::getenv("ZKL_ROLLING_SESSION_MS");
  int ms = v != nullptr ? std::atoi(v) : 0;
  return ms > 0 ? ms : kDefaultSessionMs;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t Ms(int64_t ns) { return ns / 1000000; }

// The workload's own pace (hold and gap times of the churn workers); never
// used to wait for something to happen.
void Work(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

std::string Stats(std::vector<int64_t> v) {
  if (v.empty()) return "none";
  std::sort(v.begin(), v.end());
  char buf[128];
  std::snprintf(buf, sizeof buf, "n=%zu min %lld median %lld max %lld ms", v.size(),
                static_cast<long long>(v.front()), static_cast<long long>(v[v.size() / 2]),
                static_cast<long long>(v.back()));
  return buf;
}

std::string Tail(const std::string &path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

// One hold, waiter or participant, as its events showed it.
struct Tracked {
  std::string client;
  std::string label;
  bool steady = false;      // held (or leading) from setup to the end
  int queue_pos = -1;       // position in the FIFO queue (0: first holder)
  int64_t susp_since = -1;  // an open SUSPENDED (ns), or -1
  std::vector<std::pair<int64_t, int64_t>> suspended;  // SUSPENDED -> RESTORED (ns)
  int unrestored = 0;  // SUSPENDED closed by a release instead of RESTORED
  int lost = 0, acquired = 0, acquire_failed = 0, elected = 0, not_elected = 0, released = 0;
  int64_t acquired_at = 0;
  int last_error = 0;
};

// One zkl client.
struct Member {
  std::string name;
  int pinned = 0;  // the one server it talks to, 0: the full list
  std::string servers;
  zkl_client *c = nullptr;
  std::thread pump;
  std::atomic<bool> stop{false};
  // Under Scenario::mu_.
  int64_t disc_since = -1;
  std::vector<std::pair<int64_t, int64_t>> disconnected;  // session SUSPENDED -> RECONNECTED
  int sessions_lost = 0;
  int sessions = 0;  // CONNECTED events: a session, or what zkl took for a new one
};

// A churn worker: one handle, one thread, acquire / hold / release.
struct Worker {
  std::string lock;
  Member *m = nullptr;
  zkl_lock *l = nullptr;
  std::thread t;
  std::atomic<bool> done{false};
  std::atomic<int> phase{0};  // 0 idle, 1 acquiring, 2 holding, 3 releasing
  std::atomic<int64_t> since{0};
  int errors = 0;  // under Scenario::mu_
};

struct Interval {
  int64_t start, end;  // ns: acquire returned, release about to be called
  uint64_t token;
  std::string who;
};

struct Step {
  int k = 0;
  bool leader = false;
  int leader_after = 0;
  int64_t t_stop = 0, t_stopped = 0, t_started = 0, t_healthy = 0, t_recovered = 0;
};

class Scenario {
 public:
  Scenario(NetnsEnsemble *ens, bool kill)
      : ens_(ens), kill_(kill), variant_(kill ? "kill-9" : "clean-stop") {}
  ~Scenario() { Teardown(); }

  void Run() {
    int64_t t_begin = NowNs();
    Note("test", std::string("variant ") + variant_ + ", session timeout " + std::to_string(session_ms_) +
                     " ms");
    ASSERT_NO_FATAL_FAILURE(Setup());
    // Each server once: the followers first, the leader last (as operators
    // do), looking again before each step.
    std::vector<int> left;
    for (int k = 1; k <= ens_->size(); ++k) left.push_back(k);
    while (!left.empty()) {
      int leader = ens_->WaitForLeader(Millis(60000));
      ASSERT_GT(leader, 0) << "no leader";
      auto next = std::find_if(left.begin(), left.end(), [&](int k) { return k != leader; });
      if (next == left.end()) next = left.begin();
      int k = *next;
      left.erase(next);
      ASSERT_NO_FATAL_FAILURE(RestartOne(k, k == leader));
    }
    ASSERT_NO_FATAL_FAILURE(Finish());
    std::printf("ROLLING: %s: whole run %.1f s (3 restarts %.1f s)\n", variant_,
                static_cast<double>(NowNs() - t_begin) / 1e9,
                static_cast<double>(steps_.back().t_recovered - steps_.front().t_stop) / 1e9);
    std::fflush(stdout);
  }

  void DumpOnFailure() {
    // ZKL_ROLLING_TIMELINE=1 prints the timeline of a passing run too.
    const char *always = std::getenv("ZKL_ROLLING_TIMELINE");
    if (!::testing::Test::HasFailure() && (always == nullptr || std::string(always) != "1")) return;
    // The state now: each client's statistics, each churn worker's phase,
    // each churn lock's queue on the server.
    static const char *phases[] = {"idle", "acquiring", "holding", "releasing"};
    for (auto &w : workers_) {
      std::printf("---- worker %s %s: %s for %lld ms%s\n", w->m->name.c_str(), w->lock.c_str(),
                  phases[w->phase.load()], static_cast<long long>(Ms(NowNs() - w->since.load())),
                  w->done.load() ? " (done)" : "");
    }
    for (auto &m : members_) {
      char *json = nullptr;
      if (zkl_client_stats(m->c, &json, nullptr) == 0) {
        std::printf("---- %s stats: %s\n", m->name.c_str(), json);
        zkl_free(json);
      }
    }
    for (auto &[path, kind] : churn_paths_) {
      zkl_participants *p = nullptr;
      int rc = zkl_inspect(members_.back()->c, path.c_str(), InspectLock(kind), &p);
      std::printf("---- %s: inspect rc %d:", path.c_str(), rc);
      for (int i = 0; rc == 0 && i < zkl_participants_count(p); ++i) {
        const char *name = nullptr, *data = nullptr;
        size_t len = 0;
        uint64_t sid = 0;
        zkl_participants_name(p, static_cast<size_t>(i), &name);
        zkl_participants_data(p, static_cast<size_t>(i), &data, &len);
        zkl_participants_session_id(p, static_cast<size_t>(i), &sid);
        bool holder = zkl_participants_is_holder(p, static_cast<size_t>(i)) == 1;
        std::printf(" [%s %s session 0x%llx%s]", name, std::string(data, len).c_str(),
                    static_cast<unsigned long long>(sid), holder ? " holder" : "");
      }
      if (rc == 0) zkl_participants_free(p);
      std::printf("\n");
    }
    std::lock_guard<std::mutex> g(mu_);
    std::printf("---- timeline of %s (s since start) ----\n", variant_);
    for (const auto &l : timeline_) std::printf("%s\n", l.c_str());
    for (int k = 1; k <= ens_->size(); ++k) {
      std::printf("---- s%d: %s/log (tail) ----\n%s", k, ens_->member(k).dir().c_str(),
                  Tail(ens_->member(k).dir() + "/log", 40).c_str());
    }
    std::fflush(stdout);
  }

 private:
  // ------------------------------------------------------------------------
  // Setup

  void Setup() {
    session_ms_ = SessionMs();
    for (int k = 1; k <= 3; ++k) AddMember("p" + std::to_string(k), k);
    for (int k = 1; k <= 3; ++k) AddMember("r" + std::to_string(k), 0);
    for (auto &m : members_) ASSERT_NO_FATAL_FAILURE(Connect(m.get()));

    // Long holds, each with a waiter on another client.
    for (size_t i = 0; i < members_.size(); ++i) {
      Member *holder = members_[i].get();
      Member *waiter = members_[(i + 3) % members_.size()].get();
      std::string path = UniquePath(variant_ + std::string("-hold-") + holder->name);
      zkl_lock *h = NewTrackedLock(holder, path, ZKL_LOCK_FAIR, "hold");
      Track(h)->steady = true;
      ASSERT_EQ(zkl_lock_acquire(h, 1, 30000), 0) << holder->name;
      uint64_t tok = 0;
      ASSERT_EQ(zkl_lock_fencing_token(h, &tok), 0);
      zkl_lock *w = NewTrackedLock(waiter, path, ZKL_LOCK_FAIR, "waits-on-" + holder->name);
      ASSERT_GT(zkl_lock_acquire_async(w, 1, -1), 0);
      ASSERT_NO_FATAL_FAILURE(WaitQueued(waiter, path, 2));
      holds_.push_back({h, w, tok, 0});
    }

    // Elections: a fair one led by p1 (its server restarts too), a non-fair
    // one led by r1 (fails over); the others wait in line.
    AddElection(ZKL_ELECTION_FAIR, "election-fair", {"p1", "r2", "p3"});
    AddElection(ZKL_ELECTION_NONFAIR, "election-nonfair", {"r1", "p2", "r3"});
    if (::testing::Test::HasFatalFailure()) return;

    // The FIFO queue: r3 holds, six waiters queue in turn (one on each
    // client; r3's with a second handle), released two per restart.
    std::string qpath = UniquePath(variant_ + std::string("-queue"));
    const char *qorder[] = {"r3", "p1", "r1", "p2", "r2", "p3", "r3"};
    for (int i = 0; i < 7; ++i) {
      Member *m = ByName(qorder[i]);
      zkl_lock *q = NewTrackedLock(m, qpath, ZKL_LOCK_FAIR, "queue" + std::to_string(i));
      Track(q)->queue_pos = i;
      queue_.push_back(q);
      if (i == 0) {
        ASSERT_EQ(zkl_lock_acquire(q, 1, 30000), 0);
        uint64_t tok = 0;
        ASSERT_EQ(zkl_lock_fencing_token(q, &tok), 0);
        std::lock_guard<std::mutex> g(mu_);
        grants_.push_back({0, NowNs(), tok});
      } else {
        ASSERT_GT(zkl_lock_acquire_async(q, 1, -1), 0);
        ASSERT_NO_FATAL_FAILURE(WaitQueued(ByName("r3"), qpath, i + 1));
      }
    }
    queue_released_at_.assign(queue_.size(), 0);

    // Churn: a fair lock over four clients, a non-fair one over three.
    std::string fair = UniquePath(variant_ + std::string("-churn-fair"));
    std::string nonfair = UniquePath(variant_ + std::string("-churn-nonfair"));
    for (const char *n : {"p1", "p2", "r1", "r2"}) AddWorker(fair, ZKL_LOCK_FAIR, ByName(n));
    for (const char *n : {"p3", "r3", "r1"}) AddWorker(nonfair, ZKL_LOCK_NONFAIR, ByName(n));
    churn_paths_ = {{fair, ZKL_LOCK_FAIR}, {nonfair, ZKL_LOCK_NONFAIR}};

    std::string why;
    ASSERT_TRUE(Eventually([&] { return AllGood(&why); }, 60000)) << "no steady state after setup: " << why;
    // Some churn before the first restart.
    ASSERT_TRUE(Eventually([&] { return MinChurn() >= 3; }, 60000)) << "the churn does not move";
    Note("test", "setup done");
  }

  void AddMember(const std::string &name, int pinned) {
    auto m = std::make_unique<Member>();
    m->name = name;
    m->pinned = pinned;
    if (pinned > 0) {
      m->servers = ens_->connect_of(pinned);
    } else {
      // The full list, starting at a different server for each (the
      // ZooKeeper client shuffles it anyway).
      int first = static_cast<int>(members_.size()) % ens_->size();
      for (int i = 0; i < ens_->size(); ++i) {
        if (!m->servers.empty()) m->servers += ",";
        m->servers += ens_->connect_of((first + i) % ens_->size() + 1);
      }
    }
    members_.push_back(std::move(m));
  }

  void Connect(Member *m) {
    zkl_client_options o;
    ASSERT_EQ(zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION), 0);
    o.servers = m->servers.c_str();
    o.session_timeout_ms = session_ms_;
    // Log lines come as LOG events (pull form): into the timeline.
    o.log_cb = [](int, const char *, const char *, void *) {};
    o.log_level = ZKL_LOG_INFO;
    ASSERT_EQ(zkl_client_new(&o, &m->c), 0) << m->name;
    m->pump = std::thread([this, m] { Pump(m); });
    ASSERT_EQ(zkl_client_wait_connected(m->c, 30000), 0) << m->name << " does not connect";
    ASSERT_EQ(zkl_client_session_timeout(m->c), session_ms_) << m->name;
  }

  Member *ByName(const std::string &n) {
    for (auto &m : members_) {
      if (m->name == n) return m.get();
    }
    ADD_FAILURE() << "no member " << n;
    return members_.front().get();
  }

  zkl_lock *NewTrackedLock(Member *m, const std::string &path, int kind, const std::string &label) {
    zkl_lock_options o;
    EXPECT_EQ(zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION), 0);
    o.kind = kind;
    std::string data = m->name + " " + label;
    o.data = data.data();
    o.data_len = data.size();
    zkl_lock *l = nullptr;
    EXPECT_EQ(zkl_lock_new(m->c, path.c_str(), &o, &l), 0);
    Register(l, m, label);
    locks_.push_back(l);
    return l;
  }

  void Register(const void *h, Member *m, const std::string &label) {
    auto t = std::make_unique<Tracked>();
    t->client = m->name;
    t->label = label;
    std::lock_guard<std::mutex> g(mu_);
    tracked_[h] = std::move(t);
  }

  Tracked *Track(const void *h) {
    std::lock_guard<std::mutex> g(mu_);
    return tracked_.at(h).get();
  }

  // Waits until `path` has `n` participants (read through m).
  void WaitQueued(Member *m, const std::string &path, int n) {
    int seen = -1;
    ASSERT_TRUE(Eventually(
        [&] {
          zkl_participants *p = nullptr;
          if (zkl_inspect(m->c, path.c_str(), InspectLock(ZKL_LOCK_FAIR), &p) != 0) return false;
          seen = zkl_participants_count(p);
          zkl_participants_free(p);
          return seen == n;
        },
        30000))
        << path << ": " << seen << " participants, want " << n;
  }

  void AddElection(int kind, const std::string &name, const std::vector<std::string> &who) {
    std::string path = UniquePath(variant_ + std::string("-") + name);
    for (size_t i = 0; i < who.size(); ++i) {
      Member *m = ByName(who[i]);
      zkl_election_options o;
      ASSERT_EQ(zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION), 0);
      o.kind = kind;
      o.id = m->name.c_str();
      zkl_election *e = nullptr;
      ASSERT_EQ(zkl_election_new(m->c, path.c_str(), &o, &e), 0);
      elections_.push_back(e);
      Register(e, m, name);
      if (i == 0) {
        Track(e)->steady = true;
        ASSERT_EQ(zkl_election_acquire(e, 30000), 0) << name << ": " << m->name << " not elected";
        uint64_t tok = 0;
        ASSERT_EQ(zkl_election_fencing_token(e, &tok), 0);
        leaders_.push_back({e, tok, name, m->name});
      } else {
        ASSERT_GT(zkl_election_acquire_async(e, -1), 0);
        Tracked *t = Track(e);
        ASSERT_TRUE(Eventually(
            [&] {
              std::lock_guard<std::mutex> g(mu_);
              return t->not_elected > 0;
            },
            30000))
            << name << ": " << m->name << " never queued";
        followers_.push_back(e);
      }
    }
  }

  void AddWorker(const std::string &path, int kind, Member *m) {
    auto w = std::make_unique<Worker>();
    w->lock = kind == ZKL_LOCK_FAIR ? "churn-fair" : "churn-nonfair";
    w->m = m;
    w->l = NewTrackedLock(m, path, kind, w->lock);
    Worker *wp = w.get();
    unsigned seed = static_cast<unsigned>(workers_.size() * 7919 + 17);
    w->t = std::thread([this, wp, seed] { WorkerLoop(wp, seed); });
    workers_.push_back(std::move(w));
  }

  void WorkerLoop(Worker *w, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pace(10, 60);
    while (!churn_stop_.load()) {
      w->since = NowNs();
      w->phase = 1;
      int rc = zkl_lock_acquire(w->l, 1, 90000);
      w->since = NowNs();
      w->phase = rc == 0 ? 2 : 0;
      if (rc != 0) {
        if (churn_stop_.load()) break;
        Note(w->m->name, w->lock + ": acquire failed: " + zkl_strerror(rc));
        std::lock_guard<std::mutex> g(mu_);
        ++w->errors;
        continue;
      }
      int64_t t0 = NowNs();
      uint64_t tok = 0;
      zkl_lock_fencing_token(w->l, &tok);
      Work(pace(rng));
      int64_t t1 = NowNs();
      {
        std::lock_guard<std::mutex> g(mu_);
        intervals_[w->lock].push_back({t0, t1, tok, w->m->name});
      }
      w->since = NowNs();
      w->phase = 3;
      rc = zkl_lock_release(w->l, 1);
      w->since = NowNs();
      w->phase = 0;
      if (rc != 0) {
        Note(w->m->name, w->lock + ": release failed: " + zkl_strerror(rc));
        std::lock_guard<std::mutex> g(mu_);
        ++w->errors;
      }
      Work(pace(rng));
    }
    w->done = true;
  }

  size_t MinChurn() {
    std::lock_guard<std::mutex> g(mu_);
    size_t n = SIZE_MAX;
    for (const char *l : {"churn-fair", "churn-nonfair"}) n = std::min(n, intervals_[l].size());
    return n;
  }

  // ------------------------------------------------------------------------
  // Events

  void Pump(Member *m) {
    while (!m->stop.load()) {
      zkl_client_wait(m->c, 200);
      zkl_event *ev = nullptr;
      while (zkl_client_next_event(m->c, &ev) == 0) {
        OnEvent(m, ev);
        zkl_event_free(ev);
      }
    }
  }

  static const char *TypeName(int t) {
    switch (t) {
      case ZKL_EVENT_ACQUIRED: return "ACQUIRED";
      case ZKL_EVENT_ACQUIRE_FAILED: return "ACQUIRE_FAILED";
      case ZKL_EVENT_SUSPENDED: return "SUSPENDED";
      case ZKL_EVENT_RESTORED: return "RESTORED";
      case ZKL_EVENT_LOST: return "LOST";
      case ZKL_EVENT_RELEASED: return "RELEASED";
      case ZKL_EVENT_ELECTED: return "ELECTED";
      case ZKL_EVENT_NOT_ELECTED: return "NOT_ELECTED";
      default: return "other";
    }
  }

  static const char *StateName(int s) {
    switch (s) {
      case ZKL_SESSION_CONNECTING: return "connecting";
      case ZKL_SESSION_CONNECTED: return "connected";
      case ZKL_SESSION_SUSPENDED: return "suspended";
      case ZKL_SESSION_RECONNECTED: return "reconnected";
      case ZKL_SESSION_LOST: return "LOST";
      case ZKL_SESSION_CLOSED: return "closed";
      case ZKL_SESSION_AUTH_FAILED: return "auth_failed";
      default: return "?";
    }
  }

  void OnEvent(Member *m, zkl_event *ev) {
    int type = zkl_event_type(ev);
    int64_t t = NowNs();
    if (type == ZKL_EVENT_LOG) {
      int level = 0;
      const char *component = "";
      const char *data = nullptr;
      size_t len = 0;
      zkl_event_log(ev, &level, &component);
      zkl_event_data(ev, &data, &len);
      Note(m->name, std::string("log ") + component + ": " + std::string(data, len));
      return;
    }
    if (type == ZKL_EVENT_SESSION) {
      int st = zkl_event_session_state(ev);
      {
        std::lock_guard<std::mutex> g(mu_);
        if (st == ZKL_SESSION_SUSPENDED) {
          m->disc_since = t;
        } else if (st == ZKL_SESSION_RECONNECTED && m->disc_since >= 0) {
          m->disconnected.push_back({m->disc_since, t});
          m->disc_since = -1;
        } else if (st == ZKL_SESSION_LOST) {
          ++m->sessions_lost;
        } else if (st == ZKL_SESSION_CONNECTED) {
          ++m->sessions;
        }
      }
      Note(m->name, std::string("session ") + StateName(st));
      return;
    }
    zkl_lock *l = nullptr;
    zkl_election *e = nullptr;
    zkl_event_lock(ev, &l);
    zkl_event_election(ev, &e);
    const void *h = l != nullptr ? static_cast<const void *>(l) : static_cast<const void *>(e);
    uint64_t tok = 0;
    zkl_event_fencing_token(ev, &tok);
    int err = zkl_event_error(ev);
    std::string label = "?";
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = tracked_.find(h);
      if (it != tracked_.end()) {
        Tracked *tr = it->second.get();
        label = tr->label;
        switch (type) {
          case ZKL_EVENT_SUSPENDED:
            if (tr->susp_since >= 0) ++tr->unrestored;
            tr->susp_since = t;
            break;
          case ZKL_EVENT_RESTORED:
            if (tr->susp_since >= 0) tr->suspended.push_back({tr->susp_since, t});
            tr->susp_since = -1;
            break;
          case ZKL_EVENT_LOST:
            ++tr->lost;
            tr->last_error = err;
            break;
          case ZKL_EVENT_ACQUIRED:
            ++tr->acquired;
            tr->acquired_at = t;
            if (tr->queue_pos >= 0) grants_.push_back({tr->queue_pos, t, tok});
            break;
          case ZKL_EVENT_ACQUIRE_FAILED:
            ++tr->acquire_failed;
            tr->last_error = err;
            break;
          case ZKL_EVENT_ELECTED: ++tr->elected; break;
          case ZKL_EVENT_NOT_ELECTED: ++tr->not_elected; break;
          case ZKL_EVENT_RELEASED: ++tr->released; break;
          default: break;
        }
      }
    }
    char line[160];
    std::snprintf(line, sizeof line, "%s %s token %llu%s%s", label.c_str(), TypeName(type),
                  static_cast<unsigned long long>(tok), err != 0 ? " error " : "",
                  err != 0 ? zkl_strerror(err) : "");
    Note(m->name, line);
  }

  void Note(const std::string &who, const std::string &what) {
    char head[48];
    std::lock_guard<std::mutex> g(mu_);
    std::snprintf(head, sizeof head, "%9.3f %-4s ", static_cast<double>(NowNs() - t0_) / 1e9, who.c_str());
    timeline_.push_back(head + what);
  }

  // ------------------------------------------------------------------------
  // Restarts

  // Every client connected, every long hold held, every election leader
  // leading, the queue's current holder granted.
  bool AllGood(std::string *why) {
    for (auto &m : members_) {
      int st = zkl_client_state(m->c);
      if (st != ZKL_SESSION_CONNECTED && st != ZKL_SESSION_RECONNECTED) {
        *why = m->name + " is " + StateName(st);
        return false;
      }
    }
    for (auto &h : holds_) {
      if (zkl_lock_is_held(h.hold) != 1) {
        *why = Track(h.hold)->client + "'s long hold is not held";
        return false;
      }
    }
    for (auto &l : leaders_) {
      if (zkl_election_is_leader(l.e) != 1) {
        *why = l.who + " does not lead " + l.name;
        return false;
      }
    }
    std::lock_guard<std::mutex> g(mu_);
    if (static_cast<int>(grants_.size()) != queue_head_ + 1) {
      *why = "queue position " + std::to_string(queue_head_) + " not granted yet";
      return false;
    }
    return true;
  }

  // Client sessions connected to server k ("cons": one line per connection,
  // with sid= once it has a session; the asking connection has none).
  int Sessions(int k) {
    std::string s = ens_->member(k).FourLetter("cons");
    if (s.empty()) return -1;
    int n = 0;
    for (size_t at = s.find("sid="); at != std::string::npos; at = s.find("sid=", at + 4)) ++n;
    return n;
  }

  // Lets the queue's current holder go (async: its client may be cut off).
  void ReleaseQueueHead(const char *when) {
    int pos = queue_head_;
    ASSERT_LT(pos + 1, static_cast<int>(queue_.size()));
    {
      std::lock_guard<std::mutex> g(mu_);
      queue_released_at_[static_cast<size_t>(pos)] = NowNs();
    }
    Note("test", "queue: releasing position " + std::to_string(pos) + " (" + when + ")");
    ASSERT_GT(zkl_lock_release_async(queue_[static_cast<size_t>(pos)], 1), 0);
    std::lock_guard<std::mutex> g(mu_);
    ++queue_head_;
  }

  void RestartOne(int k, bool leader) {
    std::string counts;
    for (int j = 1; j <= ens_->size(); ++j) {
      int n = Sessions(j);
      counts += " s" + std::to_string(j) + "=" + std::to_string(n);
      if (j == k) {
        EXPECT_GE(n, 1) << "s" << k << " serves no client before its restart";
      }
    }
    Step s;
    s.k = k;
    s.leader = leader;
    Note("test", std::string(kill_ ? "killing" : "stopping") + " s" + std::to_string(k) +
                     (leader ? " (leader)" : " (follower)") + "; client sessions:" + counts);
    s.t_stop = NowNs();
    if (kill_) {
      ens_->member(k).Kill();
    } else {
      ens_->member(k).Stop();
    }
    s.t_stopped = NowNs();
    EXPECT_EQ(ens_->member(k).Mode(Millis(1000)), "") << "s" << k << " still answers after its stop";
    Note("test", "s" + std::to_string(k) + " is down");
    // One queue release while the server is down.
    ASSERT_NO_FATAL_FAILURE(ReleaseQueueHead("server down"));
    ens_->member(k).Start();  // returns once it is leader or follower
    s.t_started = NowNs();
    Note("test", "s" + std::to_string(k) + " serves again");
    ASSERT_TRUE(ens_->WaitHealthy(Millis(120000)))
        << "the ensemble is not healthy after s" << k << "'s restart";
    s.t_healthy = NowNs();
    s.leader_after = ens_->LeaderIndex();
    Note("test", "ensemble healthy, leader s" + std::to_string(s.leader_after));
    std::string why;
    ASSERT_TRUE(Eventually([&] { return AllGood(&why); }, 90000))
        << "not recovered after s" << k << "'s restart: " << why;
    s.t_recovered = NowNs();
    Note("test", "all clients recovered");
    // And one after: the next waiter is granted at once.
    ASSERT_NO_FATAL_FAILURE(ReleaseQueueHead("after the restart"));
    ASSERT_TRUE(Eventually([&] { return AllGood(&why); }, 60000)) << why;
    steps_.push_back(s);
    std::printf("ROLLING: %s: s%d (%s): %s in %lld ms, serving again %lld ms later, ensemble healthy "
                "+%lld ms (leader s%d), every hold back +%lld ms; client sessions per server before:%s\n",
                variant_, k, leader ? "leader" : "follower", kill_ ? "killed" : "stopped",
                static_cast<long long>(Ms(s.t_stopped - s.t_stop)),
                static_cast<long long>(Ms(s.t_started - s.t_stopped)),
                static_cast<long long>(Ms(s.t_healthy - s.t_started)), s.leader_after,
                static_cast<long long>(Ms(s.t_recovered - s.t_healthy)), counts.c_str());
    std::fflush(stdout);
  }

  // ------------------------------------------------------------------------
  // The end: checks and figures

  void Finish() {
    // The churn goes on after the last restart.
    size_t before = MinChurn();
    ASSERT_TRUE(Eventually([&] { return MinChurn() >= before + 3; }, 60000)) << "the churn stalled";
    StopChurn();
    std::string why;
    ASSERT_TRUE(Eventually([&] { return AllGood(&why); }, 60000)) << why;

    // Long holds: same token; then released, each waiter is granted.
    for (auto &h : holds_) {
      uint64_t tok = 0;
      EXPECT_EQ(zkl_lock_fencing_token(h.hold, &tok), 0);
      EXPECT_EQ(tok, h.token) << Track(h.hold)->client << "'s long hold changed its token";
      {
        std::lock_guard<std::mutex> g(mu_);
        EXPECT_EQ(tracked_.at(h.waiter)->acquired, 0)
            << tracked_.at(h.waiter)->client << " was granted a lock " << tracked_.at(h.hold)->client
            << " still held";
      }
      h.released_at = NowNs();
      EXPECT_EQ(zkl_lock_release(h.hold, 1), 0);
    }
    for (auto &h : holds_) {
      Tracked *w = Track(h.waiter);
      EXPECT_TRUE(Eventually(
          [&] {
            std::lock_guard<std::mutex> g(mu_);
            return w->acquired == 1;
          },
          30000))
          << w->client << " was not granted " << Track(h.hold)->client << "'s released lock";
      std::lock_guard<std::mutex> g(mu_);
      EXPECT_GT(w->acquired_at, h.released_at) << w->client << " granted before the release";
    }

    // Elections: the same leaders, same terms; nobody else elected.
    for (auto &l : leaders_) {
      EXPECT_EQ(zkl_election_is_leader(l.e), 1) << l.who << " no longer leads " << l.name;
      uint64_t tok = 0;
      EXPECT_EQ(zkl_election_fencing_token(l.e, &tok), 0);
      EXPECT_EQ(tok, l.token) << l.name << ": a new term";
    }
    for (zkl_election *e : followers_) {
      EXPECT_EQ(zkl_election_is_leader(e), 0);
      std::lock_guard<std::mutex> g(mu_);
      EXPECT_EQ(tracked_.at(e)->elected, 0) << tracked_.at(e)->client << " was elected in "
                                            << tracked_.at(e)->label;
    }

    // The queue: the last waiter holds; grants in queue order, each after
    // the previous holder's release, tokens increasing.
    ASSERT_NO_FATAL_FAILURE(ExpectFifo());

    // No interval of one churn lock overlaps another; tokens increase.
    ASSERT_NO_FATAL_FAILURE(ExpectExclusive());

    // Nothing lost, nothing failed, every SUSPENDED of a steady hold restored.
    std::lock_guard<std::mutex> g(mu_);
    for (auto &[h, t] : tracked_) {
      EXPECT_EQ(t->lost, 0) << t->client << " " << t->label << ": LOST ("
                            << zkl_strerror(t->last_error) << ")";
      EXPECT_EQ(t->acquire_failed, 0) << t->client << " " << t->label << ": ACQUIRE_FAILED ("
                                      << zkl_strerror(t->last_error) << ")";
      if (t->steady) {
        EXPECT_LT(t->susp_since, 0) << t->client << " " << t->label << ": still SUSPENDED";
      }
    }
    for (auto &m : members_) {
      EXPECT_EQ(m->sessions_lost, 0) << m->name << ": session lost";
      // One session from start to end: a second CONNECTED (not RECONNECTED)
      // means zkl took its session for a new one.
      EXPECT_EQ(m->sessions, 1) << m->name << ": CONNECTED again, as if a new session";
    }
    for (auto &w : workers_) EXPECT_EQ(w->errors, 0) << w->m->name << " " << w->lock;
    Figures();
  }

  // Ends the churn: a blocked acquire ends on the cancel. A worker that does
  // not end (a call that never returns) fails the test, and its client is
  // closed, which ends every call on it, so that the test never hangs.
  void StopChurn() {
    churn_stop_ = true;
    for (auto &w : workers_) {
      if (!w->t.joinable()) continue;
      bool done = Eventually(
          [&] {
            if (!w->done.load()) zkl_lock_cancel(w->l);
            return w->done.load();
          },
          60000);
      if (!done) {
        static const char *phases[] = {"idle", "acquiring", "holding", "releasing"};
        ADD_FAILURE() << w->m->name << " " << w->lock << ": the worker does not stop ("
                      << phases[w->phase.load()] << " for " << Ms(NowNs() - w->since.load())
                      << " ms); closing its client";
        zkl_client_close(w->m->c);
      }
      w->t.join();
    }
  }

  void ExpectFifo() {
    // The last waiter's grant is there (AllGood); release it too.
    int64_t last_release = NowNs();
    ASSERT_EQ(zkl_lock_release(queue_.back(), 1), 0);
    std::lock_guard<std::mutex> g(mu_);
    queue_released_at_.back() = last_release;
    std::string order;
    for (auto &gr : grants_) order += " " + tracked_.at(queue_[static_cast<size_t>(gr.pos)])->client;
    ASSERT_EQ(grants_.size(), queue_.size()) << "grants:" << order;
    for (size_t i = 0; i < grants_.size(); ++i) {
      EXPECT_EQ(grants_[i].pos, static_cast<int>(i)) << "not FIFO; grants:" << order;
      if (i == 0) continue;
      EXPECT_GT(grants_[i].t, queue_released_at_[i - 1]) << "granted before the previous release:" << order;
      EXPECT_GT(grants_[i].token, grants_[i - 1].token) << "tokens out of order:" << order;
    }
    std::printf("ROLLING: %s: queue granted in order:%s\n", variant_, order.c_str());
  }

  void ExpectExclusive() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto &[lock, v] : intervals_) {
      std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.start < b.start; });
      int overlaps = 0, token_faults = 0;
      std::map<std::string, int> per_client;
      for (size_t i = 0; i < v.size(); ++i) {
        ++per_client[v[i].who];
        if (i == 0) continue;
        if (v[i].start < v[i - 1].end) {
          ++overlaps;
          ADD_FAILURE() << lock << ": " << v[i].who << " held from " << Ms(v[i].start - t0_) << " ms while "
                        << v[i - 1].who << " held until " << Ms(v[i - 1].end - t0_) << " ms";
        }
        if (v[i].token <= v[i - 1].token) {
          ++token_faults;
          ADD_FAILURE() << lock << ": token " << v[i].token << " of " << v[i].who << " after "
                        << v[i - 1].token << " of " << v[i - 1].who;
        }
      }
      std::string who;
      for (auto &[c, n] : per_client) who += " " + c + "=" + std::to_string(n);
      std::printf("ROLLING: %s: %s: %zu holds (%s ), %d overlaps, %d token faults\n", variant_, lock.c_str(),
                  v.size(), who.c_str(), overlaps, token_faults);
    }
  }

  // SUSPENDED -> RESTORED of each client's long hold (one per client: the
  // client's view), classified by the restart it fell in.
  void Figures() {
    std::vector<int64_t> all, own, others, leader_step, sessions;
    for (auto &h : holds_) {
      Tracked *t = tracked_.at(h.hold).get();
      Member *m = nullptr;
      for (auto &mm : members_) {
        if (mm->name == t->client) m = mm.get();
      }
      std::string list;
      for (auto &[a, b] : t->suspended) {
        int64_t d = Ms(b - a);
        all.push_back(d);
        list += " " + std::to_string(d);
        const Step *in = nullptr;
        for (const Step &s : steps_) {
          if (a >= s.t_stop && a <= s.t_recovered) in = &s;
        }
        if (in != nullptr && m != nullptr && m->pinned == in->k) {
          own.push_back(d);
          list += "(own s" + std::to_string(in->k) + ")";
        } else {
          others.push_back(d);
        }
        if (in != nullptr && in->leader) leader_step.push_back(d);
      }
      std::vector<int64_t> disc;
      for (auto &[a, b] : m->disconnected) {
        disc.push_back(Ms(b - a));
        sessions.push_back(Ms(b - a));
      }
      std::string servers = m->pinned ? "s" + std::to_string(m->pinned) + " only" : "full list";
      std::printf("ROLLING: %s: %s (%s): hold suspended %zu times, ms:%s; session disconnected %s\n",
                  variant_, t->client.c_str(), servers.c_str(), t->suspended.size(),
                  list.empty() ? " -" : list.c_str(), Stats(disc).c_str());
    }
    std::printf("ROLLING: %s: SUSPENDED->RESTORED, all clients: %s\n", variant_, Stats(all).c_str());
    std::printf("ROLLING: %s:   pinned client, its own server restarting: %s\n", variant_,
                Stats(own).c_str());
    std::printf("ROLLING: %s:   any other client / restart: %s\n", variant_, Stats(others).c_str());
    std::printf("ROLLING: %s:   during the leader's restart: %s\n", variant_, Stats(leader_step).c_str());
    std::printf("ROLLING: %s: session SUSPENDED->RECONNECTED, all clients: %s\n", variant_,
                Stats(sessions).c_str());
    std::fflush(stdout);
  }

  void Teardown() {
    StopChurn();
    for (auto &m : members_) {
      m->stop = true;
      if (m->c != nullptr) zkl_client_wakeup(m->c);
      if (m->pump.joinable()) m->pump.join();
    }
    for (zkl_lock *l : locks_) zkl_lock_destroy(l);
    for (zkl_election *e : elections_) zkl_election_destroy(e);
    locks_.clear();
    elections_.clear();
    for (auto &m : members_) {
      if (m->c != nullptr) zkl_client_destroy(m->c);
      m->c = nullptr;
    }
  }

  struct Hold {
    zkl_lock *hold;
    zkl_lock *waiter;
    uint64_t token;
    int64_t released_at;
  };
  struct Leader {
    zkl_election *e;
    uint64_t token;
    std::string name, who;
  };
  struct Grant {
    int pos;
    int64_t t;
    uint64_t token;
  };

  NetnsEnsemble *ens_;
  const bool kill_;
  const char *variant_;
  int session_ms_ = kDefaultSessionMs;
  const int64_t t0_ = NowNs();

  std::vector<std::unique_ptr<Member>> members_;
  std::vector<zkl_lock *> locks_;
  std::vector<zkl_election *> elections_;
  std::vector<Hold> holds_;
  std::vector<Leader> leaders_;
  std::vector<zkl_election *> followers_;
  std::vector<zkl_lock *> queue_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> churn_stop_{false};
  std::vector<std::pair<std::string, int>> churn_paths_;
  std::vector<Step> steps_;

  std::mutex mu_;  // guards everything below, and the Tracked / Member records
  std::map<const void *, std::unique_ptr<Tracked>> tracked_;
  std::vector<Grant> grants_;
  std::vector<int64_t> queue_released_at_;
  int queue_head_ = 0;  // the queue position that holds (or is next granted)
  std::map<std::string, std::vector<Interval>> intervals_;
  std::vector<std::string> timeline_;
};

class RollingRestart : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why = NetnsEnsemble::NetnsUnavailable();
    if (!why.empty()) {
      skip_reason_ = new std::string(why);
      return;
    }
    // A restarted member waits for the quorum with the patience the
    // harness gives the ensemble's start (zk-server reads it; set before
    // any thread exists).
    setenv("ZK_START_TIMEOUT", "120", 0);
    NetnsOptions o;
    o.servers = 3;
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
    ASSERT_TRUE(ens_->WaitHealthy(std::chrono::seconds(120))) << "the ensemble is not healthy";
  }

  void RunVariant(bool kill) {
    Scenario s(ens_, kill);
    s.Run();
    s.DumpOnFailure();
  }

  static std::string *skip_reason_;
  static NetnsEnsemble *ens_;
};

std::string *RollingRestart::skip_reason_ = nullptr;
NetnsEnsemble *RollingRestart::ens_ = nullptr;

TEST_F(RollingRestart, CleanStopOfEachServerInTurnLosesNothing) { RunVariant(false); }

TEST_F(RollingRestart, KillNineOfEachServerInTurnLosesNothing) { RunVariant(true); }

}  // namespace
}  // namespace zkl_test
