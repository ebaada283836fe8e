// Logs and statistics (issue 17): every line of zkl and of its ZooKeeper
// client reaches the host's log callback (on the dispatching thread, never
// with a secret), and the statistics document tells waits, holds and losses.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

struct LogLine {
  int level;
  std::string component, message;
};

struct Logs {
  std::mutex mu;
  std::vector<LogLine> lines;
  std::thread::id thread;
  bool other_thread = false;
};

void OnLog(int level, const char *component, const char *message, void *user) {
  auto *logs = static_cast<Logs *>(user);
  std::lock_guard<std::mutex> g(logs->mu);
  if (std::this_thread::get_id() != logs->thread) logs->other_thread = true;
  logs->lines.push_back({level, component, message});
}

ClientPtr NewLoggingClient(Logs *logs, int level, const char *digest = nullptr, int stats_ms = 0,
                           zkl_event_cb cb = nullptr, void *user = nullptr) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  co.servers = servers.c_str();
  co.log_cb = OnLog;
  co.log_user_data = logs;
  co.log_level = level;
  co.digest_auth = digest;
  co.stats_interval_ms = stats_ms;
  co.cb = cb;
  co.user_data = user;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&co, &c), 0);
  return ClientPtr(c);
}

// Dispatches until `pred` holds (bounded).
template <typename Pred>
bool DispatchUntil(zkl_client *c, Pred pred, int timeout_ms = 10000) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!pred()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    zkl_client_wait(c, std::min<int64_t>(left, 100));
    zkl_client_dispatch(c, 0);
  }
  return true;
}

TEST(Logs, LinesOfZklAndZooKeeperReachTheCallbackOnTheDispatchingThread) {
  Logs logs;
  logs.thread = std::this_thread::get_id();
  auto c = NewLoggingClient(&logs, ZKL_LOG_INFO, "alice:s3cret-passw0rd");
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  auto has = [&](const char *component, const char *text) {
    std::lock_guard<std::mutex> g(logs.mu);
    for (const LogLine &l : logs.lines) {
      if (l.component == component && l.message.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(DispatchUntil(c.get(), [&] { return has("zkl", "session 0x") && has("zookeeper", "session"); }));
  std::lock_guard<std::mutex> g(logs.mu);
  EXPECT_FALSE(logs.other_thread);  // only inside dispatch, on this thread
  for (const LogLine &l : logs.lines) {
    EXPECT_GE(l.level, ZKL_LOG_ERROR);
    EXPECT_LE(l.level, ZKL_LOG_INFO);  // nothing above the level asked for
    EXPECT_EQ(l.message.find("s3cret"), std::string::npos) << l.message;  // secrets never logged
  }
}

TEST(Logs, PullFormGetsLogEvents) {
  Logs logs;
  logs.thread = std::this_thread::get_id();
  auto c = NewLoggingClient(&logs, ZKL_LOG_DEBUG);
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);
  auto ev = WaitForEvent(c.get(), ZKL_EVENT_LOG, 5000);
  ASSERT_TRUE(ev);
  int level = 0;
  const char *component = nullptr;
  ASSERT_EQ(zkl_event_log(ev.get(), &level, &component), 0);
  EXPECT_GT(level, 0);
  EXPECT_TRUE(std::string(component) == "zkl" || std::string(component) == "zookeeper");
  const char *data = nullptr;
  size_t len = 0;
  ASSERT_EQ(zkl_event_data(ev.get(), &data, &len), 0);
  EXPECT_GT(len, 0u);
}

TEST(Logs, BadLevelIsRejected) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  co.servers = servers.c_str();
  co.log_level = 9;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&co, &c), ZKL_EINVAL);
  co.log_level = ZKL_LOG_WARN;
  co.stats_interval_ms = -1;
  EXPECT_EQ(zkl_client_new(&co, &c), ZKL_EINVAL);
}

std::string Stats(zkl_client *c) {
  char *json = nullptr;
  size_t len = 0;
  EXPECT_EQ(zkl_client_stats(c, &json, &len), 0);
  std::string s(json, len);
  zkl_free(json);
  return s;
}

