// The raw limits, with the bare ZooKeeper C client: the minimal synchronous
// lock cycle (create EPHEMERAL_SEQUENTIAL, then delete it) and the same
// pipelined (the server's write ceiling). Also the JIT warm-up.
#include <zookeeper.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "raw_client.h"
#include "rows.h"
#include "wire_proxy.h"

namespace bench {


// ---------------------------------------------------------------------------

void RowWarmup(const Options &o) {
  Server server(o.servers);
  RawClient c(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(c.zh(), parent);
  int64_t t0 = NowNs();
  // Pipelined create + getChildren + delete: 3 requests per cycle.
  Pipeline p;
  p.zh = c.zh();
  p.parent = parent;
  p.node_prefix = parent + "/w-";
  p.read_children = true;
  p.deadline_ns = NowNs() + o.limit_ms * 1000000;
  p.max_cycles = o.warmup_requests / 3 + 1;
  p.Run(64);
  // And some synchronous cycles, the path of the latency rows.
  int64_t sync_cycles = 0;
  int64_t sync_deadline = NowNs() + int64_t{2000} * 1000000;
  while (sync_cycles < 2000 && NowNs() < sync_deadline) {
    if (!SyncCycle(c.zh(), parent + "/w-")) break;
    ++sync_cycles;
  }
  double secs = static_cast<double>(NowNs() - t0) / 1e9;
  Json j;
  j.Str("row", "warmup")
      .Int("requests", p.cycles.load() * 3 + sync_cycles * 2)
      .Num("seconds", secs)
      .Int("errors", p.errors.load());
  j.Print();
}

void RowRawSync(const Options &o) {
  Server server(o.servers);
  RawClient c(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(c.zh(), parent);
  std::string node = parent + "/s-";
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  Samples lat;
  lat.Reserve(static_cast<size_t>(std::min<int64_t>(o.max_ops, 2000000)));
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int64_t cycles = 0;
  cpu.Start();
  while (cycles < o.max_ops && NowNs() < deadline) {
    int64_t t = NowNs();
    if (!SyncCycle(c.zh(), node)) Die("raw sync cycle failed");
    lat.Add(NowNs() - t);
    ++cycles;
  }
  cpu.Stop();
  ServerDelta srv = probe.Stop();

  // Single-request latencies: one write commit, and one read round trip.
  Samples create_lat, delete_lat, read_lat;
  for (int i = 0; i < 300; ++i) {
    char created[512];
    int64_t t = NowNs();
    if (zoo_create(c.zh(), node.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                   ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created) != ZOK) {
      Die("create failed");
    }
    int64_t t1 = NowNs();
    if (zoo_delete(c.zh(), created, -1) != ZOK) Die("delete failed");
    int64_t t2 = NowNs();
    struct Stat st;
    if (zoo_exists(c.zh(), parent.c_str(), 0, &st) != ZOK) Die("exists failed");
    int64_t t3 = NowNs();
    create_lat.Add(t1 - t);
    delete_lat.Add(t2 - t1);
    read_lat.Add(t3 - t2);
  }

  // The raw handoff: a second client watches a node (exists + watch); the
  // first deletes it; time from the delete call to the watcher callback on
  // the second client = one commit + one notification, the floor of a lock
  // handoff.
  Samples notify_lat;
  {
    RawClient b(server.connect(), o.limit_ms, ResolveDelay(o));
    for (int i = 0; i < 300; ++i) notify_lat.Add(RawDeleteNotifyNs(c, b, node, 0, o.limit_ms));
  }

  // Wire check through the counting proxy (validates the method: 2 / 2).
  WireCounts w;
  int wire = o.wire_cycles;
  {
    WireProxy proxy(server);
    RawClient pc(proxy.connect(), o.limit_ms, ResolveDelay(o));
    WireCounts before = proxy.Counts();
    for (int i = 0; i < wire; ++i) {
      if (!SyncCycle(pc.zh(), node)) Die("raw sync cycle (proxy) failed");
    }
    WireCounts after = proxy.Counts();
    w.requests = after.requests - before.requests;
    w.round_trips = after.round_trips - before.round_trips;
  }

  Json j;
  j.Str("row", "raw_sync");
  j.Int("resolve_delay_ms", ResolveDelay(o));
  AddThroughput(j, static_cast<double>(cycles), cpu.seconds(), lat);
  AddCpu(j, cpu, static_cast<double>(cycles));
  AddRequests(j, static_cast<double>(cycles), 2.0 * static_cast<double>(cycles), srv);
  j.Num("wire_req_per_op", static_cast<double>(w.requests) / wire)
      .Num("wire_rtt_per_op", static_cast<double>(w.round_trips) / wire)
      .Num("create_p50_us", create_lat.PercentileUs(50))
      .Num("delete_p50_us", delete_lat.PercentileUs(50))
      .Num("handoff_p50_us", notify_lat.PercentileUs(50))
      .Num("handoff_p99_us", notify_lat.PercentileUs(99))
      .Num("read_p50_us", read_lat.PercentileUs(50))
      .Num("read_p99_us", read_lat.PercentileUs(99));
  j.Print();
}

void RowRawPipelined(const Options &o) {
  Server server(o.servers);
  RawClient c(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(c.zh(), parent);
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  Pipeline p;
  p.zh = c.zh();
  p.parent = parent;
  p.node_prefix = parent + "/p-";
  p.deadline_ns = NowNs() + o.duration_ms * 1000000;
  p.max_cycles = o.max_ops;
  p.lat.Reserve(1 << 20);
  cpu.Start();
  p.Run(o.inflight);
  cpu.Stop();
  ServerDelta srv = probe.Stop();
  if (p.errors.load() > 0) Die("raw pipelined: request errors");
  double cycles = static_cast<double>(p.cycles.load());
  double window_s = static_cast<double>(p.deadline_ns - p.start_ns) / 1e9;
  if (p.cycles.load() >= o.max_ops) window_s = cpu.seconds();  // stopped by count
  Json j;
  j.Str("row", "raw_pipelined").Int("inflight", o.inflight);
  j.Int("resolve_delay_ms", ResolveDelay(o));
  AddThroughput(j, static_cast<double>(p.window_cycles.load()), window_s, p.lat);
  AddCpu(j, cpu, cycles);
  AddRequests(j, cycles, 2 * cycles, srv);
  j.Num("server_writes_per_s", srv.writes / cpu.seconds());
  j.Print();
}

void RowRawSyncClients(const Options &o) {
  Server server(o.servers);
  std::string parent = RawParent(o);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < o.clients; ++i) {
    clients.push_back(std::make_unique<RawClient>(server.connect(), o.limit_ms, ResolveDelay(o)));
  }
  EnsurePersistent(clients[0]->zh(), parent);
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  std::vector<Samples> lat(clients.size());
  std::vector<int64_t> cycles(clients.size(), 0);
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int64_t per_client = o.max_ops / o.clients + 1;
  cpu.Start();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < clients.size(); ++i) {
    threads.emplace_back([&, i] {
      std::string node = parent + "/m-";
      while (cycles[i] < per_client && NowNs() < deadline) {
        int64_t t = NowNs();
        if (!SyncCycle(clients[i]->zh(), node)) Die("raw sync cycle failed");
        lat[i].Add(NowNs() - t);
        ++cycles[i];
      }
    });
  }
  for (auto &t : threads) t.join();
  cpu.Stop();
  ServerDelta srv = probe.Stop();
  Samples all;
  double total = 0;
  for (size_t i = 0; i < clients.size(); ++i) {
    all.Merge(lat[i]);
    total += static_cast<double>(cycles[i]);
  }
  Json j;
  j.Str("row", "raw_sync_clients").Int("clients", o.clients);
  AddThroughput(j, total, cpu.seconds(), all);
  AddCpu(j, cpu, total);
  AddRequests(j, total, 2 * total, srv);
  j.Print();
}

}  // namespace bench
