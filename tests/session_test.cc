// Session trouble: expiry, the client-side deadline, short disconnects and a
// connection cut right after a create — against a real server.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fault_proxy.h"
#include "test_support.h"

using namespace zkl_test;
using Clock = std::chrono::steady_clock;

namespace {

TEST(Session, ExpiryDeliversLostAndANewSession) {
  auto c = NewClient(6000);
  std::string path = UniquePath("expiry");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t old_session = 0;
  zkl_client_session_id(c.get(), &old_session);
  uint64_t token = 0;
  zkl_lock_fencing_token(l.get(), &token);
  ExpireClientSession(c.get());
  auto lost = WaitForEvent(c.get(), ZKL_EVENT_LOST, 15000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_ESESSION);
  uint64_t lost_token = 0;
  zkl_event_fencing_token(lost.get(), &lost_token);
  EXPECT_EQ(lost_token, token);  // names the hold that was lost
  zkl_lock *which = nullptr;
  zkl_event_lock(lost.get(), &which);
  EXPECT_EQ(which, l.get());
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ELOST);  // told once
  EXPECT_EQ(zkl_lock_release(l.get(), 1), ZKL_ENOTHELD);
  // A new session comes up by itself and the lock can be taken again.
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 15000), 0);
  uint64_t new_session = 0;
  zkl_client_session_id(c.get(), &new_session);
  EXPECT_NE(new_session, old_session);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(Children(path).size(), 1u);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  uint64_t sessions = 0;
  sessions = StatCounter(c.get(), "sessions");
  EXPECT_EQ(sessions, 2u);
}

// An acquire made before the session is up must create exactly one node.
TEST(Session, AcquireBeforeConnectedCreatesOneNode) {
  std::string path = UniquePath("before-connected");
  zkl_client_options opts;
  zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  opts.servers = servers.c_str();
  zkl_client *raw = nullptr;
  ASSERT_EQ(zkl_client_new(&opts, &raw), 0);
  ClientPtr c(raw);
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(Children(path).size(), 1u);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_TRUE(Children(path).empty());
}

TEST(Session, WaitingAcquireSurvivesExpiry) {
  auto holder_client = NewClient(), waiter_client = NewClient(6000);
  std::string path = UniquePath("waiter-expiry");
  auto holder = NewLock(holder_client.get(), path);
  auto waiter = NewLock(waiter_client.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  ASSERT_GT(zkl_lock_acquire_async(waiter.get(), 2, 60000), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ExpireClientSession(waiter_client.get());
  ASSERT_EQ(zkl_client_wait_connected(waiter_client.get(), 15000), 0);
  // The waiter queued again in its new session.
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  auto ev = WaitForEvent(waiter_client.get(), ZKL_EVENT_ACQUIRED, 15000);
  ASSERT_TRUE(ev);
  ASSERT_EQ(zkl_lock_release(waiter.get(), 2), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

// The server is frozen (SIGSTOP): it can expire nothing, and says nothing.
// The holder must stop claiming the lock by itself before the server could
// have expired its session: SUSPENDED (is_held false) within 3/4 of the
// session timeout. It keeps trying to resume the session meanwhile, and
// gives it up (LOST) a session timeout after the connection was lost.
TEST(Session, AFrozenServerSuspendsTheHoldAndTheSessionIsGivenUpAfterItsTimeout) {
  constexpr int kTimeout = 4000;
  auto c = NewClient(kTimeout);
  ASSERT_EQ(zkl_client_session_timeout(c.get()), kTimeout);
  auto l = NewLock(c.get(), UniquePath("deadline"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  while (NextEvent(c.get(), 0)) {}
  auto paused_at = Clock::now();
  Server().Pause();
  auto suspended = WaitForEvent(c.get(), ZKL_EVENT_SUSPENDED, kTimeout);
  auto suspended_after = Clock::now() - paused_at;
  bool got_suspended = static_cast<bool>(suspended);
  int held_while_suspended = zkl_lock_is_held(l.get());
  auto lost = WaitForEvent(c.get(), ZKL_EVENT_LOST, kTimeout * 3);
  auto lost_after = Clock::now() - paused_at;
  bool still_paused = Server().paused();
  Server().Resume();
  ASSERT_TRUE(got_suspended);
  // The server could expire the session kTimeout after it last heard from
  // us, which is no earlier than the pause: the hold said no before.
  EXPECT_LT(suspended_after, std::chrono::milliseconds(kTimeout * 3 / 4 + 200));
  EXPECT_EQ(held_while_suspended, 0);
  ASSERT_TRUE(lost);
  EXPECT_TRUE(still_paused);
  // Given up no earlier than a session timeout after the pause (the
  // connection is lost at or after it), and not much later than the C
  // client's 2/3 T of silence plus T.
  EXPECT_GE(lost_after, std::chrono::milliseconds(kTimeout));
  EXPECT_LT(lost_after, std::chrono::milliseconds(kTimeout * 2 / 3 + kTimeout + 1500));
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  // A fresh session afterwards, and the lock works again.
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 20000), 0);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

// Cuts that the server's session survives keep the hold (issue 23): the
// holder is SUSPENDED (is_held says no once the lease lapses), zkl keeps
// resuming the same session, and the hold comes back RESTORED with the same
// token. A stall keeps the connection open and forwards nothing (the C
// client gives it up after 2/3 T of silence); a reset closes it and stalls
// every new connection until the cut ends. At 80% of T the session is
// resumed after the 3/4 T at which zkl used to give it up.
TEST(Session, CutsTheSessionSurvivesKeepTheLock) {
  constexpr int kTimeout = 4000;
  FaultProxy proxy;
  proxy.Start(Server().connect());
  auto c = NewClient(kTimeout, proxy.connect());
  ASSERT_EQ(zkl_client_session_timeout(c.get()), kTimeout);
  auto l = NewLock(c.get(), UniquePath("survive"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t token = 0, session = 0;
  zkl_lock_fencing_token(l.get(), &token);
  zkl_client_session_id(c.get(), &session);
  for (bool reset : {false, true}) {
    for (int percent : {60, 80}) {
      SCOPED_TRACE(std::string(reset ? "reset " : "stall ") + std::to_string(percent) + "%");
      while (NextEvent(c.get(), 0)) {}
      auto cut_at = Clock::now();
      proxy.SetBlackhole(true);
      if (reset) proxy.DropAll();
      ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_SUSPENDED, kTimeout));
      // The fault lasts this long (the nemesis's duration, not a wait for zkl).
      std::this_thread::sleep_until(cut_at + std::chrono::milliseconds(kTimeout * percent / 100));
      EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
      proxy.SetBlackhole(false);
      auto restored = WaitForEvent(c.get(), ZKL_EVENT_RESTORED, 2 * kTimeout);
      ASSERT_TRUE(restored);
      EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
      uint64_t after = 0, session_after = 0;
      zkl_lock_fencing_token(l.get(), &after);
      zkl_client_session_id(c.get(), &session_after);
      EXPECT_EQ(after, token);
      EXPECT_EQ(session_after, session);
      EXPECT_EQ(StatCounter(c.get(), "sessions_lost"), 0u);
    }
  }
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

TEST(Session, ShortDisconnectSuspendsThenRestores) {
  FaultProxy proxy;
  proxy.Start(Server().connect());
  auto c = NewClient(8000, proxy.connect());
  auto l = NewLock(c.get(), UniquePath("restore"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  uint64_t token = 0;
  zkl_lock_fencing_token(l.get(), &token);
  proxy.DropAll();
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_SUSPENDED, 5000));
  auto restored = WaitForEvent(c.get(), ZKL_EVENT_RESTORED, 10000);
  ASSERT_TRUE(restored);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  uint64_t after = 0;
  zkl_lock_fencing_token(l.get(), &after);
  EXPECT_EQ(after, token);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
}

// The create reaches the server, its reply is lost with the connection. The
// client must find its own node (by the uuid in its name, owned by its
// session) instead of creating a second one or waiting behind itself.
TEST(Session, ConnectionCutAfterCreateNeitherLeaksNorDeadlocks) {
  FaultProxy proxy;
  proxy.Start(Server().connect());
  auto c = NewClient(8000, proxy.connect());
  std::string path = UniquePath("cut-after-create");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);  // parents exist now
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  proxy.CutAfterNextCreate();
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 15000), 0);
  EXPECT_FALSE(proxy.cut_armed());  // the cut did happen
  EXPECT_EQ(proxy.stats().cut, 1u);
  EXPECT_EQ(Children(path).size(), 1u);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

TEST(Session, ConnectionCutAfterCreateWhileWaitingBehindAnother) {
  FaultProxy proxy;
  proxy.Start(Server().connect());
  auto holder_client = NewClient();
  auto c = NewClient(8000, proxy.connect());
  std::string path = UniquePath("cut-waiting");
  auto holder = NewLock(holder_client.get(), path);
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  proxy.CutAfterNextCreate();
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 2, 30000), 0);
  ASSERT_TRUE(Eventually([&] { return proxy.stats().cut == 1; }));
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 15000));
  EXPECT_EQ(Children(path).size(), 1u);
  ASSERT_EQ(zkl_lock_release(l.get(), 2), 0);
  ASSERT_TRUE(Eventually([&] { return Children(path).empty(); }));
}

