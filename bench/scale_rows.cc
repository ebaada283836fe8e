// Scale rows: a herd of waiters on one lock, many distinct locks held by one
// client, and the memory of idle handles.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rows.h"
#include "zkl_client.h"

namespace bench {

namespace {

constexpr uint64_t kOwner = 1;

void Check(int rc, const char *what) {
  if (rc < 0) Die(std::string(what) + ": " + zkl_strerror(rc));  // success: >= 0 (async: an id)
}

// Waits (bounded) until pred() holds; false on timeout.
template <typename Pred>
bool WaitUntil(int64_t limit_ms, Pred pred, int64_t step_ms = 1) {
  int64_t deadline = NowNs() + limit_ms * 1000000;
  while (!pred()) {
    if (NowNs() >= deadline) return false;
    SleepMs(step_ms);
  }
  return true;
}

// ---- herd -----------------------------------------------------------------

struct Herd {
  std::atomic<int64_t> acquired{0}, failed{0}, released{0};
  std::atomic<int64_t> last_release{0};
  std::atomic<bool> draining{false};
  std::mutex mu;
  Samples handoff;
  struct Slot {
    Herd *herd;
    zkl_lock *lock = nullptr;
  };
  // --hold-ms > 0: a holder releases after holding this long (the
  // releaser thread), not at once; due releases in grant order.
  int64_t hold_ns = 0;
  std::deque<std::pair<int64_t, Slot *>> due;  // guarded by mu
  std::condition_variable due_cv;
};

void HerdEvent(const zkl_event *ev, void *ud) {
  auto *s = static_cast<Herd::Slot *>(ud);
  Herd *h = s->herd;
  switch (zkl_event_type(ev)) {
    case ZKL_EVENT_ACQUIRED: {
      int64_t now = NowNs();
      {
        std::lock_guard<std::mutex> lk(h->mu);
        h->handoff.Add(now - h->last_release.load());
      }
      h->acquired.fetch_add(1);
      if (h->hold_ns > 0) {
        std::lock_guard<std::mutex> lk(h->mu);
        h->due.emplace_back(NowNs() + h->hold_ns, s);
        h->due_cv.notify_one();
        break;
      }
      h->last_release.store(NowNs());
      Check(zkl_lock_release_async(s->lock, kOwner), "release_async");
      break;
    }
    case ZKL_EVENT_RELEASED:
      h->released.fetch_add(1);
      break;
    case ZKL_EVENT_ACQUIRE_FAILED:
      h->failed.fetch_add(1);
      break;
    default:
      break;
  }
}

}  // namespace

void RowHerd(const Options &o) {
  // `waiters` handles queue behind one holder (spread over clients of
  // `handles_per_client` handles: one session each); then the holder
  // releases and every waiter, once it holds, releases at once.
  Server server(o.servers);
  int waiters = o.waiters;
  int per = std::min(o.handles_per_client, waiters);
  int nclients = (waiters + per - 1) / per;
  std::string path = RunPath(o, "h");
  // --kind semaphore (the herd_semaphore row): a semaphore of --leases
  // leases; the holder takes all of them in one acquisition, every waiter
  // one. Otherwise the fair lock.
  bool sem = o.extra.count("kind") && o.extra.at("kind") == "semaphore";
  int kind = sem ? ZKL_LOCK_SEMAPHORE : ZKL_LOCK_FAIR;
  int max_leases = sem && o.extra.count("leases") ? std::max(1, std::atoi(o.extra.at("leases").c_str())) : 2;
  ZklClient holder(server.connect(), o.limit_ms);
  zkl_lock *hl = NewLock(holder.get(), path, kind, max_leases, nullptr, nullptr, sem ? max_leases : 1);
  Check(zkl_lock_acquire(hl, kOwner, o.limit_ms), "holder acquire");

  std::vector<std::unique_ptr<ZklClient>> owned;
  std::vector<ZklClient *> clients;
  for (int i = 0; i < nclients; ++i) {
    owned.push_back(std::make_unique<ZklClient>(server.connect(), o.limit_ms));
    clients.push_back(owned.back().get());
  }
  TrimHeap();
  int64_t rss0 = RssBytes(), heap0 = HeapInUseBytes();
  Herd herd;
  if (o.extra.count("hold-ms")) herd.hold_ns = std::atoll(o.extra.at("hold-ms").c_str()) * 1000000;
  std::atomic<bool> stop_releaser{false};
  std::thread releaser([&] {
    std::unique_lock<std::mutex> lk(herd.mu);
    while (!stop_releaser.load()) {
      if (herd.due.empty()) {
        herd.due_cv.wait_for(lk, std::chrono::milliseconds(50));
        continue;
      }
      int64_t wait = herd.due.front().first - NowNs();
      if (wait > 0) {
        herd.due_cv.wait_for(lk, std::chrono::nanoseconds(wait));
        continue;
      }
      Herd::Slot *s = herd.due.front().second;
      herd.due.pop_front();
      lk.unlock();
      herd.last_release.store(NowNs());
      Check(zkl_lock_release_async(s->lock, kOwner), "release_async");
      lk.lock();
    }
  });
  std::vector<std::unique_ptr<Herd::Slot>> slots;
  for (int i = 0; i < waiters; ++i) {
    auto s = std::make_unique<Herd::Slot>();
    s->herd = &herd;
    s->lock = NewLock(clients[static_cast<size_t>(i / per)]->get(), path, kind, max_leases,
                      &HerdEvent, s.get());
    slots.push_back(std::move(s));
  }
  for (ZklClient *c : clients) c->StartDispatch();

  // Enqueue: every waiter creates its node, reads the children and watches
  // its predecessor (a semaphore waiter behind a node of its own client
  // watches it locally: no watch on the server). Done when the server holds
  // one node per waiter and every request has its answer (each answer's
  // follow-up is sent before the answer counts as handled).
  std::vector<ZklClient *> all = clients;
  all.push_back(&holder);
  uint64_t req0 = SumCounter(all, "requests");
  double nodes0 = server.Monitor()["zk_znode_count"];
  ServerProbe enq_probe(server);
  enq_probe.Start();
  int64_t t0 = NowNs();
  for (auto &s : slots) {
    Check(zkl_lock_acquire_async(s->lock, kOwner, o.limit_ms * 2), "acquire_async");
  }
  double nodes = 0;
  bool queued = WaitUntil(
      o.limit_ms,
      [&] {
        nodes = server.Monitor()["zk_znode_count"] - nodes0;
        return nodes >= waiters && SumCounter(all, "requests") == SumCounter(all, "count", "rtt_us");
      },
      50);
  int64_t enqueue_ns = NowNs() - t0;
  if (!queued) Die("herd: waiters not queued in time (nodes: " + std::to_string(nodes) + ")");
  double watch_count = server.Monitor()["zk_watch_count"];
  SleepMs(200);  // the last getData replies land
  ServerDelta enq = enq_probe.Stop();
  uint64_t enq_requests = SumCounter(all, "requests") - req0;
  TrimHeap();
  int64_t rss1 = RssBytes(), heap1 = HeapInUseBytes();

  // Drain.
  uint64_t watch0 = SumCounter(all, "watch_events");
  uint64_t req1 = SumCounter(all, "requests");
  ServerProbe probe(server);
  probe.Start();
  CpuMeter cpu;
  cpu.Start();
  herd.last_release.store(NowNs());
  Check(zkl_lock_release(hl, kOwner), "holder release");
  bool drained = WaitUntil(o.limit_ms * 2, [&] {
    return herd.acquired.load() + herd.failed.load() >= waiters;
  });
  cpu.Stop();
  if (!drained || herd.failed.load()) {
    Die("herd: drain incomplete (acquired " + std::to_string(herd.acquired.load()) + ", failed " +
        std::to_string(herd.failed.load()) + ")");
  }
  uint64_t watches = SumCounter(all, "watch_events") - watch0;
  uint64_t requests = SumCounter(all, "requests") - req1;
  WaitUntil(o.limit_ms, [&] { return herd.released.load() >= waiters; });
  ServerDelta srv = probe.Stop();
  stop_releaser = true;
  herd.due_cv.notify_one();
  releaser.join();
  for (ZklClient *c : clients) c->StopDispatch();

  double w = waiters;
  Json j;
  j.Str("row", o.extra.count("row") ? o.extra.at("row") : "herd")
      .Int("waiters", waiters)
      .Int("clients", nclients);
  if (sem) j.Int("max_leases", max_leases);
  if (herd.hold_ns > 0) j.Int("hold_ms", herd.hold_ns / 1000000);
  j.Num("enqueue_s", static_cast<double>(enqueue_ns) / 1e9)
      .Num("enqueue_us_per_waiter", static_cast<double>(enqueue_ns) / 1e3 / w)
      .Num("enqueue_req_per_waiter", static_cast<double>(enq_requests) / w)
      .Num("enqueue_srv_req_per_waiter", enq.packets / w)
      .Num("server_watches", watch_count)
      .Num("drain_s", cpu.seconds())
      .Num("ops_per_s", w / cpu.seconds())
      .Num("handoff_p50_us", herd.handoff.PercentileUs(50))
      .Num("handoff_p99_us", herd.handoff.PercentileUs(99))
      .Num("watch_events_per_release", static_cast<double>(watches) / w)
      .Num("zkl_req_per_op", static_cast<double>(requests) / w)
      .Num("srv_req_per_op", srv.packets / w)
      .Num("srv_reads_per_op", srv.reads / w)
      .Num("cpu_us_per_op", cpu.UsPerOp(w))
      .Num("rss_bytes_per_waiter", static_cast<double>(rss1 - rss0) / w)
      .Num("heap_bytes_per_waiter", static_cast<double>(heap1 - heap0) / w)
      .Int("rss_mib", RssBytes() >> 20);
  j.Print();
  for (auto &s : slots) zkl_lock_destroy(s->lock);
  zkl_lock_destroy(hl);
}

// ---------------------------------------------------------------------------

namespace {

struct Many {
  std::atomic<int64_t> acquired{0}, released{0}, failed{0};
};

void ManyEvent(const zkl_event *ev, void *ud) {
  auto *m = static_cast<Many *>(ud);
  switch (zkl_event_type(ev)) {
    case ZKL_EVENT_ACQUIRED: m->acquired.fetch_add(1); break;
    case ZKL_EVENT_RELEASED: m->released.fetch_add(1); break;
    case ZKL_EVENT_ACQUIRE_FAILED: m->failed.fetch_add(1); break;
    default: break;
  }
}

}  // namespace

void RowDistinctLocks(const Options &o) {
  // One client acquires `locks` distinct locks at once (async), holds them
  // all, runs cycles on one more lock meanwhile, and releases them.
  Server server(o.servers);
  int n = o.locks;
  ZklClient c(server.connect(), o.limit_ms);
  std::string base = RunPath(o, "d");
  Many many;
  c.StartDispatch();  // before the baseline: the benchmark's own thread
  TrimHeap();
  int64_t rss0 = RssBytes(), heap0 = HeapInUseBytes();
  int threads0 = CountThreads(), fds0 = CountFds();
  std::vector<zkl_lock *> locks;
  locks.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    locks.push_back(NewLock(c.get(), base + "/lock-" + std::to_string(i), ZKL_LOCK_FAIR, 2,
                            &ManyEvent, &many));
  }
  ServerProbe probe(server);
  probe.Start();
  uint64_t req0 = c.Counter("requests");
  int64_t t0 = NowNs();
  for (zkl_lock *l : locks) Check(zkl_lock_acquire_async(l, kOwner, o.limit_ms), "acquire_async");
  if (!WaitUntil(o.limit_ms, [&] { return many.acquired.load() + many.failed.load() >= n; }) ||
      many.failed.load()) {
    Die("distinct locks: acquisitions incomplete");
  }
  int64_t acquire_ns = NowNs() - t0;
  ServerDelta srv = probe.Stop();
  uint64_t requests = c.Counter("requests") - req0;
  TrimHeap();
  int64_t rss1 = RssBytes(), heap1 = HeapInUseBytes();
  int threads1 = CountThreads(), fds1 = CountFds();

