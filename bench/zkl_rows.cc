// zkl rows: uncontended cycles (synchronous and asynchronous release),
// contention on one lock, many locks, and the other recipes.
#include <poll.h>
#include <sys/resource.h>

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
  if (rc < 0) Die(std::string(what) + ": " + zkl_strerror(rc));  // success: >= 0 (async: an id)
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
  int64_t settle_ms = o.extra.count("settle-ms") ? std::atoll(o.extra.at("settle-ms").c_str()) : 20;
  auto raw_once = [&]() { return RawDeleteNotifyNs(ra, rb, raw_node, settle_ms, o.limit_ms); };
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

// ---------------------------------------------------------------------------
// Interleaved variants (paired_cpu, multilock, uncontended_stats,
// uncontended_tls): blocks of `block` cycles of each variant in turn, the
// order rotated every round, so that load changes on the machine hit every
// variant alike. Figures are totals over all blocks; ratios are medians of
// the per-round ratios.
// ---------------------------------------------------------------------------

namespace {

struct Block {
  double cycles = 0, wall_ns = 0, cpu_ns = 0;
  double requests = 0;  // zkl requests, where counted
  // getrusage(RUSAGE_SELF) deltas: user and kernel CPU (not idle-corrected),
  // context switches (voluntary + involuntary, all threads).
  double user_ns = 0, sys_ns = 0, csw = 0;
};

struct Variant {
  std::string name;
  std::function<Block(int64_t)> run;  // runs n cycles
};

struct Interleaved {
  std::vector<std::vector<Block>> rounds;  // [round][variant]
  Block Total(size_t v) const {
    Block t;
    for (const auto &r : rounds) {
      t.cycles += r[v].cycles;
      t.wall_ns += r[v].wall_ns;
      t.cpu_ns += r[v].cpu_ns;
      t.requests += r[v].requests;
      t.user_ns += r[v].user_ns;
      t.sys_ns += r[v].sys_ns;
      t.csw += r[v].csw;
    }
    return t;
  }
  // Per cycle: user us, kernel us, context switches.
  double UserUs(size_t v) const { Block t = Total(v); return t.cycles > 0 ? t.user_ns / 1e3 / t.cycles : 0; }
  double SysUs(size_t v) const { Block t = Total(v); return t.cycles > 0 ? t.sys_ns / 1e3 / t.cycles : 0; }
  double Csw(size_t v) const { Block t = Total(v); return t.cycles > 0 ? t.csw / t.cycles : 0; }
  double WallUs(size_t v) const {
    Block t = Total(v);
    return t.cycles > 0 ? t.wall_ns / 1e3 / t.cycles : 0;
  }
  double CpuUs(size_t v) const {
    Block t = Total(v);
    return t.cycles > 0 ? t.cpu_ns / 1e3 / t.cycles : 0;
  }
  double OpsPerS(size_t v) const {
    Block t = Total(v);
    return t.wall_ns > 0 ? t.cycles * 1e9 / t.wall_ns : 0;
  }
  // Median over rounds of (a's per-cycle metric) / (b's).
  double CpuRatio(size_t a, size_t b) const {
    std::vector<double> r;
    for (const auto &x : rounds) {
      if (x[b].cpu_ns > 0) r.push_back((x[a].cpu_ns / x[a].cycles) / (x[b].cpu_ns / x[b].cycles));
    }
    return Median(r);
  }
  double WallRatio(size_t a, size_t b) const {
    std::vector<double> r;
    for (const auto &x : rounds) r.push_back((x[a].wall_ns / x[a].cycles) / (x[b].wall_ns / x[b].cycles));
    return Median(r);
  }
};

int64_t BlockCycles(const Options &o, int64_t dflt) {
  return o.extra.count("block") ? std::max<int64_t>(1, std::atoll(o.extra.at("block").c_str())) : dflt;
}

Interleaved RunInterleaved(const Options &o, std::vector<Variant> &vs, int64_t block,
                           int min_rounds = 3) {
  for (auto &v : vs) v.run(std::max<int64_t>(20, block / 2));  // warm every path
  Interleaved out;
  int64_t deadline = NowNs() + o.duration_ms * 1000000;
  int n = static_cast<int>(vs.size());
  while ((NowNs() < deadline || static_cast<int>(out.rounds.size()) < min_rounds) &&
         out.rounds.size() < 100000) {
    std::vector<Block> r(vs.size());
    int k0 = static_cast<int>(out.rounds.size());
    for (int k = 0; k < n; ++k) {
      size_t v = static_cast<size_t>((k + k0) % n);
      r[v] = vs[v].run(block);
    }
    out.rounds.push_back(std::move(r));
  }
  return out;
}

// n cycles of `cycle` in this process: wall and process CPU, less the idle
// rate of the process (its clients' threads when nothing happens).
struct Usage {
  double user_ns = 0, sys_ns = 0, csw = 0;
};

Usage SelfUsage() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  Usage u;
  u.user_ns = (static_cast<double>(ru.ru_utime.tv_sec) * 1e6 + static_cast<double>(ru.ru_utime.tv_usec)) * 1e3;
  u.sys_ns = (static_cast<double>(ru.ru_stime.tv_sec) * 1e6 + static_cast<double>(ru.ru_stime.tv_usec)) * 1e3;
  u.csw = static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw);
  return u;
}

