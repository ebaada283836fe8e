// Dynamic ensembles (issue 23, item 4): a 3 -> 5 -> 3 member reconfig of a
// real ensemble (ZooKeeper dynamic reconfiguration, zk-server
// ZK_RECONFIG=1) while locks and an election are held, each server in a
// network namespace of its own (tests/harness NetnsEnsemble,
// scripts/zk-netns), so that every server has an address of its own, as in
// production.
//
// Client F follows the ensemble (zkl_client_follow_ensemble) and holds a
// lock and an election's lead; client N does not follow and names servers 1
// and 2 only, holds a lock F waits for, and waits in the election's line.
// Servers 4 and 5 join (zk-server join, then reconfig -add through a raw
// ZooKeeper client): F's list grows to the five. Servers 1 and 2 leave
// (reconfig -remove, then stopped): F moves to the remaining three and keeps
// its session, its lock (same fencing token) and the lead (same term),
// without a single LOST. N, whose servers are gone, loses its session (LOST
// after its session timeout: the documented fate of a client that does not
// follow), its lock passes to F, and zkl_client_set_servers brings it back
// with a new session.
//
// The process runs inside client namespace c1 (entered before any zkl
// thread exists). Needs root; skipped with the reason elsewhere, and a
// failure when ZKL_REQUIRE_NETNS=1.
#include <gtest/gtest.h>
#include <zkl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "zk_harness.h"

namespace zkl_test {
namespace {

constexpr int kSessionMs = 8000;

std::set<std::string> ServerSet(const std::string &list) {
  std::set<std::string> out;
  std::stringstream in(list);
  std::string s;
  while (std::getline(in, s, ',')) out.insert(s);
  return out;
}

// Events of a client, counted as they are taken.
struct Tally {
  int lost = 0;
  int suspended = 0;
  int restored = 0;
  std::vector<int> session_states;
  void Note(const zkl_event *ev) {
    int type = zkl_event_type(ev);
    if (type == ZKL_EVENT_LOST) ++lost;
    if (type == ZKL_EVENT_SUSPENDED) ++suspended;
    if (type == ZKL_EVENT_RESTORED) ++restored;
    if (type == ZKL_EVENT_SESSION) session_states.push_back(zkl_event_session_state(ev));
  }
  void Drain(zkl_client *c) {
    while (EventPtr ev = NextEvent(c, 0)) Note(ev.get());
  }
  // The next event of `type` (others are counted on the way), or null.
  EventPtr WaitFor(zkl_client *c, int type, int64_t timeout_ms, int session_state = 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      EventPtr ev = NextEvent(c, std::max<int64_t>(left.count(), 0));
      if (!ev) return nullptr;
      Note(ev.get());
      if (zkl_event_type(ev.get()) == type &&
          (session_state == 0 || zkl_event_session_state(ev.get()) == session_state)) {
        return ev;
      }
    }
  }
};

bool Connected(zkl_client *c) {
  int s = zkl_client_state(c);
  return s == ZKL_SESSION_CONNECTED || s == ZKL_SESSION_RECONNECTED;
}

uint64_t SessionId(zkl_client *c) {
  uint64_t id = 0;
  EXPECT_EQ(zkl_client_session_id(c, &id), 0);
  return id;
}

uint64_t Term(zkl_election *e) {
  uint64_t t = 0;
  EXPECT_EQ(zkl_election_fencing_token(e, &t), 0);
  return t;
}

class Reconfig : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why = NetnsEnsemble::NetnsUnavailable();
    if (!why.empty()) {
      skip_reason_ = new std::string(why);
      return;
    }
    NetnsOptions o;
    o.servers = 3;
    o.spare_servers = 2;
    o.clients = 1;
    o.tick_ms = 1000;
    o.sync_limit = 5;
    o.env = {"ZK_RECONFIG=1"};
    ens_ = NetnsEnsemble::Start(o).release();
    if (!ens_->EnterClientNamespace(1)) skip_reason_ = new std::string("cannot enter the client namespace");
  }
  static void TearDownTestSuite() {
    delete ens_;
    ens_ = nullptr;
  }

  void SetUp() override {
    if (skip_reason_ != nullptr) ZKL_SKIP_OR_FAIL_WITHOUT_NETNS(*skip_reason_);
    ASSERT_TRUE(ens_->WaitHealthy(std::chrono::seconds(90))) << "the ensemble is not healthy";
  }

  void TearDown() override {
    if (ens_ != nullptr) ens_->Heal();
  }

  static std::string Of(std::initializer_list<int> members) {
    std::string s;
    for (int k : members) s += (s.empty() ? "" : ",") + ens_->connect_of(k);
    return s;
  }

  static std::string *skip_reason_;
  static NetnsEnsemble *ens_;
};

