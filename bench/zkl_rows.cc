// zkl rows: uncontended cycles (synchronous and asynchronous release),
// contention on one lock, many locks, and the other recipes.
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "raw_client.h"
#include "rows.h"
#include "wire_proxy.h"
#include "zkl_client.h"

namespace bench {

namespace {

constexpr uint64_t kOwner = 1;

std::string KindName(const Options &o, const char *dflt) {
  auto it = o.extra.find("kind");
  return it == o.extra.end() ? dflt : it->second;
}

int Leases(const Options &o) {
  auto it = o.extra.find("leases");
  return it == o.extra.end() ? 2 : std::max(1, std::atoi(it->second.c_str()));
}

int64_t HoldUs(const Options &o) {
  auto it = o.extra.find("hold-us");
  return it == o.extra.end() ? 0 : std::atoll(it->second.c_str());
}

void Check(int rc, const char *what) {
  if (rc != 0) Die(std::string(what) + ": " + zkl_strerror(rc));
}

// Runs `cycles` cycles on a client connected through the counting proxy.
// `make` builds the cycle function for that client (and does any setup,
// which is not counted: 20 cycles run before counting starts).
WireCounts WirePhase(const Server &server, const Options &o, int cycles,
                     const std::function<std::function<void()>(zkl_client *)> &make) {
  WireProxy proxy(server);
  WireCounts w;
  {
    ZklClient pc(proxy.connect(), o.limit_ms);
    std::function<void()> cycle = make(pc.get());
    for (int i = 0; i < 20; ++i) cycle();
    SleepMs(20);  // late replies (async release) land before counting
    WireCounts a = proxy.Counts();
    for (int i = 0; i < cycles; ++i) cycle();
    SleepMs(20);
    WireCounts b = proxy.Counts();
    w.requests = b.requests - a.requests;
    w.replies = b.replies - a.replies;
    w.notifications = b.notifications - a.notifications;
    w.round_trips = b.round_trips - a.round_trips;
  }
  return w;
}

void AddWire(Json &j, const WireCounts &w, int cycles) {
  j.Num("wire_req_per_op", static_cast<double>(w.requests) / cycles)
      .Num("wire_rtt_per_op", static_cast<double>(w.round_trips) / cycles);
}

// Drops pending events, counting those of `type`.
int64_t DrainEvents(zkl_client *c, int type) {
  int64_t n = 0;
  zkl_event *ev = nullptr;
  while (zkl_client_next_event(c, &ev) == 0) {
    if (zkl_event_type(ev) == type) ++n;
    zkl_event_free(ev);
  }
  return n;
}

// A timed loop of `cycle` on one client: latency per cycle, CPU, requests.
struct LoopResult {
  int64_t cycles = 0;
  Samples lat;
  CpuMeter cpu;
  ServerDelta srv;
  uint64_t requests = 0;
};

LoopResult TimedLoop(const Options &o, const Server &server, ZklClient &c,
                     const std::function<void()> &cycle, const std::function<void()> &finish = {}) {
  LoopResult r;
  r.cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  uint64_t req0 = c.Counter("requests");
  r.lat.Reserve(static_cast<size_t>(std::min<int64_t>(o.max_ops, 2000000)));
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  r.cpu.Start();
  while (r.cycles < o.max_ops && NowNs() < deadline) {
    int64_t t = NowNs();
    cycle();
    r.lat.Add(NowNs() - t);
    ++r.cycles;
  }
  if (finish) finish();
  r.cpu.Stop();
  r.srv = probe.Stop();
  r.requests = c.Counter("requests") - req0;
  return r;
}

void PrintLoop(Json &j, LoopResult &r) {
  double n = static_cast<double>(r.cycles);
  AddThroughput(j, n, r.cpu.seconds(), r.lat);
  AddCpu(j, r.cpu, n);
  AddRequests(j, n, static_cast<double>(r.requests), r.srv);
}

}  // namespace

// ---------------------------------------------------------------------------
// Uncontended
// ---------------------------------------------------------------------------

void RowUncontended(const Options &o) {
  Server server(o.servers);
  std::string kind_name = KindName(o, "fair");
  int kind = LockKind(kind_name);
  int leases = Leases(o);
  ZklClient c(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "u-" + kind_name);
  zkl_lock *l = NewLock(c.get(), path, kind, leases);
  auto cycle_of = [&](zkl_lock *lock) {
    return [&, lock] {
      Check(zkl_lock_acquire(lock, kOwner, o.limit_ms), "acquire");
      Check(zkl_lock_release(lock, kOwner), "release");
    };
  };
  auto cycle = cycle_of(l);
  for (int i = 0; i < 50; ++i) cycle();  // parents exist from now on
  LoopResult r = TimedLoop(o, server, c, cycle);
  WireCounts w = WirePhase(server, o, o.wire_cycles, [&](zkl_client *pc) {
    zkl_lock *pl = NewLock(pc, path, kind, leases);
    return std::function<void()>(cycle_of(pl));  // the handle dies with pc
  });
  zkl_lock_destroy(l);
  Json j;
  j.Str("row", "uncontended").Str("kind", kind_name);
  PrintLoop(j, r);
  AddWire(j, w, o.wire_cycles);
  j.Print();
}

void RowUncontendedAsyncRelease(const Options &o) {
  // One handle: acquire, then release asynchronously; the next acquire on
  // the handle is ordered after the delete.
  Server server(o.servers);
  ZklClient c(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "ua");
  zkl_lock *l = NewLock(c.get(), path, ZKL_LOCK_FAIR);
  struct Count {
    int64_t cycles = 0, released = 0;
  };
  auto cycle_of = [&o](zkl_client *client, zkl_lock *lock, Count *n) {
    return [&o, client, lock, n] {
      Check(zkl_lock_acquire(lock, kOwner, o.limit_ms), "acquire");
      Check(zkl_lock_release_async(lock, kOwner), "release_async");
      ++n->cycles;
      n->released += DrainEvents(client, ZKL_EVENT_RELEASED);
    };
  };
  Count n;
  auto cycle = cycle_of(c.get(), l, &n);
  for (int i = 0; i < 50; ++i) cycle();
  LoopResult r = TimedLoop(o, server, c, cycle, [&] {
    // Every release is confirmed (RELEASED) before the clock stops.
    int64_t deadline = NowNs() + o.limit_ms * 1000000;
    while (n.released < n.cycles && NowNs() < deadline) {
      if (c.WaitEvent({ZKL_EVENT_RELEASED}, 1000)) ++n.released;
    }
    if (n.released < n.cycles) Die("async release: RELEASED events missing");
  });
  Count wn;
  WireCounts w = WirePhase(server, o, o.wire_cycles, [&](zkl_client *pc) {
    zkl_lock *pl = NewLock(pc, path, ZKL_LOCK_FAIR);
    return std::function<void()>(cycle_of(pc, pl, &wn));
  });
  zkl_lock_destroy(l);
  Json j;
  j.Str("row", "uncontended_async_release").Str("kind", "fair");
  PrintLoop(j, r);
  AddWire(j, w, o.wire_cycles);
  j.Print();
}

void RowUncontendedTwoHandles(const Options &o) {
  // Two handles of one client on one lock, used alternately: the acquire of
  // one is pipelined behind the asynchronous release of the other.
  Server server(o.servers);
  ZklClient c(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "u2");
  zkl_lock *l[2] = {NewLock(c.get(), path, ZKL_LOCK_FAIR), NewLock(c.get(), path, ZKL_LOCK_FAIR)};
  auto cycle_of = [&o](zkl_client *client, zkl_lock *a, zkl_lock *b) {
    auto n = std::make_shared<int64_t>(0);
    return [&o, client, a, b, n] {
      zkl_lock *lock = (*n)++ % 2 == 0 ? a : b;
      Check(zkl_lock_acquire(lock, kOwner, o.limit_ms), "acquire");
      Check(zkl_lock_release_async(lock, kOwner), "release_async");
      DrainEvents(client, ZKL_EVENT_RELEASED);
    };
  };
  auto cycle = cycle_of(c.get(), l[0], l[1]);
  for (int i = 0; i < 50; ++i) cycle();
  LoopResult r = TimedLoop(o, server, c, cycle);
  WireCounts w = WirePhase(server, o, o.wire_cycles, [&](zkl_client *pc) {
    return std::function<void()>(
        cycle_of(pc, NewLock(pc, path, ZKL_LOCK_FAIR), NewLock(pc, path, ZKL_LOCK_FAIR)));
  });
  zkl_lock_destroy(l[0]);
  zkl_lock_destroy(l[1]);
  Json j;
  j.Str("row", "uncontended_two_handles").Str("kind", "fair");
  PrintLoop(j, r);
  AddWire(j, w, o.wire_cycles);
  j.Print();
}

void RowElectionUncontended(const Options &o) {
  Server server(o.servers);
  std::string kind_name = KindName(o, "fair");
  int kind = kind_name == "unfair" ? ZKL_ELECTION_NONFAIR : ZKL_ELECTION_FAIR;
  ZklClient c(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "e-" + kind_name);
  auto make = [&](zkl_client *client) {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.kind = kind;
    eo.id = "bench";
    zkl_election *e = nullptr;
    Check(zkl_election_new(client, path.c_str(), &eo, &e), "zkl_election_new");
    return e;
  };
  auto cycle_of = [&o](zkl_election *e) {
    return [&o, e] {
      Check(zkl_election_acquire(e, o.limit_ms), "campaign");
      Check(zkl_election_release(e), "resign");
    };
  };
  zkl_election *e = make(c.get());
  auto cycle = cycle_of(e);
  for (int i = 0; i < 50; ++i) cycle();
  LoopResult r = TimedLoop(o, server, c, cycle);
  WireCounts w = WirePhase(server, o, o.wire_cycles, [&](zkl_client *pc) {
    return std::function<void()>(cycle_of(make(pc)));
  });
  zkl_election_destroy(e);
  Json j;
  j.Str("row", "election_uncontended").Str("kind", kind_name);
  PrintLoop(j, r);
  AddWire(j, w, o.wire_cycles);
  j.Print();
}

// ---------------------------------------------------------------------------
// Contended: N clients, one handle each, on one lock (or election)
// ---------------------------------------------------------------------------

namespace {

struct Contender {
  std::unique_ptr<ZklClient> client;
  zkl_lock *lock = nullptr;
  zkl_election *election = nullptr;
  int kind = 0;
  Samples wait, handoff;
  int64_t acquisitions = 0;
};

struct ContendedSpec {
  std::string row, kind_name;
  bool election = false;
  // Lock kind of contender i (elections: ZKL_ELECTION_*).
  std::function<int(int)> kind_of;
};

void RunContended(const Options &o, const ContendedSpec &spec) {
  Server server(o.servers);
  std::string path = RunPath(o, "c-" + spec.kind_name);
  int leases = Leases(o);
  int64_t hold_us = HoldUs(o);
  std::vector<Contender> cs(static_cast<size_t>(o.clients));
  std::vector<ZklClient *> clients;
  for (int i = 0; i < o.clients; ++i) {
    Contender &x = cs[static_cast<size_t>(i)];
    x.client = std::make_unique<ZklClient>(server.connect(), o.limit_ms);
    clients.push_back(x.client.get());
    x.kind = spec.kind_of(i);
    if (spec.election) {
      zkl_election_options eo;
      zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
      eo.kind = x.kind;
      std::string id = "bench-" + std::to_string(i);
      eo.id = id.c_str();
      Check(zkl_election_new(x.client->get(), path.c_str(), &eo, &x.election), "election_new");
    } else {
      x.lock = NewLock(x.client->get(), path, x.kind, leases);
    }
  }
  // Parents exist before the clock starts.
  if (spec.election) {
    Check(zkl_election_acquire(cs[0].election, o.limit_ms), "campaign");
    Check(zkl_election_release(cs[0].election), "resign");
  } else {
    Check(zkl_lock_acquire(cs[0].lock, kOwner, o.limit_ms), "acquire");
    Check(zkl_lock_release(cs[0].lock, kOwner), "release");
  }
  bool exclusive = true;  // every contender's kind excludes all others
  for (int i = 0; i < o.clients && !spec.election; ++i) exclusive = exclusive && ExclusiveKind(spec.kind_of(i));
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  uint64_t req0 = SumCounter(clients, "requests");
  uint64_t watch0 = SumCounter(clients, "watch_events");
  std::atomic<int64_t> last_release{0};
  std::atomic<int> holders{0};
  std::atomic<int> max_holders{0};
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int64_t per_client = o.max_ops / o.clients + 1;
  cpu.Start();
  std::vector<std::thread> threads;
  for (auto &x : cs) {
    threads.emplace_back([&, px = &x] {
      Contender &me = *px;
      zkl_client *c = me.client->get();
      while (NowNs() < deadline && me.acquisitions < per_client) {
        int64_t t0 = NowNs();
        if (spec.election) {
          // campaign() is the election's blocking acquire; its return is
          // what a caller observes.
          Check(zkl_election_acquire(me.election, o.limit_ms), "campaign");
        } else {
          Check(zkl_lock_acquire_async(me.lock, kOwner, o.limit_ms), "acquire_async");
          int err = 0;
          int type = me.client->WaitEvent({ZKL_EVENT_ACQUIRED, ZKL_EVENT_ACQUIRE_FAILED},
                                          o.limit_ms + 1000, &err);
          if (type != ZKL_EVENT_ACQUIRED) {
            Die(std::string("contended acquire: ") + (type ? zkl_strerror(err) : "no event"));
          }
        }
        int64_t t1 = NowNs();
        int now_holding = holders.fetch_add(1) + 1;
        int prev = max_holders.load();
        while (now_holding > prev && !max_holders.compare_exchange_weak(prev, now_holding)) {
        }
        me.wait.Add(t1 - t0);
        // A handoff: the previous holder released while we were waiting.
        int64_t lr = last_release.load();
        if (exclusive && lr >= t0) me.handoff.Add(t1 - lr);
        ++me.acquisitions;
        if (hold_us > 0) {
          int64_t until = NowNs() + hold_us * 1000;
          while (NowNs() < until) {
          }
        }
        holders.fetch_sub(1);
        last_release.store(NowNs());
        if (spec.election) {
          Check(zkl_election_release(me.election), "resign");
        } else {
          Check(zkl_lock_release(me.lock, kOwner), "release");
        }
        DrainEvents(c, 0);
      }
    });
  }
  for (auto &t : threads) t.join();
  cpu.Stop();
  ServerDelta srv = probe.Stop();
  uint64_t requests = SumCounter(clients, "requests") - req0;
  uint64_t watches = SumCounter(clients, "watch_events") - watch0;
  Samples wait, handoff;
  double total = 0;
  Json j;
  j.Str("row", spec.row).Str("kind", spec.kind_name).Int("clients", o.clients);
  for (auto &x : cs) {
    wait.Merge(x.wait);
    handoff.Merge(x.handoff);
    total += static_cast<double>(x.acquisitions);
  }
  AddThroughput(j, total, cpu.seconds(), wait);
  AddCpu(j, cpu, total);
  AddRequests(j, total, static_cast<double>(requests), srv);
  j.Num("watch_events_per_op", static_cast<double>(watches) / std::max(1.0, total));
  if (exclusive) {
    j.Num("handoff_p50_us", handoff.PercentileUs(50)).Num("handoff_p99_us", handoff.PercentileUs(99));
  }
  j.Int("max_concurrent_holders", max_holders.load());
  if (exclusive && max_holders.load() > 1) {
    j.Print();
    Die("mutual exclusion violated: " + std::to_string(max_holders.load()) + " holders at once");
  }
  if (spec.kind_name == "semaphore") j.Int("leases", leases);
  if (spec.kind_name == "rw") {
    double reads = 0, writes = 0;
    Samples rw, ww;
    for (auto &x : cs) {
      (x.kind == ZKL_LOCK_READ ? reads : writes) += static_cast<double>(x.acquisitions);
      (x.kind == ZKL_LOCK_READ ? rw : ww).Merge(x.wait);
    }
    j.Num("read_ops", reads).Num("write_ops", writes);
    j.Num("read_wait_p50_us", rw.PercentileUs(50)).Num("write_wait_p50_us", ww.PercentileUs(50));
  }
  if (hold_us > 0) j.Int("hold_us", hold_us);
  j.Print();
  for (auto &x : cs) {
    if (x.lock) zkl_lock_destroy(x.lock);
    if (x.election) zkl_election_destroy(x.election);
  }
}

}  // namespace

void RowContended(const Options &o) {
  ContendedSpec spec;
  spec.row = "contended";
  spec.kind_name = KindName(o, "fair");
  if (spec.kind_name == "rw") {
    spec.kind_of = [](int i) { return i % 2 == 0 ? ZKL_LOCK_READ : ZKL_LOCK_WRITE; };
  } else {
    int kind = LockKind(spec.kind_name);
    spec.kind_of = [kind](int) { return kind; };
  }
  RunContended(o, spec);
}

void RowRwContended(const Options &o) {
  Options copy = o;
  copy.extra["kind"] = "rw";
  RowContended(copy);
}

void RowElectionContended(const Options &o) {
  ContendedSpec spec;
  spec.row = "election_contended";
  spec.kind_name = KindName(o, "fair");
  spec.election = true;
  int kind = spec.kind_name == "unfair" ? ZKL_ELECTION_NONFAIR : ZKL_ELECTION_FAIR;
  spec.kind_of = [kind](int) { return kind; };
  RunContended(o, spec);
}

// ---------------------------------------------------------------------------
// Many locks
// ---------------------------------------------------------------------------

void RowManyLocksClients(const Options &o) {
  // N clients, each cycling its own lock (blocking acquire, release).
  Server server(o.servers);
  std::vector<std::unique_ptr<ZklClient>> owned;
  std::vector<ZklClient *> clients;
  std::vector<zkl_lock *> locks;
  std::string base = RunPath(o, "m");
  for (int i = 0; i < o.clients; ++i) {
    owned.push_back(std::make_unique<ZklClient>(server.connect(), o.limit_ms));
    clients.push_back(owned.back().get());
    locks.push_back(NewLock(owned.back()->get(), base + "/lock-" + std::to_string(i), ZKL_LOCK_FAIR));
    for (int k = 0; k < 20; ++k) {
      Check(zkl_lock_acquire(locks.back(), kOwner, o.limit_ms), "acquire");
      Check(zkl_lock_release(locks.back(), kOwner), "release");
    }
  }
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  uint64_t req0 = SumCounter(clients, "requests");
  std::vector<Samples> lat(static_cast<size_t>(o.clients));
  std::vector<int64_t> cycles(static_cast<size_t>(o.clients), 0);
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int64_t per_client = o.max_ops / o.clients + 1;
  cpu.Start();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < locks.size(); ++i) {
    threads.emplace_back([&, i] {
      while (cycles[i] < per_client && NowNs() < deadline) {
        int64_t t = NowNs();
        Check(zkl_lock_acquire(locks[i], kOwner, o.limit_ms), "acquire");
        Check(zkl_lock_release(locks[i], kOwner), "release");
        lat[i].Add(NowNs() - t);
        ++cycles[i];
      }
    });
  }
  for (auto &t : threads) t.join();
  cpu.Stop();
  ServerDelta srv = probe.Stop();
  uint64_t requests = SumCounter(clients, "requests") - req0;
  Samples all;
  double total = 0;
  for (size_t i = 0; i < lat.size(); ++i) {
    all.Merge(lat[i]);
    total += static_cast<double>(cycles[i]);
  }
  Json j;
  j.Str("row", "many_locks_clients").Str("kind", "fair").Int("clients", o.clients).Int("locks", o.clients);
  AddThroughput(j, total, cpu.seconds(), all);
  AddCpu(j, cpu, total);
  AddRequests(j, total, static_cast<double>(requests), srv);
  j.Print();
  for (zkl_lock *l : locks) zkl_lock_destroy(l);
}

