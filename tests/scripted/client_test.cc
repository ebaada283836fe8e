// The client itself on a scripted session: its getters, log lines and
// statistics, the server list (set, or followed from the ensemble's
// configuration), a refused authentication, a session given up without a
// server, a session that cannot be started, and the wakeup in both modes.
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

void IgnoreLog(int, const char *, const char *, void *) {}

class ScriptedClient : public Scripted {
 protected:
  // Log lines come as events (pull form) from `level` on.
  void LogFrom(int level) {
    configure_ = [level](zkl_client_options *o) {
      o->log_cb = IgnoreLog;
      o->log_level = level;
    };
  }

  // The next log line (or statistics document, `type`) containing `text`;
  // others are skipped. Bounded: type 0 when none came.
  Event NextLine(const std::string &text, int type = ZKL_EVENT_LOG) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
    for (;;) {
      while (!client_events_.empty()) {
        Event e = client_events_.front();
        client_events_.pop_front();
        if (e.type == type && e.data.find(text) != std::string::npos) return e;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !Pull(left.count())) return Event();
    }
  }

  std::string ClientStats() { return StatsOf(zkl_client_stats, c_); }
};

TEST_F(ScriptedClient, GettersOfAConnectedSession) {
  Start();
  EXPECT_EQ(zkl_client_state(c_), ZKL_SESSION_CONNECTED);
  uint64_t id = 0;
  EXPECT_EQ(zkl_client_session_id(c_, &id), ZKL_OK);
  EXPECT_EQ(id, sid());
  uint8_t password[16];
  EXPECT_EQ(zkl_client_session_password(c_, password, sizeof password), 16);
  EXPECT_EQ(zkl_client_session_password(c_, password, 8), ZKL_ERANGE);
  EXPECT_EQ(zkl_client_session_timeout(c_), script_->negotiated_timeout_ms());
  EXPECT_GE(zkl_client_fd(c_), 0);
  char why[128] = "x";
  EXPECT_EQ(zkl_client_connect_error(c_, why, sizeof why), 0);  // no failure kept
  EXPECT_STREQ(why, "");
  script_->DropConnection();
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  EXPECT_EQ(zkl_client_state(c_), ZKL_SESSION_SUSPENDED);
  EXPECT_EQ(zkl_client_session_id(c_, &id), ZKL_OK);  // the session may live
  EXPECT_EQ(id, sid());
}

TEST_F(ScriptedClient, LogLinesInThePullForm) {
  LogFrom(ZKL_LOG_INFO);
  Start();
  char expected[64];
  std::snprintf(expected, sizeof expected, "session 0x%llx (timeout 10000 ms)", static_cast<unsigned long long>(sid()));
  Event line = NextLine(expected);
  EXPECT_EQ(line.type, ZKL_EVENT_LOG);
  EXPECT_EQ(line.log_level, ZKL_LOG_INFO);
  EXPECT_EQ(line.component, "zkl");
  script_->DropConnection();
  EXPECT_EQ(NextLine("disconnected from ZooKeeper").log_level, ZKL_LOG_WARN);
}

TEST_F(ScriptedClient, StatisticsDocumentAndPeriodicEvents) {
  configure_ = [](zkl_client_options *o) { o->stats_interval_ms = 20; };
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  std::string stats = ClientStats();
  EXPECT_NE(stats.find("\"schema\":1"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"state\":\"connected\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"io\":\"thread\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"servers\":\"scripted:2181\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"following\":false"), std::string::npos) << stats;
  char session[40];
  std::snprintf(session, sizeof session, "\"session_id\":\"0x%llx\"", static_cast<unsigned long long>(sid()));
  EXPECT_NE(stats.find(session), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"path\":\"/f\""), std::string::npos) << stats;  // the lock's entry
  // The same document comes by itself every stats_interval_ms.
  Event periodic = NextLine("\"schema\":1", ZKL_EVENT_STATS);
  EXPECT_EQ(periodic.type, ZKL_EVENT_STATS);
  EXPECT_NE(periodic.data.find("\"handles\":["), std::string::npos) << periodic.data;
}

