// Small RAII helpers over the public zkl API for the benchmark rows.
#pragma once

#include <zkl.h>

#include <atomic>
#include <functional>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"

namespace bench {

class ZklClient {
 public:
  // `tweak` (optional) changes the options before the client is made
  // (io mode, stats interval, TLS files, ...).
  using Tweak = std::function<void(zkl_client_options &)>;
  ZklClient(const std::string &servers, int64_t limit_ms, const Tweak &tweak = {});
  ~ZklClient();
  ZklClient(const ZklClient &) = delete;
  ZklClient &operator=(const ZklClient &) = delete;
  zkl_client *get() const { return c_; }
  // A counter of the statistics document ("requests", "watch_events", ...);
  // with `within`, the one in that object (("count", "rtt_us"): the
  // requests answered).
  uint64_t Counter(const char *name, const char *within = nullptr) const;

  // Runs zkl_client_dispatch on a thread of its own (poll on the event fd)
  // until StopDispatch() or destruction.
  void StartDispatch();
  void StopDispatch();

  // Pull form: the next event of one of the types (others are dropped),
  // within timeout_ms; returns the type, or 0 on timeout. *err gets the
  // event's error.
  int WaitEvent(std::initializer_list<int> types, int64_t timeout_ms, int *err = nullptr);

 private:
  zkl_client *c_ = nullptr;
  std::thread dispatcher_;
  std::atomic<bool> stop_{false};
};

// A lock handle; kind is a ZKL_LOCK_*. `leases`: semaphore leases taken
// per acquisition.
zkl_lock *NewLock(zkl_client *c, const std::string &path, int kind, int max_leases = 2,
                  zkl_event_cb cb = nullptr, void *user_data = nullptr, int leases = 1);

// "fair" -> ZKL_LOCK_FAIR, ...; exits on an unknown name.
int LockKind(const std::string &name);
bool ExclusiveKind(int kind);

// A path unique to this process under the options' prefix.
std::string RunPath(const Options &o, const std::string &what);

// Counters summed over clients.
uint64_t SumCounter(const std::vector<ZklClient *> &cs, const char *name, const char *within = nullptr);

}  // namespace bench