namespace {

// M lock handles of one client cycled through the async API (acquire_async,
// on ACQUIRED release_async and acquire_async again), with the events
// dispatched on the calling thread.
class AsyncLocks {
 public:
  AsyncLocks(const Options &o, ZklClient &c, const std::string &base, int n) : o_(o), c_(c) {
    for (int i = 0; i < n; ++i) {
      auto s = std::make_unique<Slot>();
      s->loop = this;
      s->lock = NewLock(c.get(), base + "/lock-" + std::to_string(i), ZKL_LOCK_FAIR, 2,
                        &AsyncLocks::OnEvent, s.get());
      slots_.push_back(std::move(s));
    }
  }
  ~AsyncLocks() {
    for (auto &s : slots_) zkl_lock_destroy(s->lock);
  }

  // Cycles for duration_ms (or max_cycles), then lets every handle finish
  // its cycle and waits for every release. Returns the window in seconds.
  double Run(int64_t duration_ms, int64_t max_cycles) {
    stopping_ = false;
    cycles = cycles_in_window = released_ = failed_ = 0;
    outstanding_ = 0;
    int64_t start = NowNs();
    int64_t deadline = start + duration_ms * 1000000;
    half_ = start + (deadline - start) / 2;
    first_half = 0;
    for (auto &s : slots_) {
      s->t0 = NowNs();
      Check(zkl_lock_acquire_async(s->lock, kOwner, o_.limit_ms), "acquire_async");
      ++outstanding_;
    }
    int64_t hard = deadline + o_.limit_ms * 1000000;
    int64_t window_end = 0;
    int fd = zkl_client_fd(c_.get());
    while (NowNs() < hard) {
      if (!stopping_ && (NowNs() >= deadline || cycles >= max_cycles)) {
        stopping_ = true;
        window_end = NowNs();
      }
      if (stopping_ && outstanding_ == 0 && released_ >= cycles) break;
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) > 0) zkl_client_dispatch(c_.get(), 0);
    }
    if (outstanding_ != 0 || released_ < cycles) Die("async many locks: did not drain");
    if (failed_) Die("async many locks: acquires failed");
    return static_cast<double>(window_end - start) / 1e9;
  }

  int64_t cycles = 0, cycles_in_window = 0;
  int64_t first_half = 0;  // cycles completed in the first half of the window
  Samples lat;

 private:
  struct Slot {
    AsyncLocks *loop = nullptr;
    zkl_lock *lock = nullptr;
    int64_t t0 = 0;
  };

  static void OnEvent(const zkl_event *ev, void *ud) {
    auto *s = static_cast<Slot *>(ud);
    AsyncLocks *loop = s->loop;
    switch (zkl_event_type(ev)) {
      case ZKL_EVENT_ACQUIRED: {
        int64_t now = NowNs();
        loop->lat.Add(now - s->t0);
        ++loop->cycles;
        if (!loop->stopping_) ++loop->cycles_in_window;
        if (now < loop->half_) ++loop->first_half;
        Check(zkl_lock_release_async(s->lock, kOwner), "release_async");
        if (loop->stopping_) {
          --loop->outstanding_;
        } else {
          // Ordered after the delete by the handle itself.
          s->t0 = now;
          Check(zkl_lock_acquire_async(s->lock, kOwner, loop->o_.limit_ms), "acquire_async");
        }
        break;
      }
      case ZKL_EVENT_RELEASED:
        ++loop->released_;
        break;
      case ZKL_EVENT_ACQUIRE_FAILED:
        ++loop->failed_;
        --loop->outstanding_;
        break;
      default:
        break;
    }
  }

  const Options &o_;
  ZklClient &c_;
  std::vector<std::unique_ptr<Slot>> slots_;
  bool stopping_ = false;
  int64_t half_ = 0;
  int64_t released_ = 0, failed_ = 0;
  int outstanding_ = 0;  // handles with an acquire pending
};

}  // namespace