TEST_F(ScriptedClient, ServerListSetByTheCaller) {
  LogFrom(ZKL_LOG_INFO);
  Start();
  EXPECT_EQ(zkl_client_set_servers(c_, "no port"), ZKL_EINVAL);
  ASSERT_EQ(zkl_client_set_servers(c_, "zk9:2181"), ZKL_OK);
  EXPECT_NE(NextLine("server list zk9:2181 (was scripted:2181), from zkl_client_set_servers").type, 0);
  ASSERT_EQ(zkl_client_set_servers(c_, "zk9:2181"), ZKL_OK);  // the same: nothing changes
  std::string stats = ClientStats();
  EXPECT_NE(stats.find("\"servers\":\"zk9:2181\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"server_list_changes\":1"), std::string::npos) << stats;
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  EXPECT_EQ(zkl_client_set_servers(c_, "zk8:2181"), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_follow_ensemble(c_, 1), ZKL_ECLOSED);
}

constexpr char kTwoServers[] =
    "server.1=zk1:2888:3888:participant;2181\n"
    "server.2=zk2:2888:3888:observer;0.0.0.0:2182\n"
    "version=100000003";

TEST_F(ScriptedClient, ServerListFollowsTheEnsemblesConfiguration) {
  LogFrom(ZKL_LOG_INFO);
  Start();
  ASSERT_EQ(zkl_client_follow_ensemble(c_, 1), ZKL_OK);
  RequestPtr config = script_->Next(Kind::kGetConfig, "/zookeeper/config");
  EXPECT_TRUE(config->watch());
  script_->Reply(config, Data(kTwoServers, 0, 0));
  EXPECT_NE(NextLine("server list zk1:2181,zk2:2182 (was scripted:2181), from the ensemble's configuration 0x100000003").type, 0);
  std::string stats = ClientStats();
  EXPECT_NE(stats.find("\"following\":true"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"config_version\":\"0x100000003\""), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"members\":2"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"reads\":1"), std::string::npos) << stats;
  // A change is read again (and watched again); the same servers change nothing.
  script_->FireWatch(config, WatchType::kDataChanged);
  RequestPtr again = script_->Next(Kind::kGetConfig, "/zookeeper/config");
  script_->Reply(again, Data("server.2=zk2:2888:3888;zk2:2182\nserver.1=zk1:2888:3888;zk1:2181\nversion=100000004", 0, 0));
  script_->Flush();
  stats = ClientStats();
  EXPECT_NE(stats.find("\"config_version\":\"0x100000004\""), std::string::npos) << stats;  // read,
  EXPECT_NE(stats.find("\"server_list_changes\":1"), std::string::npos) << stats;        // not applied
  // A new session reads it again; off stops following.
  ASSERT_EQ(zkl_client_follow_ensemble(c_, 1), ZKL_OK);  // already on
  script_->DropConnection();
  script_->Connect();
  script_->Next(Kind::kGetConfig, "/zookeeper/config");
  ASSERT_EQ(zkl_client_follow_ensemble(c_, 0), ZKL_OK);
  EXPECT_NE(ClientStats().find("\"following\":false"), std::string::npos);
}