// A field's number in a JSON text, searched after `after` (0 when missing).
uint64_t Number(const std::string &json, const std::string &key, const std::string &after = "") {
  size_t from = after.empty() ? 0 : json.find(after);
  if (from == std::string::npos) return 0;
  size_t at = json.find("\"" + key + "\":", from);
  if (at == std::string::npos) return 0;
  return std::stoull(json.substr(at + key.size() + 3));
}

TEST(Stats, WaitsHoldsAndLossesPerHandle) {
  auto c = NewClient(6000), other = NewClient();
  std::string path = UniquePath("stats");
  auto holder = NewLock(other.get(), path);
  ASSERT_EQ(zkl_lock_acquire(holder.get(), 1, 5000), 0);
  auto l = NewLock(c.get(), path);
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 1, 10000), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a wait worth measuring
  ASSERT_EQ(zkl_lock_release(holder.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 5000));
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_acquire(l.get(), 1, 100), 0);
  ExpireClientSession(c.get());
  ASSERT_TRUE(WaitForEvent(c.get(), ZKL_EVENT_LOST, 15000));
  std::string doc = Stats(c.get());
  EXPECT_EQ(Number(doc, "schema"), 1u);
  EXPECT_NE(doc.find("\"path\":\"" + path + "\""), std::string::npos) << doc;
  EXPECT_EQ(Number(doc, "acquisitions", path), 2u);
  EXPECT_GE(Number(doc, "max", "\"wait_ms\""), 90u);  // the first acquisition waited ~100 ms
  EXPECT_EQ(Number(doc, "count", "\"hold_ms\""), 2u);
  EXPECT_EQ(Number(doc, "session", "\"losses_by_cause\""), 1u);
  EXPECT_GE(Number(doc, "expirations"), 1u);
  EXPECT_GT(Number(doc, "count", "\"rtt_us\""), 0u);
  // One handle's entry alone.
  char *json = nullptr;
  ASSERT_EQ(zkl_lock_stats(l.get(), &json, nullptr), 0);
  std::string one(json);
  zkl_free(json);
  EXPECT_EQ(one.rfind("{\"handle\":", 0), 0u) << one;
  EXPECT_EQ(zkl_lock_stats(nullptr, &json, nullptr), ZKL_EBADHANDLE);
  EXPECT_EQ(zkl_client_stats(c.get(), nullptr, nullptr), ZKL_EINVAL);
}

// An async release followed by the next acquire: decided by the new node's
// number (no read), which the handle's statistics count.
TEST(Stats, CoalescedCyclesCountAsGrantsWithoutRead) {
  auto c = NewClient();
  std::string path = UniquePath("stats-coalesced");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_GT(zkl_lock_release_async(l.get(), 1), 0);
    ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  }
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  std::string doc = Stats(c.get());
  EXPECT_EQ(Number(doc, "acquisitions", path), 4u);
  // Each of the three when its release was still held back as the acquire
  // came (1 ms): a thread descheduled longer between the two calls sends
  // the delete alone, and that acquire reads.
  uint64_t by_number = Number(doc, "grants_without_read", path);
  EXPECT_GE(by_number, 1u) << doc;
  EXPECT_LE(by_number, 3u) << doc;
  EXPECT_EQ(Number(doc, "proof_waits", path), 0u);
}

struct StatsEvents {
  std::atomic<int> count{0};
  std::string last;
};

void OnClientEvent(const zkl_event *ev, void *user) {
  if (zkl_event_type(ev) != ZKL_EVENT_STATS) return;
  auto *s = static_cast<StatsEvents *>(user);
  const char *data = nullptr;
  size_t len = 0;
  zkl_event_data(ev, &data, &len);
  s->last.assign(data, len);
  ++s->count;
}

TEST(Stats, OnAnIntervalAsEvents) {
  Logs logs;
  logs.thread = std::this_thread::get_id();
  StatsEvents events;
  auto c = NewLoggingClient(&logs, 0, nullptr, 100, OnClientEvent, &events);
  EXPECT_TRUE(DispatchUntil(c.get(), [&] { return events.count >= 3; }));
  EXPECT_EQ(events.last.rfind("{\"schema\":1", 0), 0u) << events.last;
}

}  // namespace