void RowAsyncManyLocks(const Options &o) {
  // One client, M locks cycled concurrently through the async API.
  Server server(o.servers);
  ZklClient c(server.connect(), o.limit_ms);
  AsyncLocks loop(o, c, RunPath(o, "a"), o.locks);
  loop.Run(300, 1 << 30);  // parents exist, JIT-warm paths
  CpuMeter cpu;
  cpu.CalibrateIdle(o.idle_ms);
  ServerProbe probe(server);
  probe.Start();
  uint64_t req0 = c.Counter("requests");
  loop.lat = Samples();
  cpu.Start();
  double window = loop.Run(o.duration_ms, o.max_ops);
  cpu.Stop();
  ServerDelta srv = probe.Stop();
  uint64_t requests = c.Counter("requests") - req0;
  double total = static_cast<double>(loop.cycles);
  Json j;
  j.Str("row", "async_many_locks").Str("kind", "fair").Int("locks", o.locks);
  AddThroughput(j, static_cast<double>(loop.cycles_in_window), window, loop.lat);
  // Drift inside the window (the first half includes the ramp-up).
  j.Num("first_half_ops_per_s", static_cast<double>(loop.first_half) / (window / 2))
      .Num("second_half_ops_per_s",
           static_cast<double>(loop.cycles_in_window - loop.first_half) / (window / 2));
  AddCpu(j, cpu, total);
  AddRequests(j, total, static_cast<double>(requests), srv);
  j.Num("server_writes_per_s", srv.writes / cpu.seconds());
  j.Print();
}