Block LocalBlock(int64_t n, double idle_rate, const std::function<void()> &cycle,
                 ZklClient *counted = nullptr) {
  uint64_t req0 = counted ? counted->Counter("requests") : 0;
  Usage u0 = SelfUsage();
  int64_t c0 = ProcessCpuNs(), w0 = NowNs();
  for (int64_t i = 0; i < n; ++i) cycle();
  int64_t c1 = ProcessCpuNs(), w1 = NowNs();
  Usage u1 = SelfUsage();
  Block b;
  b.user_ns = u1.user_ns - u0.user_ns;
  b.sys_ns = u1.sys_ns - u0.sys_ns;
  b.csw = u1.csw - u0.csw;
  b.cycles = static_cast<double>(n);
  b.wall_ns = static_cast<double>(w1 - w0);
  b.cpu_ns = std::max(0.0, static_cast<double>(c1 - c0) - idle_rate * b.wall_ns);
  if (counted) b.requests = static_cast<double>(counted->Counter("requests") - req0);
  return b;
}

}  // namespace

void RowPairedCpu(const Options &o) {
  // Client CPU per uncontended fair-lock cycle (issue 13.5): zkl with its
  // I/O thread (the default), zkl host-driven (ZKL_IO_HOST: the blocking
  // calls drive the loop on the calling thread), the raw multi-threaded C
  // client (sync create + delete) and the raw single-threaded C client driven
  // from one poll loop (in the zkl-bench-raw-st helper process), in
  // interleaved blocks. Threads per client: this process's thread count
  // before and after making each client.
  Server server(o.servers);
  std::string parent = RawParent(o);
  int t0 = CountThreads();
  RawClient raw(server.connect(), o.limit_ms, ResolveDelay(o));
  int raw_mt_threads = CountThreads() - t0;
  EnsurePersistent(raw.zh(), parent);
  std::string raw_node = parent + "/c-";
  t0 = CountThreads();
  ZklClient c(server.connect(), o.limit_ms);
  int threads_per_client = CountThreads() - t0;
  t0 = CountThreads();
  ZklClient h(server.connect(), o.limit_ms, [](zkl_client_options &op) { op.io = ZKL_IO_HOST; });
  int threads_host = CountThreads() - t0;
  CoProcess st({SelfDir() + "/zkl-bench-raw-st", "--servers", server.connect(), "--node",
                parent + "-st/c-", "--limit-ms", std::to_string(o.limit_ms)});
  std::string ready = st.ReadLine();
  if (ready.rfind("ready ", 0) != 0) Die("raw st helper: " + ready);
  // The helper's threads: its main thread and what the client added.
  int raw_st_threads = std::atoi(ready.c_str() + 6) - 1;
  std::string path = RunPath(o, "pc");
  zkl_lock *l = NewLock(c.get(), path + "-t", ZKL_LOCK_FAIR);
  zkl_lock *lh = NewLock(h.get(), path + "-h", ZKL_LOCK_FAIR);
  CpuMeter idle;
  idle.CalibrateIdle(o.idle_ms);
  double rate = idle.idle_rate();
  std::vector<Variant> vs = {
      {"zkl", [&](int64_t n) {
         return LocalBlock(n, rate, [&] {
           Check(zkl_lock_acquire(l, kOwner, o.limit_ms), "acquire");
           Check(zkl_lock_release(l, kOwner), "release");
         });
       }},
      {"zkl_host", [&](int64_t n) {
         return LocalBlock(n, rate, [&] {
           Check(zkl_lock_acquire(lh, kOwner, o.limit_ms), "acquire (host-driven)");
           Check(zkl_lock_release(lh, kOwner), "release (host-driven)");
         });
       }},
      {"raw_mt", [&](int64_t n) {
         return LocalBlock(n, rate, [&] {
           if (!SyncCycle(raw.zh(), raw_node)) Die("raw mt cycle failed");
         });
       }},
      {"raw_st", [&](int64_t n) {
         std::string reply = st.Call(std::to_string(n));
         long long cpu = 0, wall = 0, user = 0, sys = 0, csw = 0;
         if (std::sscanf(reply.c_str(), "%lld %lld %lld %lld %lld", &cpu, &wall, &user, &sys, &csw) != 5) {
           Die("raw st helper: " + reply);
         }
         Block b;
         b.user_ns = static_cast<double>(user);
         b.sys_ns = static_cast<double>(sys);
         b.csw = static_cast<double>(csw);
         b.cycles = static_cast<double>(n);
         b.cpu_ns = static_cast<double>(cpu);
         b.wall_ns = static_cast<double>(wall);
         return b;
       }},
  };
  Interleaved r = RunInterleaved(o, vs, BlockCycles(o, 100));
  zkl_lock_destroy(l);
  zkl_lock_destroy(lh);
  Json j;
  j.Str("row", "paired_cpu")
      .Int("rounds", static_cast<int64_t>(r.rounds.size()))
      .Int("block", BlockCycles(o, 100))
      .Num("zkl_cpu_us_per_cycle", r.CpuUs(0))
      .Num("zkl_host_cpu_us_per_cycle", r.CpuUs(1))
      .Num("raw_mt_cpu_us_per_cycle", r.CpuUs(2))
      .Num("raw_st_cpu_us_per_cycle", r.CpuUs(3))
      .Num("zkl_vs_raw_st", r.CpuRatio(0, 3))
      .Num("zkl_vs_raw_mt", r.CpuRatio(0, 2))
      .Num("zkl_host_vs_raw_st", r.CpuRatio(1, 3))
      .Num("zkl_host_vs_raw_mt", r.CpuRatio(1, 2))
      .Num("zkl_ops_per_s", r.OpsPerS(0))
      .Num("zkl_host_ops_per_s", r.OpsPerS(1))
      .Num("raw_mt_ops_per_s", r.OpsPerS(2))
      .Num("raw_st_ops_per_s", r.OpsPerS(3))
      .Int("threads_per_client", threads_per_client)
      .Int("threads_host_driven", threads_host)
      .Int("raw_mt_threads_per_client", raw_mt_threads)
      .Int("raw_st_threads_per_client", raw_st_threads)
      .Num("idle_cpu_rate", rate);
  const char *names[] = {"zkl", "zkl_host", "raw_mt", "raw_st"};
  for (size_t v = 0; v < 4; ++v) {
    j.Num(std::string(names[v]) + "_user_us_per_cycle", r.UserUs(v))
        .Num(std::string(names[v]) + "_sys_us_per_cycle", r.SysUs(v))
        .Num(std::string(names[v]) + "_csw_per_cycle", r.Csw(v));
  }
  j.Print();
}

