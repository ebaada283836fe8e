// zkl-chaos: the chaos driver.
//
// Starts a 3-node ZooKeeper ensemble on loopback, one FaultProxy per worker,
// and N zkl-chaos-worker processes that contend on one lock of every recipe
// (fair, reentrant, non-fair, read/write, semaphore, fair and unfair
// elections), each connected through its own proxy. Then it injects faults
// chosen by a seeded RNG, one at a time: leader kill (and restart), follower
// kill, server pause (SIGSTOP/SIGCONT), connection drop, cut right after a
// create, client black-hole longer than the session timeout, session expiry
// (id + password takeover), whole-ensemble restart. Every kind is injected
// at least once. At the end it stops the workers, merges their histories,
// runs the history checker and checks that no lock path keeps a node.
//
//   zkl-chaos [--ci] [--seed N] [--duration S] [--acquisitions N]
//             [--max-duration S] [--workers N] [--session-timeout MS]
//             [--worker-bin PATH] [--tls] [--keep]
//
// --tls: the same round over TLS. Certificates from scripts/test-certs (in
// the run dir), every member with a secureClientPort that requires a client
// certificate, the proxies forwarding to those ports, every worker (and the
// orphan check) with mutual TLS. The proxies see only ciphertext then, so
// the cut-after-create fault (it spots the create in the stream) is not
// injected.
//
// Runs until at least --acquisitions acquisitions were recorded, every fault
// kind was injected and --duration seconds have passed; fails if that takes
// longer than --max-duration. Exit status: 0 no violation, 1 violations or
// a failed run, 2 usage / setup error. The last line is
// "chaos: 1 passed, 0 failed" or "chaos: 0 passed, 1 failed".
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fault_proxy.h"
#include "history.h"
#include "zk_harness.h"

using zkl_chaos::MonotonicNs;
using zkl_test::FaultProxy;
using zkl_test::ZkEnsemble;

