// A counting TCP proxy on loopback between one client and the server. It
// parses ZooKeeper's framing (4-byte length + record; request header = xid,
// type; reply header = xid, zxid, err) and counts what crossed the wire:
// requests, replies, watch notifications, and round trips — the number of
// times the client started sending while nothing of it was outstanding (a
// pipelined create+getChildren is one round trip; a create, then after its
// reply a delete, are two).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "bench_util.h"

namespace bench {

struct WireCounts {
  int64_t requests = 0;       // excluding the connect request and pings
  int64_t replies = 0;        // excluding the connect reply and pings
  int64_t notifications = 0;  // watch events (xid -1)
  int64_t round_trips = 0;
};

class WireProxy {
 public:
  // Listens on 127.0.0.1 (ephemeral port) and forwards to `server`.
  explicit WireProxy(const Server &server);
  ~WireProxy();
  std::string connect() const;  // "127.0.0.1:PORT" for a client
  WireCounts Counts() const;    // snapshot (thread-safe)

 private:
  void Run();

  std::string target_host_;
  int target_port_ = 0;
  int listen_fd_ = -1;
  int port_ = 0;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
  std::atomic<int64_t> requests_{0}, replies_{0}, notifications_{0}, round_trips_{0};
};

}  // namespace bench