std::string *Reconfig::skip_reason_ = nullptr;
NetnsEnsemble *Reconfig::ens_ = nullptr;

TEST_F(Reconfig, ThreeToFiveToThreeWhileLocksAreHeld) {
  const std::string first3 = Of({1, 2, 3}), n_servers = Of({1, 2});
  auto f = NewClient(kSessionMs, first3);
  auto n = NewClient(kSessionMs, n_servers);
  Tally tf, tn;

  // F follows: it reads the configuration (the same three: no change).
  ASSERT_EQ(zkl_client_follow_ensemble(f.get(), 1), 0);
  ASSERT_TRUE(Eventually([&] { return StatCounter(f.get(), "members") == 3; }, 15000))
      << StatString(f.get(), "not_followed");
  EXPECT_EQ(StatString(f.get(), "not_followed"), "");
  EXPECT_NE(StatString(f.get(), "config_version"), "");
  EXPECT_EQ(ServerSet(StatString(f.get(), "servers")), ServerSet(first3));
  EXPECT_EQ(StatCounter(f.get(), "server_list_changes"), 0u);

  // The holds. F: a lock, and the election's lead. N: a lock F waits for,
  // and a place in the election's line.
  const std::string f_path = UniquePath("f-lock"), n_path = UniquePath("n-lock"),
                    e_path = UniquePath("election");
  auto lf = NewLock(f.get(), f_path);
  ASSERT_EQ(zkl_lock_acquire(lf.get(), 1, 15000), 0);
  auto ln = NewLock(n.get(), n_path);
  ASSERT_EQ(zkl_lock_acquire(ln.get(), 1, 15000), 0);
  auto lfn = NewLock(f.get(), n_path);
  ASSERT_GT(zkl_lock_acquire_async(lfn.get(), 1, -1), 0);
  ElectionPtr ef, en;
  NewElection(f.get(), e_path, ZKL_ELECTION_FAIR, "F", &ef);
  ASSERT_EQ(zkl_election_acquire(ef.e, 15000), 0);
  NewElection(n.get(), e_path, ZKL_ELECTION_FAIR, "N", &en);
  ASSERT_GT(zkl_election_acquire_async(en.e, -1), 0);
  ASSERT_NE(tn.WaitFor(n.get(), ZKL_EVENT_NOT_ELECTED, 15000), nullptr);
  const uint64_t f_session = SessionId(f.get()), f_token = Token(lf.get()), term = Term(ef.e);

  // F keeps everything: the same session, the lock with its token, the lead
  // with its term, and never a LOST.
  bool n_holds = true;  // until N is lost, N's lock is N's
  auto check_f = [&](const char *when) {
    EXPECT_TRUE(Eventually([&] { return Connected(f.get()); }, 20000)) << when;
    tf.Drain(f.get());
    EXPECT_EQ(SessionId(f.get()), f_session) << when;
    EXPECT_EQ(StatCounter(f.get(), "sessions"), 1u) << when;
    EXPECT_EQ(tf.lost, 0) << when;
    EXPECT_TRUE(Eventually([&] { return zkl_lock_is_held(lf.get()) == 1; }, 15000)) << when;
    EXPECT_EQ(Token(lf.get()), f_token) << when;
    EXPECT_TRUE(Eventually([&] { return zkl_election_is_leader(ef.e) == 1; }, 15000)) << when;
    EXPECT_EQ(Term(ef.e), term) << when;
    if (n_holds) {
      EXPECT_EQ(zkl_lock_is_held(lfn.get()), 0) << when << ": N's lock is N's";
    }
    std::printf("[ reconfig ] %s: F on %s, list %s (%llu list changes, %d suspended / %d restored)\n", when,
                StatString(f.get(), "server").c_str(), StatString(f.get(), "servers").c_str(),
                static_cast<unsigned long long>(StatCounter(f.get(), "server_list_changes")), tf.suspended,
                tf.restored);
    std::fflush(stdout);
  };

  // 3 -> 5: servers 4 and 5 start as non-voting followers, then join.
  int k4 = ens_->AddMember(), k5 = ens_->AddMember();
  ASSERT_EQ(k4, 4);
  ASSERT_EQ(k5, 5);
  std::string config = ReconfigEnsemble(first3, ens_->ServerSpec(4) + "," + ens_->ServerSpec(5), "");
  ASSERT_NE(config.find("server.5="), std::string::npos) << config;
  const std::string all5 = Of({1, 2, 3, 4, 5});
  EXPECT_TRUE(Eventually([&] {
    return StatCounter(f.get(), "members") == 5 && ServerSet(StatString(f.get(), "servers")) == ServerSet(all5);
  }, 20000)) << "F's list did not grow to the five: " << StatString(f.get(), "servers");
  EXPECT_EQ(StatString(n.get(), "servers"), n_servers) << "N does not follow";
  check_f("after 3 -> 5");

  // The removal of 1 and 2 moves F for sure when F is on one of them: the
  // rebalancing may have put it on 3, 4 or 5 (a draw), so the network makes
  // it use 1 or 2 for a while.
  auto on_1_or_2 = [&] {
    std::string s = StatString(f.get(), "server");
    return Connected(f.get()) && (s == ens_->connect_of(1) || s == ens_->connect_of(2));
  };
  if (!on_1_or_2()) {
    for (int k = 3; k <= 5; ++k) ens_->Block("c1", "s" + std::to_string(k));
    EXPECT_TRUE(Eventually(on_1_or_2, 30000)) << "F is on " << StatString(f.get(), "server");
    ens_->Heal();
  }
  check_f("on server 1 or 2");

  // 5 -> 3: servers 1 and 2 leave. They keep serving as non-voting
  // followers until stopped; F's list shrinks at once, which moves it.
  config = ReconfigEnsemble(Of({3, 4, 5}), "", "1,2");
  ASSERT_EQ(config.find("server.1="), std::string::npos) << config;
  const std::string last3 = Of({3, 4, 5});
  EXPECT_TRUE(Eventually([&] {
    std::string s = StatString(f.get(), "server");
    return ServerSet(StatString(f.get(), "servers")) == ServerSet(last3) && Connected(f.get()) &&
           ServerSet(last3).count(s) == 1;
  }, 30000)) << "F did not move to 3, 4, 5: on " << StatString(f.get(), "server") << ", list "
             << StatString(f.get(), "servers");
  EXPECT_EQ(StatCounter(f.get(), "members"), 3u);
  check_f("after 5 -> 3");
  ens_->member(1).Stop();
  ens_->member(2).Stop();
  ASSERT_TRUE(ens_->WaitHealthy(std::chrono::seconds(60)));
  check_f("servers 1 and 2 stopped");

  // N named only servers 1 and 2: it cannot reconnect, and loses its
  // session a session timeout after its connection went (zkl gives it up;
  // the ensemble expires it). Its lock passes to F.
  EventPtr lost = tn.WaitFor(n.get(), ZKL_EVENT_SESSION, kSessionMs + 20000, ZKL_SESSION_LOST);
  ASSERT_NE(lost, nullptr) << "N was not lost; state " << zkl_client_state(n.get());
  tn.Drain(n.get());
  EXPECT_GE(tn.lost, 1) << "N's lock is reported lost";
  EXPECT_EQ(zkl_lock_is_held(ln.get()), 0);
  n_holds = false;
  ASSERT_NE(tf.WaitFor(f.get(), ZKL_EVENT_ACQUIRED, kSessionMs + 20000), nullptr)
      << "N's lock did not pass to F";
  EXPECT_EQ(zkl_lock_is_held(lfn.get()), 1);
  // The list it is given brings N back, with a new session.
  ASSERT_EQ(zkl_client_set_servers(n.get(), last3.c_str()), 0);
  EXPECT_EQ(zkl_client_wait_connected(n.get(), 20000), 0);
  EXPECT_EQ(StatCounter(n.get(), "sessions"), 2u);
  check_f("at the end");
  std::printf("[ reconfig ] N: %d locks/elections lost, session states", tn.lost);
  for (int s : tn.session_states) std::printf(" %d", s);
  std::printf("\n");
}

}  // namespace
}  // namespace zkl_test
