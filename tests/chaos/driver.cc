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
//             [--worker-bin PATH] [--tls | --netns] [--servers N] [--keep]
//             [--fence-sql CONNINFO|netns] [--lying] [--only KIND[,KIND...]]
//
// --fence-sql CONNINFO: the fenced register is a PostgreSQL database (libpq
// connection string; scripts/pg-server starts one): the driver creates the
// tables `fenced` (key, value, fence) and `fenced_log` (id, key, fence,
// value, accepted_at), the workers write through the fenced upsert of
// docs/FENCING.md and append every accepted write to fenced_log in the same
// statement. At the end the driver reads fenced_log, the database's own
// record: per key, no accepted token below one accepted before; every
// accepted write a worker reported is there (same key, token, worker), and
// every entry there was reported; the table's rows are the last entries.
// --lying: the workers run with ZKL_TEST_LYING_IS_HELD=1 (test-only: their
// is_held ignores the lease bound and says yes whenever the engine thinks
// it holds, even suspended), so their holds overlap; only the fence
// property is judged (--only fence), the overlaps found are counted, and
// the run fails unless the lie mattered (overlaps or stale yeses found) and
// the fence refused writes. --only: judge only these kinds of violation
// (zkl_chaos::CheckOptions).
// --fence-sql netns (with --netns only; scripts/chaos --netns --fence-sql
// passes it): the driver starts a throw-away PostgreSQL itself, inside the
// namespaced network: in client namespace c1 (the driver's own, which no
// fault ever cuts), on c1's address (10.77.0.101), trusting 10.77.0.0/24
// (scripts/pg-server with PG_LISTEN/PG_ALLOW, through `zk-netns exec NAME
// c1`), and stops it by pid at the end. The workers reach it from their
// client namespaces over the bridge (a worker whose namespace is unplugged
// loses the database too); the schema, and the end-of-run reading of
// fenced_log, are done from c1. Nothing in the root namespace talks to it.
//
// --tls: the same round over TLS. Certificates from scripts/test-certs (in
// the run dir), every member with a secureClientPort that requires a client
// certificate, the proxies forwarding to those ports, every worker (and the
// orphan check) with mutual TLS. The proxies see only ciphertext then, so
// the cut-after-create fault (it spots the create in the stream) is not
// injected.
//
// --netns: the ensemble in Linux network namespaces (tests/harness
// NetnsEnsemble, scripts/zk-netns; needs root), with the ZooKeeper sample
// timing (tickTime 2000, syncLimit 5: a follower cut off from the quorum
// serves its clients for 10 s). No proxies: every worker runs in a client
// namespace of its own and talks to ONE server (worker i to server
// 1 + i % N; every 4th worker to the whole ensemble), so that partitions
// put holders behind cut-off servers. The driver's own thread enters client
// namespace c1 before it creates any thread or process, so every ZooKeeper
// connection of the run (workers, session takeover, orphan check) stays
// inside the namespaces. Partition faults join the server and client
// faults: isolate-follower, isolate-leader, split (majority/minority),
// nontransitive (two servers blocked from each other only), flap (isolate
// and heal on and off), delay (netem; n/a when the kernel has none). After
// every fault the network is healed and the ensemble must be healthy again
// (bounded) before the next. The proxy faults (connection-drop,
// cut-after-create, client-blackhole) are n/a; session-expire cuts the
// worker's namespace off the bridge instead of a proxy. --servers N: N
// servers (default 3).
//
// The report ends with the smallest handover margin: over every handover
// on an exclusive path after a suspension or a loss, the time from the
// earlier holder's last "held" yes to the later holder's acquire.
//
// Runs until at least --acquisitions acquisitions were recorded, every fault
// kind was injected and --duration seconds have passed; fails if that takes
// longer than --max-duration. Exit status: 0 no violation, 1 violations or
// a failed run, 2 usage / setup error, 77 --netns skipped (network namespaces
// unavailable here, e.g. not root; a failure instead with
// ZKL_REQUIRE_NETNS=1). The last line is "chaos: 1 passed, 0 failed",
// "chaos: 0 passed, 1 failed" or "chaos: 0 passed, 0 failed, 1 skipped".
#include <fcntl.h>
#include <sched.h>
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

#ifdef ZKL_CHAOS_LIBPQ
#include <libpq-fe.h>
#endif

using zkl_chaos::MonotonicNs;
using zkl_test::FaultProxy;
using zkl_test::NetnsEnsemble;
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
  bool netns = false;  // the ensemble in network namespaces, partition faults
  int servers = 3;
  std::string fence_sql;          // the fenced register in this PostgreSQL database
  bool lying = false;             // workers with ZKL_TEST_LYING_IS_HELD=1
  std::vector<std::string> only;  // violation kinds judged (empty: all)
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
  std::unique_ptr<FaultProxy> proxy;  // none with --netns
  int server = 0;       // --netns: the one member it talks to (0: all of them)
  std::string node;     // --netns: its client namespace ("c2", ...)
  std::string history, session_file, log;
  std::streamoff read_offset = 0;
  uint64_t acquisitions = 0;
  bool holding = false;      // its history shows a hold in progress
  int64_t holding_until = 0; // planned end of that hold
};

std::vector<Worker> g_workers;
std::string g_dir;
std::string g_pg_dir;  // --fence-sql netns: the throw-away PostgreSQL's pg-server dir

// netns_fd >= 0: the child enters that network namespace before the exec.
pid_t Spawn(const std::vector<std::string> &args, const std::string &log, int netns_fd = -1) {
  std::vector<char *> argv;
  for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) _exit(126);
    // --lying: the test-only switch the core reads at client creation.
    if (g_opt.lying) setenv("ZKL_TEST_LYING_IS_HELD", "1", 1);
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
// Writes the fence refused so far (the workers' `fence ... rejected`
// records), counted as the histories are read.
uint64_t g_fence_rejected_live = 0;

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
        if (line.compare(0, 6, "fence ") == 0 && line.find(" rejected") != std::string::npos) {
          ++g_fence_rejected_live;
        }
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
  // --netns only: real network partitions between the servers.
  kIsolateFollower,
  kIsolateLeader,
  kSplit,
  kNontransitive,
  kFlap,
  kDelay,
  kFaultKinds
};
const char *kFaultNames[kFaultKinds] = {
    "leader-kill",      "follower-kill",    "server-pause",   "connection-drop",
    "cut-after-create", "client-blackhole", "session-expire", "ensemble-restart",
    "client-freeze",    "isolate-follower", "isolate-leader", "split",
    "nontransitive",    "flap",             "delay"};
const int kFaultWeights[kFaultKinds] = {2, 2, 2, 3, 3, 2, 3, 1, 3, 3, 2, 2, 2, 2, 2};

bool NetnsOnly(Fault f) { return f >= kIsolateFollower; }
bool NeedsProxy(Fault f) {
  return f == kConnectionDrop || f == kCutAfterCreate || f == kClientBlackhole;
}