TEST(Session, CloseEndsPendingAcquireAndDeletesNodes) {
  auto holder_client = NewClient();
  zkl_client *c = NewClientRaw();
  std::string path = UniquePath("close");
  auto holder = NewLock(holder_client.get(), path);
  zkl_lock *l = nullptr;
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  int rc = 0;
  std::thread t([&] { rc = zkl_lock_acquire(l, 2, 30000); });
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 2; }));
  ASSERT_EQ(zkl_client_close(c), 0);
  t.join();
  EXPECT_EQ(rc, ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_acquire(l, 2, 100), ZKL_ECLOSED);
  EXPECT_EQ(zkl_client_state(c), ZKL_SESSION_CLOSED);
  ASSERT_TRUE(Eventually([&] { return Children(path).size() == 1; }));
  EXPECT_EQ(zkl_lock_destroy(l), 0);
  EXPECT_EQ(zkl_client_destroy(c), 0);
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
}

// A hold ended by zkl_client_close: LOST(ECLOSED), and every later call on
// the lock says the client is closed (not ELOST, not a clean release).
TEST(Session, ReleaseAfterCloseSaysClosed) {
  zkl_client *c = NewClientRaw();
  std::string path = UniquePath("close-release");
  zkl_lock *l = nullptr;
  zkl_lock_options o;
  zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
  ASSERT_EQ(zkl_lock_new(c, path.c_str(), &o, &l), 0);
  ASSERT_EQ(zkl_lock_acquire(l, ZKL_DEFAULT_OWNER, 5000), 0);
  ASSERT_EQ(zkl_client_close(c), 0);
  auto ev = WaitForEvent(c, ZKL_EVENT_LOST, 5000);
  ASSERT_TRUE(ev);
  EXPECT_EQ(zkl_event_error(ev.get()), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  EXPECT_EQ(zkl_lock_release(l, ZKL_DEFAULT_OWNER), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_release(l, ZKL_DEFAULT_OWNER), ZKL_ECLOSED);
  EXPECT_EQ(zkl_lock_destroy(l), 0);
  EXPECT_EQ(zkl_client_destroy(c), 0);
}

}  // namespace
