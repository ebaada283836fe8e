// idle_hold: what holding costs while nothing happens (issue 22). zkl keeps
// a held lock provable with heartbeats: since 5c396d6 a sync("/") every
// sixteenth of the negotiated session timeout (the leader's answer proves
// the session fresh, src/quorum_proof.h); before, an exists("/") every
// quarter. The raw single-threaded C client holding one ephemeral node only
// pings, after a third of the timeout without a request.
//
// Alternating blocks, rotated each round: N zkl clients (own session each)
// holding one fair lock each, idle; then N raw st sessions (the
// zkl-bench-raw-st helper, one poll loop, as paired_cpu drives it) holding
// one EPHEMERAL_SEQUENTIAL node each, idle. Only one side exists during a
// block (the other's sessions are closed), so the server's packet count
// (`mntr` zk_packets_received) is that side's. Per holding client and
// second: requests (zkl: its statistics' "requests", "heartbeats",
// "quorum_proofs"; both: the server's packets), client CPU (zkl: this
// process, less its idle rate measured before any client exists; raw: the
// helper measures itself), context switches, and with --server-pid the
// server's CPU.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "raw_client.h"
#include "rows.h"
#include "zkl_client.h"

namespace bench {

namespace {

constexpr uint64_t kOwner = 1;

int64_t ExtraInt(const Options &o, const char *key, int64_t dflt) {
  auto it = o.extra.find(key);
  return it == o.extra.end() ? dflt : std::atoll(it->second.c_str());
}

// A counter of the statistics document, or -1 if this zkl has none of the
// name (the row also runs against trees from before "quorum_proofs").
int64_t CounterOr(const ZklClient &c, const char *name) {
  char *json = nullptr;
  if (zkl_client_stats(c.get(), &json, nullptr) != 0) Die("zkl_client_stats failed");
  std::string doc(json);
  zkl_free(json);
  std::string key = std::string("\"") + name + "\":";
  size_t at = doc.find(key);
  return at == std::string::npos ? -1 : std::stoll(doc.substr(at + key.size()));
}

// utime + stime of a process in ns (/proc/PID/stat), or -1.
int64_t ProcCpuNs(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream f(text.substr(paren + 2));
  std::string field;
  long long utime = 0, stime = 0;
  // After the command: state is field 3; utime and stime are 14 and 15.
  for (int i = 3; i <= 15 && (f >> field); ++i) {
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  return (utime + stime) * (1000000000LL / sysconf(_SC_CLK_TCK));
}

double Csw() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw);
}

// What one side measured, summed over its blocks.
struct Side {
  double seconds = 0;
  double cpu_us = 0, user_us = 0, sys_us = 0, csw = 0;
  double packets = 0;
  double requests = 0, heartbeats = 0, proofs = 0;  // zkl only
  bool have_proofs = true;
  double server_cpu_ns = 0;
  bool have_server_cpu = false;
  int timeout_ms = 0;       // negotiated
  int connections = 0;      // the server's, at a block's start (max)
  int not_connected = 0;    // sessions not connected at a block's end (max)
  std::vector<double> req_rates, cpu_rates;  // per block, per client and second
  std::vector<double> valid_for_ms;            // zkl: each hold's validity left at a block's end

