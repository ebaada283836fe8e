// zkl_client_set_servers and zkl_client_follow_ensemble on a loopback
// ensemble of three (tests/harness ZkEnsemble): a client moved from server
// 1 to servers {2, 3} keeps its session and its lock; repeated forced moves
// never look like a new session (the C client's move goes through its
// disconnect path: third_party/zookeeper/patches/0007); the chroot stays;
// names that do not resolve are refused or skipped; an ensemble without
// dynamic configuration is not followed (said once). Membership changes
// (reconfig) are in reconfig_test (network namespaces).
#include <gtest/gtest.h>
#include <zkl.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "test_support.h"
#include "zk_harness.h"

namespace zkl_test {
namespace {

constexpr int kSessionMs = 6000;

std::string Stats(zkl_client *c) {
  char *json = nullptr;
  if (zkl_client_stats(c, &json, nullptr) != 0) return "";
  std::string doc(json);
  zkl_free(json);
  return doc;
}

// Every pending event of `c`, counted: SESSION states, LOST, and the rest.
struct Seen {
  std::vector<int> session_states;
  int lost = 0;
  int suspended = 0;
  int restored = 0;
  void Drain(zkl_client *c) {
    while (EventPtr ev = NextEvent(c, 0)) {
      int type = zkl_event_type(ev.get());
      if (type == ZKL_EVENT_SESSION) session_states.push_back(zkl_event_session_state(ev.get()));
      if (type == ZKL_EVENT_LOST) ++lost;
      if (type == ZKL_EVENT_SUSPENDED) ++suspended;
      if (type == ZKL_EVENT_RESTORED) ++restored;
    }
  }
  bool Saw(int state) const {
    for (int s : session_states) {
      if (s == state) return true;
    }
    return false;
  }
};

bool Connected(zkl_client *c) {
  int s = zkl_client_state(c);
  return s == ZKL_SESSION_CONNECTED || s == ZKL_SESSION_RECONNECTED;
}

class SetServers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ens_ = ZkEnsemble::Start(3).release(); }
  static void TearDownTestSuite() {
    delete ens_;
    ens_ = nullptr;
  }
  static std::string Of(int k) { return ens_->member(k).connect(); }
  static ZkEnsemble *ens_;
};

ZkEnsemble *SetServers::ens_ = nullptr;

TEST_F(SetServers, AClientMovedToOtherServersKeepsItsSessionAndItsLock) {
  auto c = NewClient(kSessionMs, Of(1));
  auto other = NewClient(kSessionMs, Of(2) + "," + Of(3));
  std::string path = UniquePath("moved");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  uint64_t token = Token(l.get()), session = 0, after = 0;
  ASSERT_EQ(zkl_client_session_id(c.get(), &session), 0);
  ASSERT_EQ(StatString(c.get(), "server"), Of(1));
  Seen seen;
  seen.Drain(c.get());

  std::string to = Of(2) + "," + Of(3);
  ASSERT_EQ(zkl_client_set_servers(c.get(), to.c_str()), 0);
  EXPECT_EQ(StatString(c.get(), "servers"), to);
  // Its server left the list: it reconnects to one of the others, the same session.
  ASSERT_TRUE(Eventually([&] {
    std::string s = StatString(c.get(), "server");
    return Connected(c.get()) && (s == Of(2) || s == Of(3));
  }, 15000)) << Stats(c.get());
  seen.Drain(c.get());
  ASSERT_EQ(zkl_client_session_id(c.get(), &after), 0);
  EXPECT_EQ(after, session);
  EXPECT_TRUE(seen.Saw(ZKL_SESSION_RECONNECTED)) << "the move is a reconnect";
  EXPECT_FALSE(seen.Saw(ZKL_SESSION_LOST));
  EXPECT_EQ(seen.lost, 0);
  EXPECT_EQ(StatCounter(c.get(), "sessions"), 1u);
  EXPECT_EQ(StatCounter(c.get(), "sessions_lost"), 0u);
  EXPECT_EQ(StatCounter(c.get(), "server_list_changes"), 1u);
  EXPECT_TRUE(Eventually([&] { return zkl_lock_is_held(l.get()) == 1; }, 10000));
  EXPECT_EQ(Token(l.get()), token);
  // Still exclusive.
  auto lo = NewLock(other.get(), path);
  EXPECT_EQ(zkl_lock_try_acquire(lo.get(), 1), ZKL_EAGAIN);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_acquire(lo.get(), 1, 10000), 0);
}