  // Cycles on one more lock while all are held: does holding many slow the
  // client down?
  zkl_lock *extra = NewLock(c.get(), base + "/extra", ZKL_LOCK_FAIR);
  for (int i = 0; i < 20; ++i) {
    Check(zkl_lock_acquire(extra, kOwner, o.limit_ms), "acquire");
    Check(zkl_lock_release(extra, kOwner), "release");
  }
  Samples lat;
  int64_t cycles = 0;
  int64_t deadline = NowNs() + std::min<int64_t>(o.duration_ms, 2000) * 1000000;
  while (NowNs() < deadline && cycles < o.max_ops) {
    int64_t t = NowNs();
    Check(zkl_lock_acquire(extra, kOwner, o.limit_ms), "acquire");
    Check(zkl_lock_release(extra, kOwner), "release");
    lat.Add(NowNs() - t);
    ++cycles;
  }
  zkl_lock_destroy(extra);

  int64_t t1 = NowNs();
  for (zkl_lock *l : locks) Check(zkl_lock_release_async(l, kOwner), "release_async");
  if (!WaitUntil(o.limit_ms, [&] { return many.released.load() >= n; })) {
    Die("distinct locks: releases incomplete");
  }
  int64_t release_ns = NowNs() - t1;
  c.StopDispatch();
  double dn = n;
  Json j;
  j.Str("row", "distinct_locks")
      .Int("locks", n)
      .Num("acquire_s", static_cast<double>(acquire_ns) / 1e9)
      .Num("acquire_us_per_lock", static_cast<double>(acquire_ns) / 1e3 / dn)
      .Num("ops_per_s", dn / (static_cast<double>(acquire_ns) / 1e9))
      .Num("release_us_per_lock", static_cast<double>(release_ns) / 1e3 / dn)
      .Num("zkl_req_per_op", static_cast<double>(requests) / dn)
      .Num("srv_req_per_op", srv.packets / dn)
      .Num("rss_mib_holding", static_cast<double>(rss1) / (1 << 20))
      .Num("rss_bytes_per_held_lock", static_cast<double>(rss1 - rss0) / dn)
      .Num("heap_bytes_per_held_lock", static_cast<double>(heap1 - heap0) / dn)
      .Int("threads_added", threads1 - threads0)
      .Int("fds_added", fds1 - fds0)
      .Num("cycle_p50_us_while_holding", lat.PercentileUs(50))
      .Num("cycle_p99_us_while_holding", lat.PercentileUs(99));
  j.Print();
  for (zkl_lock *l : locks) zkl_lock_destroy(l);
}