TEST_F(ScriptedClient, EnsembleConfigurationThatCannotBeFollowedIsSaidOnce) {
  LogFrom(ZKL_LOG_INFO);
  Start();
  ASSERT_EQ(zkl_client_follow_ensemble(c_, 1), ZKL_OK);
  struct Case {
    Answer answer;
    const char *why;
  };
  const Case cases[] = {
      {Error(ZkRc::kNoNode), "the servers publish no /zookeeper/config (ZooKeeper before 3.5)"},
      {Error(ZkRc::kNoAuth), "reading /zookeeper/config failed: "},
      {Data("no configuration here", 0, 0), "/zookeeper/config: "},
      {Data("server.1=zk1:2888:3888\nversion=1", 0, 0), "the ensemble's configuration: "},  // static: no client port
  };
  for (const Case &c : cases) {
    RequestPtr read = script_->Next(Kind::kGetConfig, "/zookeeper/config");
    script_->Reply(read, c.answer);
    EXPECT_NE(NextLine(std::string("not following the ensemble's configuration: ") + c.why).type, 0) << c.why;
    script_->FireWatch("/zookeeper/config", WatchType::kDataChanged);
  }
  // The same reason again is not logged again; a lost answer says nothing.
  script_->Reply(script_->Next(Kind::kGetConfig, "/zookeeper/config"),
                 Data("server.1=zk1:2888:3888\nversion=1", 0, 0));
  script_->FireWatch("/zookeeper/config", WatchType::kDataChanged);
  script_->Next(Kind::kGetConfig, "/zookeeper/config");
  script_->DropConnection();
  script_->Flush();
  while (Pull(0)) {
  }
  for (const Event &e : client_events_) {
    EXPECT_EQ(e.data.find("not following"), std::string::npos) << e.data;
  }
  EXPECT_NE(ClientStats().find("\"servers\":\"scripted:2181\""), std::string::npos);
}

TEST_F(ScriptedClient, RefusedCredentialsEndHoldsAndAcquires) {
  Start();
  zkl_lock *held = NewLock("/f");
  zkl_lock *waiting = NewLock("/g");
  HoldFair(held, "/f");
  ASSERT_GT(zkl_lock_acquire_async(waiting, 1, -1), 0);
  script_->Next(Kind::kCreate, "/g/");
  script_->FailAuth();
  std::vector<Event> seen = {NextEvent(), NextEvent()};
  auto has = [&](int type) {
    return std::any_of(seen.begin(), seen.end(), [&](const Event &e) { return e.type == type && e.error == ZKL_EAUTH; });
  };
  EXPECT_TRUE(has(ZKL_EVENT_LOST));
  EXPECT_TRUE(has(ZKL_EVENT_ACQUIRE_FAILED));
  EXPECT_EQ(NextSession(), ZKL_SESSION_AUTH_FAILED);
  EXPECT_EQ(zkl_client_state(c_), ZKL_SESSION_AUTH_FAILED);
  EXPECT_EQ(zkl_client_wait_connected(c_, 100), ZKL_EAUTH);
  EXPECT_EQ(zkl_lock_acquire_async(waiting, 1, -1), ZKL_EAUTH);
  char why[256];
  EXPECT_EQ(zkl_client_connect_error(c_, why, sizeof why), ZKL_EAUTH);
  EXPECT_NE(std::string(why).find("scripted:2181 (sasl): the server refused the credentials"), std::string::npos) << why;
}

TEST_F(ScriptedClient, SessionGivenUpWhenNoServerAnswersInTime) {
  // lost_after_ms bounds the wait for a server below the session timeout.
  configure_ = [](zkl_client_options *o) { o->lost_after_ms = 300; };
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  script_->DropConnection();  // and no server comes back
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  EXPECT_EQ(NextSession(), ZKL_SESSION_LOST);
  EXPECT_EQ(NextSession(), ZKL_SESSION_CONNECTED);  // a new session
  EXPECT_EQ(script_->session_serial(), 2);
}