TEST_F(SetServers, RepeatedMovesWithRequestsInFlightStayOneSession) {
  // Each set_servers below forces a move (the current server is not in the
  // new list) while heartbeats, a held lock and a waiting acquire have
  // requests and watches on the connection. Before patch 0007 the C client
  // closed the socket silently: zkl took the next CONNECTED for a new
  // session, and answers of the new server failed the requests sent on the
  // old one ("unexpected server response").
  auto c = NewClient(kSessionMs, Of(1));
  auto holder = NewClient(kSessionMs, Of(3));
  std::string held_path = UniquePath("moves-held"), waited_path = UniquePath("moves-waited");
  auto held = NewLock(c.get(), held_path);
  ASSERT_EQ(zkl_lock_acquire(held.get(), 1, 10000), 0);
  uint64_t token = Token(held.get());
  auto blocker = NewLock(holder.get(), waited_path);
  ASSERT_EQ(zkl_lock_acquire(blocker.get(), 1, 10000), 0);
  auto waiter = NewLock(c.get(), waited_path);
  ASSERT_GT(zkl_lock_acquire_async(waiter.get(), 2, -1), 0);
  Seen seen;
  const std::string lists[] = {Of(2) + "," + Of(3), Of(1)};
  for (int round = 0; round < 8; ++round) {
    const std::string &to = lists[round % 2];
    ASSERT_EQ(zkl_client_set_servers(c.get(), to.c_str()), 0) << round;
    ASSERT_TRUE(Eventually([&] {
      std::string s = StatString(c.get(), "server");
      return Connected(c.get()) && to.find(s) != std::string::npos;
    }, 15000)) << "round " << round << ": " << Stats(c.get());
    seen.Drain(c.get());
  }
  EXPECT_EQ(StatCounter(c.get(), "sessions"), 1u) << Stats(c.get());
  EXPECT_GE(StatCounter(c.get(), "reconnects"), 8u);
  EXPECT_EQ(StatCounter(c.get(), "sessions_lost"), 0u);
  EXPECT_EQ(seen.lost, 0);
  EXPECT_FALSE(seen.Saw(ZKL_SESSION_LOST));
  EXPECT_TRUE(Eventually([&] { return zkl_lock_is_held(held.get()) == 1; }, 10000));
  EXPECT_EQ(Token(held.get()), token);
  // The waiter kept its place and its watch: granted when the holder lets go.
  EXPECT_EQ(zkl_lock_is_held(waiter.get()), 0);
  ASSERT_EQ(zkl_lock_release(blocker.get(), 1), 0);
  EventPtr ev = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 15000);
  if (ev == nullptr) {
    zkl_participants *p = nullptr;
    std::string queue;
    if (zkl_inspect(holder.get(), waited_path.c_str(), InspectLock(ZKL_LOCK_FAIR), &p) == 0) {
      for (int i = 0; i < zkl_participants_count(p); ++i) {
        const char *name = nullptr;
        uint64_t sid = 0;
        zkl_participants_name(p, static_cast<size_t>(i), &name);
        zkl_participants_session_id(p, static_cast<size_t>(i), &sid);
        queue += std::string(name) + " (session " + std::to_string(sid) + ") ";
      }
      zkl_participants_free(p);
    }
    FAIL() << "the waiting acquire was not granted after the moves; queue: " << queue << "\n"
           << Stats(c.get());
  }
  EXPECT_EQ(zkl_lock_is_held(waiter.get()), 1);
}

TEST_F(SetServers, TheChrootStays) {
  // The chroot's node exists while `outside` holds a lock below it.
  std::string root = UniquePath("chroot");
  auto outside = NewClient(kSessionMs, Of(1));
  auto anchor = NewLock(outside.get(), root + "/inner/anchor");
  ASSERT_EQ(zkl_lock_acquire(anchor.get(), 1, 10000), 0);
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  std::string first = Of(1);
  o.servers = first.c_str();
  o.chroot = root.c_str();
  o.session_timeout_ms = kSessionMs;
  ClientPtr c;
  ASSERT_EQ(NewClientWith(o, &c), 0);
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  std::string to = Of(2) + "," + Of(3);
  ASSERT_EQ(zkl_client_set_servers(c.get(), to.c_str()), 0);
  ASSERT_TRUE(Eventually([&] { return Connected(c.get()) && StatString(c.get(), "server") != Of(1); }, 15000));
  auto inner = NewLock(c.get(), "/inner/l");
  ASSERT_EQ(zkl_lock_acquire(inner.get(), 1, 10000), 0);
  zkl_participants *p = nullptr;
  ASSERT_EQ(zkl_inspect(outside.get(), (root + "/inner/l").c_str(), InspectLock(ZKL_LOCK_FAIR), &p), 0);
  EXPECT_EQ(zkl_participants_count(p), 1) << "the lock is not below the chroot";
  zkl_participants_free(p);
}