namespace {

struct Options {
  uint64_t seed = 0;
  bool seed_given = false;
  int duration_s = 300;
  uint64_t acquisitions = 10000;
  int max_duration_s = 0;  // 0: derived
  int workers = 8;
  int session_timeout = 4000;
  std::string worker_bin = ZKL_CHAOS_WORKER_BIN;
  bool keep = false;
  bool tls = false;
};

// With --tls: the certificates (scripts/test-certs) the clients use.
struct TlsFiles {
  std::string ca, cert, key;
};
TlsFiles g_tls;

Options g_opt;
std::mt19937_64 g_rng;
int64_t g_start_ns = 0;

double Elapsed() { return static_cast<double>(MonotonicNs() - g_start_ns) / 1e9; }

// Everything the driver did, on the histories' clock (for violation reports).
std::vector<std::pair<int64_t, std::string>> g_log;

void Log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void Log(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log.emplace_back(MonotonicNs(), buf);
  std::printf("[%7.2fs] %s\n", Elapsed(), buf);
  std::fflush(stdout);
}

int Rand(int lo, int hi) { return lo + static_cast<int>(g_rng() % static_cast<uint64_t>(hi - lo + 1)); }

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// ---------------------------------------------------------------------------
// Workers

struct Worker {
  std::string id;
  pid_t pid = -1;
  int exit_status = -1;  // waitpid status once reaped
  bool exited = false;
  std::unique_ptr<FaultProxy> proxy;
  std::string history, session_file, log;
  std::streamoff read_offset = 0;
  uint64_t acquisitions = 0;
  bool holding = false;      // its history shows a hold in progress
  int64_t holding_until = 0; // planned end of that hold
};

std::vector<Worker> g_workers;
std::string g_dir;

pid_t Spawn(const std::vector<std::string> &args, const std::string &log) {
  std::vector<char *> argv;
  for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "exec %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

void ReapWorkers() {
  for (Worker &w : g_workers) {
    if (w.exited || w.pid <= 0) continue;
    int st = 0;
    if (waitpid(w.pid, &st, WNOHANG) == w.pid) {
      w.exited = true;
      w.exit_status = st;
    }
  }
}

// Counts new "acquire" records in the workers' history files.
uint64_t CountAcquisitions() {
  uint64_t total = 0;
  for (Worker &w : g_workers) {
    std::ifstream in(w.history);
    if (in) {
      in.seekg(w.read_offset);
      std::string line;
      while (std::getline(in, line)) {
        if (in.eof()) break;  // a partial last line: read it next time
        w.read_offset += static_cast<std::streamoff>(line.size()) + 1;
        if (line.compare(0, 8, "acquire ") == 0) ++w.acquisitions;
        if (line.compare(0, 8, "acquire ") == 0 || line.compare(0, 7, "resume ") == 0) {
          w.holding = true;
        } else if (line.compare(0, 4, "end ") == 0) {
          w.holding = false;
        } else if (line.compare(0, 5, "note ") == 0 && line.find(" until ") != std::string::npos) {
          // note W T until HOLD T_END
          w.holding_until = std::strtoll(line.c_str() + line.rfind(' ') + 1, nullptr, 10);
        }
      }
    }
    total += w.acquisitions;
  }
  return total;
}

// ---------------------------------------------------------------------------
// Faults

enum Fault {
  kLeaderKill,
  kFollowerKill,
  kServerPause,
  kConnectionDrop,
  kCutAfterCreate,
  kClientBlackhole,
  kSessionExpire,
  kEnsembleRestart,
  kClientFreeze,
  kFaultKinds
};
const char *kFaultNames[kFaultKinds] = {
    "leader-kill",      "follower-kill",    "server-pause",   "connection-drop",
    "cut-after-create", "client-blackhole", "session-expire", "ensemble-restart",
    "client-freeze"};
const int kFaultWeights[kFaultKinds] = {2, 2, 2, 3, 3, 2, 3, 1, 3};

// Over TLS the proxy forwards ciphertext: it cannot tell a create from any
// other request, so it cannot cut right after one.
bool Applicable(Fault f) { return !(g_opt.tls && f == kCutAfterCreate); }
int Weight(int f) { return Applicable(static_cast<Fault>(f)) ? kFaultWeights[f] : 0; }

std::map<std::string, uint64_t> g_fault_counts;  // injected, by name (+ details)
std::vector<std::string> g_failures;             // run failures (not history violations)

std::unique_ptr<ZkEnsemble> g_ensemble;

// Starts member k again, retrying a few times (bounded).
void StartMember(int k, bool wait_for_quorum) {
  for (int attempt = 1;; ++attempt) {
    try {
      g_ensemble->member(k).Start(wait_for_quorum);
      return;
    } catch (const std::exception &e) {
      Log("starting member %d failed (attempt %d): %.300s", k, attempt, e.what());
      if (attempt == 3) throw;
      try {
        g_ensemble->member(k).Kill();
      } catch (...) {
      }
      SleepMs(1000);
    }
  }
}

int WaitLeader() {
  int k = g_ensemble->WaitForLeader(std::chrono::milliseconds(60000));
  if (k == 0) throw std::runtime_error("no leader within 60 s");
  return k;
}

void KillAndRestart(int k, const char *what) {
  int down = Rand(300, 3000);
  Log("fault %s: kill member %d, down %d ms", what, k, down);
  g_ensemble->member(k).Kill();
  SleepMs(down);
  StartMember(k, true);
  Log("  member %d back; leader now %d", k, g_ensemble->LeaderIndex());
}

// A worker for a client fault: preferably one in the middle of a hold that
// lasts at least `min_left_ms` more (the interesting case), else any.
Worker &PickWorker(int min_left_ms = 0) {
  CountAcquisitions();
  std::vector<Worker *> holding;
  for (Worker &w : g_workers) {
    if (w.holding && w.holding_until - MonotonicNs() >= int64_t{min_left_ms} * 1000000) {
      holding.push_back(&w);
    }
  }
  if (holding.empty()) {
    for (Worker &w : g_workers) {
      if (w.holding) holding.push_back(&w);
    }
  }
  if (!holding.empty() && Rand(0, 3) != 0) {
    ++g_fault_counts["client-fault-on-holder(targeted)"];
    return *holding[Rand(0, static_cast<int>(holding.size()) - 1)];
  }
  return g_workers[Rand(0, static_cast<int>(g_workers.size()) - 1)];
}

bool ReadSession(const Worker &w, int64_t *id, std::string *passwd) {
  std::ifstream in(w.session_file);
  std::string hex_id, hex_pw;
  if (!(in >> hex_id >> hex_pw) || hex_pw.size() != 32) return false;
  *id = static_cast<int64_t>(std::strtoull(hex_id.c_str(), nullptr, 16));
  passwd->clear();
  for (size_t i = 0; i < 32; i += 2) {
    passwd->push_back(static_cast<char>(std::strtoul(hex_pw.substr(i, 2).c_str(), nullptr, 16)));
  }
  return true;
}

// After a black-hole of w (begun with proxy stats `before`): how many
// connections its client gave up meanwhile and how many new ones it tried.
// New ones stall before the handshake (with TLS: in the TLS handshake); a
// client that gives them up too bounds its handshakes and retries.
void CountBlackholed(Worker &w, const FaultProxy::Stats &before) {
  FaultProxy::Stats after = w.proxy->stats();
  uint64_t gave_up = after.blackhole_closed - before.blackhole_closed;
  uint64_t tried = after.accepted - before.accepted;
  g_fault_counts["black-holed(connections given up)"] += gave_up;
  g_fault_counts["black-holed(new connections tried)"] += tried;
  Log("  %s gave up %" PRIu64 " connection(s), tried %" PRIu64 " new one(s) meanwhile",
      w.id.c_str(), gave_up, tried);
}

void Inject(Fault f) {
  switch (f) {
    case kLeaderKill: {
      int k = WaitLeader();
      KillAndRestart(k, kFaultNames[f]);
      break;
    }
    case kFollowerKill: {
      int leader = WaitLeader();
      int k = leader;
      while (k == leader) k = Rand(1, g_ensemble->size());
      KillAndRestart(k, kFaultNames[f]);
      break;
    }
    case kServerPause: {
      int k = Rand(1, g_ensemble->size());
      int leader = g_ensemble->LeaderIndex();
      // Sometimes shorter, sometimes longer than the session timeout.
      int ms = Rand(500, g_opt.session_timeout + 2500);
      Log("fault %s: SIGSTOP member %d (%s) for %d ms", kFaultNames[f], k,
          k == leader ? "leader" : "follower", ms);
      g_ensemble->member(k).Pause();
      SleepMs(ms);
      g_ensemble->member(k).Resume();
      ++g_fault_counts[std::string(kFaultNames[f]) + (k == leader ? "(leader)" : "(follower)")];
      break;
    }
    case kConnectionDrop: {
      Worker &w = PickWorker();
      Log("fault %s: drop %s's connections", kFaultNames[f], w.id.c_str());
      w.proxy->DropAll();
      break;
    }
    case kCutAfterCreate: {
      Worker &w = PickWorker();
      uint64_t before = w.proxy->stats().cut;
      w.proxy->CutAfterNextCreate();
      int64_t deadline = MonotonicNs() + 8000000000;
      while (w.proxy->stats().cut == before && MonotonicNs() < deadline) SleepMs(20);
      bool cut = w.proxy->stats().cut != before;
      Log("fault %s: %s %s", kFaultNames[f], w.id.c_str(),
          cut ? "cut after a create" : "made no create in 8 s (stays armed)");
      if (cut) ++g_fault_counts["cut-after-create(triggered)"];
      break;
    }
    case kClientFreeze: {
      // The whole worker process stops (GC pause, SIGSTOP, VM migration):
      // sometimes shorter, sometimes longer than the session timeout. Its
      // first is_held after the thaw must not say yes if another holds.
      Worker &w = PickWorker();
      int ms = Rand(g_opt.session_timeout / 2, g_opt.session_timeout * 2);
      Log("fault %s: SIGSTOP %s for %d ms", kFaultNames[f], w.id.c_str(), ms);
      if (w.pid > 0 && !w.exited && kill(w.pid, SIGSTOP) == 0) {
        SleepMs(ms);
        kill(w.pid, SIGCONT);
        ++g_fault_counts[std::string(kFaultNames[f]) +
                         (ms > g_opt.session_timeout ? "(past the session timeout)" : "(shorter)")];
      }
      break;
    }
    case kClientBlackhole: {
      Worker &w = PickWorker(g_opt.session_timeout * 2 / 3);
      int ms = g_opt.session_timeout + Rand(500, 2500);
      Log("fault %s: black-hole %s for %d ms", kFaultNames[f], w.id.c_str(), ms);
      FaultProxy::Stats before = w.proxy->stats();
      w.proxy->SetBlackhole(true);
      SleepMs(ms);
      w.proxy->SetBlackhole(false);
      CountBlackholed(w, before);
      break;
    }
    case kSessionExpire: {
      // The server expires a session it has not heard from: model that by
      // cutting the worker off until its client has noticed (the ZooKeeper
      // client gives a silent connection up after 2/3 of the session
      // timeout), then expiring the session on the server (id + password
      // takeover), then healing the cut at a random moment: the worker
      // learns LOST from its own deadline or from the server's EXPIRED.
      // (Expiring the session of a client that is still connected can not
      // be noticed by any client before the server deletes its nodes; only
      // fencing protects against that — see README.md.)
      Worker &w = PickWorker(g_opt.session_timeout * 2 / 3);
      int64_t id = 0;
      std::string pw;
      if (!ReadSession(w, &id, &pw)) {
        Log("fault %s: %s has no session published yet; skipped", kFaultNames[f], w.id.c_str());
        return;
      }
      Log("fault %s: cut %s off, then expire its session", kFaultNames[f], w.id.c_str());
      FaultProxy::Stats before = w.proxy->stats();
      w.proxy->SetBlackhole(true);
      SleepMs(g_opt.session_timeout * 2 / 3 + 300);
      // The takeover is a plain ZooKeeper client, so it uses the plaintext
      // client ports, also with --tls: the same servers, the same sessions.
      bool ok = zkl_test::ExpireSession(g_ensemble->connect(), id, pw,
                                        std::chrono::milliseconds(15000));
      int heal = Rand(0, 2000);
      SleepMs(heal);
      w.proxy->SetBlackhole(false);
      Log("  %s's session %" PRIx64 " %s, reconnect allowed %d ms later", w.id.c_str(), static_cast<uint64_t>(id),
          ok ? "expired" : "NOT expired (already gone?)", heal);
      CountBlackholed(w, before);
      if (!ok) return;
      break;
    }
    case kEnsembleRestart: {
      bool crash = Rand(0, 1) == 1;
      int down = Rand(200, 2000);
      Log("fault %s: %s all members, down %d ms", kFaultNames[f], crash ? "kill" : "stop", down);
      for (int k = 1; k <= g_ensemble->size(); ++k) {
        if (crash) g_ensemble->member(k).Kill();
        else g_ensemble->member(k).Stop();
      }
      SleepMs(down);
      for (int k = 1; k <= g_ensemble->size(); ++k) StartMember(k, false);
      int leader = WaitLeader();
      Log("  ensemble back; leader %d", leader);
      break;
    }
    default: return;
  }
  ++g_fault_counts[kFaultNames[f]];
}

// Makes sure every member runs and a leader exists (after a failed fault).
void Heal() {
  for (int k = 1; k <= g_ensemble->size(); ++k) {
    zkl_test::ZkServer &m = g_ensemble->member(k);
    if (m.paused()) m.Resume();
    if (m.Mode().empty()) {
      try {
        m.Kill();
        StartMember(k, false);
      } catch (const std::exception &e) {
        Log("heal: member %d: %.300s", k, e.what());
      }
    }
  }
  for (Worker &w : g_workers) w.proxy->SetBlackhole(false);
  WaitLeader();
}

// ---------------------------------------------------------------------------
// No orphans: once every worker closed its client and the sessions they
// abandoned expired, no lock path may keep a child node.

// A ZooKeeper handle for the checks; with --tls over the secure ports with
// the workers' certificates (verified, host name included).
zhandle_t *CheckerHandle() {
  if (!g_opt.tls) {
    return zookeeper_init(g_ensemble->connect().c_str(), nullptr, 10000, nullptr, nullptr, 0);
  }
  zoo_tls_params_t tls{};
  tls.ca_file = g_tls.ca.c_str();
  tls.cert_file = g_tls.cert.c_str();
  tls.key_file = g_tls.key.c_str();
  tls.verify_hostname = 1;
  return zookeeper_init_secure(g_ensemble->secure_connect().c_str(), nullptr, 10000, nullptr,
                               nullptr, 0, nullptr, &tls, nullptr);
}

bool CheckNoOrphans(const std::string &prefix, std::string *detail) {
  zhandle_t *zh = CheckerHandle();
  if (zh == nullptr) {
    *detail = "cannot create a ZooKeeper handle";
    return false;
  }
  int64_t deadline = MonotonicNs() + int64_t{2 * g_opt.session_timeout + 20000} * 1000000;
  bool clean = false;
  while (MonotonicNs() < deadline) {
    if (zoo_state(zh) != ZOO_CONNECTED_STATE) {
      SleepMs(50);
      continue;
    }
    std::vector<std::string> left;
    struct String_vector paths {};
    int rc = zoo_get_children(zh, prefix.c_str(), 0, &paths);
    if (rc == ZNONODE) {
      clean = true;
      break;
    }
    if (rc != ZOK) {
      SleepMs(200);
      continue;
    }
    for (int i = 0; i < paths.count; ++i) {
      std::string p = prefix + "/" + paths.data[i];
      struct String_vector kids {};
      if (zoo_get_children(zh, p.c_str(), 0, &kids) == ZOK) {
        for (int j = 0; j < kids.count; ++j) left.push_back(p + "/" + kids.data[j]);
        deallocate_String_vector(&kids);
      }
    }
    deallocate_String_vector(&paths);
    if (left.empty()) {
      clean = true;
      break;
    }
    *detail = std::to_string(left.size()) + " node(s) left, e.g. " + left.front();
    SleepMs(500);
  }
  zookeeper_close(zh);
  return clean;
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: zkl-chaos [--ci] [--seed N] [--duration S] [--acquisitions N]\n"
               "                 [--max-duration S] [--workers N] [--session-timeout MS]\n"
               "                 [--worker-bin PATH] [--tls] [--keep]\n");
  std::exit(2);
}

void ParseArgs(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) Usage();
      return argv[++i];
    };
    if (k == "--ci") {
      g_opt.duration_s = 60;
      g_opt.acquisitions = 2000;
      g_opt.max_duration_s = 200;
    } else if (k == "--seed") {
      g_opt.seed = std::strtoull(val().c_str(), nullptr, 10);
      g_opt.seed_given = true;
    } else if (k == "--duration") {
      g_opt.duration_s = std::atoi(val().c_str());
    } else if (k == "--acquisitions") {
      g_opt.acquisitions = std::strtoull(val().c_str(), nullptr, 10);
    } else if (k == "--max-duration") {
      g_opt.max_duration_s = std::atoi(val().c_str());
    } else if (k == "--workers") {
      g_opt.workers = std::atoi(val().c_str());
    } else if (k == "--session-timeout") {
      g_opt.session_timeout = std::atoi(val().c_str());
    } else if (k == "--worker-bin") {
      g_opt.worker_bin = val();
    } else if (k == "--keep") {
      g_opt.keep = true;
    } else if (k == "--tls") {
      g_opt.tls = true;
    } else {
      Usage();
    }
  }
  if (g_opt.workers < 2 || g_opt.workers > 32 || g_opt.duration_s < 1 ||
      g_opt.session_timeout < 1000) {
    Usage();
  }
  if (g_opt.max_duration_s == 0) g_opt.max_duration_s = std::max(3 * g_opt.duration_s, 900);
}

}  // namespace

