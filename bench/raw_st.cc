// zkl-bench-raw-st: the raw single-threaded ZooKeeper C client — the
// variant libzkl links (zkl_zookeeper) — driven from one poll loop on the
// calling thread, as the limit row of zkl's client CPU (issue 13.5). It is a
// helper process of zkl-bench's paired_cpu row: zkl-bench links the
// multi-threaded client, whose symbols are the same, so the single-threaded
// one cannot live in the same process.
//
//   zkl-bench-raw-st --servers 127.0.0.1:PORT --node /prefix/raw/st- [--limit-ms N]
//
// Prints "ready THREADS" once connected (THREADS: of this process, with the
// client). Then for every line "N" on stdin it runs N cycles (create
// EPHEMERAL_SEQUENTIAL, then delete it: the raw lock cycle) and answers
// "CPU_NS WALL_NS USER_NS SYS_NS CSW" (CLOCK_PROCESS_CPUTIME_ID, wall time,
// getrusage user and kernel time and context switches of the N cycles).
// Exits on EOF.
//
// Idle holders, for the idle_hold row (the cost of holding while idle):
//
//   zkl-bench-raw-st --servers 127.0.0.1:PORT --node /prefix/raw/idle- --hold N
//                    [--timeout-ms T] [--limit-ms N]
//
// opens N sessions (requested session timeout T, default 30000), each
// creates one EPHEMERAL_SEQUENTIAL node (`--node` is its prefix) — what a
// raw client holding a lock keeps — and prints "ready THREADS TIMEOUT"
// (TIMEOUT: the negotiated session timeout). For every line "idle MS" it
// drives all N sessions from one poll loop for MS ms, doing nothing else
// (the C client pings a session after a third of its timeout without a
// request), and answers "CPU_NS WALL_NS USER_NS SYS_NS CSW NOT_CONNECTED"
// (the last: sessions not connected at the end). Closes them on EOF.
#include <poll.h>
#include <sys/resource.h>
#include <zookeeper.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

using bench::Die;
using bench::NowNs;

zhandle_t *zh = nullptr;
bool connected = false;
int64_t limit_ms = 120000;

void Watcher(zhandle_t *, int type, int state, const char *, void *) {
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) connected = true;
}

// The one poll loop: until *done, wait for what the client is interested in
// and let it process.
void Drive(const bool *done) {
  int64_t deadline = NowNs() + limit_ms * 1000000;
  while (!*done) {
    if (NowNs() > deadline) Die("raw st: no answer in time");
    int fd = -1, interest = 0;
    timeval tv{};
    int rc = zookeeper_interest(zh, &fd, &interest, &tv);
    if (rc != ZOK && rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT) {
      Die(std::string("zookeeper_interest: ") + zerror(rc));
    }
    pollfd p{fd, 0, 0};
    if (interest & ZOOKEEPER_READ) p.events |= POLLIN;
    if (interest & ZOOKEEPER_WRITE) p.events |= POLLOUT;
    int timeout = static_cast<int>(tv.tv_sec * 1000 + tv.tv_usec / 1000);
    int n = poll(&p, fd >= 0 ? 1 : 0, timeout);
    int events = 0;
    if (n > 0) {
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) events |= ZOOKEEPER_READ;
      if (p.revents & POLLOUT) events |= ZOOKEEPER_WRITE;
    }
    zookeeper_process(zh, events);
  }
}

void Usage(long long *user_ns, long long *sys_ns, long long *csw) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  *user_ns = (static_cast<long long>(ru.ru_utime.tv_sec) * 1000000 + ru.ru_utime.tv_usec) * 1000;
  *sys_ns = (static_cast<long long>(ru.ru_stime.tv_sec) * 1000000 + ru.ru_stime.tv_usec) * 1000;
  *csw = ru.ru_nvcsw + ru.ru_nivcsw;
}

struct Result {
  bool done = false;
  int rc = ZOK;
  std::string value;
};

