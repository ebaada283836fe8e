// The raw limits, with the bare ZooKeeper C client: the minimal synchronous
// lock cycle (create EPHEMERAL_SEQUENTIAL, then delete it) and the same
// pipelined (the server's write ceiling). Also the JIT warm-up.
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rows.h"
#include "wire_proxy.h"

namespace bench {

namespace {

class RawClient {
 public:
  // resolve_delay_ms: zoo_set_servers_resolution_delay (0 = the C client's
  // default: re-resolve the host list on every I/O loop iteration).
  RawClient(const std::string &connect, int64_t limit_ms, int resolve_delay_ms = 0) {
    static std::once_flag quiet;
    std::call_once(quiet, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
    zh_ = zookeeper_init(connect.c_str(), &RawClient::Watcher, 30000, nullptr, this, 0);
    if (zh_ == nullptr) Die("zookeeper_init failed");
    if (resolve_delay_ms != 0) zoo_set_servers_resolution_delay(zh_, resolve_delay_ms);
    std::unique_lock<std::mutex> lk(mu_);
    if (!cv_.wait_for(lk, std::chrono::milliseconds(limit_ms), [&] { return connected_; })) {
      Die("raw client: no connection to " + connect);
    }
  }
  ~RawClient() { zookeeper_close(zh_); }
  zhandle_t *zh() const { return zh_; }

 private:
  static void Watcher(zhandle_t *, int type, int state, const char *, void *ctx) {
    auto *self = static_cast<RawClient *>(ctx);
    if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
      std::lock_guard<std::mutex> lk(self->mu_);
      self->connected_ = true;
      self->cv_.notify_all();
    }
  }
  zhandle_t *zh_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  bool connected_ = false;
};

void EnsurePersistent(zhandle_t *zh, const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string p = slash == std::string::npos ? path : path.substr(0, slash);
    int rc = zoo_create(zh, p.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) Die("create " + p + ": " + zerror(rc));
    if (slash == std::string::npos) break;
  }
}

// One synchronous cycle; returns false on error.
bool SyncCycle(zhandle_t *zh, const std::string &node_prefix) {
  char created[512];
  int rc = zoo_create(zh, node_prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                      ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created);
  if (rc != ZOK) return false;
  return zoo_delete(zh, created, -1) == ZOK;
}

// ---- pipelined cycles -----------------------------------------------------

// `width` cycles in flight on one handle: create -> (getChildren) -> delete
// -> create ... until the deadline or the count is reached.
struct Pipeline {
  zhandle_t *zh = nullptr;
  std::string parent, node_prefix;
  bool read_children = false;  // warm-up: also exercise getChildren
  int64_t deadline_ns = 0;
  int64_t max_cycles = 0;
  std::atomic<int64_t> started{0}, cycles{0}, errors{0};
  std::atomic<int> inflight{0};
  std::mutex mu;
  std::condition_variable drained;
  Samples lat;  // written on the completion thread only

  struct Slot {
    Pipeline *p = nullptr;
    int64_t t0 = 0;
    std::string node;
  };
  std::vector<std::unique_ptr<Slot>> slots;

  void Run(int width) {
    for (int i = 0; i < width; ++i) { auto s = std::make_unique<Slot>(); s->p = this; slots.push_back(std::move(s)); }
    for (auto &s : slots) {
      inflight.fetch_add(1);
      Next(s.get());
    }
    std::unique_lock<std::mutex> lk(mu);
    drained.wait(lk, [&] { return inflight.load() == 0; });
  }

  void Done(Slot *) {
    if (inflight.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lk(mu);
      drained.notify_all();
    }
  }

  void Next(Slot *s) {
    if (NowNs() >= deadline_ns || started.fetch_add(1) >= max_cycles) {
      Done(s);
      return;
    }
    s->t0 = NowNs();
    int rc = zoo_acreate(zh, node_prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_EPHEMERAL_SEQUENTIAL, &Pipeline::Created, s);
    if (rc != ZOK) {
      errors.fetch_add(1);
      Done(s);
    }
  }

  static void Created(int rc, const char *value, const void *data) {
    auto *s = static_cast<Slot *>(const_cast<void *>(data));
    Pipeline *p = s->p;
    if (rc != ZOK) {
      p->errors.fetch_add(1);
      p->Done(s);
      return;
    }
    s->node = value;
    if (p->read_children) {
      zoo_aget_children(p->zh, p->parent.c_str(), 0, &Pipeline::Children, s);
    }
    if (zoo_adelete(p->zh, s->node.c_str(), -1, &Pipeline::Deleted, s) != ZOK) {
      p->errors.fetch_add(1);
      p->Done(s);
    }
  }

  static void Children(int, const struct String_vector *, const void *) {}

  static void Deleted(int rc, const void *data) {
    auto *s = static_cast<Slot *>(const_cast<void *>(data));
    Pipeline *p = s->p;
    if (rc != ZOK) {
      p->errors.fetch_add(1);
      p->Done(s);
      return;
    }
    p->lat.Add(NowNs() - s->t0);
    p->cycles.fetch_add(1);
    p->Next(s);
  }
};

std::string RawParent(const Options &o) { return o.prefix + "/raw"; }

int ResolveDelay(const Options &o) {
  auto it = o.extra.find("resolve-delay-ms");
  return it == o.extra.end() ? 0 : std::atoi(it->second.c_str());
}

}  // namespace

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
  if (ResolveDelay(o) != 0) j.Int("resolve_delay_ms", ResolveDelay(o));
  AddThroughput(j, static_cast<double>(cycles), cpu.seconds(), lat);
  j.Num("cpu_us_per_op", cpu.UsPerOp(static_cast<double>(cycles)));
  AddRequests(j, static_cast<double>(cycles), 2.0 * static_cast<double>(cycles), srv);
  j.Num("wire_req_per_op", static_cast<double>(w.requests) / wire)
      .Num("wire_rtt_per_op", static_cast<double>(w.round_trips) / wire)
      .Num("create_p50_us", create_lat.PercentileUs(50))
      .Num("delete_p50_us", delete_lat.PercentileUs(50))
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
  Json j;
  j.Str("row", "raw_pipelined").Int("inflight", o.inflight);
  if (ResolveDelay(o) != 0) j.Int("resolve_delay_ms", ResolveDelay(o));
  AddThroughput(j, cycles, cpu.seconds(), p.lat);
  j.Num("cpu_us_per_op", cpu.UsPerOp(cycles));
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
  j.Num("cpu_us_per_op", cpu.UsPerOp(total));
  AddRequests(j, total, 2 * total, srv);
  j.Print();
}

}  // namespace bench