TEST_F(SetServers, NamesThatDoNotResolve) {
  auto c = NewClient(kSessionMs, Of(1));
  // Not one resolves: refused, the list stays, the session is untouched.
  EXPECT_EQ(zkl_client_set_servers(c.get(), "nosuch.invalid:2181"), ZKL_ECONNECTION);
  EXPECT_EQ(StatString(c.get(), "servers"), Of(1));
  EXPECT_EQ(StatCounter(c.get(), "server_list_changes"), 0u);
  EXPECT_TRUE(Connected(c.get()));
  // One that does not resolve among others is skipped.
  std::string mixed = "nosuch.invalid:2181," + Of(2);
  ASSERT_EQ(zkl_client_set_servers(c.get(), mixed.c_str()), 0);
  EXPECT_TRUE(Eventually([&] { return Connected(c.get()) && StatString(c.get(), "server") == Of(2); }, 15000))
      << Stats(c.get());
  EXPECT_EQ(StatCounter(c.get(), "sessions"), 1u);
  // A client whose names do not resolve is not created (no session could start).
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = "nosuch.invalid:2181";
  zkl_client *bad = nullptr;
  char why[256] = "";
  EXPECT_EQ(zkl_client_create(&o, &bad, why, sizeof why), ZKL_ECONNECTION);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(why).find("resolves"), std::string::npos) << why;
}

TEST_F(SetServers, BadInput) {
  auto c = NewClient(kSessionMs, Of(1));
  for (const char *bad : {"", "nohostport", ":2181", "host:0", "host:65536", "127.0.0.1:2181/chroot",
                          "a b:2181", "127.0.0.1:2181,"}) {
    EXPECT_EQ(zkl_client_set_servers(c.get(), bad), ZKL_EINVAL) << bad;
  }
  EXPECT_EQ(zkl_client_set_servers(c.get(), nullptr), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_follow_ensemble(c.get(), 2), ZKL_EINVAL);
  EXPECT_EQ(zkl_client_follow_ensemble(c.get(), -1), ZKL_EINVAL);
  EXPECT_EQ(StatString(c.get(), "servers"), Of(1));
  EXPECT_EQ(zkl_client_set_servers(nullptr, Of(2).c_str()), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_follow_ensemble(nullptr, 1), ZKL_EBADHANDLE);
  zkl_client *raw = c.release();
  ASSERT_EQ(zkl_client_close(raw), 0);
  EXPECT_EQ(zkl_client_set_servers(raw, Of(2).c_str()), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_follow_ensemble(raw, 1), ZKL_ECLOSED);
  ASSERT_EQ(zkl_client_destroy(raw), 0);
  EXPECT_EQ(zkl_client_set_servers(raw, Of(2).c_str()), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_follow_ensemble(raw, 0), ZKL_EBADHANDLE);
}

TEST_F(SetServers, AStaticEnsembleIsNotFollowedAndSaysSoOnce) {
  // zk-server's plain ensembles are configured 3.4-style (server lines
  // without client addresses, clientPort apart): /zookeeper/config gives no
  // client address, so following it would drop every server.
  Logs logs;
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  std::string all = ens_->connect();
  o.servers = all.c_str();
  o.session_timeout_ms = kSessionMs;
  CaptureLogs(&o, &logs);
  ClientPtr c;
  ASSERT_EQ(NewClientWith(o, &c), 0);
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  std::printf("[ config   ] %s\n", EnsembleConfigOf(all).c_str());
  ASSERT_EQ(zkl_client_follow_ensemble(c.get(), 1), 0);
  ASSERT_TRUE(Eventually([&] { return StatString(c.get(), "not_followed") != ""; }, 10000)) << Stats(c.get());
  EXPECT_NE(StatString(c.get(), "not_followed").find("no client address"), std::string::npos) << Stats(c.get());
  EXPECT_EQ(StatString(c.get(), "servers"), all);
  // A reconnect reads the configuration again; the reason is said once.
  // (To a server it is not on: the move is the reconnect.)
  std::string to = StatString(c.get(), "server") == Of(1) ? Of(2) : Of(1);
  ASSERT_EQ(zkl_client_set_servers(c.get(), to.c_str()), 0);
  ASSERT_TRUE(Eventually([&] { return Connected(c.get()) && StatString(c.get(), "server") == to; }, 15000));
  ASSERT_TRUE(Eventually([&] { return StatCounter(c.get(), "reads") >= 2; }, 10000)) << Stats(c.get());
  DrainLogs(c.get());
  std::string all_logs = logs.All();
  size_t first = all_logs.find("not following the ensemble's configuration");
  ASSERT_NE(first, std::string::npos) << all_logs;
  EXPECT_EQ(all_logs.find("not following the ensemble's configuration", first + 1), std::string::npos) << all_logs;
  EXPECT_EQ(StatString(c.get(), "servers"), to);
  // Off again: nothing changes.
  EXPECT_EQ(zkl_client_follow_ensemble(c.get(), 0), 0);
  EXPECT_EQ(StatString(c.get(), "servers"), to);
}

}  // namespace
}  // namespace zkl_test