void StringDone(int rc, const char *value, const void *data) {
  auto *r = static_cast<Result *>(const_cast<void *>(data));
  r->rc = rc;
  if (rc == ZOK && value) r->value = value;
  r->done = true;
}

void VoidDone(int rc, const void *data) {
  auto *r = static_cast<Result *>(const_cast<void *>(data));
  r->rc = rc;
  r->done = true;
}

int Create(const std::string &path, int flags, std::string *created) {
  Result r;
  int rc = zoo_acreate(zh, path.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, flags, &StringDone, &r);
  if (rc != ZOK) return rc;
  Drive(&r.done);
  if (created) *created = r.value;
  return r.rc;
}

int Delete(const std::string &path) {
  Result r;
  int rc = zoo_adelete(zh, path.c_str(), -1, &VoidDone, &r);
  if (rc != ZOK) return rc;
  Drive(&r.done);
  return r.rc;
}

void EnsurePersistent(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string p = slash == std::string::npos ? path : path.substr(0, slash);
    int rc = Create(p, 0, nullptr);
    if (rc != ZOK && rc != ZNODEEXISTS) Die("create " + p + ": " + zerror(rc));
    if (slash == std::string::npos) break;
  }
}

// ---- idle holders ------------------------------------------------------------

struct Holder {
  zhandle_t *zh = nullptr;
  bool connected = false;
  Result created;
};

void HolderWatcher(zhandle_t *, int type, int state, const char *, void *ctx) {
  auto *h = static_cast<Holder *>(ctx);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) h->connected = true;
}

// One poll loop over every holder's session: until done() or, with
// until_ns > 0, until that instant (then done() is not asked).
template <typename Done>
void DriveAll(std::vector<Holder> &hs, Done done, int64_t until_ns) {
  int64_t deadline = NowNs() + limit_ms * 1000000;
  std::vector<pollfd> ps(hs.size());
  for (;;) {
    int64_t now = NowNs();
    if (until_ns > 0 ? now >= until_ns : done()) return;
    if (until_ns == 0 && now > deadline) Die("raw st: no answer in time");
    int64_t end = until_ns > 0 ? until_ns : deadline;
    int timeout = static_cast<int>((end - now + 999999) / 1000000);
    for (size_t i = 0; i < hs.size(); ++i) {
      int fd = -1, interest = 0;
      timeval tv{};
      int rc = zookeeper_interest(hs[i].zh, &fd, &interest, &tv);
      if (rc != ZOK && rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT) {
        Die(std::string("zookeeper_interest: ") + zerror(rc));
      }
      ps[i] = pollfd{fd, 0, 0};
      if (interest & ZOOKEEPER_READ) ps[i].events |= POLLIN;
      if (interest & ZOOKEEPER_WRITE) ps[i].events |= POLLOUT;
      timeout = std::min(timeout, static_cast<int>(tv.tv_sec * 1000 + tv.tv_usec / 1000));
    }
    poll(ps.data(), ps.size(), std::max(timeout, 0));  // fd -1: ignored
    for (size_t i = 0; i < hs.size(); ++i) {
      int events = 0;
      if (ps[i].revents & (POLLIN | POLLHUP | POLLERR)) events |= ZOOKEEPER_READ;
      if (ps[i].revents & POLLOUT) events |= ZOOKEEPER_WRITE;
      if (events) zookeeper_process(hs[i].zh, events);
    }
  }
}