// Why netem delays can not be made here ("" while they can, or not tried yet).
std::string g_delay_unavailable;

// Why fault f is not injected in this run ("" when it is). Over TLS the
// proxy forwards ciphertext: it cannot tell a create from any other request,
// so it cannot cut right after one. With --netns there are no proxies.
std::string NotApplicable(Fault f) {
  if (NetnsOnly(f) && !g_opt.netns) return "netns only";
  if (g_opt.netns && NeedsProxy(f)) return "netns";
  if (g_opt.tls && f == kCutAfterCreate) return "TLS";
  if (f == kDelay && !g_delay_unavailable.empty()) return g_delay_unavailable;
  return "";
}
bool Applicable(Fault f) { return NotApplicable(f).empty(); }
int Weight(int f) { return Applicable(static_cast<Fault>(f)) ? kFaultWeights[f] : 0; }

std::map<std::string, uint64_t> g_fault_counts;  // injected, by name (+ details)
std::vector<std::string> g_failures;             // run failures (not history violations)

std::unique_ptr<ZkEnsemble> g_ensemble;    // loopback mode
std::unique_ptr<NetnsEnsemble> g_netns;    // --netns
std::vector<int> g_netns_fds;              // [j]: open fd of client namespace cj (-1: none)

// The ensemble, whichever mode.
int Servers() { return g_netns ? g_netns->size() : g_ensemble->size(); }
zkl_test::ZkServer &Member(int k) { return g_netns ? g_netns->member(k) : g_ensemble->member(k); }
int LeaderIndex() { return g_netns ? g_netns->LeaderIndex() : g_ensemble->LeaderIndex(); }
// All members, as a client connect string (plaintext ports).
std::string Connect() { return g_netns ? g_netns->connect() : g_ensemble->connect(); }

// Network disturbances (--netns) from cut to heal, for the margin report.
struct Window {
  int64_t begin_ns = 0, end_ns = 0;
  std::string what;
};
std::vector<Window> g_windows;

// Starts member k again, retrying a few times (bounded).
void StartMember(int k, bool wait_for_quorum) {
  for (int attempt = 1;; ++attempt) {
    try {
      Member(k).Start(wait_for_quorum);
      return;
    } catch (const std::exception &e) {
      Log("starting member %d failed (attempt %d): %.300s", k, attempt, e.what());
      if (attempt == 3) throw;
      try {
        Member(k).Kill();
      } catch (...) {
      }
      SleepMs(1000);
    }
  }
}

int WaitLeader() {
  int k = g_netns ? g_netns->WaitForLeader(std::chrono::milliseconds(60000))
                  : g_ensemble->WaitForLeader(std::chrono::milliseconds(60000));
  if (k == 0) throw std::runtime_error("no leader within 60 s");
  return k;
}

