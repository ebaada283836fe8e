// The bare ZooKeeper C client pieces of the raw-limit rows, shared with the
// paired rows: a connected handle, the synchronous cycle, and a pipeline of
// cycles in flight.
#pragma once

#include <zookeeper.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench_util.h"

namespace bench {

class RawClient {
 public:
  // resolve_delay_ms: zoo_set_servers_resolution_delay (0 = the C client's
  // default: re-resolve the host list on every I/O loop iteration).
  // tls: connect over TLS (the patched client's zookeeper_init_secure).
  RawClient(const std::string &connect, int64_t limit_ms, int resolve_delay_ms = 0,
            const zoo_tls_params_t *tls = nullptr) {
    static std::once_flag quiet;
    std::call_once(quiet, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
    zh_ = tls ? zookeeper_init_secure(connect.c_str(), &RawClient::Watcher, 30000, nullptr, this, 0,
                                      nullptr, tls, nullptr)
              : zookeeper_init(connect.c_str(), &RawClient::Watcher, 30000, nullptr, this, 0);
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

inline void EnsurePersistent(zhandle_t *zh, const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string p = slash == std::string::npos ? path : path.substr(0, slash);
    int rc = zoo_create(zh, p.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) Die("create " + p + ": " + zerror(rc));
    if (slash == std::string::npos) break;
  }
}

// One synchronous cycle; returns false on error.
inline bool SyncCycle(zhandle_t *zh, const std::string &node_prefix) {
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
  std::atomic<int64_t> window_cycles{0};  // completed before the deadline
  int64_t start_ns = 0;
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

  // Cycles per second completed inside the window (start .. deadline).
  double WindowRate() const {
    int64_t end = std::min(deadline_ns, NowNs());
    return end > start_ns ? static_cast<double>(window_cycles.load()) * 1e9 /
                                static_cast<double>(end - start_ns)
                          : 0;
  }

  // Runs until the deadline (or max_cycles), then drains. May be run again.
  void Run(int width) {
    started = 0;
    cycles = 0;
    window_cycles = 0;
    errors = 0;
    slots.clear();
    for (int i = 0; i < width; ++i) {
      auto s = std::make_unique<Slot>();
      s->p = this;
      slots.push_back(std::move(s));
    }
    start_ns = NowNs();
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
    int64_t now = NowNs();
    p->lat.Add(now - s->t0);
    p->cycles.fetch_add(1);
    if (now < p->deadline_ns) p->window_cycles.fetch_add(1);
    p->Next(s);
  }
};

// ---- the coalesced loop -----------------------------------------------------

// One acquire/release loop step at its best: the delete of the previous node
// and the create of the next in one multi (one transaction: one log sync),
// pipelined with the getChildren — one round trip and one commit per cycle.
// A reference for what a release coalesced with the next acquire could do.
class MultiCycler {
 public:
  // read_children false: the multi alone (a client that knows it is alone
  // from the sequence number: the previous one + 1 means no other create
  // came between, and the delete in the same transaction kept the parent).
  MultiCycler(zhandle_t *zh, std::string parent, std::string prefix, bool read_children = true)
      : zh_(zh), parent_(std::move(parent)), prefix_(std::move(prefix)), read_(read_children) {}
  ~MultiCycler() { Finish(); }

  bool Cycle() {
    zoo_op_t ops[2];
    zoo_op_result_t results[2];
    char created[512];
    int n = 0;
    if (!prev_.empty()) zoo_delete_op_init(&ops[n++], prev_.c_str(), -1);
    zoo_create_op_init(&ops[n++], prefix_.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                       ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created);
    {
      std::lock_guard<std::mutex> lk(mu_);
      pending_ = read_ ? 2 : 1;
      multi_rc_ = ZSYSTEMERROR;
      children_rc_ = read_ ? ZSYSTEMERROR : ZOK;
    }
    if (zoo_amulti(zh_, n, ops, results, &MultiCycler::MultiDone, this) != ZOK) return false;
    if (read_ && zoo_aget_children(zh_, parent_.c_str(), 0, &MultiCycler::ChildrenDone, this) != ZOK) {
      Wait(1);
      return false;
    }
    Wait(0);
    if (multi_rc_ != ZOK || children_rc_ != ZOK) return false;
    prev_ = created;
    return true;
  }

  void Finish() {
    if (!prev_.empty()) zoo_delete(zh_, prev_.c_str(), -1);
    prev_.clear();
  }

 private:
  void Wait(int until) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return pending_ <= until; });
  }
  void Done(int *slot, int rc) {
    std::lock_guard<std::mutex> lk(mu_);
    *slot = rc;
    --pending_;
    cv_.notify_all();
  }
  static void MultiDone(int rc, const void *data) {
    auto *self = static_cast<MultiCycler *>(const_cast<void *>(data));
    self->Done(&self->multi_rc_, rc);
  }
  static void ChildrenDone(int rc, const struct String_vector *, const void *data) {
    auto *self = static_cast<MultiCycler *>(const_cast<void *>(data));
    self->Done(&self->children_rc_, rc);
  }

  zhandle_t *zh_;
  std::string parent_, prefix_, prev_;
  bool read_ = true;
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_ = 0;
  int multi_rc_ = ZOK, children_rc_ = ZOK;
};

inline std::string RawParent(const Options &o) { return o.prefix + "/raw"; }

// The raw client's zoo_set_servers_resolution_delay: -1 (no host
// re-resolution while connected) unless --resolve-delay-ms says otherwise.
// By default the C client resolves the host list again on every I/O loop
// iteration (getaddrinfo, a netlink socket, srand): that costs more client
// CPU than the requests themselves and, pipelined, caps the client below the
// server's ceiling. The raw limits are the server's, so the raw rows turn it
// off; `--resolve-delay-ms 0` measures the C client's defaults.
inline int ResolveDelay(const Options &o) {
  auto it = o.extra.find("resolve-delay-ms");
  return it == o.extra.end() ? -1 : std::atoi(it->second.c_str());
}

// The raw handoff: `deleter` creates an ephemeral sequential node named
// `node`, `watcher` watches it, and (after settle_ms) `deleter` deletes it.
// Returns the nanoseconds from the delete call to the watch notification.
inline int64_t RawDeleteNotifyNs(RawClient &deleter, RawClient &watcher, const std::string &node,
                                 int64_t settle_ms, int64_t limit_ms) {
  struct Watch {
    std::mutex mu;
    std::condition_variable cv;
    int64_t fired_ns = 0;
  } w;
  auto on_event = [](zhandle_t *, int type, int, const char *, void *ctx) {
    if (type != ZOO_DELETED_EVENT) return;
    auto *pw = static_cast<Watch *>(ctx);
    int64_t now = NowNs();
    std::lock_guard<std::mutex> lk(pw->mu);
    pw->fired_ns = now;
    pw->cv.notify_all();
  };
  char created[512];
  if (zoo_create(deleter.zh(), node.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                 created, sizeof created) != ZOK) {
    Die("create failed");
  }
  struct Stat st;
  if (zoo_wexists(watcher.zh(), created, on_event, &w, &st) != ZOK) Die("wexists failed");
  if (settle_ms > 0) SleepMs(settle_ms);
  int64_t t = NowNs();
  if (zoo_delete(deleter.zh(), created, -1) != ZOK) Die("delete failed");
  std::unique_lock<std::mutex> lk(w.mu);
  if (!w.cv.wait_for(lk, std::chrono::milliseconds(limit_ms), [&] { return w.fired_ns != 0; })) {
    Die("watch did not fire");
  }
  return w.fired_ns - t;
}

}  // namespace bench