// A reader on another thread that takes a session event finds the handle
// events of the same change already queued behind it: every lock's
// SUSPENDED after SESSION_SUSPENDED, every LOST after SESSION_LOST. (The
// event queue has a lock of its own; a session loss once became readable
// before its locks' LOST, and a test that drained right after the session
// event saw the session lost and no lock lost.)
TEST_F(ScriptedClient, SessionEventsAndTheirHandleEventsAreReadableTogether) {
  configure_ = [](zkl_client_options *o) { o->lost_after_ms = 300; };
  Start();
  // Many locks make the window wide: without the batch, about one run of
  // this test in three caught the race.
  constexpr int kLocks = 200;
  std::vector<zkl_lock *> locks;
  for (int i = 0; i < kLocks; ++i) locks.push_back(NewLock(("/f" + std::to_string(i)).c_str()));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kLocks; ++i) HoldFair(locks[i], "/f" + std::to_string(i), 1000 * (round + 1) + i);
    // After each session event: the handle events readable at once (no wait).
    std::vector<int> states, suspended_after, lost_after;
    std::thread reader([&] {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
      while (lost_after.empty() && std::chrono::steady_clock::now() < deadline) {
        zkl_event *ev = nullptr;
        if (zkl_client_next_event(c_, &ev) != ZKL_OK) {
          zkl_client_wait(c_, 50);
          continue;
        }
        bool session = zkl_event_type(ev) == ZKL_EVENT_SESSION;
        int state = zkl_event_session_state(ev);
        zkl_event_free(ev);
        if (!session || (state != ZKL_SESSION_SUSPENDED && state != ZKL_SESSION_LOST)) continue;
        states.push_back(state);
        int suspended = 0, lost = 0;
        while (zkl_client_next_event(c_, &ev) == ZKL_OK) {
          suspended += zkl_event_type(ev) == ZKL_EVENT_SUSPENDED;
          lost += zkl_event_type(ev) == ZKL_EVENT_LOST;
          zkl_event_free(ev);
        }
        if (state == ZKL_SESSION_SUSPENDED) {
          suspended_after.push_back(suspended);
        } else {
          lost_after.push_back(lost);
        }
      }
    });
    script_->DropConnection();  // and no server comes back: suspended, then lost
    reader.join();
    EXPECT_EQ(states, (std::vector<int>{ZKL_SESSION_SUSPENDED, ZKL_SESSION_LOST})) << "round " << round;
    EXPECT_EQ(suspended_after, std::vector<int>{kLocks}) << "round " << round;
    EXPECT_EQ(lost_after, std::vector<int>{kLocks}) << "round " << round;
    ASSERT_EQ(zkl_client_wait_connected(c_, kWaitMs), ZKL_OK);  // the next session, for the next round
  }
}

TEST_F(ScriptedClient, SessionThatCannotStartIsRetried) {
  LogFrom(ZKL_LOG_ERROR);
  Start();
  script_->RefuseSessions(1);
  script_->Expire();
  EXPECT_EQ(NextSession(), ZKL_SESSION_LOST);
  EXPECT_NE(NextLine("cannot start a session: ").type, 0);
  // No session to send on: an acquire waits for the next one.
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  EXPECT_EQ(NextSession(), ZKL_SESSION_CONNECTED);  // the retry a second later
  EXPECT_EQ(script_->session_serial(), 2);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  EXPECT_EQ(create->session, 2);
  AnswerJoin(create, 1, 201);
  ExpectAcquired(201u);
}

TEST_F(ScriptedClient, ClientThatCannotStartASessionIsNotMade) {
  script_ = Script::Make();
  script_->RefuseSessions(1);
  zkl_client_options opts;
  zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
  opts.servers = "unresolvable:2181";
  std::shared_ptr<Client> client;
  std::string why;
  EXPECT_EQ(Client::Create(opts, script_->Factory(), &client, &why), ZKL_ECONNECTION);
  EXPECT_EQ(why, "servers: not one name of \"unresolvable:2181\" resolves");
  EXPECT_EQ(client, nullptr);
}

class ScriptedClientIo : public ScriptedClient, public ::testing::WithParamInterface<int> {};

TEST_P(ScriptedClientIo, WakeupEndsAWait) {
  Start(GetParam());
  ASSERT_EQ(zkl_client_wakeup(c_), ZKL_OK);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zkl_client_wait(c_, 5000), 0);  // woken, no event
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(4000));
}

INSTANTIATE_TEST_SUITE_P(Modes, ScriptedClientIo, ::testing::Values(ZKL_IO_THREAD, ZKL_IO_HOST),
                         [](const ::testing::TestParamInfo<int> &mode) {
                           return mode.param == ZKL_IO_HOST ? std::string("Host") : std::string("Thread");
                         });

}  // namespace
}  // namespace zkl::scripted