int main(int argc, char **argv) {
  ParseArgs(argc, argv);
  if (!g_opt.seed_given) {
    g_opt.seed = static_cast<uint64_t>(MonotonicNs()) ^ (static_cast<uint64_t>(getpid()) << 32);
    g_opt.seed %= 1000000000;
  }
  g_rng.seed(g_opt.seed);
  g_start_ns = MonotonicNs();
  signal(SIGPIPE, SIG_IGN);
  std::printf("chaos: seed %" PRIu64 " (replay with --seed %" PRIu64 "%s), %d workers%s, session "
              "timeout %d ms, target >= %" PRIu64 " acquisitions and >= %d s (at most %d s)\n",
              g_opt.seed, g_opt.seed, g_opt.tls ? " --tls" : "", g_opt.workers,
              g_opt.tls ? " over TLS" : "", g_opt.session_timeout, g_opt.acquisitions,
              g_opt.duration_s, g_opt.max_duration_s);
  std::fflush(stdout);

  // The servers need no fsync for process crashes (the OS keeps the data).
  std::string java_opts = getenv("ZK_JAVA_OPTS") ? getenv("ZK_JAVA_OPTS") : "";
  setenv("ZK_JAVA_OPTS", (java_opts + " -Dzookeeper.forceSync=no").c_str(), 1);

  g_dir = zkl_test::MakeTempDir("zkl-chaos-");
  std::string resource = g_dir + "/resource";
  mkdir(resource.c_str(), 0755);
  std::string prefix = "/chaos-" + std::to_string(g_opt.seed);
  bool run_ok = true;
  zkl_chaos::History history;
  zkl_chaos::Verdict verdict;
  try {
    zkl_test::QuietZkClientLogs();
    std::vector<std::string> server_env;
    if (g_opt.tls) {
      std::string certs = g_dir + "/certs";
      zkl_test::MakeTestCerts(certs);
      g_tls = {certs + "/ca.pem", certs + "/client.crt", certs + "/client.key"};
      server_env = {"ZK_TLS_DIR=" + certs, "ZK_TLS_CLIENT_AUTH=need"};
    }
    g_ensemble = ZkEnsemble::Start(3, server_env);
    if (g_opt.tls && g_ensemble->secure_connect().empty()) {
      throw std::runtime_error("the ensemble has no TLS ports (scripts/zk-server too old?)");
    }
    // What the clients connect to (through their proxies).
    const std::string servers = g_opt.tls ? g_ensemble->secure_connect() : g_ensemble->connect();
    Log("ensemble up: %s%s%s (leader %d)", g_ensemble->connect().c_str(),
        g_opt.tls ? ", TLS " : "", g_opt.tls ? servers.c_str() : "", g_ensemble->LeaderIndex());

    std::mt19937_64 worker_seeds(g_opt.seed ^ 0x5eed);
    for (int i = 0; i < g_opt.workers; ++i) {
      Worker w;
      w.id = "w" + std::to_string(i + 1);
      w.proxy = std::make_unique<FaultProxy>();
      w.proxy->Start(servers);
      w.history = g_dir + "/" + w.id + ".history";
      w.session_file = g_dir + "/" + w.id + ".session";
      w.log = g_dir + "/" + w.id + ".log";
      g_workers.push_back(std::move(w));
    }
    for (Worker &w : g_workers) {
      std::vector<std::string> args = {
          g_opt.worker_bin, "--id", w.id, "--servers", w.proxy->connect(),
          "--history", w.history, "--session-file", w.session_file, "--resource",
          resource, "--prefix", prefix, "--seed", std::to_string(worker_seeds()),
          "--session-timeout", std::to_string(g_opt.session_timeout),
          "--max-seconds", std::to_string(g_opt.max_duration_s + 120)};
      if (g_opt.tls) {
        args.insert(args.end(), {"--tls-ca", g_tls.ca, "--tls-cert", g_tls.cert,
                                 "--tls-key", g_tls.key});
      }
      w.pid = Spawn(args, w.log);
    }
    Log("%d workers started (histories in %s)", g_opt.workers, g_dir.c_str());

    // Every kind once, in a random order, then random by weight.
    std::vector<Fault> plan;
    for (int f = 0; f < kFaultKinds; ++f) {
      if (Applicable(static_cast<Fault>(f))) plan.push_back(static_cast<Fault>(f));
    }
    std::shuffle(plan.begin(), plan.end(), g_rng);
    int total_weight = 0;
    for (int f = 0; f < kFaultKinds; ++f) total_weight += Weight(f);
    size_t next = 0;
    int64_t last_progress = 0;
    int consecutive_failures = 0;
    for (;;) {
      uint64_t acq = CountAcquisitions();
      double t = Elapsed();
      bool all_kinds = next >= plan.size();
      if (acq >= g_opt.acquisitions && all_kinds && t >= g_opt.duration_s) break;
      if (t > g_opt.max_duration_s) {
        g_failures.push_back("did not reach the targets within --max-duration (" +
                             std::to_string(acq) + " acquisitions" +
                             (all_kinds ? "" : ", not every fault kind injected") + ")");
        break;
      }
      ReapWorkers();
      for (const Worker &w : g_workers) {
        if (w.exited) throw std::runtime_error("worker " + w.id + " exited early (see " + w.log + ")");
      }
      if (MonotonicNs() - last_progress > 10000000000LL) {
        last_progress = MonotonicNs();
        Log("progress: %" PRIu64 " acquisitions", acq);
      }
      SleepMs(Rand(800, 2500));  // calm between faults
      Fault f;
      if (next < plan.size()) {
        f = plan[next++];
      } else {
        int pick = Rand(0, total_weight - 1);
        int k = 0;
        while (pick >= Weight(k)) pick -= Weight(k++);
        f = static_cast<Fault>(k);
      }
      try {
        Inject(f);
        consecutive_failures = 0;
      } catch (const std::exception &e) {
        Log("fault %s failed: %.500s", kFaultNames[f], e.what());
        ++g_fault_counts[std::string(kFaultNames[f]) + "(failed)"];
        if (++consecutive_failures >= 3) throw;
        Heal();
      }
    }
    Log("stopping: %" PRIu64 " acquisitions", CountAcquisitions());
    Heal();
    SleepMs(1000);
  } catch (const std::exception &e) {
    g_failures.push_back(std::string("run aborted: ") + e.what());
    Log("run aborted: %.2000s", e.what());
  }

  // Stop the workers (SIGTERM; bounded; SIGKILL as a last resort).
  for (Worker &w : g_workers) {
    if (w.pid > 0 && !w.exited) kill(w.pid, SIGTERM);
  }
  int64_t deadline = MonotonicNs() + 30000000000LL;
  for (;;) {
    ReapWorkers();
    bool all = std::all_of(g_workers.begin(), g_workers.end(),
                           [](const Worker &w) { return w.exited || w.pid <= 0; });
    if (all) break;
    if (MonotonicNs() > deadline) {
      for (Worker &w : g_workers) {
        if (!w.exited && w.pid > 0) {
          g_failures.push_back("worker " + w.id + " did not stop within 30 s of SIGTERM");
          // Where it is stuck, for the report (gdb when the machine has it).
          std::string stacks = g_dir + "/" + w.id + ".stacks";
          std::string cmd = "command -v gdb >/dev/null && timeout 30 gdb -p " + std::to_string(w.pid) +
                            " -batch -ex 'thread apply all bt' >" + stacks + " 2>&1";
          if (std::system(cmd.c_str()) == 0) Log("worker %s stacks: %s", w.id.c_str(), stacks.c_str());
          kill(w.pid, SIGKILL);
          waitpid(w.pid, &w.exit_status, 0);
          w.exited = true;
        }
      }
      break;
    }
    SleepMs(50);
  }
  for (const Worker &w : g_workers) {
    if (w.pid > 0 && !(WIFEXITED(w.exit_status) && WEXITSTATUS(w.exit_status) == 0)) {
      g_failures.push_back("worker " + w.id + " ended with status " +
                           std::to_string(w.exit_status) + " (log " + w.log + ")");
    }
  }

  // Orphans.
  if (g_ensemble) {
    std::string detail;
    try {
      if (!CheckNoOrphans(prefix, &detail)) g_failures.push_back("orphaned lock nodes: " + detail);
      else Log("no orphans: every lock path under %s is empty", prefix.c_str());
    } catch (const std::exception &e) {
      g_failures.push_back(std::string("orphan check: ") + e.what());
    }
  }

  // The verdict.
  std::map<std::string, uint64_t> worker_counts;
  for (const Worker &w : g_workers) {
    std::string error;
    if (!history.AddFile(w.history, &error)) {
      g_failures.push_back("history: " + error);
      run_ok = false;
    }
    std::ifstream in(w.history);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find(" summary ") == std::string::npos) continue;
      std::istringstream fields(line.substr(line.find(" summary ") + 9));
      for (std::string kv; fields >> kv;) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos) continue;
        worker_counts[kv.substr(0, eq)] += std::strtoull(kv.c_str() + eq + 1, nullptr, 10);
      }
    }
  }
  verdict = zkl_chaos::Check(history);

  std::printf("\n==== chaos report%s (seed %" PRIu64 ", %.0f s, %d workers, 3-node ensemble, "
              "session timeout %d ms) ====\n",
              g_opt.tls ? " over TLS" : "", g_opt.seed, Elapsed(), g_opt.workers,
              g_opt.session_timeout);
  std::printf("faults injected:");
  uint64_t nfaults = 0;
  for (int f = 0; f < kFaultKinds; ++f) {
    if (!Applicable(static_cast<Fault>(f))) {
      std::printf(" %s=n/a(TLS)", kFaultNames[f]);
      continue;
    }
    uint64_t n = g_fault_counts[kFaultNames[f]];
    nfaults += n;
    std::printf(" %s=%" PRIu64, kFaultNames[f], n);
  }
  std::printf(" (total %" PRIu64 ")\n  details:", nfaults);
  for (const auto &[k, n] : g_fault_counts) {
    if (k.find('(') != std::string::npos) std::printf(" %s=%" PRIu64, k.c_str(), n);
  }
  std::printf("\n");
  for (int f = 0; f < kFaultKinds; ++f) {
    if (!Applicable(static_cast<Fault>(f))) continue;
    if (g_fault_counts[kFaultNames[f]] == 0 && g_failures.empty()) {
      g_failures.push_back(std::string("fault kind never injected: ") + kFaultNames[f]);
    }
  }
  std::printf("acquisitions: %" PRIu64 " total;", verdict.holds);
  for (const auto &[r, n] : verdict.acquisitions) {
    std::printf(" %s=%" PRIu64, zkl_chaos::RecipeName(r), n);
  }
  std::printf("\nmax concurrency:");
  for (const auto &[p, n] : verdict.max_concurrency) std::printf(" %s=%d", p.c_str(), n);
  std::printf("\nworker observations:");
  for (const auto &[k, n] : worker_counts) {
    if (k.rfind("acquired:", 0) == 0) continue;
    std::printf(" %s=%" PRIu64, k.c_str(), n);
  }
  std::printf("\n%s", zkl_chaos::Report(history, verdict, 10).c_str());
  if (!verdict.ok()) {
    // What the driver did around each violation (first ones).
    size_t shown = 0;
    for (const zkl_chaos::Violation &x : verdict.violations) {
      if (x.at_ns == 0 || shown++ == 5) continue;
      std::printf("driver actions within 8 s before %s violation on %s:\n", x.kind.c_str(),
                  x.path.c_str());
      for (const auto &[t, what] : g_log) {
        if (t <= x.at_ns && t > x.at_ns - 8000000000LL) {
          std::printf("  %.3f s before: %s\n", static_cast<double>(x.at_ns - t) / 1e9,
                      what.c_str());
        }
      }
    }
  }
  if (worker_counts["multilock:overdue"] > 0) {
    g_failures.push_back(std::to_string(worker_counts["multilock:overdue"]) +
                         " multi-lock acquire(s) outlived their timeout by 20 s (waited forever?)");
  }
  if (worker_counts["zero-token"] > 0) {
    g_failures.push_back("the library reported fencing token 0 for " +
                         std::to_string(worker_counts["zero-token"]) + " held lock(s)");
  }
  for (const std::string &f : g_failures) std::printf("FAILURE: %s\n", f.c_str());
  bool passed = run_ok && verdict.ok() && g_failures.empty();
  std::printf("violations: %zu; seed %" PRIu64 "\n", verdict.violations.size(), g_opt.seed);

  for (Worker &w : g_workers) w.proxy.reset();
  g_ensemble.reset();
  if (passed && !g_opt.keep) {
    zkl_test::RemoveTree(g_dir);
  } else {
    std::printf("histories and logs kept in %s (check again: zkl-history-check %s/*.history)\n",
                g_dir.c_str(), g_dir.c_str());
  }
  std::printf("chaos: %d passed, %d failed\n", passed ? 1 : 0, passed ? 0 : 1);
  return passed ? 0 : 1;
}