  double PerClientS(double v, int n) const { return seconds > 0 ? v / seconds / n : 0; }
};

int Alive(const Server &server) {
  Mntr m = server.Monitor();
  auto it = m.find("zk_num_alive_connections");
  return it == m.end() ? -1 : static_cast<int>(it->second);
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

void RowIdleHold(const Options &o) {
  Server server(o.servers);
  const int n = o.given.count("clients") ? o.clients : 1;
  const int64_t measured_ms = o.given.count("duration-ms") ? o.duration_ms : 20000;
  const int timeout_ms = static_cast<int>(ExtraInt(o, "session-timeout-ms", 10000));
  const int rounds = static_cast<int>(std::max<int64_t>(1, ExtraInt(o, "rounds", 2)));
  const int64_t block_ms = std::max<int64_t>(1, measured_ms / rounds);
  // After the acquisitions (zkl) or the creates (raw), before measuring.
  const int64_t settle_ms = ExtraInt(o, "settle-ms", 500);
  const int server_pid = static_cast<int>(ExtraInt(o, "server-pid", 0));
  if (timeout_ms < 1000) Die("--session-timeout-ms must be >= 1000");

  // The process before any client exists, over one block's length: the
  // main thread's own sleep (a block is one sleep of the main thread; what
  // it shows above this is the clients'). A shorter calibration would
  // overstate the rate: the wake-up costs the same however long the sleep.
  CpuMeter base;
  base.CalibrateIdle(block_ms);
  const double idle_rate = base.idle_rate();

  std::string parent = RawParent(o) + "-idle";
  std::string path = RunPath(o, "idle");
  Side zkl, raw;
  int threads_per_client = 0;

  auto zkl_block = [&] {
    std::vector<std::unique_ptr<ZklClient>> cs;
    std::vector<zkl_lock *> locks;
    int t0 = CountThreads();
    for (int i = 0; i < n; ++i) {
      cs.push_back(std::make_unique<ZklClient>(server.connect(), o.limit_ms, [&](zkl_client_options &op) {
        op.session_timeout_ms = timeout_ms;
      }));
    }
    threads_per_client = (CountThreads() - t0) / n;
    for (int i = 0; i < n; ++i) {
      locks.push_back(NewLock(cs[i]->get(), path + "-" + std::to_string(i), ZKL_LOCK_FAIR));
      int rc = zkl_lock_acquire(locks.back(), kOwner, o.limit_ms);
      if (rc != 0) Die(std::string("acquire: ") + zkl_strerror(rc));
    }
    zkl.timeout_ms = zkl_client_session_timeout(cs[0]->get());
    SleepMs(settle_ms);
    zkl.connections = std::max(zkl.connections, Alive(server));
    auto sum = [&](const char *name) {
      int64_t s = 0;
      for (auto &c : cs) {
        int64_t v = CounterOr(*c, name);
        if (v < 0) return int64_t{-1};
        s += v;
      }
      return s;
    };
    int64_t req0 = sum("requests"), hb0 = sum("heartbeats"), pr0 = sum("quorum_proofs");
    ServerProbe probe(server);
    probe.Start();
    int64_t srv0 = ProcCpuNs(server_pid);
    CpuMeter cpu = base;  // its idle rate: the process before any client
    double csw0 = Csw();
    cpu.Start();
    SleepMs(block_ms);
    cpu.Stop();
    double csw1 = Csw();
    int64_t srv1 = ProcCpuNs(server_pid);
    ServerDelta d = probe.Stop();
    int64_t req1 = sum("requests"), hb1 = sum("heartbeats"), pr1 = sum("quorum_proofs");
    for (zkl_lock *l : locks) {
      if (zkl_lock_is_held(l) != 1) ++zkl.not_connected;  // the hold lapsed
      int64_t ms = 0;
      if (zkl_lock_valid_for(l, &ms) == 0) zkl.valid_for_ms.push_back(static_cast<double>(ms));
    }
    double s = cpu.seconds();
    double busy_us = cpu.UsPerOp(1.0);  // the block as one "op": µs, less the base rate
    zkl.seconds += s;
    zkl.cpu_us += busy_us;
    zkl.user_us += cpu.UserUsPerOp(1.0);
    zkl.sys_us += cpu.SysUsPerOp(1.0);
    zkl.csw += csw1 - csw0;
    zkl.packets += d.packets;
    zkl.requests += static_cast<double>(req1 - req0);
    zkl.heartbeats += static_cast<double>(hb1 - hb0);
    if (pr0 < 0) zkl.have_proofs = false;
    else zkl.proofs += static_cast<double>(pr1 - pr0);
    if (srv0 >= 0 && srv1 >= 0) {
      zkl.have_server_cpu = true;
      zkl.server_cpu_ns += static_cast<double>(srv1 - srv0);
    }
    zkl.req_rates.push_back(static_cast<double>(req1 - req0) / s / n);
    zkl.cpu_rates.push_back(busy_us / s / n);
    for (zkl_lock *l : locks) {
      zkl_lock_release(l, kOwner);
      zkl_lock_destroy(l);
    }
    cs.clear();  // closes the sessions
  };

  auto raw_block = [&] {
    auto st = std::make_unique<CoProcess>(std::vector<std::string>{
        SelfDir() + "/zkl-bench-raw-st", "--servers", server.connect(), "--node", parent + "/h-",
        "--hold", std::to_string(n), "--timeout-ms", std::to_string(timeout_ms), "--limit-ms",
        std::to_string(o.limit_ms)});
    std::string ready = st->ReadLine();
    int threads = 0, negotiated = 0;
    if (std::sscanf(ready.c_str(), "ready %d %d", &threads, &negotiated) != 2) Die("raw st helper: " + ready);
    raw.timeout_ms = negotiated;
    // The helper drives its sessions only while it answers a command: the
    // settle time is spent inside one too.
    st->Call("idle " + std::to_string(settle_ms));
    raw.connections = std::max(raw.connections, Alive(server));
    ServerProbe probe(server);
    probe.Start();
    int64_t srv0 = ProcCpuNs(server_pid);
    std::string reply = st->Call("idle " + std::to_string(block_ms));
    int64_t srv1 = ProcCpuNs(server_pid);
    ServerDelta d = probe.Stop();
    long long cpu = 0, wall = 0, user = 0, sys = 0, csw = 0;
    int not_connected = 0;
    if (std::sscanf(reply.c_str(), "%lld %lld %lld %lld %lld %d", &cpu, &wall, &user, &sys, &csw,
                    &not_connected) != 6) {
      Die("raw st helper: " + reply);
    }
    double s = static_cast<double>(wall) / 1e9;
    raw.seconds += s;
    raw.cpu_us += static_cast<double>(cpu) / 1e3;
    raw.user_us += static_cast<double>(user) / 1e3;
    raw.sys_us += static_cast<double>(sys) / 1e3;
    raw.csw += static_cast<double>(csw);
    raw.packets += d.packets;
    raw.not_connected = std::max(raw.not_connected, not_connected);
    if (srv0 >= 0 && srv1 >= 0) {
      raw.have_server_cpu = true;
      raw.server_cpu_ns += static_cast<double>(srv1 - srv0);
    }
    raw.req_rates.push_back(d.packets / s / n);
    raw.cpu_rates.push_back(static_cast<double>(cpu) / 1e3 / s / n);
    st.reset();  // EOF: the helper closes its sessions
  };

  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      zkl_block();
      raw_block();
    } else {
      raw_block();
      zkl_block();
    }
  }