void KillAndRestart(int k, const char *what) {
  int down = Rand(300, 3000);
  Log("fault %s: kill member %d, down %d ms", what, k, down);
  Member(k).Kill();
  SleepMs(down);
  StartMember(k, true);
  Log("  member %d back; leader now %d", k, LeaderIndex());
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

// --netns: "s2 (leader; w2 w5 behind it, w2 holding)" for the log.
std::string ServerDesc(int k, int leader) {
  CountAcquisitions();
  std::string d = "s" + std::to_string(k) + (k == leader ? " (leader" : " (follower");
  std::string behind, holding;
  for (const Worker &w : g_workers) {
    if (w.server != k) continue;
    behind += " " + w.id;
    if (w.holding) holding += " " + w.id;
  }
  if (!behind.empty()) d += ";" + behind + " behind it";
  if (!holding.empty()) d += ";" + holding + " holding";
  return d + ")";
}

// --netns: the servers among `candidates` behind which a worker (one that
// talks to that server only) holds something for at least `min_left_ms`
// more.
std::vector<int> ServersWithHolder(const std::vector<int> &candidates, int min_left_ms) {
  CountAcquisitions();
  std::vector<int> out;
  for (int k : candidates) {
    for (const Worker &w : g_workers) {
      if (w.server == k && w.holding &&
          w.holding_until - MonotonicNs() >= int64_t{min_left_ms} * 1000000) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

// --netns: one of `candidates` for a partition. Three times in four it waits
// (up to 6 s) for a long hold behind one of them (a cut then hits a holder
// that is still using its lock when its server loses the quorum: the case
// that matters), else any holder behind one; otherwise, or when there is
// none, any of them.
int PickServerOf(const std::vector<int> &candidates) {
  if (Rand(0, 3) != 0) {
    int64_t deadline = MonotonicNs() + 6000000000LL;
    for (;;) {
      std::vector<int> with = ServersWithHolder(candidates, 3000);
      if (with.empty() && MonotonicNs() >= deadline) with = ServersWithHolder(candidates, 0);
      if (!with.empty()) {
        ++g_fault_counts["partition-of-a-holder's-server(targeted)"];
        return with[Rand(0, static_cast<int>(with.size()) - 1)];
      }
      if (MonotonicNs() >= deadline) break;
      SleepMs(50);
    }
  }
  return candidates[Rand(0, static_cast<int>(candidates.size()) - 1)];
}

// A server other than `not_k` (0: any), see PickServerOf.
int PickServer(int not_k) {
  std::vector<int> all;
  for (int k = 1; k <= Servers(); ++k) {
    if (k != not_k) all.push_back(k);
  }
  return PickServerOf(all);
}

std::string Members(const std::vector<int> &ks) {
  std::string s;
  for (int k : ks) s += (s.empty() ? "s" : ",s") + std::to_string(k);
  return s;
}

// --netns: keeps a partition in force for `ms`, then heals the network.
void HoldPartition(int ms, const std::string &what) {
  Window win;
  win.begin_ns = MonotonicNs();
  win.what = what;
  SleepMs(ms);
  g_netns->Heal();
  win.end_ns = MonotonicNs();
  g_windows.push_back(win);
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
      while (k == leader) k = Rand(1, Servers());
      KillAndRestart(k, kFaultNames[f]);
      break;
    }
    case kServerPause: {
      int k = Rand(1, Servers());
      int leader = LeaderIndex();
      // Sometimes shorter, sometimes longer than the session timeout.
      int ms = Rand(500, g_opt.session_timeout + 2500);
      Log("fault %s: SIGSTOP member %d (%s) for %d ms", kFaultNames[f], k,
          k == leader ? "leader" : "follower", ms);
      Member(k).Pause();
      SleepMs(ms);
      Member(k).Resume();
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
      // fencing protects against that — see README.md.) The cut: the
      // worker's proxy black-holes it; with --netns its client namespace is
      // unplugged from the bridge (silently, as a black-hole).
      Worker &w = PickWorker(g_opt.session_timeout * 2 / 3);
      int64_t id = 0;
      std::string pw;
      if (!ReadSession(w, &id, &pw)) {
        Log("fault %s: %s has no session published yet; skipped", kFaultNames[f], w.id.c_str());
        return;
      }
      Log("fault %s: cut %s off%s, then expire its session", kFaultNames[f], w.id.c_str(),
          g_netns ? (" (unplug " + w.node + ")").c_str() : "");
      FaultProxy::Stats before;
      Window win;
      win.begin_ns = MonotonicNs();
      win.what = std::string(kFaultNames[f]) + " " + w.node;
      if (g_netns) {
        g_netns->Unplug(w.node);
      } else {
        before = w.proxy->stats();
        w.proxy->SetBlackhole(true);
      }
      SleepMs(g_opt.session_timeout * 2 / 3 + 300);
      // The takeover is a plain ZooKeeper client, so it uses the plaintext
      // client ports, also with --tls: the same servers, the same sessions.
      // With --netns it runs in the driver's client namespace (c1).
      bool ok = zkl_test::ExpireSession(Connect(), id, pw, std::chrono::milliseconds(15000));
      int heal = Rand(0, 2000);
      SleepMs(heal);
      if (g_netns) {
        g_netns->Plug(w.node);
        win.end_ns = MonotonicNs();
        g_windows.push_back(win);
      } else {
        w.proxy->SetBlackhole(false);
      }
      Log("  %s's session %" PRIx64 " %s, reconnect allowed %d ms later", w.id.c_str(), static_cast<uint64_t>(id),
          ok ? "expired" : "NOT expired (already gone?)", heal);
      if (!g_netns) CountBlackholed(w, before);
      if (!ok) return;
      break;
    }
    case kEnsembleRestart: {
      bool crash = Rand(0, 1) == 1;
      int down = Rand(200, 2000);
      Log("fault %s: %s all members, down %d ms", kFaultNames[f], crash ? "kill" : "stop", down);
      for (int k = 1; k <= Servers(); ++k) {
        if (crash) Member(k).Kill();
        else Member(k).Stop();
      }
      SleepMs(down);
      for (int k = 1; k <= Servers(); ++k) StartMember(k, false);
      int leader = WaitLeader();
      Log("  ensemble back; leader %d", leader);
      break;
    }
    case kIsolateFollower:
    case kIsolateLeader: {
      // Server k cut off from the other servers; its clients still reach it
      // and it serves them until it notices (syncLimit x tickTime) — while
      // the quorum expires their sessions and grants their locks to others.
      int leader = WaitLeader();
      int k = f == kIsolateLeader ? PickServerOf({leader}) : PickServer(leader);
      int ms = Rand(2000, 12000);
      std::string desc = ServerDesc(k, leader);
      Log("fault %s: isolate %s from the other servers for %d ms", kFaultNames[f], desc.c_str(), ms);
      g_netns->Isolate(k);
      HoldPartition(ms, std::string(kFaultNames[f]) + " s" + std::to_string(k));
      break;
    }
    case kSplit: {
      // A minority (1 of 3, 2 of 5) cut from the majority; half the time
      // with the leader in the minority.
      int leader = WaitLeader();
      int n = Servers();
      std::vector<int> order;
      for (int k = 1; k <= n; ++k) order.push_back(k);
      std::shuffle(order.begin(), order.end(), g_rng);
      bool leader_in = Rand(0, 1) == 1;
      std::vector<int> minority;
      // The leader, or a follower (preferably with a holder behind it).
      minority.push_back(leader_in ? PickServerOf({leader}) : PickServer(leader));
      for (int k : order) {
        if (static_cast<int>(minority.size()) == (n - 1) / 2) break;
        if (k != leader && k != minority.front()) minority.push_back(k);
      }
      std::sort(minority.begin(), minority.end());
      std::vector<int> majority;
      for (int k = 1; k <= n; ++k) {
        if (std::find(minority.begin(), minority.end(), k) == minority.end()) majority.push_back(k);
      }
      int ms = Rand(3000, 12000);
      Log("fault %s: %s | %s (leader s%d) for %d ms", kFaultNames[f], Members(minority).c_str(),
          Members(majority).c_str(), leader, ms);
      g_netns->Split(minority);
      HoldPartition(ms, std::string(kFaultNames[f]) + " " + Members(minority));
      ++g_fault_counts[std::string(kFaultNames[f]) + (leader_in ? "(leader in the minority)"
                                                                  : "(leader in the majority)")];
      break;
    }
    case kNontransitive: {
      // A and C do not see each other; both see B (and everyone else).
      int leader = WaitLeader();
      int a = Rand(1, Servers());
      int c = a;
      while (c == a) c = Rand(1, Servers());
      int ms = Rand(3000, 12000);
      Log("fault %s: block s%d <-> s%d only (leader s%d) for %d ms", kFaultNames[f], a, c, leader, ms);
      g_netns->Block("s" + std::to_string(a), "s" + std::to_string(c));
      HoldPartition(ms, std::string(kFaultNames[f]) + " s" + std::to_string(a) + "/s" +
                            std::to_string(c));
      ++g_fault_counts[std::string(kFaultNames[f]) +
                       (a == leader || c == leader ? "(leader cut from one follower)"
                                                   : "(followers cut from each other)")];
      break;
    }
    case kFlap: {
      int leader = WaitLeader();
      int k = PickServer(0);
      int times = Rand(3, 6);
      Log("fault %s: isolate and heal %s %d times", kFaultNames[f], ServerDesc(k, leader).c_str(), times);
      for (int i = 0; i < times; ++i) {
        int on = Rand(500, 2000), off = Rand(500, 2000);
        g_netns->Isolate(k);
        HoldPartition(on, std::string(kFaultNames[f]) + " s" + std::to_string(k));
        SleepMs(off);
      }
      break;
    }
    case kDelay: {
      // netem delay on one server's (or one worker namespace's) outgoing
      // packets.
      int leader = WaitLeader();
      std::string node, desc;
      if (Rand(0, 2) != 0) {
        int k = PickServer(0);
        node = "s" + std::to_string(k);
        desc = ServerDesc(k, leader);
      } else {
        Worker &w = PickWorker();
        node = w.node;
        desc = w.node + " (" + w.id + ")";
      }
      int delay = Rand(20, 1500);
      int ms = Rand(3000, 12000);
      zkl_test::CommandResult r = zkl_test::RunCommand(
          {zkl_test::ZkNetnsScript(), "delay", g_netns->name(), node, std::to_string(delay)});
      if (r.exit_code == 77) {
        std::string why = r.output;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        if (why.rfind("zk-netns: ", 0) == 0) why = why.substr(10);
        g_delay_unavailable = why.empty() ? "netem unavailable" : why;
        Log("fault %s: not applicable here: %s", kFaultNames[f], g_delay_unavailable.c_str());
        return;
      }
      if (r.exit_code != 0) {
        throw std::runtime_error("zk-netns delay failed (exit " + std::to_string(r.exit_code) +
                                 "): " + r.output);
      }
      Log("fault %s: %d ms on %s for %d ms", kFaultNames[f], delay, desc.c_str(), ms);
      HoldPartition(ms, std::string(kFaultNames[f]) + " " + node);
      ++g_fault_counts[std::string(kFaultNames[f]) + (node[0] == 's' ? "(server)" : "(client)")];
      break;
    }
    default: return;
  }
  ++g_fault_counts[kFaultNames[f]];
}

// Makes sure the network is whole (--netns), every member runs and a leader
// exists; with --netns waits (bounded) until the ensemble is healthy: every
// member leader or follower, one leader. Called after every fault with
// --netns, and after a failed fault.
void Heal() {
  if (g_netns) g_netns->Heal();
  for (int k = 1; k <= Servers(); ++k) {
    zkl_test::ZkServer &m = Member(k);
    if (m.paused()) m.Resume();
  }
  int64_t t0 = MonotonicNs();
  // With --netns a member that was cut off takes a while to rejoin (it
  // looks for a leader first): give it that before restarting anything.
  if (g_netns && g_netns->WaitHealthy(std::chrono::milliseconds(90000))) {
    bool all_serve = true;
    for (int k = 1; k <= Servers() && all_serve; ++k) all_serve = !Member(k).Mode().empty();
    if (all_serve) {
      double s = static_cast<double>(MonotonicNs() - t0) / 1e9;
      if (s >= 1) Log("  healthy after %.1f s (leader s%d)", s, LeaderIndex());
      return;
    }
  }
  for (int k = 1; k <= Servers(); ++k) {
    zkl_test::ZkServer &m = Member(k);
    if (m.Mode().empty()) {
      try {
        Log("heal: member %d does not serve; restarting it", k);
        m.Kill();
        StartMember(k, false);
      } catch (const std::exception &e) {
        Log("heal: member %d: %.300s", k, e.what());
      }
    }
  }
  for (Worker &w : g_workers) {
    if (w.proxy) w.proxy->SetBlackhole(false);
  }
  WaitLeader();
  if (g_netns && !g_netns->WaitHealthy(std::chrono::milliseconds(90000))) {
    throw std::runtime_error("the ensemble is not healthy within 90 s of a restart");
  }
}

// ---------------------------------------------------------------------------
// No orphans: once every worker closed its client and the sessions they
// abandoned expired, no lock path may keep a child node.

// A ZooKeeper handle for the checks; with --tls over the secure ports with
// the workers' certificates (verified, host name included).
// With --netns the calling thread is in client namespace c1, and so are the
// handle's threads.
zhandle_t *CheckerHandle() {
  if (!g_opt.tls) {
    return zookeeper_init(Connect().c_str(), nullptr, 10000, nullptr, nullptr, 0);
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

// ---------------------------------------------------------------------------
// The fenced register in PostgreSQL (--fence-sql).

struct DbVerdict {
  bool checked = false;
  uint64_t logged = 0;      // accepted writes in fenced_log
  uint64_t keys = 0;
  uint64_t stale = 0;       // entries with a token below an earlier one of the key
  uint64_t reported = 0;    // accepted writes the workers reported
  uint64_t unreported = 0;  // log entries no worker reported
  uint64_t unknown = 0;     // reported accepted, not in the log (or different)
  uint64_t rows_wrong = 0;  // table rows that are not their key's last entry
  std::vector<std::string> problems;
};

#ifdef ZKL_CHAOS_LIBPQ
const char *kSqlSchema =
    "SET client_min_messages = warning;"
    "DROP TABLE IF EXISTS fenced, fenced_log;"
    "CREATE TABLE fenced (key text PRIMARY KEY, value text NOT NULL, fence bigint NOT NULL);"
    "CREATE TABLE fenced_log (id bigserial PRIMARY KEY, key text NOT NULL,"
    " fence bigint NOT NULL, value text NOT NULL,"
    " accepted_at timestamptz NOT NULL DEFAULT clock_timestamp())";

PGconn *DbConnect() {
  PGconn *db = PQconnectdb(g_opt.fence_sql.c_str());
  if (PQstatus(db) != CONNECTION_OK) {
    std::string err = PQerrorMessage(db);
    PQfinish(db);
    throw std::runtime_error("postgres (" + g_opt.fence_sql + "): " + err);
  }
  return db;
}

void DbCreateSchema() {
  PGconn *db = DbConnect();
  PGresult *r = PQexec(db, kSqlSchema);
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  std::string err = PQerrorMessage(db);
  PQclear(r);
  PQfinish(db);
  if (!ok) throw std::runtime_error("creating the fenced tables: " + err);
}

// The database's own record against itself and against the workers'.
DbVerdict DbCheck(const zkl_chaos::History &h) {
  DbVerdict v;
  PGconn *db = DbConnect();
  auto problem = [&](const std::string &p) {
    if (v.problems.size() < 10) v.problems.push_back(p);
  };
  struct Entry {
    std::string key, value;
    uint64_t fence = 0;
    bool reported = false;
  };
  std::map<uint64_t, Entry> log;
  PGresult *r = PQexec(db, "SELECT id, key, fence, value FROM fenced_log ORDER BY id");
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    std::string err = PQerrorMessage(db);
    PQclear(r);
    PQfinish(db);
    throw std::runtime_error("reading fenced_log: " + err);
  }
  std::map<std::string, std::pair<uint64_t, uint64_t>> highest;  // key -> (fence, id)
  std::map<std::string, uint64_t> last;                           // key -> id
  for (int i = 0; i < PQntuples(r); ++i) {
    uint64_t id = std::strtoull(PQgetvalue(r, i, 0), nullptr, 10);
    Entry e{PQgetvalue(r, i, 1), PQgetvalue(r, i, 3), std::strtoull(PQgetvalue(r, i, 2), nullptr, 10)};
    auto [it, fresh] = highest.emplace(e.key, std::make_pair(e.fence, id));
    if (!fresh) {
      if (e.fence < it->second.first) {
        ++v.stale;
        problem("fenced_log: key " + e.key + " accepted token " + std::to_string(e.fence) + " (id " +
                std::to_string(id) + ", " + e.value + ") after token " +
                std::to_string(it->second.first) + " (id " + std::to_string(it->second.second) + ")");
      } else {
        it->second = {e.fence, id};
      }
    }
    last[e.key] = id;
    log.emplace(id, std::move(e));
  }
  PQclear(r);
  v.logged = log.size();
  v.keys = highest.size();
  // Every accepted write a worker reported is in the log, as reported.
  for (const zkl_chaos::FenceUse &f : h.fences()) {
    if (!f.accepted) continue;
    ++v.reported;
    auto it = log.find(f.order);
    std::string who = f.worker + " token " + std::to_string(f.token) + " on " + f.path;
    if (f.order == 0 || it == log.end()) {
      ++v.unknown;
      problem("a write " + who + " reported accepted (id " + std::to_string(f.order) +
              ") is not in fenced_log");
      continue;
    }
    Entry &e = it->second;
    if (e.key != f.path || e.fence != f.token || e.value.rfind(f.worker + "/", 0) != 0 || e.reported) {
      ++v.unknown;
      problem("fenced_log id " + std::to_string(f.order) + " is " + e.key + " " +
              std::to_string(e.fence) + " " + e.value + ", reported as " + who);
      continue;
    }
    e.reported = true;
  }
  for (const auto &[id, e] : log) {
    if (e.reported) continue;
    ++v.unreported;
    problem("fenced_log id " + std::to_string(id) + " (" + e.key + " " + std::to_string(e.fence) +
            " " + e.value + ") was reported by no worker");
  }
  // The table holds each key's last accepted write.
  r = PQexec(db, "SELECT key, fence, value FROM fenced");
  if (PQresultStatus(r) == PGRES_TUPLES_OK) {
    for (int i = 0; i < PQntuples(r); ++i) {
      std::string key = PQgetvalue(r, i, 0);
      uint64_t fence = std::strtoull(PQgetvalue(r, i, 1), nullptr, 10);
      auto it = last.find(key);
      if (it == last.end() || log[it->second].fence != fence || log[it->second].value != PQgetvalue(r, i, 2)) {
        ++v.rows_wrong;
        problem("row " + key + " (fence " + std::to_string(fence) + ") is not its last logged write");
      }
    }
    if (static_cast<uint64_t>(PQntuples(r)) != v.keys) {
      ++v.rows_wrong;
      problem("fenced has " + std::to_string(PQntuples(r)) + " rows, fenced_log " +
              std::to_string(v.keys) + " keys");
    }
  } else {
    problem(std::string("reading fenced: ") + PQerrorMessage(db));
    ++v.rows_wrong;
  }
  PQclear(r);
  PQfinish(db);
  v.checked = true;
  return v;
}
#else
void DbCreateSchema() {
  throw std::runtime_error("--fence-sql: zkl-chaos was built without libpq (apt-get install libpq-dev)");
}
DbVerdict DbCheck(const zkl_chaos::History &) { return {}; }
#endif

// --fence-sql netns: a throw-away PostgreSQL inside the namespaced network.

// scripts/pg-server beside scripts/zk-server (or $ZKL_PG_SERVER_SCRIPT).
std::string PgServerScript() {
  if (const char *s = std::getenv("ZKL_PG_SERVER_SCRIPT"); s != nullptr && *s != '\0') return s;
  std::string script = zkl_test::ZkServerScript();
  return script.substr(0, script.find_last_of('/') + 1) + "pg-server";
}

// Starts it in client namespace c1 on c1's address; returns its conninfo
// (with a connect timeout). Throws on failure.
std::string StartNetnsPostgres() {
  zkl_test::CommandResult a = zkl_test::RunCommand({zkl_test::ZkNetnsScript(), "addr", g_netns->name(), "c1"});
  std::string addr = a.output;
  while (!addr.empty() && (addr.back() == '\n' || addr.back() == ' ')) addr.pop_back();
  if (a.exit_code != 0 || addr.empty() || addr.find('.') == std::string::npos) {
    throw std::runtime_error("zk-netns addr " + g_netns->name() + " c1: " + a.output);
  }
  std::string subnet = addr.substr(0, addr.rfind('.')) + ".0/24";
  g_pg_dir = g_dir + "/pg";
  // The server and its owner watcher live in c1; pg-server refuses a
  // namespace address outside a named namespace.
  zkl_test::CommandResult r = zkl_test::RunCommand(
      {zkl_test::ZkNetnsScript(), "exec", g_netns->name(), "c1", PgServerScript(), "start", g_pg_dir},
      {"PG_LISTEN=" + addr, "PG_ALLOW=" + subnet, "PG_OWNER_PID=" + std::to_string(getpid())});
  std::string conninfo;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("host=", 0) == 0) conninfo = line;
  }
  if (r.exit_code != 0 || conninfo.empty()) {
    throw std::runtime_error("PostgreSQL did not start in " + g_netns->netns_name("c1") +
                             " (pg-server, exit " + std::to_string(r.exit_code) + "): " + r.output);
  }
  return conninfo + " connect_timeout=10";
}

// Stops it by its recorded pid (bounded: pg-server stop); idempotent.
void StopNetnsPostgres() {
  if (g_pg_dir.empty()) return;
  zkl_test::CommandResult r = zkl_test::RunCommand({PgServerScript(), "stop", g_pg_dir});
  if (r.exit_code != 0) {
    g_failures.push_back("stopping PostgreSQL (pg-server stop " + g_pg_dir + "): " + r.output);
  } else {
    Log("PostgreSQL stopped");
  }
  g_pg_dir.clear();
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: zkl-chaos [--ci] [--seed N] [--duration S] [--acquisitions N]\n"
               "                 [--max-duration S] [--workers N] [--session-timeout MS]\n"
               "                 [--worker-bin PATH] [--tls | --netns] [--servers N] [--keep]\n"
               "                 [--fence-sql CONNINFO|netns] [--lying] [--only KIND[,KIND...]]\n");
  std::exit(2);
}