int HoldIdle(const std::string &connect, const std::string &node, int n, int timeout_ms) {
  std::vector<Holder> hs(static_cast<size_t>(n));
  for (auto &h : hs) {
    h.zh = zookeeper_init(connect.c_str(), &HolderWatcher, timeout_ms, nullptr, &h, 0);
    if (h.zh == nullptr) Die("raw st: zookeeper_init failed");
    zoo_set_servers_resolution_delay(h.zh, -1);
  }
  DriveAll(hs, [&] {
    for (auto &h : hs) {
      if (!h.connected) return false;
    }
    return true;
  }, 0);
  zh = hs[0].zh;  // for the parents (the others wait a moment)
  EnsurePersistent(node.substr(0, node.rfind('/')));
  for (auto &h : hs) {
    int rc = zoo_acreate(h.zh, node.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                         &StringDone, &h.created);
    if (rc != ZOK) Die(std::string("raw st create: ") + zerror(rc));
  }
  DriveAll(hs, [&] {
    for (auto &h : hs) {
      if (!h.created.done) return false;
    }
    return true;
  }, 0);
  for (auto &h : hs) {
    if (h.created.rc != ZOK) Die(std::string("raw st create: ") + zerror(h.created.rc));
  }
  std::printf("ready %d %d\n", bench::CountThreads(), zoo_recv_timeout(hs[0].zh));
  std::fflush(stdout);
  char line[256];
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
    if (std::strncmp(line, "idle ", 5) != 0) Die(std::string("raw st: unknown command ") + line);
    long long ms = std::atoll(line + 5);
    long long u0, s0, x0, u1, s1, x1;
    Usage(&u0, &s0, &x0);
    int64_t c0 = bench::ProcessCpuNs(), w0 = NowNs();
    DriveAll(hs, [] { return false; }, w0 + ms * 1000000);
    int64_t c1 = bench::ProcessCpuNs(), w1 = NowNs();
    Usage(&u1, &s1, &x1);
    int not_connected = 0;
    for (auto &h : hs) not_connected += zoo_state(h.zh) != ZOO_CONNECTED_STATE;
    std::printf("%lld %lld %lld %lld %lld %d\n", static_cast<long long>(c1 - c0),
                static_cast<long long>(w1 - w0), u1 - u0, s1 - s0, x1 - x0, not_connected);
    std::fflush(stdout);
  }
  for (auto &h : hs) zookeeper_close(h.zh);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::string servers, node;
  int hold = 0, timeout_ms = 30000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--servers") servers = argv[i + 1];
    else if (k == "--node") node = argv[i + 1];
    else if (k == "--limit-ms") limit_ms = std::atoll(argv[i + 1]);
    else if (k == "--hold") hold = std::atoi(argv[i + 1]);
    else if (k == "--timeout-ms") timeout_ms = std::atoi(argv[i + 1]);
    else Die("raw st: unknown option " + k);
  }
  bench::Server server(servers);  // refuses anything but loopback
  if (node.empty() || node[0] != '/') Die("raw st: --node /path/prefix- is required");
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  if (hold > 0) return HoldIdle(server.connect(), node, hold, timeout_ms);
  zh = zookeeper_init(server.connect().c_str(), &Watcher, 30000, nullptr, nullptr, 0);
  if (zh == nullptr) Die("raw st: zookeeper_init failed");
  // As the raw mt rows (raw_client.h, ResolveDelay): no host re-resolution
  // on every loop iteration.
  zoo_set_servers_resolution_delay(zh, -1);
  Drive(&connected);
  EnsurePersistent(node.substr(0, node.rfind('/')));
  std::printf("ready %d\n", bench::CountThreads());
  std::fflush(stdout);
  char line[256];
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
    long long n = std::atoll(line);
    long long u0, s0, x0, u1, s1, x1;
    Usage(&u0, &s0, &x0);
    int64_t c0 = bench::ProcessCpuNs(), w0 = NowNs();
    for (long long i = 0; i < n; ++i) {
      std::string created;
      int rc = Create(node, ZOO_EPHEMERAL_SEQUENTIAL, &created);
      if (rc != ZOK) Die(std::string("raw st create: ") + zerror(rc));
      rc = Delete(created);
      if (rc != ZOK) Die(std::string("raw st delete: ") + zerror(rc));
    }
    int64_t c1 = bench::ProcessCpuNs(), w1 = NowNs();
    Usage(&u1, &s1, &x1);
    std::printf("%lld %lld %lld %lld %lld\n", static_cast<long long>(c1 - c0),
                static_cast<long long>(w1 - w0), u1 - u0, s1 - s0, x1 - x0);
    std::fflush(stdout);
  }
  zookeeper_close(zh);
  return 0;
}