void RowMultilock(const Options &o) {
  // A multi-lock of 3 fair locks (issue 16.7), uncontended: acquire +
  // release of the whole, interleaved with 3 single fair-lock cycles (one
  // after the other, on 3 other paths) as its reference.
  Server server(o.servers);
  ZklClient c(server.connect(), o.limit_ms);
  std::string base = RunPath(o, "ml");
  zkl_lock *members[3];
  zkl_lock *singles[3];
  for (int i = 0; i < 3; ++i) {
    members[i] = NewLock(c.get(), base + "/m" + std::to_string(i), ZKL_LOCK_FAIR);
    singles[i] = NewLock(c.get(), base + "/s" + std::to_string(i), ZKL_LOCK_FAIR);
  }
  zkl_multilock_options mo;
  zkl_multilock_options_init(&mo, ZKL_MULTILOCK_OPTIONS_VERSION);
  zkl_multilock *m = nullptr;
  Check(zkl_multilock_new(c.get(), members, 3, &mo, &m), "zkl_multilock_new");
  CpuMeter idle;
  idle.CalibrateIdle(o.idle_ms);
  double rate = idle.idle_rate();
  Samples multi_lat;
  // Where the time goes: acquire and release summed apart, per variant.
  double acq_ns[2] = {}, rel_ns[2] = {};
  std::vector<Variant> vs = {
      {"multilock", [&](int64_t n) {
         return LocalBlock(
             n, rate,
             [&] {
               int64_t t = NowNs();
               Check(zkl_multilock_acquire(m, kOwner, o.limit_ms), "multilock acquire");
               int64_t t1 = NowNs();
               Check(zkl_multilock_release(m, kOwner), "multilock release");
               int64_t t2 = NowNs();
               multi_lat.Add(t2 - t);
               acq_ns[0] += static_cast<double>(t1 - t);
               rel_ns[0] += static_cast<double>(t2 - t1);
             },
             &c);
       }},
      {"three_single", [&](int64_t n) {
         return LocalBlock(
             n, rate,
             [&] {
               for (zkl_lock *s : singles) {
                 int64_t t = NowNs();
                 Check(zkl_lock_acquire(s, kOwner, o.limit_ms), "acquire");
                 int64_t t1 = NowNs();
                 Check(zkl_lock_release(s, kOwner), "release");
                 acq_ns[1] += static_cast<double>(t1 - t);
                 rel_ns[1] += static_cast<double>(NowNs() - t1);
               }
             },
             &c);
       }},
  };
  Interleaved r = RunInterleaved(o, vs, BlockCycles(o, 50));
  zkl_multilock_destroy(m);
  for (zkl_lock *s : singles) zkl_lock_destroy(s);
  Block tm = r.Total(0), ts = r.Total(1);
  // The split includes RunInterleaved's warm-up cycles (as many per variant).
  double warm = static_cast<double>(std::max<int64_t>(20, BlockCycles(o, 50) / 2));
  double nm = tm.cycles + warm, ns = ts.cycles + warm;
  Json j;
  j.Str("row", "multilock")
      .Int("members", 3)
      .Int("rounds", static_cast<int64_t>(r.rounds.size()))
      .Num("ops", tm.cycles)
      .Num("ops_per_s", r.OpsPerS(0))
      .Num("p50_us", multi_lat.PercentileUs(50))
      .Num("p99_us", multi_lat.PercentileUs(99))
      .Num("cycle_us", r.WallUs(0))
      .Num("three_single_cycle_us", r.WallUs(1))
      .Num("single_cycle_us", r.WallUs(1) / 3)
      .Num("ratio_to_three_single", r.WallRatio(0, 1))
      .Num("acquire_us", acq_ns[0] / 1e3 / nm)
      .Num("release_us", rel_ns[0] / 1e3 / nm)
      .Num("three_single_acquire_us", acq_ns[1] / 1e3 / ns)
      .Num("three_single_release_us", rel_ns[1] / 1e3 / ns)
      .Num("cpu_us_per_op", r.CpuUs(0))
      .Num("three_single_cpu_us", r.CpuUs(1))
      .Num("zkl_req_per_op", tm.requests / tm.cycles)
      .Num("three_single_req", ts.requests / ts.cycles);
  j.Print();
}