void ParseArgs(int argc, char **argv) {
  bool ci = false, duration = false, acquisitions = false, max_duration = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) Usage();
      return argv[++i];
    };
    if (k == "--ci") {
      ci = true;
    } else if (k == "--seed") {
      g_opt.seed = std::strtoull(val().c_str(), nullptr, 10);
      g_opt.seed_given = true;
    } else if (k == "--duration") {
      g_opt.duration_s = std::atoi(val().c_str());
      duration = true;
    } else if (k == "--acquisitions") {
      g_opt.acquisitions = std::strtoull(val().c_str(), nullptr, 10);
      acquisitions = true;
    } else if (k == "--max-duration") {
      g_opt.max_duration_s = std::atoi(val().c_str());
      max_duration = true;
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
    } else if (k == "--netns") {
      g_opt.netns = true;
    } else if (k == "--servers") {
      g_opt.servers = std::atoi(val().c_str());
    } else if (k == "--fence-sql") {
      g_opt.fence_sql = val();
    } else if (k == "--lying") {
      g_opt.lying = true;
    } else if (k == "--only") {
      std::string kinds = val();
      for (size_t pos = 0; pos <= kinds.size();) {
        size_t comma = kinds.find(',', pos);
        if (comma == std::string::npos) comma = kinds.size();
        if (comma > pos) g_opt.only.push_back(kinds.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else {
      Usage();
    }
  }
  // --ci: a CI-sized round (explicit --duration/--acquisitions/
  // --max-duration win). With --netns: fewer acquisitions (partitions stall
  // the holders behind the cut-off servers for seconds), more time (every
  // partition waits for a healthy ensemble afterwards).
  if (ci) {
    if (!duration) g_opt.duration_s = 60;
    if (!acquisitions) g_opt.acquisitions = g_opt.netns ? 1000 : 2000;
    if (!max_duration) g_opt.max_duration_s = g_opt.netns ? 300 : 200;
  }
  if (g_opt.workers < 2 || g_opt.workers > 32 || g_opt.duration_s < 1 ||
      g_opt.session_timeout < 1000 || g_opt.servers < 3 || g_opt.servers > 9) {
    Usage();
  }
  if (g_opt.tls && g_opt.netns) {
    std::fprintf(stderr, "zkl-chaos: --tls and --netns do not combine (yet)\n");
    std::exit(2);
  }
  // The workers of --netns live in client namespaces: a database on the
  // root namespace's loopback is out of their reach (and nothing may connect
  // from there to the namespaces), so the driver starts one inside them.
  if (g_opt.netns && !g_opt.fence_sql.empty() && g_opt.fence_sql != "netns") {
    std::fprintf(stderr,
                 "zkl-chaos: with --netns the database runs inside the namespaces: "
                 "--fence-sql netns (scripts/chaos --netns --fence-sql)\n");
    std::exit(2);
  }
  if (!g_opt.netns && g_opt.fence_sql == "netns") {
    std::fprintf(stderr, "zkl-chaos: --fence-sql netns needs --netns\n");
    std::exit(2);
  }
  if (g_opt.max_duration_s == 0) g_opt.max_duration_s = std::max(3 * g_opt.duration_s, 900);
  // A lying is_held makes holds overlap on purpose: only the fence is judged.
  if (g_opt.lying && g_opt.only.empty()) g_opt.only = {"fence"};
}

}  // namespace

