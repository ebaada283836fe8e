#include "test_support.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zookeeper.h>

#include <atomic>
#include <initializer_list>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace zkl_test {

namespace {

std::unique_ptr<ZkServer> g_server;
std::once_flag g_server_once;
zhandle_t *g_raw = nullptr;
std::once_flag g_raw_once;

zhandle_t *Raw() {
  std::call_once(g_raw_once, [] {
    QuietZkClientLogs();
    g_raw = zookeeper_init(Server().connect().c_str(), nullptr, 15000, nullptr, nullptr, 0);
    if (g_raw == nullptr) throw std::runtime_error("raw zookeeper_init failed");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (zoo_state(g_raw) != ZOO_CONNECTED_STATE) {
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("raw connect");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  return g_raw;
}

}  // namespace

ZkServer &Server() {
  std::call_once(g_server_once, [] {
    g_server = ZkServer::StartStandalone();
    // Stop it when the test binary exits.
    std::atexit([] {
      if (g_raw) zookeeper_close(g_raw);
      g_server.reset();
    });
  });
  return *g_server;
}

std::string UniquePath(const std::string &name) {
  static std::atomic<int> counter{0};
  return "/zkl-test/" + std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" + name;
}

zkl_client *NewClientRaw(int session_timeout_ms, const std::string &servers) {
  zkl_client_options opts;
  EXPECT_EQ(zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION), 0);
  std::string connect = servers.empty() ? Server().connect() : servers;
  opts.servers = connect.c_str();
  opts.session_timeout_ms = session_timeout_ms;
  zkl_client *c = nullptr;
  EXPECT_EQ(zkl_client_new(&opts, &c), 0);
  if (c) {
    EXPECT_EQ(zkl_client_wait_connected(c, 20000), 0);
  }
  return c;
}

ClientPtr NewClient(int session_timeout_ms, const std::string &servers) {
  return ClientPtr(NewClientRaw(session_timeout_ms, servers));
}

LockPtr NewLock(zkl_client *c, const std::string &path, int kind, int max_leases, zkl_event_cb cb,
                void *user_data) {
  zkl_lock_options opts;
  EXPECT_EQ(zkl_lock_options_init(&opts, ZKL_LOCK_OPTIONS_VERSION), 0);
  opts.kind = kind;
  opts.max_leases = max_leases;
  opts.cb = cb;
  opts.user_data = user_data;
  zkl_lock *l = nullptr;
  EXPECT_EQ(zkl_lock_new(c, path.c_str(), &opts, &l), 0);
  return LockPtr(l);
}

EventPtr NextEvent(zkl_client *c, int64_t timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    zkl_event *ev = nullptr;
    if (zkl_client_next_event(c, &ev) == 0) return EventPtr(ev);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return nullptr;
    zkl_client_wait(c, left);
  }
}

EventPtr WaitForEvent(zkl_client *c, int type, int64_t timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
    EventPtr ev = NextEvent(c, std::max<int64_t>(left, 0));  // 0: only what is pending
    if (!ev) return nullptr;
    if (zkl_event_type(ev.get()) == type) return ev;
  }
}

uint64_t RequestId(const zkl_event *ev) {
  uint64_t id = UINT64_MAX;
  EXPECT_EQ(zkl_event_request_id(ev, &id), 0);
  return id;
}

std::vector<std::string> Children(const std::string &path) {
  struct String_vector sv {};
  std::vector<std::string> out;
  if (zoo_get_children(Raw(), path.c_str(), 0, &sv) != ZOK) return out;
  for (int i = 0; i < sv.count; ++i) out.emplace_back(sv.data[i]);
  deallocate_String_vector(&sv);
  return out;
}

bool Exists(const std::string &path) {
  struct Stat st {};
  return zoo_exists(Raw(), path.c_str(), 0, &st) == ZOK;
}

std::string Data(const std::string &path) {
  std::vector<char> buf(1 << 20);
  int len = static_cast<int>(buf.size());
  struct Stat st {};
  if (zoo_get(Raw(), path.c_str(), 0, buf.data(), &len, &st) != ZOK) return "<absent>";
  return std::string(buf.data(), len > 0 ? static_cast<size_t>(len) : 0);
}

int64_t EphemeralOwner(const std::string &path) {
  struct Stat st {};
  if (zoo_exists(Raw(), path.c_str(), 0, &st) != ZOK) return 0;
  return st.ephemeralOwner;
}

void DeleteRecursive(const std::string &path) {
  for (const std::string &child : Children(path)) DeleteRecursive(path + "/" + child);
  zoo_delete(Raw(), path.c_str(), -1);
}

namespace {

// Ephemeral nodes below `path` (containers report owner 0 and are skipped).
void CollectEphemerals(const std::string &path, std::vector<std::string> *out) {
  for (const std::string &child : Children(path)) {
    std::string full = path + "/" + child;
    if (EphemeralOwner(full) != 0) out->push_back(full);
    CollectEphemerals(full, out);
  }
}

bool g_orphans_found = false;

// The no-orphans check: when a test ends, every client it made is closed,
// so no lock path of this process may hold an ephemeral node any more.
class OrphanCheck : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo &info) override {
    if (!g_server) return;
    std::string mine = std::to_string(getpid()) + "-";
    std::vector<std::string> orphans;
    for (const std::string &top : Children("/zkl-test")) {
      if (top.rfind(mine, 0) == 0) CollectEphemerals("/zkl-test/" + top, &orphans);
    }
    for (const std::string &o : orphans) {
      fprintf(stderr, "ORPHAN after %s.%s: %s (session %llx)\n", info.test_suite_name(),
              info.name(), o.c_str(), static_cast<unsigned long long>(EphemeralOwner(o)));
      DeleteRecursive(o);  // report once, not again after every later test
      g_orphans_found = true;
    }
  }
};

