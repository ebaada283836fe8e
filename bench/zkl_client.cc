#include "zkl_client.h"

#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rows.h"

namespace bench {

ZklClient::ZklClient(const std::string &servers, int64_t limit_ms, const Tweak &tweak) {
  zkl_client_options opts;
  if (zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION) != 0) Die("client options");
  opts.servers = servers.c_str();
  opts.session_timeout_ms = 30000;
  if (tweak) tweak(opts);
  int rc = zkl_client_new(&opts, &c_);
  if (rc != 0) Die(std::string("zkl_client_new: ") + zkl_strerror(rc));
  rc = zkl_client_wait_connected(c_, limit_ms);
  if (rc != 0) Die(std::string("zkl_client_wait_connected: ") + zkl_strerror(rc));
}

ZklClient::~ZklClient() {
  StopDispatch();
  zkl_client_destroy(c_);
}

uint64_t ZklClient::Counter(const char *name, const char *within) const {
  char *json = nullptr;
  if (zkl_client_stats(c_, &json, nullptr) != 0) Die("zkl_client_stats failed");
  std::string doc(json);
  zkl_free(json);
  size_t from = within ? doc.find(std::string("\"") + within + "\":{") : 0;
  if (from == std::string::npos) Die("no object " + std::string(within) + " in the statistics");
  std::string key = std::string("\"") + name + "\":";
  size_t at = doc.find(key, from);
  if (at == std::string::npos) Die("no counter " + std::string(name) + " in the statistics");
  return std::stoull(doc.substr(at + key.size()));
}

void ZklClient::StartDispatch() {
  stop_ = false;
  dispatcher_ = std::thread([this] {
    int fd = zkl_client_fd(c_);
    while (!stop_.load(std::memory_order_relaxed)) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) zkl_client_dispatch(c_, 0);
    }
    zkl_client_dispatch(c_, 0);
  });
}

void ZklClient::StopDispatch() {
  stop_ = true;
  if (dispatcher_.joinable()) dispatcher_.join();
}

int ZklClient::WaitEvent(std::initializer_list<int> types, int64_t timeout_ms, int *err) {
  int64_t deadline = NowNs() + timeout_ms * 1000000;
  for (;;) {
    zkl_event *ev = nullptr;
    if (zkl_client_next_event(c_, &ev) == 0) {
      int type = zkl_event_type(ev);
      int e = zkl_event_error(ev);
      zkl_event_free(ev);
      for (int t : types) {
        if (t == type) {
          if (err) *err = e;
          return type;
        }
      }
      continue;
    }
    int64_t left = (deadline - NowNs()) / 1000000;
    if (left <= 0) return 0;
    zkl_client_wait(c_, left);
  }
}

zkl_lock *NewLock(zkl_client *c, const std::string &path, int kind, int max_leases,
                  zkl_event_cb cb, void *user_data, int leases) {
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.kind = kind;
  lo.max_leases = max_leases;
  if (kind == ZKL_LOCK_SEMAPHORE) lo.leases = leases;
  lo.cb = cb;
  lo.user_data = user_data;
  zkl_lock *l = nullptr;
  int rc = zkl_lock_new(c, path.c_str(), &lo, &l);
  if (rc != 0) Die("zkl_lock_new " + path + ": " + zkl_strerror(rc));
  return l;
}

int LockKind(const std::string &name) {
  if (name == "fair") return ZKL_LOCK_FAIR;
  if (name == "reentrant") return ZKL_LOCK_REENTRANT;
  if (name == "nonfair") return ZKL_LOCK_NONFAIR;
  if (name == "read") return ZKL_LOCK_READ;
  if (name == "write") return ZKL_LOCK_WRITE;
  if (name == "semaphore") return ZKL_LOCK_SEMAPHORE;
  Die("unknown --kind " + name);
}

bool ExclusiveKind(int kind) {
  return kind == ZKL_LOCK_FAIR || kind == ZKL_LOCK_REENTRANT || kind == ZKL_LOCK_NONFAIR ||
         kind == ZKL_LOCK_WRITE;
}

std::string RunPath(const Options &o, const std::string &what) {
  return o.prefix + "/" + what + "-" + std::to_string(getpid()) + "-" +
         std::to_string(NowNs() % 1000000007);
}

uint64_t SumCounter(const std::vector<ZklClient *> &cs, const char *name, const char *within) {
  uint64_t sum = 0;
  for (ZklClient *c : cs) sum += c->Counter(name, within);
  return sum;
}

// ---------------------------------------------------------------------------

void CpuMeter::CalibrateIdle(int64_t idle_ms) {
  int64_t w0 = NowNs(), c0 = ProcessCpuNs();
  SleepMs(idle_ms);
  int64_t w1 = NowNs(), c1 = ProcessCpuNs();
  idle_rate_ = w1 > w0 ? static_cast<double>(c1 - c0) / static_cast<double>(w1 - w0) : 0;
}

namespace {

void Rusage(int64_t *user_ns, int64_t *sys_ns) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  *user_ns = (int64_t{ru.ru_utime.tv_sec} * 1000000 + ru.ru_utime.tv_usec) * 1000;
  *sys_ns = (int64_t{ru.ru_stime.tv_sec} * 1000000 + ru.ru_stime.tv_usec) * 1000;
}

}  // namespace

void CpuMeter::Start() {
  Rusage(&user0_, &sys0_);
  wall0_ = NowNs();
  cpu0_ = ProcessCpuNs();
}

void CpuMeter::Stop() {
  wall_ns_ = NowNs() - wall0_;
  cpu_ns_ = ProcessCpuNs() - cpu0_;
  int64_t u, s;
  Rusage(&u, &s);
  user_ns_ = u - user0_;
  sys_ns_ = s - sys0_;
}

double CpuMeter::UserUsPerOp(double ops) const {
  return ops > 0 ? static_cast<double>(user_ns_) / 1000.0 / ops : 0;
}

double CpuMeter::SysUsPerOp(double ops) const {
  return ops > 0 ? static_cast<double>(sys_ns_) / 1000.0 / ops : 0;
}

void AddCpu(Json &j, const CpuMeter &cpu, double ops) {
  j.Num("cpu_us_per_op", cpu.UsPerOp(ops))
      .Num("cpu_user_us_per_op", cpu.UserUsPerOp(ops))
      .Num("cpu_sys_us_per_op", cpu.SysUsPerOp(ops));
}

double CpuMeter::UsPerOp(double ops) const {
  if (ops <= 0) return 0;
  double busy = static_cast<double>(cpu_ns_) - idle_rate_ * static_cast<double>(wall_ns_);
  if (busy < 0) busy = 0;
  return busy / 1000.0 / ops;
}

void AddThroughput(Json &j, double ops, double seconds, Samples &lat) {
  j.Num("ops", ops)
      .Num("seconds", seconds)
      .Num("ops_per_s", seconds > 0 ? ops / seconds : 0)
      .Num("p50_us", lat.PercentileUs(50))
      .Num("p99_us", lat.PercentileUs(99));
}

void AddRequests(Json &j, double ops, double zkl_requests, const ServerDelta &srv) {
  if (ops <= 0) return;
  j.Num("zkl_req_per_op", zkl_requests / ops)
      .Num("srv_req_per_op", srv.packets / ops)
      .Num("srv_writes_per_op", srv.writes / ops)
      .Num("srv_reads_per_op", srv.reads / ops)
      .Num("srv_fsyncs_per_op", srv.fsyncs / ops);
}

}  // namespace bench