void RowIdleHandles(const Options &o) {
  Server server(o.servers);
  int n = o.handles;
  ZklClient c(server.connect(), o.limit_ms);
  std::string base = RunPath(o, "i");
  std::vector<std::string> paths;
  paths.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) paths.push_back(base + "/lock-" + std::to_string(i));
  std::vector<zkl_lock *> locks;
  locks.reserve(static_cast<size_t>(n));
  TrimHeap();
  int64_t rss0 = RssBytes(), heap0 = HeapInUseBytes();
  int threads0 = CountThreads(), fds0 = CountFds();
  int64_t t0 = NowNs();
  for (int i = 0; i < n; ++i) locks.push_back(NewLock(c.get(), paths[static_cast<size_t>(i)], ZKL_LOCK_FAIR));
  int64_t create_ns = NowNs() - t0;
  TrimHeap();
  int64_t rss1 = RssBytes(), heap1 = HeapInUseBytes();
  int threads1 = CountThreads(), fds1 = CountFds();
  t0 = NowNs();
  for (zkl_lock *l : locks) zkl_lock_destroy(l);
  int64_t destroy_ns = NowNs() - t0;
  TrimHeap();
  int64_t heap2 = HeapInUseBytes();
  // A second round: what stays after the first destroy is reused capacity
  // (hash tables do not shrink), not a leak, if this round adds nothing.
  locks.clear();
  for (int i = 0; i < n; ++i) locks.push_back(NewLock(c.get(), paths[static_cast<size_t>(i)], ZKL_LOCK_FAIR));
  for (zkl_lock *l : locks) zkl_lock_destroy(l);
  TrimHeap();
  int64_t heap3 = HeapInUseBytes();
  double dn = n;
  Json j;
  j.Str("row", "idle_handles")
      .Int("handles", n)
      .Num("rss_bytes_per_handle", static_cast<double>(rss1 - rss0) / dn)
      .Num("heap_bytes_per_handle", static_cast<double>(heap1 - heap0) / dn)
      .Num("heap_bytes_left_per_handle_after_destroy", static_cast<double>(heap2 - heap0) / dn)
      .Num("heap_bytes_added_by_second_round_per_handle", static_cast<double>(heap3 - heap2) / dn)
      .Num("new_us_per_handle", static_cast<double>(create_ns) / 1e3 / dn)
      .Num("destroy_us_per_handle", static_cast<double>(destroy_ns) / 1e3 / dn)
      .Int("threads_added", threads1 - threads0)
      .Int("fds_added", fds1 - fds0);
  j.Print();
}

}  // namespace bench