  const double t = zkl.timeout_ms > 0 ? zkl.timeout_ms : timeout_ms;
  Json j;
  j.Str("row", "idle_hold")
      .Int("clients", n)
      .Int("rounds", rounds)
      .Int("block_ms", block_ms)
      .Int("session_timeout_ms", timeout_ms)
      .Int("zkl_session_timeout_ms", zkl.timeout_ms)
      .Int("raw_session_timeout_ms", raw.timeout_ms)
      .Num("seconds", zkl.seconds)
      .Num("raw_seconds", raw.seconds)
      // What the heartbeat periods predict, per client and second: zkl now
      // (16/T), zkl before 5c396d6 (4/T), the raw client's pings (3/T).
      .Num("expected_req_per_s_now", 16000.0 / t)
      .Num("expected_req_per_s_before", 4000.0 / t)
      .Num("expected_raw_pings_per_s", 3000.0 / (raw.timeout_ms > 0 ? raw.timeout_ms : t))
      .Num("zkl_req_per_s", zkl.PerClientS(zkl.requests, n))
      .Num("zkl_heartbeats_per_s", zkl.PerClientS(zkl.heartbeats, n));
  if (zkl.have_proofs) j.Num("zkl_quorum_proofs_per_s", zkl.PerClientS(zkl.proofs, n));
  j.Num("zkl_srv_packets_per_s", zkl.PerClientS(zkl.packets, n))
      .Num("raw_srv_packets_per_s", raw.PerClientS(raw.packets, n))
      .Num("zkl_cpu_us_per_s", zkl.PerClientS(zkl.cpu_us, n))
      .Num("zkl_user_us_per_s", zkl.PerClientS(zkl.user_us, n))
      .Num("zkl_sys_us_per_s", zkl.PerClientS(zkl.sys_us, n))
      .Num("zkl_csw_per_s", zkl.PerClientS(zkl.csw, n))
      .Num("raw_cpu_us_per_s", raw.PerClientS(raw.cpu_us, n))
      .Num("raw_user_us_per_s", raw.PerClientS(raw.user_us, n))
      .Num("raw_sys_us_per_s", raw.PerClientS(raw.sys_us, n))
      .Num("raw_csw_per_s", raw.PerClientS(raw.csw, n))
      .Num("zkl_cpu_us_per_request", zkl.requests > 0 ? zkl.cpu_us / zkl.requests : 0)
      .Num("raw_cpu_us_per_ping", raw.packets > 0 ? raw.cpu_us / raw.packets : 0)
      .Num("srv_packets_ratio", raw.packets > 0 ? zkl.PerClientS(zkl.packets, n) / raw.PerClientS(raw.packets, n) : 0)
      .Num("cpu_ratio", raw.cpu_us > 0 ? zkl.PerClientS(zkl.cpu_us, n) / raw.PerClientS(raw.cpu_us, n) : 0)
      .Num("zkl_req_per_s_median_block", MedianOf(zkl.req_rates))
      .Num("raw_srv_packets_per_s_median_block", MedianOf(raw.req_rates))
      .Num("zkl_cpu_us_per_s_median_block", MedianOf(zkl.cpu_rates))
      .Num("raw_cpu_us_per_s_median_block", MedianOf(raw.cpu_rates))
      .Int("threads_per_client", threads_per_client)
      .Int("zkl_srv_connections", zkl.connections)
      .Int("raw_srv_connections", raw.connections)
      .Int("zkl_holds_not_valid", zkl.not_connected)
      .Num("zkl_valid_for_ms_min", zkl.valid_for_ms.empty() ? 0 : *std::min_element(zkl.valid_for_ms.begin(), zkl.valid_for_ms.end()))
      .Num("zkl_valid_for_ms_median", MedianOf(zkl.valid_for_ms))
      .Int("raw_sessions_not_connected", raw.not_connected)
      .Num("idle_cpu_rate", idle_rate);
  if (zkl.have_server_cpu && raw.have_server_cpu) {
    j.Num("zkl_server_cpu_ms_per_s", zkl.seconds > 0 ? zkl.server_cpu_ns / 1e6 / zkl.seconds : 0)
        .Num("raw_server_cpu_ms_per_s", raw.seconds > 0 ? raw.server_cpu_ns / 1e6 / raw.seconds : 0);
  }
  j.Print();
}

}  // namespace bench
