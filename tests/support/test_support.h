// Test support: one real ZooKeeper server per test binary, RAII wrappers for
// zkl handles, bounded event waits, and a raw ZooKeeper view for asserting
// what is (or is not) on the server.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

// In a test body whose network namespaces are unavailable: skips with the
// reason, or fails when ZKL_REQUIRE_NETNS=1 (scripts/test as root, where
// they must work and a skip would hide a broken harness).
#define ZKL_SKIP_OR_FAIL_WITHOUT_NETNS(reason)                           \
  do {                                                                   \
    const char *zkl_require_netns = std::getenv("ZKL_REQUIRE_NETNS");    \
    if (zkl_require_netns != nullptr && std::string(zkl_require_netns) == "1") { \
      FAIL() << (reason);                                                \
    }                                                                    \
    GTEST_SKIP() << (reason);                                            \
  } while (0)

#include <zkl.h>

#include <atomic>
#include <chrono>
#include <initializer_list>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zk_harness.h"

namespace zkl_test {

// Polls `pred` (every 10 ms) until it holds or `timeout_ms` passes. For
// state only visible on the server (node counts), where no event tells.
template <typename Pred>
bool Eventually(Pred pred, int timeout_ms = 10000) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The standalone server shared by the tests of this binary (started once).
ZkServer &Server();

// A fresh path under /zkl-test, unique in this run.
std::string UniquePath(const std::string &name);

struct ClientDeleter {
  void operator()(zkl_client *c) const { zkl_client_destroy(c); }
};
struct LockDeleter {
  void operator()(zkl_lock *l) const { zkl_lock_destroy(l); }
};
struct EventDeleter {
  void operator()(zkl_event *e) const { zkl_event_free(e); }
};
using ClientPtr = std::unique_ptr<zkl_client, ClientDeleter>;
using LockPtr = std::unique_ptr<zkl_lock, LockDeleter>;
using EventPtr = std::unique_ptr<zkl_event, EventDeleter>;

// A connected client (fails the test if it does not connect in 20 s).
ClientPtr NewClient(int session_timeout_ms = 6000, const std::string &servers = "");
zkl_client *NewClientRaw(int session_timeout_ms = 6000, const std::string &servers = "");
LockPtr NewLock(zkl_client *c, const std::string &path, int kind = ZKL_LOCK_FAIR,
                int max_leases = 1, zkl_event_cb cb = nullptr, void *user_data = nullptr);

// The next event (pull form) within the timeout, or null.
EventPtr NextEvent(zkl_client *c, int64_t timeout_ms);
// The next event of `type`, discarding others, within the timeout, or null.
EventPtr WaitForEvent(zkl_client *c, int type, int64_t timeout_ms);
// The request id the event carries (zkl_event_request_id).
uint64_t RequestId(const zkl_event *ev);

// Raw view through a separate ZooKeeper handle.
std::vector<std::string> Children(const std::string &path);
bool Exists(const std::string &path);
void DeleteRecursive(const std::string &path);
int64_t EphemeralOwner(const std::string &path);  // 0 when absent
std::string Data(const std::string &path);        // "<absent>" when absent

// Options for zkl_inspect / zkl_revoke naming a lock or an election kind
// (converts to the pointer the calls take; lives for the full expression).
struct InspectOpts {
  zkl_inspect_options o;
  operator const zkl_inspect_options *() const { return &o; }
};
InspectOpts InspectLock(int kind, int64_t timeout_ms = 5000);
InspectOpts InspectElection(int kind, int64_t timeout_ms = 5000);

// A counter of the client's statistics document ("requests",
// "watch_events", "events", "sessions", "heartbeats", ...).
uint64_t StatCounter(zkl_client *c, const std::string &name);
// A string field of it ("servers", "server", "state", ...), or "<no NAME>".
std::string StatString(zkl_client *c, const std::string &name);

// The server's count of watches (4lw "wchs"), or -1.
int TotalWatches();
// Takes the lock with the first handle, then queues each following one in
// turn, waiting until its node is on the server so the queue order is fixed.
void HoldAndQueue(const std::string &path, std::initializer_list<zkl_lock *> locks);
// The lock's fencing token (fails the test when it has none).
uint64_t Token(zkl_lock *l);
// For a holder of a lock several may hold at once (a semaphore): stays
// until two have held together (max_inside >= 2), at most 5 s and only
// until one such wait has failed (*gave_up). Under load each hand-off
// takes longer than a short hold, so sharing would be seen only by chance.
void AwaitSecondHolder(const std::atomic<int> &max_inside, std::atomic<bool> *gave_up);
// N threads, each with its own client, run `rounds` acquire/release cycles
// on `path` with locks of `kind` (semaphores: `leases` of them); returns the
// highest number of concurrent holders seen.
int MaxConcurrentHolders(const std::string &path, int kind, int leases, int clients, int rounds,
                         std::vector<uint64_t> *tokens = nullptr);

struct ElectionPtr {
  zkl_election *e = nullptr;
  ~ElectionPtr() {
    if (e) zkl_election_destroy(e);
  }
};
void NewElection(zkl_client *c, const std::string &path, int kind, const char *id, ElectionPtr *out);

// Expires the client's current session on the server.
void ExpireClientSession(zkl_client *c);

// Log lines of a client, captured through its log_cb (secret-leak checks).
struct Logs {
  std::mutex mu;
  std::vector<std::string> lines;
  std::string All();
};
// Sets o's log callback to capture every line (DEBUG) into `logs`.
void CaptureLogs(zkl_client_options *o, Logs *logs);
// Delivers pending log lines to the log callback (bounded).
void DrainLogs(zkl_client *c);
// zkl_client_new(o) into *out.
int NewClientWith(const zkl_client_options &o, ClientPtr *out);
// A test's client recipe (anything with `int New(ClientPtr *) const`):
// creates the client and waits for its session; wait_connected's result
// (*out gets the client either way when given).
template <typename Recipe>
int ConnectWith(const Recipe &recipe, int64_t wait_ms, ClientPtr *out) {
  ClientPtr c;
  int rc = recipe.New(&c);
  EXPECT_EQ(rc, 0) << zkl_strerror(rc);
  if (rc != 0) return rc;
  rc = zkl_client_wait_connected(c.get(), wait_ms);
  if (out) *out = std::move(c);
  return rc;
}

}  // namespace zkl_test