void RowUncontendedStats(const Options &o) {
  // The uncontended fair cycle with statistics on (issue 17.2): a client
  // with stats_interval_ms (STATS events, delivered by dispatch to a
  // callback) whose statistics document is also read every --stats-every
  // cycles, interleaved with the same cycle on a plain client.
  Server server(o.servers);
  int interval = o.extra.count("stats-interval-ms") ? std::atoi(o.extra.at("stats-interval-ms").c_str()) : 100;
  int64_t every = o.extra.count("stats-every") ? std::max<int64_t>(1, std::atoll(o.extra.at("stats-every").c_str())) : 100;
  ZklClient plain(server.connect(), o.limit_ms);
  std::atomic<int64_t> stats_events{0};
  auto on_stats = [](const zkl_event *ev, void *ud) {
    if (zkl_event_type(ev) == ZKL_EVENT_STATS) static_cast<std::atomic<int64_t> *>(ud)->fetch_add(1);
  };
  ZklClient withstats(server.connect(), o.limit_ms, [&](zkl_client_options &op) {
    op.stats_interval_ms = interval;
    op.cb = on_stats;
    op.user_data = &stats_events;
  });
  std::string path = RunPath(o, "us");
  zkl_lock *lp = NewLock(plain.get(), path + "-p", ZKL_LOCK_FAIR);
  zkl_lock *ls = NewLock(withstats.get(), path + "-s", ZKL_LOCK_FAIR);
  CpuMeter idle;
  idle.CalibrateIdle(o.idle_ms);
  double rate = idle.idle_rate();
  int64_t n_plain = 0, n_stats = 0, reads = 0;
  size_t doc_bytes = 0;
  std::vector<Variant> vs = {
      {"plain", [&](int64_t n) {
         return LocalBlock(n, rate, [&] {
           Check(zkl_lock_acquire(lp, kOwner, o.limit_ms), "acquire");
           Check(zkl_lock_release(lp, kOwner), "release");
           if (++n_plain % every == 0) zkl_client_dispatch(plain.get(), 0);
         });
       }},
      {"stats", [&](int64_t n) {
         return LocalBlock(n, rate, [&] {
           Check(zkl_lock_acquire(ls, kOwner, o.limit_ms), "acquire");
           Check(zkl_lock_release(ls, kOwner), "release");
           if (++n_stats % every == 0) {
             char *json = nullptr;
             size_t len = 0;
             Check(zkl_client_stats(withstats.get(), &json, &len), "zkl_client_stats");
             doc_bytes = len;
             zkl_free(json);
             ++reads;
             zkl_client_dispatch(withstats.get(), 0);  // the STATS events
           }
         });
       }},
  };
  Interleaved r = RunInterleaved(o, vs, BlockCycles(o, 100));
  zkl_client_dispatch(withstats.get(), 0);
  zkl_lock_destroy(lp);
  zkl_lock_destroy(ls);
  double ratio = r.WallRatio(1, 0);  // time per cycle, stats / plain
  Json j;
  j.Str("row", "uncontended_stats")
      .Str("kind", "fair")
      .Int("rounds", static_cast<int64_t>(r.rounds.size()))
      .Int("stats_interval_ms", interval)
      .Int("stats_read_every", every)
      .Num("ops", r.Total(1).cycles)
      .Num("ops_per_s", r.OpsPerS(1))
      .Num("plain_ops_per_s", r.OpsPerS(0))
      .Num("cycle_us", r.WallUs(1))
      .Num("plain_cycle_us", r.WallUs(0))
      .Num("time_ratio", ratio)
      .Num("overhead_pct", (ratio - 1) * 100)
      .Num("cpu_us_per_op", r.CpuUs(1))
      .Num("plain_cpu_us_per_op", r.CpuUs(0))
      .Num("cpu_ratio", r.CpuRatio(1, 0))
      .Int("stats_events", stats_events.load())
      .Int("stats_reads", reads)
      .Int("stats_doc_bytes", static_cast<int64_t>(doc_bytes));
  j.Print();
}