class OrphanVerdict : public ::testing::Environment {
  void TearDown() override {
    EXPECT_FALSE(g_orphans_found) << "nodes of closed sessions were left behind (see ORPHAN lines)";
  }
};

const bool g_orphan_check_registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new OrphanCheck);
  ::testing::AddGlobalTestEnvironment(new OrphanVerdict);
  return true;
}();

}  // namespace

void ExpireClientSession(zkl_client *c) {
  uint64_t id = 0;
  ASSERT_EQ(zkl_client_session_id(c, &id), 0);
  char passwd[16];
  ASSERT_EQ(zkl_client_session_password(c, passwd, sizeof passwd), 16);
  ASSERT_TRUE(ExpireSession(Server().connect(), static_cast<int64_t>(id),
                            std::string(passwd, sizeof passwd)));
}

InspectOpts InspectLock(int kind, int64_t timeout_ms) {
  InspectOpts opts;
  zkl_inspect_options_init(&opts.o, ZKL_INSPECT_OPTIONS_VERSION);
  opts.o.lock_kind = kind;
  opts.o.timeout_ms = timeout_ms;
  return opts;
}

InspectOpts InspectElection(int kind, int64_t timeout_ms) {
  InspectOpts opts = InspectLock(ZKL_LOCK_FAIR, timeout_ms);
  opts.o.election_kind = kind;
  return opts;
}

std::string StatString(zkl_client *c, const std::string &name) {
  char *json = nullptr;
  if (zkl_client_stats(c, &json, nullptr) != 0) {
    ADD_FAILURE() << "zkl_client_stats failed";
    return "";
  }
  std::string doc(json);
  zkl_free(json);
  std::string key = "\"" + name + "\":\"";
  size_t at = doc.find(key);
  if (at == std::string::npos) return "<no " + name + ">";
  at += key.size();
  return doc.substr(at, doc.find('"', at) - at);
}

uint64_t StatCounter(zkl_client *c, const std::string &name) {
  char *json = nullptr;
  if (zkl_client_stats(c, &json, nullptr) != 0) {
    ADD_FAILURE() << "zkl_client_stats failed";
    return 0;
  }
  std::string doc(json);
  zkl_free(json);
  std::string key = "\"" + name + "\":";
  size_t at = doc.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no counter " << name << " in " << doc;
    return 0;
  }
  return std::stoull(doc.substr(at + key.size()));
}


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
      ASSERT_GT(zkl_lock_acquire_async(l, 1, 10000), 0);
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

void AwaitSecondHolder(const std::atomic<int> &max_inside, std::atomic<bool> *gave_up) {
  if (gave_up->load() || max_inside.load() >= 2) return;
  if (!Eventually([&] { return max_inside.load() >= 2; }, 5000)) *gave_up = true;
}

// N threads, each with its own client, run `rounds` acquire/release cycles
// on `path` with locks of `kind`; returns the highest number of concurrent
// holders seen. With leases > 1 the holders wait (at most 5 s) until two
// have held at once, so a result of 1 means the leases are not shared.
int MaxConcurrentHolders(const std::string &path, int kind, int leases, int clients, int rounds,
                         std::vector<uint64_t> *tokens) {
  std::atomic<int> inside{0}, max_inside{0};
  std::atomic<bool> gave_up{false};
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
        if (leases > 1) AwaitSecondHolder(max_inside, &gave_up);
        inside.fetch_sub(1);
        ASSERT_EQ(zkl_lock_release(l.get(), static_cast<uint64_t>(i + 1)), 0);
      }
    });
  }
  for (auto &t : threads) t.join();
  return max_inside.load();
}

void NewElection(zkl_client *c, const std::string &path, int kind, const char *id,
                 ElectionPtr *out) {
  zkl_election_options o;
  ASSERT_EQ(zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION), 0);
  o.kind = kind;
  o.id = id;
  ASSERT_EQ(zkl_election_new(c, path.c_str(), &o, &out->e), 0);
}

std::string Logs::All() {
  std::lock_guard<std::mutex> g(mu);
  std::string all;
  for (const auto &l : lines) all += l + "\n";
  return all;
}

void CaptureLogs(zkl_client_options *o, Logs *logs) {
  o->log_cb = [](int, const char *component, const char *message, void *user) {
    auto *l = static_cast<Logs *>(user);
    std::lock_guard<std::mutex> g(l->mu);
    l->lines.push_back(std::string(component) + ": " + message);
  };
  o->log_user_data = logs;
  o->log_level = ZKL_LOG_DEBUG;
}

void DrainLogs(zkl_client *c) {
  for (int i = 0; i < 100 && zkl_client_dispatch(c, 0) > 0; ++i) {
  }
}

int NewClientWith(const zkl_client_options &o, ClientPtr *out) {
  zkl_client *c = nullptr;
  int rc = zkl_client_new(&o, &c);
  out->reset(c);
  return rc;
}

}  // namespace zkl_test