// ---------------------------------------------------------------------------
// Paired rows: the zkl loop and its raw limit alternate in short blocks in
// one process, so that load changes on the machine hit both alike; the ratio
// is the median of the per-round ratios.
// ---------------------------------------------------------------------------

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

void RowPairedSync(const Options &o) {
  // Blocks of `block` cycles each: raw sync create+delete, zkl acquire +
  // release, acquire + release_async on one handle, and on two handles
  // alternately; rotated each round.
  Server server(o.servers);
  RawClient raw(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(raw.zh(), parent);
  std::string raw_node = parent + "/q-";
  ZklClient c(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "q");
  zkl_lock *l = NewLock(c.get(), path, ZKL_LOCK_FAIR);
  zkl_lock *l2[2] = {NewLock(c.get(), path, ZKL_LOCK_FAIR), NewLock(c.get(), path, ZKL_LOCK_FAIR)};
  int64_t n2 = 0, issued = 0, released = 0;
  MultiCycler multi(raw.zh(), parent, parent + "/x-");
  MultiCycler multi_alone(raw.zh(), parent + "-alone", parent + "-alone/y-", false);
  EnsurePersistent(raw.zh(), parent + "-alone");
  const char *names[] = {"raw_sync", "sync_release", "async_release", "async_release_two_handles",
                         "raw_multi_reacquire", "raw_multi_alone"};
  std::function<void()> cycle[] = {
      [&] {
        if (!SyncCycle(raw.zh(), raw_node)) Die("raw cycle failed");
      },
      [&] {
        Check(zkl_lock_acquire(l, kOwner, o.limit_ms), "acquire");
        Check(zkl_lock_release(l, kOwner), "release");
      },
      [&] {
        Check(zkl_lock_acquire(l, kOwner, o.limit_ms), "acquire");
        Check(zkl_lock_release_async(l, kOwner), "release_async");
        ++issued;
        released += DrainEvents(c.get(), ZKL_EVENT_RELEASED);
      },
      [&] {
        zkl_lock *h = l2[n2++ % 2];
        Check(zkl_lock_acquire(h, kOwner, o.limit_ms), "acquire");
        Check(zkl_lock_release_async(h, kOwner), "release_async");
        ++issued;
        released += DrainEvents(c.get(), ZKL_EVENT_RELEASED);
      },
      [&] {
        if (!multi.Cycle()) Die("raw multi cycle failed");
      },
      [&] {
        if (!multi_alone.Cycle()) Die("raw multi cycle failed");
      },
  };
  constexpr int kVariants = 6;
  auto block_cycles = o.extra.count("block") ? std::atoll(o.extra.at("block").c_str()) : 100;
  for (int v = 0; v < kVariants; ++v) {
    for (int i = 0; i < 50; ++i) cycle[v]();
  }
  while (released < issued) {
    if (!c.WaitEvent({ZKL_EVENT_RELEASED}, o.limit_ms)) Die("paired: RELEASED missing");
    ++released;
  }
  std::vector<double> ratios[kVariants];
  double total_ns[kVariants] = {};
  int64_t total_cycles[kVariants] = {};
  double fsyncs[kVariants] = {}, packets[kVariants] = {};
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int rounds = 0;
  while (NowNs() < deadline || rounds < 3) {
    double rate[kVariants];
    for (int k = 0; k < kVariants; ++k) {
      int v = (k + rounds) % kVariants;
      ServerProbe probe(server);
      probe.Start();
      int64_t t = NowNs();
      for (int64_t i = 0; i < block_cycles; ++i) cycle[v]();
      // An async block ends when its last release is confirmed.
      while (released < issued) {
        if (!c.WaitEvent({ZKL_EVENT_RELEASED}, o.limit_ms)) Die("paired: RELEASED missing");
        ++released;
      }
      int64_t dt = NowNs() - t;
      ServerDelta d = probe.Stop();
      fsyncs[v] += d.fsyncs;
      packets[v] += d.packets;
      rate[v] = static_cast<double>(block_cycles) * 1e9 / static_cast<double>(dt);
      total_ns[v] += static_cast<double>(dt);
      total_cycles[v] += block_cycles;
    }
    for (int v = 1; v < kVariants; ++v) ratios[v].push_back(rate[v] / rate[0]);
    ++rounds;
    if (rounds > 100000) break;
  }
  Json j;
  j.Str("row", "paired_sync").Int("rounds", rounds).Int("block", block_cycles);
  for (int v = 0; v < kVariants; ++v) {
    j.Num(std::string(names[v]) + "_ops_per_s",
          static_cast<double>(total_cycles[v]) * 1e9 / total_ns[v]);
    if (v > 0) j.Num(std::string(names[v]) + "_ratio", Median(ratios[v]));
    double n = static_cast<double>(total_cycles[v]);
    j.Num(std::string(names[v]) + "_srv_req_per_op", packets[v] / n);
    j.Num(std::string(names[v]) + "_srv_fsyncs_per_op", fsyncs[v] / n);
  }
  j.Print();
  zkl_lock_destroy(l);
  zkl_lock_destroy(l2[0]);
  zkl_lock_destroy(l2[1]);
}

void RowPairedHandoff(const Options &o) {
  // The handoff to a settled waiter, alternately: raw (client B watches the
  // node of client A, A deletes it: delete call to B's watcher) and zkl
  // (client B's handle queued behind client A's hold: release call to B's
  // ACQUIRED event). Also zkl with the waiter queued two deep (what every
  // handoff in a long queue is: the woken waiter reads the children again).
  Server server(o.servers);
  RawClient ra(server.connect(), o.limit_ms, ResolveDelay(o));
  RawClient rb(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(ra.zh(), parent);
  std::string raw_node = parent + "/h-";
  ZklClient a(server.connect(), o.limit_ms), b(server.connect(), o.limit_ms),
      m(server.connect(), o.limit_ms);
  std::string path = RunPath(o, "ho");
  zkl_lock *la = NewLock(a.get(), path, ZKL_LOCK_FAIR);
  zkl_lock *lb = NewLock(b.get(), path, ZKL_LOCK_FAIR);
  zkl_lock *lm = NewLock(m.get(), path, ZKL_LOCK_FAIR);
  struct Watch {
    std::mutex mu;
    std::condition_variable cv;
    int64_t fired_ns = 0;
  } w;
  auto watcher = [](zhandle_t *, int type, int, const char *, void *ctx) {
    if (type != ZOO_DELETED_EVENT) return;
    auto *pw = static_cast<Watch *>(ctx);
    int64_t now = NowNs();
    std::lock_guard<std::mutex> lk(pw->mu);
    pw->fired_ns = now;
    pw->cv.notify_all();
  };
  int64_t settle_ms = o.extra.count("settle-ms") ? std::atoll(o.extra.at("settle-ms").c_str()) : 20;
  auto raw_once = [&]() -> int64_t {
    char created[512];
    if (zoo_create(ra.zh(), raw_node.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                   ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created) != ZOK) {
      Die("create failed");
    }
    struct Stat st;
    {
      std::lock_guard<std::mutex> lk(w.mu);
      w.fired_ns = 0;
    }
    if (zoo_wexists(rb.zh(), created, watcher, &w, &st) != ZOK) Die("wexists failed");
    SleepMs(settle_ms);
    int64_t t = NowNs();
    if (zoo_delete(ra.zh(), created, -1) != ZOK) Die("delete failed");
    std::unique_lock<std::mutex> lk(w.mu);
    if (!w.cv.wait_for(lk, std::chrono::milliseconds(o.limit_ms), [&] { return w.fired_ns != 0; })) {
      Die("watch did not fire");
    }
    return w.fired_ns - t;
  };
  auto wait_acquired = [&](ZklClient &c) {
    int err = 0;
    if (c.WaitEvent({ZKL_EVENT_ACQUIRED, ZKL_EVENT_ACQUIRE_FAILED}, o.limit_ms, &err) !=
        ZKL_EVENT_ACQUIRED) {
      Die("handoff: no ACQUIRED");
    }
  };
  // deep: a holds, m and b queue behind; a releases, m holds; b was queued
  // two deep, so when m releases, b must read the children again before it
  // knows it holds. The handoff timed is the last one (to b).
  auto zkl_once = [&](bool deep) -> int64_t {
    Check(zkl_lock_acquire(la, kOwner, o.limit_ms), "acquire");
    if (deep) {
      Check(zkl_lock_acquire_async(lm, kOwner, o.limit_ms), "acquire_async");
      SleepMs(settle_ms);
    }
    Check(zkl_lock_acquire_async(lb, kOwner, o.limit_ms), "acquire_async");
    SleepMs(settle_ms);  // b is queued and watching its predecessor
    zkl_lock *releaser = la;
    if (deep) {
      Check(zkl_lock_release(la, kOwner), "release");
      wait_acquired(m);
      SleepMs(settle_ms);
      releaser = lm;
    }
    int64_t t = NowNs();
    Check(zkl_lock_release(releaser, kOwner), "release");
    wait_acquired(b);
    int64_t dt = NowNs() - t;
    Check(zkl_lock_release(lb, kOwner), "release");
    DrainEvents(m.get(), 0);
    return dt;
  };
  for (int i = 0; i < 5; ++i) {
    raw_once();
    zkl_once(false);
  }
  Samples raw, zkl, deep;
  std::vector<double> ratios, deep_ratios;
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int rounds = 0;
  while ((NowNs() < deadline || rounds < 5) && rounds < 100000) {
    int64_t r = raw_once();
    int64_t z = zkl_once(false);
    int64_t d = zkl_once(true);
    raw.Add(r);
    zkl.Add(z);
    deep.Add(d);
    ratios.push_back(static_cast<double>(z) / static_cast<double>(r));
    deep_ratios.push_back(static_cast<double>(d) / static_cast<double>(r));
    ++rounds;
  }
  Json j;
  j.Str("row", "paired_handoff")
      .Int("rounds", rounds)
      .Int("settle_ms", settle_ms)
      .Num("raw_handoff_p50_us", raw.PercentileUs(50))
      .Num("raw_handoff_p99_us", raw.PercentileUs(99))
      .Num("zkl_handoff_p50_us", zkl.PercentileUs(50))
      .Num("zkl_handoff_p99_us", zkl.PercentileUs(99))
      .Num("zkl_handoff_ratio", Median(ratios))
      .Num("zkl_deep_handoff_p50_us", deep.PercentileUs(50))
      .Num("zkl_deep_handoff_p99_us", deep.PercentileUs(99))
      .Num("zkl_deep_handoff_ratio", Median(deep_ratios));
  j.Print();
  zkl_lock_destroy(la);
  zkl_lock_destroy(lb);
  zkl_lock_destroy(lm);
}

void RowPairedPipelined(const Options &o) {
  // Blocks of block_ms each: the raw pipeline with --inflight cycles in
  // flight, and one zkl client cycling --locks locks through the async API.
  Server server(o.servers);
  RawClient raw(server.connect(), o.limit_ms, ResolveDelay(o));
  std::string parent = RawParent(o);
  EnsurePersistent(raw.zh(), parent);
  ZklClient c(server.connect(), o.limit_ms);
  AsyncLocks loop(o, c, RunPath(o, "r"), o.locks);
  Pipeline p;
  p.zh = raw.zh();
  p.parent = parent;
  p.node_prefix = parent + "/r-";
  p.max_cycles = int64_t{1} << 40;
  int64_t block_ms = o.extra.count("block-ms") ? std::atoll(o.extra.at("block-ms").c_str()) : 500;
  auto raw_block = [&] {
    p.deadline_ns = NowNs() + block_ms * 1000000;
    p.Run(o.inflight);
    if (p.errors.load()) Die("raw pipelined: request errors");
    return p.WindowRate();
  };
  auto zkl_block = [&] {
    double window = loop.Run(block_ms, int64_t{1} << 40);
    return static_cast<double>(loop.cycles_in_window) / window;
  };
  raw_block();
  zkl_block();
  std::vector<double> ratios, raw_rates, zkl_rates;
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int rounds = 0;
  while (NowNs() < deadline || rounds < 2) {
    double r, z;
    if (rounds % 2 == 0) {
      r = raw_block();
      z = zkl_block();
    } else {
      z = zkl_block();
      r = raw_block();
    }
    raw_rates.push_back(r);
    zkl_rates.push_back(z);
    ratios.push_back(z / r);
    ++rounds;
  }
  Json j;
  j.Str("row", "paired_pipelined")
      .Int("rounds", rounds)
      .Int("block_ms", block_ms)
      .Int("inflight", o.inflight)
      .Int("locks", o.locks)
      .Num("raw_pipelined_ops_per_s", Median(raw_rates))
      .Num("async_many_locks_ops_per_s", Median(zkl_rates))
      .Num("async_many_locks_ratio", Median(ratios));
  j.Print();
}

}  // namespace bench