void RowUncontendedTls(const Options &o) {
  // The cost of TLS (issue 15.6): on one server with a plaintext and a TLS
  // port (--servers and --tls-servers; certificates of scripts/test-certs
  // in --tls-dir, mutual TLS), the raw mt sync cycle and the zkl
  // uncontended cycle, each over both, interleaved. Prints two rows: raw_tls
  // (the raw client over TLS vs plaintext) and uncontended_tls (zkl's ratio
  // to raw over TLS vs the same ratio in plaintext).
  if (!o.extra.count("tls-servers") || !o.extra.count("tls-dir")) {
    Die("uncontended_tls needs --tls-servers 127.0.0.1:PORT and --tls-dir DIR");
  }
  Server server(o.servers);
  Server tls_server(o.extra.at("tls-servers"));
  std::string dir = o.extra.at("tls-dir");
  std::string ca = dir + "/ca.pem", cert = dir + "/client.crt", key = dir + "/client.key";
  zoo_tls_params_t tp{};
  tp.ca_file = ca.c_str();
  tp.cert_file = cert.c_str();
  tp.key_file = key.c_str();
  tp.verify_hostname = 1;
  RawClient raw(server.connect(), o.limit_ms, ResolveDelay(o));
  RawClient raw_tls(tls_server.connect(), o.limit_ms, ResolveDelay(o), &tp);
  std::string parent = RawParent(o);
  EnsurePersistent(raw.zh(), parent);
  std::string raw_node = parent + "/t-";
  ZklClient c(server.connect(), o.limit_ms);
  ZklClient ct(tls_server.connect(), o.limit_ms, [&](zkl_client_options &op) {
    op.tls_ca_file = ca.c_str();
    op.tls_cert_file = cert.c_str();
    op.tls_key_file = key.c_str();
  });
  std::string path = RunPath(o, "ut");
  zkl_lock *l = NewLock(c.get(), path + "-p", ZKL_LOCK_FAIR);
  zkl_lock *lt = NewLock(ct.get(), path + "-t", ZKL_LOCK_FAIR);
  CpuMeter idle;
  idle.CalibrateIdle(o.idle_ms);
  double rate = idle.idle_rate();
  Samples zkl_tls_lat, raw_tls_lat;
  auto zkl_cycle = [&](zkl_lock *lock, Samples *lat) {
    return [&o, lock, lat] {
      int64_t t = NowNs();
      Check(zkl_lock_acquire(lock, kOwner, o.limit_ms), "acquire");
      Check(zkl_lock_release(lock, kOwner), "release");
      if (lat) lat->Add(NowNs() - t);
    };
  };
  auto raw_cycle = [&](zhandle_t *zh, Samples *lat) {
    return [zh, lat, &raw_node] {
      int64_t t = NowNs();
      if (!SyncCycle(zh, raw_node)) Die("raw cycle failed");
      if (lat) lat->Add(NowNs() - t);
    };
  };
  std::vector<Variant> vs = {
      {"raw", [&](int64_t n) { return LocalBlock(n, rate, raw_cycle(raw.zh(), nullptr)); }},
      {"raw_tls", [&](int64_t n) { return LocalBlock(n, rate, raw_cycle(raw_tls.zh(), &raw_tls_lat)); }},
      {"zkl", [&](int64_t n) { return LocalBlock(n, rate, zkl_cycle(l, nullptr)); }},
      {"zkl_tls", [&](int64_t n) { return LocalBlock(n, rate, zkl_cycle(lt, &zkl_tls_lat)); }},
  };
  Interleaved r = RunInterleaved(o, vs, BlockCycles(o, 100));
  zkl_lock_destroy(l);
  zkl_lock_destroy(lt);
  // Ratios of throughput (the inverse of the time per cycle), per round.
  std::vector<double> plain_ratio, tls_ratio, raw_cost, zkl_cost;
  for (const auto &x : r.rounds) {
    auto per = [](const Block &b) { return b.wall_ns / b.cycles; };
    plain_ratio.push_back(per(x[0]) / per(x[2]));
    tls_ratio.push_back(per(x[1]) / per(x[3]));
    raw_cost.push_back(per(x[0]) / per(x[1]));
    zkl_cost.push_back(per(x[2]) / per(x[3]));
  }
  double pr = Median(plain_ratio), tr = Median(tls_ratio);
  Json jr;
  jr.Str("row", "raw_tls")
      .Num("ops", r.Total(1).cycles)
      .Num("ops_per_s", r.OpsPerS(1))
      .Num("p50_us", raw_tls_lat.PercentileUs(50))
      .Num("p99_us", raw_tls_lat.PercentileUs(99))
      .Num("cpu_us_per_op", r.CpuUs(1))
      .Num("plain_ops_per_s", r.OpsPerS(0))
      .Num("plain_cpu_us_per_op", r.CpuUs(0))
      .Num("tls_vs_plain", Median(raw_cost));
  jr.Print();
  Json j;
  j.Str("row", "uncontended_tls")
      .Str("kind", "fair")
      .Int("rounds", static_cast<int64_t>(r.rounds.size()))
      .Num("ops", r.Total(3).cycles)
      .Num("ops_per_s", r.OpsPerS(3))
      .Num("p50_us", zkl_tls_lat.PercentileUs(50))
      .Num("p99_us", zkl_tls_lat.PercentileUs(99))
      .Num("cpu_us_per_op", r.CpuUs(3))
      .Num("plain_ops_per_s", r.OpsPerS(2))
      .Num("plain_cpu_us_per_op", r.CpuUs(2))
      .Num("tls_vs_plain", Median(zkl_cost))
      .Num("raw_tls_ops_per_s", r.OpsPerS(1))
      .Num("raw_plain_ops_per_s", r.OpsPerS(0))
      .Num("ratio_to_raw_tls", tr)
      .Num("ratio_to_raw_plain", pr)
      .Num("ratio_change", tr / pr);
  j.Print();
}

}  // namespace bench
