// The benchmark rows. Each row runs in its own process (scripts/bench starts
// one per row, so memory rows start from a clean heap) and prints one JSON
// line. Common fields of a throughput row:
//   row, ops, seconds, ops_per_s, p50_us, p99_us (per-op latency; for
//   contended rows the wait), cpu_us_per_op (client process CPU, idle
//   subtracted), zkl_req_per_op (zkl's own request counter), srv_req_per_op
//   (the server's packets_received delta), srv_writes_per_op,
//   srv_reads_per_op, wire_req_per_op and wire_rtt_per_op (through the
//   counting proxy, a separate short phase).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"

namespace bench {

// Process CPU and wall time of a measured phase, with the idle rate of the
// process (background threads, pings) subtracted.
class CpuMeter {
 public:
  // Measures the idle CPU rate for `idle_ms` (clients connected, nothing
  // happening).
  void CalibrateIdle(int64_t idle_ms);
  void Start();
  void Stop();
  double seconds() const { return static_cast<double>(wall_ns_) / 1e9; }
  // Busy CPU in microseconds divided by `ops`.
  double UsPerOp(double ops) const;
  double idle_rate() const { return idle_rate_; }
  // The user / kernel split of the phase's CPU (getrusage; not idle-corrected).
  double UserUsPerOp(double ops) const;
  double SysUsPerOp(double ops) const;

 private:
  double idle_rate_ = 0;  // CPU ns per wall ns while idle
  int64_t wall0_ = 0, cpu0_ = 0, wall_ns_ = 0, cpu_ns_ = 0;
  int64_t user0_ = 0, sys0_ = 0, user_ns_ = 0, sys_ns_ = 0;
};

// Adds cpu_us_per_op, cpu_user_us_per_op, cpu_sys_us_per_op.
void AddCpu(Json &j, const CpuMeter &cpu, double ops);

// Adds the common throughput fields to `j`.
void AddThroughput(Json &j, double ops, double seconds, Samples &lat);
void AddRequests(Json &j, double ops, double zkl_requests, const ServerDelta &srv);

struct Row {
  const char *name;
  const char *what;
  std::function<void(const Options &)> run;
};

// raw_rows.cc
void RowWarmup(const Options &o);
void RowRawSync(const Options &o);
void RowRawPipelined(const Options &o);
void RowRawSyncClients(const Options &o);

// zkl_rows.cc
void RowUncontended(const Options &o);   // --kind fair|reentrant|nonfair|read|write|semaphore
void RowUncontendedAsyncRelease(const Options &o);
void RowUncontendedTwoHandles(const Options &o);
void RowContended(const Options &o);     // --kind ..., --clients N
void RowManyLocksClients(const Options &o);
void RowAsyncManyLocks(const Options &o);
void RowElectionUncontended(const Options &o);  // --kind fair|unfair
void RowElectionContended(const Options &o);
void RowRwContended(const Options &o);
void RowPairedSync(const Options &o);       // ABAB blocks: zkl loops vs raw sync
void RowPairedPipelined(const Options &o);  // ABAB blocks: async many locks vs raw pipelined
void RowPairedHandoff(const Options &o);    // alternating: raw vs zkl handoff to a settled waiter
void RowPairedCpu(const Options &o);        // client CPU per cycle: zkl (thread, host) vs raw mt / st
void RowMultilock(const Options &o);        // multi-lock of 3 vs 3 single cycles, interleaved
void RowUncontendedStats(const Options &o); // uncontended with statistics on vs plain, interleaved
void RowUncontendedTls(const Options &o);   // zkl and raw over TLS vs plaintext, interleaved

// scale_rows.cc
void RowHerd(const Options &o);           // --kind semaphore --leases N: herd_semaphore
void RowDistinctLocks(const Options &o);
void RowIdleHandles(const Options &o);

// idle_rows.cc
void RowIdleHold(const Options &o);       // holders idle: heartbeat cost vs the raw client's pings

}  // namespace bench