int main(int argc, char **argv) {
  ParseArgs(argc, argv);
  if (g_opt.netns) {
    // Not root, no `ip`, ...: a skip (exit 77), or a failure when
    // ZKL_REQUIRE_NETNS=1.
    std::string why = NetnsEnsemble::NetnsUnavailable();
    if (!why.empty()) {
      const char *req = std::getenv("ZKL_REQUIRE_NETNS");
      if (req != nullptr && std::string(req) == "1") {
        std::printf("FAILURE: network namespaces unavailable (ZKL_REQUIRE_NETNS=1): %s\n", why.c_str());
        std::printf("chaos: 0 passed, 1 failed\n");
        return 1;
      }
      std::printf("chaos: --netns skipped: network namespaces unavailable: %s\n", why.c_str());
      std::printf("chaos: 0 passed, 0 failed, 1 skipped\n");
      return 77;
    }
  }
  if (!g_opt.seed_given) {
    g_opt.seed = static_cast<uint64_t>(MonotonicNs()) ^ (static_cast<uint64_t>(getpid()) << 32);
    g_opt.seed %= 1000000000;
  }
  g_rng.seed(g_opt.seed);
  g_start_ns = MonotonicNs();
  signal(SIGPIPE, SIG_IGN);
  std::string replay = g_opt.tls ? " --tls" : g_opt.netns ? " --netns" : "";
  if (g_opt.servers != 3) replay += " --servers " + std::to_string(g_opt.servers);
  if (!g_opt.fence_sql.empty()) replay += g_opt.netns ? " --fence-sql netns" : " --fence-sql CONNINFO";
  if (g_opt.lying) replay += " --lying";
  std::printf("chaos: seed %" PRIu64 " (replay with --seed %" PRIu64 "%s), %d workers%s, %d servers%s, "
              "session timeout %d ms, target >= %" PRIu64 " acquisitions and >= %d s (at most %d s)\n",
              g_opt.seed, g_opt.seed, replay.c_str(), g_opt.workers, g_opt.tls ? " over TLS" : "",
              g_opt.servers, g_opt.netns ? " in network namespaces" : "", g_opt.session_timeout,
              g_opt.acquisitions, g_opt.duration_s, g_opt.max_duration_s);
  std::fflush(stdout);

  // The servers need no fsync for process crashes (the OS keeps the data).
  std::string java_opts = getenv("ZK_JAVA_OPTS") ? getenv("ZK_JAVA_OPTS") : "";
  setenv("ZK_JAVA_OPTS", (java_opts + " -Dzookeeper.forceSync=no").c_str(), 1);

  g_dir = zkl_test::MakeTempDir("zkl-chaos-");
  std::string resource = g_dir + "/resource";
  mkdir(resource.c_str(), 0755);
  std::string prefix = "/chaos-" + std::to_string(g_opt.seed);
  bool run_ok = true;
  bool in_client_netns = false;  // --netns: this thread is in client namespace c1
  zkl_chaos::History history;
  zkl_chaos::Verdict verdict;
  try {
    zkl_test::QuietZkClientLogs();
    std::vector<std::string> server_env;
    if (!g_opt.fence_sql.empty() && !g_opt.netns) {
      DbCreateSchema();
      Log("fenced register: PostgreSQL (%s), tables fenced and fenced_log%s", g_opt.fence_sql.c_str(),
          g_opt.lying ? "; workers' is_held LIES (ZKL_TEST_LYING_IS_HELD=1)" : "");
    } else if (g_opt.lying) {
      Log("workers' is_held LIES (ZKL_TEST_LYING_IS_HELD=1); fenced register: files");
    }

    if (g_opt.tls) {
      std::string certs = g_dir + "/certs";
      zkl_test::MakeTestCerts(certs);
      g_tls = {certs + "/ca.pem", certs + "/client.crt", certs + "/client.key"};
      server_env = {"ZK_TLS_DIR=" + certs, "ZK_TLS_CLIENT_AUTH=need"};
    }
    // Client namespaces (--netns): c1 for the driver, c2.. for the workers
    // (one each, shared beyond 8 workers).
    const int worker_namespaces = std::min(g_opt.workers, 8);
    std::string servers;
    if (g_opt.netns) {
      zkl_test::NetnsOptions no;
      no.servers = g_opt.servers;
      no.clients = 1 + worker_namespaces;
      no.tick_ms = 2000;
      no.sync_limit = 5;
      g_netns = NetnsEnsemble::Start(no);
      // Before any thread or process of ours exists: from here on every
      // ZooKeeper connection of this process is made inside c1, and the
      // workers are moved into their namespaces before their exec.
      if (!g_netns->EnterClientNamespace(1)) {
        throw std::runtime_error(std::string("cannot enter client namespace c1: ") +
                                 std::strerror(errno));
      }
      in_client_netns = true;
      g_netns_fds.assign(static_cast<size_t>(no.clients) + 1, -1);
      for (int j = 2; j <= no.clients; ++j) {
        std::string ns = "/run/netns/" + g_netns->netns_name("c" + std::to_string(j));
        g_netns_fds[static_cast<size_t>(j)] = open(ns.c_str(), O_RDONLY | O_CLOEXEC);
        if (g_netns_fds[static_cast<size_t>(j)] < 0) {
          throw std::runtime_error("open " + ns + ": " + std::strerror(errno));
        }
      }
      Log("ensemble up in network namespaces %s-*: %s (leader s%d; tickTime 2000, syncLimit 5)",
          g_netns->name().c_str(), g_netns->connect().c_str(), g_netns->LeaderIndex());
      if (!g_opt.fence_sql.empty()) {
        // In c1, which no fault cuts: the workers reach it over the bridge;
        // this thread (in c1) makes the schema and reads the log at the end.
        g_opt.fence_sql = StartNetnsPostgres();
        DbCreateSchema();
        Log("fenced register: PostgreSQL in namespace %s (%s; the driver's own, never cut), "
            "tables fenced and fenced_log%s",
            g_netns->netns_name("c1").c_str(), g_opt.fence_sql.c_str(),
            g_opt.lying ? "; workers' is_held LIES (ZKL_TEST_LYING_IS_HELD=1)" : "");
      }
    } else {
      g_ensemble = ZkEnsemble::Start(g_opt.servers, server_env);
      if (g_opt.tls && g_ensemble->secure_connect().empty()) {
        throw std::runtime_error("the ensemble has no TLS ports (scripts/zk-server too old?)");
      }
      // What the clients connect to (through their proxies).
      servers = g_opt.tls ? g_ensemble->secure_connect() : g_ensemble->connect();
      Log("ensemble up: %s%s%s (leader %d)", g_ensemble->connect().c_str(),
          g_opt.tls ? ", TLS " : "", g_opt.tls ? servers.c_str() : "", g_ensemble->LeaderIndex());
    }

    std::mt19937_64 worker_seeds(g_opt.seed ^ 0x5eed);
    for (int i = 0; i < g_opt.workers; ++i) {
      Worker w;
      w.id = "w" + std::to_string(i + 1);
      if (g_opt.netns) {
        // One server each (so that partitions put holders behind cut-off
        // servers); every 4th worker the whole ensemble.
        w.server = i % 4 == 3 ? 0 : 1 + i % g_opt.servers;
        w.node = "c" + std::to_string(2 + i % worker_namespaces);
      } else {
        w.proxy = std::make_unique<FaultProxy>();
        w.proxy->Start(servers);
      }
      w.history = g_dir + "/" + w.id + ".history";
      w.session_file = g_dir + "/" + w.id + ".session";
      w.log = g_dir + "/" + w.id + ".log";
      g_workers.push_back(std::move(w));
    }
    for (Worker &w : g_workers) {
      std::string connect = !g_opt.netns  ? w.proxy->connect()
                            : w.server > 0 ? g_netns->connect_of(w.server)
                                           : g_netns->connect();
      std::vector<std::string> args = {
          g_opt.worker_bin, "--id", w.id, "--servers", connect,
          "--history", w.history, "--session-file", w.session_file, "--resource",
          resource, "--prefix", prefix, "--seed", std::to_string(worker_seeds()),
          "--session-timeout", std::to_string(g_opt.session_timeout),
          "--max-seconds", std::to_string(g_opt.max_duration_s + 120)};
      if (g_opt.tls) {
        args.insert(args.end(), {"--tls-ca", g_tls.ca, "--tls-cert", g_tls.cert,
                                 "--tls-key", g_tls.key});
      }
      if (!g_opt.fence_sql.empty()) args.insert(args.end(), {"--fence-sql", g_opt.fence_sql});
      int fd = g_opt.netns ? g_netns_fds[static_cast<size_t>(std::stoi(w.node.substr(1)))] : -1;
      w.pid = Spawn(args, w.log, fd);
    }
    Log("%d workers started (histories in %s)", g_opt.workers, g_dir.c_str());
    if (g_opt.netns) {
      std::string map;
      for (const Worker &w : g_workers) {
        map += " " + w.id + "@" + w.node + "->" + (w.server > 0 ? "s" + std::to_string(w.server) : "all");
      }
      Log("workers (namespace -> servers):%s", map.c_str());
    }

    // Every kind once, in a random order, then random by weight.
    std::vector<Fault> plan;
    for (int f = 0; f < kFaultKinds; ++f) {
      if (Applicable(static_cast<Fault>(f))) plan.push_back(static_cast<Fault>(f));
    }
    std::shuffle(plan.begin(), plan.end(), g_rng);
    size_t next = 0;
    int64_t last_progress = 0;
    int consecutive_failures = 0;
    for (;;) {
      uint64_t acq = CountAcquisitions();
      double t = Elapsed();
      while (next < plan.size() && !Applicable(plan[next])) ++next;  // found n/a meanwhile
      bool all_kinds = next >= plan.size();
      // A lying run proves something only once the fence has refused a
      // write: it goes on (within --max-duration) until it has.
      bool proven = !g_opt.lying || g_fence_rejected_live > 0;
      if (acq >= g_opt.acquisitions && all_kinds && t >= g_opt.duration_s && proven) break;
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
      } else if (g_opt.lying && g_fence_rejected_live == 0 && Applicable(kClientFreeze)) {
        // No stale writer yet: freeze holders (half of the freezes outlast
        // the session) until one wakes to write after its successor.
        f = kClientFreeze;
      } else {
        int total_weight = 0;
        for (int k = 0; k < kFaultKinds; ++k) total_weight += Weight(k);
        int pick = Rand(0, total_weight - 1);
        int k = 0;
        while (pick >= Weight(k)) pick -= Weight(k++);
        f = static_cast<Fault>(k);
      }
      try {
        Inject(f);
        // --netns: the network whole again and the ensemble healthy
        // (bounded) before the next fault.
        if (g_netns) Heal();
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
                            " -batch -ex 'thread apply all bt'"
                            // The engine's state where a blocking call waits
                            // (each may fail: gdb goes on with the next).
                            " -ex 'thread 1' -ex 'frame function zkl::Client::Await' -ex 'print *this'"
                            " -ex 'frame function zkl::Contender::Acquire' -ex 'print *this'"
                            " >" + stacks + " 2>&1";
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

  // Orphans (with --netns only from inside the client namespace).
  if (g_ensemble || (g_netns && in_client_netns)) {
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
  zkl_chaos::CheckOptions check_options;
  check_options.only = g_opt.only;
  verdict = zkl_chaos::Check(history, check_options);
  DbVerdict db;
  // With --netns: from inside client namespace c1 (this thread), where the
  // database runs; not if the thread never got there.
  if (!g_opt.fence_sql.empty() && g_opt.fence_sql != "netns" && (!g_opt.netns || in_client_netns)) {
    try {
      db = DbCheck(history);
    } catch (const std::exception &e) {
      g_failures.push_back(std::string("database check: ") + e.what());
    }
  }
  StopNetnsPostgres();

  std::printf("\n==== chaos report%s (seed %" PRIu64 ", %.0f s, %d workers, %d-node ensemble%s, "
              "session timeout %d ms) ====\n",
              g_opt.tls ? " over TLS" : "", g_opt.seed, Elapsed(), g_opt.workers, g_opt.servers,
              g_opt.netns ? " in network namespaces" : "", g_opt.session_timeout);
  std::printf("faults injected:");
  uint64_t nfaults = 0;
  for (int f = 0; f < kFaultKinds; ++f) {
    std::string na = NotApplicable(static_cast<Fault>(f));
    if (!g_opt.netns && NetnsOnly(static_cast<Fault>(f))) continue;  // not listed
    if (!na.empty()) {
      std::printf(" %s=n/a(%s)", kFaultNames[f], na.c_str());
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
  // How long before the other side's grant a holder had stopped saying yes,
  // over every handover after a suspension or a loss.
  {
    std::vector<zkl_chaos::Handover> handovers = zkl_chaos::Handovers(history);
    auto via = [](const std::string &id) {
      for (const Worker &w : g_workers) {
        if (w.id == id && g_opt.netns) return id + (w.server > 0 ? " via s" + std::to_string(w.server) : " via all");
      }
      return id;
    };
    auto describe = [&](const zkl_chaos::Handover &x) {
      char buf[512];
      std::snprintf(buf, sizeof buf, "%.1f ms (%s, %s#%" PRIu64 " %s %s -> %s#%" PRIu64 " %s)",
                    static_cast<double>(x.margin_ns()) / 1e6, x.path.c_str(),
                    via(x.earlier_worker).c_str(), x.earlier_hold,
                    zkl_chaos::RecipeName(x.earlier_recipe), x.earlier_end_reason.c_str(),
                    via(x.later_worker).c_str(), x.later_hold, zkl_chaos::RecipeName(x.later_recipe));
      return std::string(buf);
    };
    // The driver's last action before t (for the smallest margins).
    auto cause = [](int64_t t) {
      std::string last = "none";
      for (const auto &[at, what] : g_log) {
        if (at > t) break;
        if (what.rfind("fault ", 0) == 0) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.1f s before: ", static_cast<double>(t - at) / 1e9);
          last = buf + what;
        }
      }
      return last;
    };
    const zkl_chaos::Handover *smallest = nullptr, *under_partition = nullptr;
    size_t partitioned = 0;
    for (const zkl_chaos::Handover &x : handovers) {
      if (smallest == nullptr || x.margin_ns() < smallest->margin_ns()) smallest = &x;
      bool in_window = std::any_of(g_windows.begin(), g_windows.end(), [&](const Window &w) {
        return x.last_yes_ns >= w.begin_ns && x.last_yes_ns <= w.end_ns;
      });
      if (!in_window) continue;
      ++partitioned;
      if (under_partition == nullptr || x.margin_ns() < under_partition->margin_ns()) under_partition = &x;
    }
    if (smallest == nullptr) {
      std::printf("chaos: smallest margin n/a (no handover after a suspension or a loss)\n");
    } else {
      std::printf("chaos: smallest margin %s; %zu handovers after a suspension or a loss\n",
                  describe(*smallest).c_str(), handovers.size());
      std::printf("  last fault before it: %s\n", cause(smallest->acquire_ns).c_str());
    }
    if (g_opt.netns) {
      if (under_partition == nullptr) {
        std::printf("chaos: smallest margin under a partition n/a (no holder's last yes fell "
                    "inside a network fault)\n");
      } else {
        std::printf("chaos: smallest margin under a partition %s; %zu such handovers\n",
                    describe(*under_partition).c_str(), partitioned);
        std::printf("  last fault before it: %s\n", cause(under_partition->acquire_ns).c_str());
      }
    }
  }
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
  if (db.checked) {
    std::printf("database (fenced_log, its own record): %" PRIu64 " accepted writes on %" PRIu64
                " keys, stale accepted %" PRIu64 "; workers reported %" PRIu64
                " accepted (not in the log or different: %" PRIu64 "), %" PRIu64
                " rejected by the fence; log entries no worker reported: %" PRIu64
                "; rows not their key's last write: %" PRIu64 "\n",
                db.logged, db.keys, db.stale, db.reported, db.unknown, verdict.fence_rejected,
                db.unreported, db.rows_wrong);
    if (g_opt.netns) {
      std::printf("  (PostgreSQL in client namespace c1, read from there; workers over the bridge)\n");
    }
    for (const std::string &p : db.problems) std::printf("  database: %s\n", p.c_str());
    if (db.stale > 0) {
      g_failures.push_back("the database accepted " + std::to_string(db.stale) +
                           " stale write(s) (fenced_log)");
    }
    if (db.unknown + db.unreported + db.rows_wrong > 0) {
      g_failures.push_back("the database's record and the workers' reports disagree");
    }
    if (db.logged == 0) g_failures.push_back("the database accepted no write at all");
  }
  if (g_opt.lying) {
    uint64_t lies = 0;
    for (const char *k : {"overlap", "stale-held"}) {
      auto it = verdict.ignored.find(k);
      if (it != verdict.ignored.end()) lies += it->second;
    }
    std::printf("chaos: is_held lied (ZKL_TEST_LYING_IS_HELD=1): %" PRIu64
                " overlap/stale-held violations found and not judged; the fence refused %" PRIu64
                " writes; stale writes accepted: %" PRIu64 "\n",
                lies, verdict.fence_rejected, db.checked ? db.stale : 0);
    // The lie is used when a worker acts on a stale yes: the checker sees
    // it as an overlap or a stale is_held answer, or the fence refuses the
    // write it made with its old token (a write can be refused without a
    // recorded overlap: the stale holder's segment ends at its LOST, and
    // its refused write may come after). Neither: the run proves nothing.
    if (verdict.fence_rejected == 0) {
      g_failures.push_back(lies == 0 ? "--lying: is_held never lied usefully (no overlap, no stale yes, "
                                       "no write refused): does the core honour ZKL_TEST_LYING_IS_HELD?"
                                     : "--lying: the fence refused no write: the run proves nothing");
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
  for (int fd : g_netns_fds) {
    if (fd >= 0) close(fd);
  }
  g_netns.reset();  // servers stopped, namespaces removed
  if (passed && !g_opt.keep) {
    zkl_test::RemoveTree(g_dir);
  } else {
    std::printf("histories and logs kept in %s (check again: zkl-history-check %s/*.history)\n",
                g_dir.c_str(), g_dir.c_str());
  }
  std::printf("chaos: %d passed, %d failed\n", passed ? 1 : 0, passed ? 0 : 1);
  return passed ? 0 : 1;
}
