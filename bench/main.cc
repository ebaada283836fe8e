// zkl-bench: one benchmark row per invocation, one JSON line on stdout.
//
//   zkl-bench ROW --servers 127.0.0.1:PORT [--duration-ms N] [--kind K] ...
//   zkl-bench list
//
// scripts/bench runs every row against a server it starts itself and prints
// the table; see docs/PERFORMANCE.md.
#include <cstdio>
#include <cstring>
#include <vector>

#include "rows.h"

namespace {

const std::vector<bench::Row> &Rows() {
  static const std::vector<bench::Row> rows = {
      {"warmup", "raw pipelined create+getChildren+delete (JIT warm-up)", bench::RowWarmup},
      {"raw_sync", "raw C client: create(EPHEMERAL_SEQUENTIAL)+delete, one at a time",
       bench::RowRawSync},
      {"raw_pipelined", "raw C client: --inflight cycles in flight (server write ceiling)",
       bench::RowRawPipelined},
      {"raw_sync_clients", "raw C client: --clients clients, synchronous cycles",
       bench::RowRawSyncClients},
      {"uncontended", "one client, acquire+release of one lock (--kind)", bench::RowUncontended},
      {"uncontended_async_release", "one handle: acquire + release_async",
       bench::RowUncontendedAsyncRelease},
      {"uncontended_two_handles", "two handles of one client alternately: acquire + release_async",
       bench::RowUncontendedTwoHandles},
      {"contended", "--clients clients on one lock (--kind fair|nonfair|write|semaphore|rw...)",
       bench::RowContended},
      {"rw_contended", "--clients clients, alternately readers and writers",
       bench::RowRwContended},
      {"many_locks_clients", "--clients clients, one lock each", bench::RowManyLocksClients},
      {"async_many_locks", "one client cycling --locks locks through the async API",
       bench::RowAsyncManyLocks},
      {"election_uncontended", "one participant: campaign + resign (--kind fair|unfair)",
       bench::RowElectionUncontended},
      {"election_contended", "--clients participants: campaign + resign",
       bench::RowElectionContended},
      {"paired_sync",
       "raw sync cycle, zkl sync / async release / two-handle loops in alternating blocks",
       bench::RowPairedSync},
      {"paired_pipelined", "raw pipelined and zkl async many locks in alternating blocks",
       bench::RowPairedPipelined},
      {"paired_handoff", "handoff to a settled waiter: raw watch vs zkl, alternately",
       bench::RowPairedHandoff},
      {"paired_cpu",
       "client CPU per cycle: zkl (I/O thread, host-driven), raw mt and raw st clients, interleaved",
       bench::RowPairedCpu},
      {"multilock", "multi-lock of 3 paths vs 3 single fair-lock cycles, interleaved",
       bench::RowMultilock},
      {"uncontended_stats", "uncontended cycle with statistics on vs plain, interleaved",
       bench::RowUncontendedStats},
      {"uncontended_tls", "zkl and raw cycles over TLS and plaintext (--tls-servers, --tls-dir)",
       bench::RowUncontendedTls},
      {"herd", "--waiters waiters on one lock (--kind semaphore --leases N): notifications per release",
       bench::RowHerd},
      {"distinct_locks", "one client holding --locks distinct locks", bench::RowDistinctLocks},
      {"idle_handles", "memory of --handles idle lock handles", bench::RowIdleHandles},
      {"idle_hold",
       "--clients (1) holders idle --duration-ms (20000): requests, CPU per s vs raw st pings, alternating",
       bench::RowIdleHold},
  };
  return rows;
}

void Usage() {
  std::fprintf(stderr,
               "usage: zkl-bench ROW --servers 127.0.0.1:PORT [options]\n"
               "       zkl-bench list\n"
               "options: --duration-ms N --max-ops N --clients N --locks N --inflight N\n"
               "         --waiters N --handles-per-client N --handles N --wire-cycles N\n"
               "         --warmup-requests N --limit-ms N --prefix /path --kind K\n"
               "         --leases N --hold-us N --block N --stats-interval-ms N --stats-every N\n"
               "         --tls-servers 127.0.0.1:PORT --tls-dir DIR\n"
               "         --session-timeout-ms N --rounds N --settle-ms N --server-pid PID (idle_hold)\n");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    Usage();
    return 2;
  }
  if (std::strcmp(argv[1], "list") == 0) {
    for (const auto &r : Rows()) std::printf("%-26s %s\n", r.name, r.what);
    return 0;
  }
  for (const auto &r : Rows()) {
    if (std::strcmp(argv[1], r.name) == 0) {
      bench::Options o = bench::ParseOptions(argc, argv, 2);
      r.run(o);
      return 0;
    }
  }
  std::fprintf(stderr, "zkl-bench: unknown row '%s' (zkl-bench list)\n", argv[1]);
  return 2;
}
