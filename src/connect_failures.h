// Why connecting fails, server by server: the last failed attempt of each
// server of the list (until it connects again), counts per layer, and the
// verdict "retrying cannot help" that ends zkl_client_wait_connected early.
// Plain data, no I/O: unit-tested in tests/connect_failures_test.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace zkl {

class JsonWriter;

struct ConnectFailure {
  std::string server;  // "ip:port" as connected
  int layer = 0;       // ZKL_LAYER_*
  int error = 0;       // ZKL_E*: ECONNECTION, ETIMEDOUT, ETLS, ECERT, ...
  std::string reason;  // for people; never a secret
};

class ConnectFailures {
 public:
  // A repeated failure (same server, layer and reason) is logged once per
  // this window: a server that keeps failing fails several times a second.
  static constexpr absl::Duration kLogWindow = absl::Seconds(10);

  // Records a failed attempt at `now`. Returns the line to log, or "" when
  // the same failure was logged less than kLogWindow ago.
  std::string Record(ConnectFailure f, absl::Time now);
  // The server connected: its failures are history.
  void Connected(std::string_view server);
  // A new server list (zkl_client_set_servers): the kept failures were the
  // old list's (the counts per layer stay).
  void ForgetServers() { entries_.clear(); }

  // The newest kept failure's code, or 0.
  int Newest() const;
  // "server (layer): reason" per kept failure, newest first, joined by "; ".
  std::string Describe() const;
  // The code retrying cannot change (a verification error, or EAUTH) when
  // the newest attempt of each of `server_count` servers failed with one;
  // else 0.
  int Definite(int server_count) const;

  // "connect_failures": counts per layer; "failing_servers": each kept failure.
  void WriteStats(JsonWriter &j) const;

  static bool IsDefinite(int error);
  static const char *LayerName(int layer);

 private:
  struct Entry {
    ConnectFailure failure;
    absl::Time logged_at = absl::InfinitePast();
    uint64_t unlogged = 0;  // repeats since it was last logged
  };
  std::vector<Entry> entries_;  // one per server, newest last
  uint64_t by_layer_[5] = {};   // index: ZKL_LAYER_* (0 unused)
};

}  // namespace zkl
