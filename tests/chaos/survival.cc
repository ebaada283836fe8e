// zkl-survival: the longest network cut a lock hold survives (issue 23).
//
// Starts a standalone ZooKeeper (tests/harness), puts a FaultProxy in front
// of it, and for each fault kind, each cut length and each round: a zkl
// client (C API, through the proxy, session timeout 4000 ms) acquires a fair
// lock; after a random delay (0..T/3, so that cuts fall at every phase of
// the heartbeats) the fault starts, lasts the cut length, and ends. With
// --curator an Apache Curator 5.9.0 InterProcessMutex holder (a Java
// process, tests/chaos/curator) holds a lock of its own through the SAME
// proxy and server in the same round, so both see the same cut.
//
// Fault kinds:
//   drop   a silent drop: bytes both ways are read and thrown away, every
//          connection stays open (FaultProxy::SetDropping); after the cut
//          the old connections carry the rest of a corrupted stream
//   reset  the connections are reset (RST) and new ones are refused (the
//          proxy stops listening) until the cut ends
//   stall  nothing is forwarded and nothing is lost (SetBlackhole); a
//          client that gives up a connection meanwhile has it closed
//
// A round KEEPS the lock when no LOST came, the same session goes on, and
// the hold is proven again (zkl: zkl_lock_is_held() == 1; Curator: the last
// connection state is not SUSPENDED, connected, isAcquiredInThisProcess()
// and the server has the lock node owned by that session) within 2 x T
// after the cut ended (awaited on events); after a drop, the hold must stay
// proven for T/2 on end (a stream that lost bytes may break only when the
// next request or reply meets the gap). Recorded too: when SUSPENDED
// came (after the cut started), how long the hold was suspended, and how
// long after the cut it was proven again.
//
//   zkl-survival [--rounds N] [--faults drop,reset,stall] [--cuts 20,30,...]
//                [--session-timeout MS] [--curator] [--no-zkl]
//                [--curator-dir DIR] [--seed N]
//   zkl-survival --ci [--rounds N] [--curator]
//
// Output: JSON lines on stdout (one per round, one per point, the longest
// cut kept in every round per library and fault), a table on stderr.
// "Longest cut kept" is the longest cut of the sweep that was kept in every
// round, with every shorter cut of the sweep kept in every round too.
//
// --ci: the short form (< 60 s): cuts of 50% of T for every fault kind,
// --rounds (default 2) each, must all be kept; one cut of 150% of T (a
// drop) must be lost: the session cannot survive it, so that round proves
// the tool sees a loss. Stops at the first failure. The last line is
// "survival: 1 passed, 0 failed" (exit 0) or "survival: 0 passed, 1
// failed" (exit 1). Exit 2: usage or setup error.
#include <signal.h>
#include <unistd.h>
#include <zkl.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "fault_proxy.h"
#include "zk_harness.h"

using bench::Die;
using bench::NowNs;
using bench::SleepMs;
using zkl_test::FaultProxy;
using zkl_test::ZkServer;

namespace {

struct Options {
  bool ci = false;
  int rounds = 20;
  std::vector<std::string> faults = {"drop", "reset", "stall"};
  std::vector<int> cuts = {20, 30, 40, 50, 60, 70, 80, 90, 100};  // % of T
  int session_timeout = 4000;
  bool zkl = true;
  bool curator = false;
  std::string curator_dir = ZKL_SURVIVAL_CURATOR_DIR;
  uint64_t seed = 0;
};

void Say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void Say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fflush(stderr);
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// One round's outcome for one library. Times in ns of CLOCK_MONOTONIC
// (0: did not happen).
struct Outcome {
  std::string error;  // setup failed (not a result)
  bool kept = false;
  std::string why;    // kept, lost, timeout, new-session, ...
  int64_t suspended_ns = 0;  // the first SUSPENDED
  int64_t restored_ns = 0;   // the first zkl RESTORED / Curator RECONNECTED after it
  int64_t lost_ns = 0;
  int64_t proven_ns = 0;     // kept: the start of the last proven stretch
};

// ---------------------------------------------------------------------------
// zkl

class ZklHolder {
 public:
  ~ZklHolder() { End(); }

  // Connects through `servers`, acquires a fair lock on `path`. "" or why not.
  std::string Begin(const std::string &servers, const std::string &path, int session_timeout_ms) {
    End();
    zkl_client_options o;
    zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
    o.servers = servers.c_str();
    o.session_timeout_ms = session_timeout_ms;
    int rc = zkl_client_new(&o, &c_);
    if (rc != 0) return std::string("zkl_client_new: ") + zkl_strerror(rc);
    rc = zkl_client_wait_connected(c_, 20000);
    if (rc != 0) return std::string("not connected: ") + zkl_strerror(rc);
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    lo.kind = ZKL_LOCK_FAIR;
    rc = zkl_lock_new(c_, path.c_str(), &lo, &l_);
    if (rc != 0) return std::string("zkl_lock_new: ") + zkl_strerror(rc);
    rc = zkl_lock_acquire(l_, ZKL_DEFAULT_OWNER, 10000);
    if (rc != 0) return std::string("acquire: ") + zkl_strerror(rc);
    zkl_client_session_id(c_, &session_);
    timeout_ms_ = zkl_client_session_timeout(c_);
    // Events from here on are the round's: drop the session's so far.
    zkl_event *ev = nullptr;
    while (zkl_client_next_event(c_, &ev) == 0) zkl_event_free(ev);
    stop_ = false;
    watcher_ = std::thread([this] { Watch(); });
    return "";
  }

  int timeout_ms() const { return timeout_ms_; }

  // Waits until the hold is kept: proven again with the same session and
  // so for settle_ms on end (or until the deadline); or lost; at most until
  // deadline_ns.
  Outcome Await(int64_t deadline_ns, int settle_ms) {
    Outcome out;
    const int64_t settle_ns = int64_t{settle_ms} * 1000000;
    int64_t proven_since = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (lost_ns_ != 0) {
        out.why = "lost";
        break;
      }
      uint64_t sid = 0;
      zkl_client_session_id(c_, &sid);
      // Not while a SUSPENDED is the last word, even if is_held already
      // says yes (the RESTORED is on its way): the event order is the
      // user's view.
      const bool held = zkl_lock_is_held(l_) == 1 && !suspended_now_;
      const int64_t now = NowNs();
      if (held && sid != session_) {
        out.why = "new-session";
        break;
      }
      if (!held) {
        proven_since = 0;
      } else if (proven_since == 0) {
        proven_since = now;
      }
      if (held && now - proven_since >= settle_ns) {
        out.kept = true;
        break;
      }
      if (now >= deadline_ns) {
        out.kept = held;
        if (!held) out.why = suspended_now_ ? "still-suspended" : "not-held";
        break;
      }
      // Woken by every event; is_held is asked again every 50 ms too.
      int64_t wait = std::min<int64_t>(deadline_ns - now, 50000000);
      if (held) wait = std::min(wait, proven_since + settle_ns - now);
      cv_.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(wait, 1000000)));
    }
    if (out.kept) {
      out.why = "kept";
      out.proven_ns = proven_since;
    }
    out.suspended_ns = suspended_ns_;
    out.restored_ns = restored_ns_;
    out.lost_ns = lost_ns_;
    return out;
  }

  void End() {
    if (watcher_.joinable()) {
      stop_ = true;
      zkl_client_wakeup(c_);
      watcher_.join();
    }
    if (l_ != nullptr) zkl_lock_destroy(l_);
    if (c_ != nullptr) zkl_client_destroy(c_);
    l_ = nullptr;
    c_ = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    suspended_ns_ = restored_ns_ = lost_ns_ = 0;
    suspended_now_ = false;
  }

 private:
  // Takes the client's events as they come and stamps the lock's.
  void Watch() {
    while (!stop_) {
      zkl_client_wait(c_, 200);
      zkl_event *ev = nullptr;
      while (zkl_client_next_event(c_, &ev) == 0) {
        const int64_t now = NowNs();
        zkl_lock *l = nullptr;
        const int type = zkl_event_type(ev);
        if (zkl_event_lock(ev, &l) == 0 && l == l_) {
          std::lock_guard<std::mutex> lock(mu_);
          if (type == ZKL_EVENT_SUSPENDED) {
            if (suspended_ns_ == 0) suspended_ns_ = now;
            suspended_now_ = true;
          } else if (type == ZKL_EVENT_RESTORED) {
            if (restored_ns_ == 0) restored_ns_ = now;
            suspended_now_ = false;
          } else if (type == ZKL_EVENT_LOST) {
            if (lost_ns_ == 0) lost_ns_ = now;
            suspended_now_ = false;
          }
          cv_.notify_all();
        }
        zkl_event_free(ev);
      }
    }
  }

  zkl_client *c_ = nullptr;
  zkl_lock *l_ = nullptr;
  uint64_t session_ = 0;
  int timeout_ms_ = 0;
  std::thread watcher_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t suspended_ns_ = 0, restored_ns_ = 0, lost_ns_ = 0;
  bool suspended_now_ = false;
};

// ---------------------------------------------------------------------------
// Curator (tests/chaos/curator: CuratorHolder, spoken to in lines)

std::string FindInPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::stringstream ss(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string p = dir + "/" + name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// "key=value" of a reply line ("" when absent).
std::string Field(const std::string &line, const std::string &key) {
  std::stringstream ss(line);
  std::string w;
  while (ss >> w) {
    if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
  }
  return "";
}

int64_t FieldNs(const std::string &line, const std::string &key) {
  return std::strtoll(Field(line, key).c_str(), nullptr, 10);
}

class CuratorHolder {
 public:
  explicit CuratorHolder(const std::string &dir) {
    if (access((dir + "/target/lib").c_str(), F_OK) != 0 ||
        access((dir + "/target/classes").c_str(), F_OK) != 0) {
      Say("curator: building %s (mvn -o package)\n", dir.c_str());
      auto r = zkl_test::RunCommand({"mvn", "-B", "-q", "-o", "-f", dir + "/pom.xml", "package"});
      if (r.exit_code != 0) {
        Die("mvn -o package failed in " + dir + " (the first build needs Maven Central: run `mvn -B package` there once):\n" +
            r.output);
      }
    }
    std::string java = FindInPath("java");
    if (java.empty()) Die("java not found in PATH");
    proc_ = std::make_unique<bench::CoProcess>(std::vector<std::string>{
        java, "-XX:+UseSerialGC", "-Xmx256m", "-cp", dir + "/target/classes:" + dir + "/target/lib/*",
        "io.zkl.survival.CuratorHolder"});
  }
  ~CuratorHolder() {
    if (proc_) proc_->Call("quit");
  }

  std::string Begin(const std::string &servers, const std::string &path) {
    std::string r = proc_->Call("begin " + servers + " " + path);
    if (r.rfind("ok ", 0) != 0) return r;
    timeout_ms_ = std::atoi(Field(r, "timeout").c_str());
    return "";
  }
  int timeout_ms() const { return timeout_ms_; }

  Outcome Await(int64_t deadline_ns, int settle_ms) {
    Outcome out;
    std::string r = proc_->Call("await " + std::to_string(deadline_ns) + " " + std::to_string(settle_ms));
    if (r.rfind("ok ", 0) != 0) {
      out.error = r;
      return out;
    }
    out.kept = Field(r, "kept") == "1";
    out.why = Field(r, "why");
    if (!out.kept && out.why == "timeout" && Field(r, "session_same") == "0") out.why = "new-session";
    out.suspended_ns = FieldNs(r, "suspended_ns");
    out.restored_ns = FieldNs(r, "reconnected_ns");
    out.lost_ns = FieldNs(r, "lost_ns");
    out.proven_ns = FieldNs(r, "proven_ns");
    return out;
  }

  void End() { proc_->Call("end"); }

 private:
  std::unique_ptr<bench::CoProcess> proc_;
  int timeout_ms_ = 0;
};

// ---------------------------------------------------------------------------
// Faults

class Faults {
 public:
  explicit Faults(const std::string &upstream) : upstream_(upstream) { proxy_.Start(upstream_); }
  std::string connect() const { return proxy_.connect(); }

  void On(const std::string &kind) {
    if (kind == "drop") {
      proxy_.SetDropping(true);
    } else if (kind == "stall") {
      proxy_.SetBlackhole(true);
    } else {  // reset: RST the connections, refuse new ones
      port_ = proxy_.port();
      proxy_.DropAll();
      proxy_.Stop();
    }
  }
  void Off(const std::string &kind) {
    if (kind == "drop") {
      proxy_.SetDropping(false);
    } else if (kind == "stall") {
      proxy_.SetBlackhole(false);
    } else {
      proxy_.Start(upstream_, port_);
    }
  }

 private:
  std::string upstream_;
  FaultProxy proxy_;
  int port_ = 0;
};

// ---------------------------------------------------------------------------
// The sweep

struct Point {
  int rounds = 0;
  int kept = 0;
  double suspended_ms_max = 0;  // over kept rounds: SUSPENDED .. proven again
  double recovered_ms_max = 0;  // over kept rounds: cut end .. proven again
};

// results[lib][fault][cut%]
using Results = std::map<std::string, std::map<std::string, std::map<int, Point>>>;

void Record(const std::string &lib, const std::string &fault, int pct, int cut_ms, int round,
            int64_t t0, int64_t t1, const Outcome &o, Results *results) {
  bench::Json j;
  j.Str("kind", "round").Str("lib", lib).Str("fault", fault).Int("cut_pct", pct).Int("cut_ms", cut_ms)
      .Int("round", round);
  if (!o.error.empty()) {
    j.Str("error", o.error).Print();
    Say("  %-7s error: %s\n", lib.c_str(), o.error.c_str());
    return;
  }
  j.Bool("kept", o.kept).Str("why", o.why);
  auto rel = [&](const char *key, int64_t t, int64_t base) {
    if (t != 0) j.Num(key, Ms(t - base));
  };
  rel("suspended_at_ms", o.suspended_ns, t0);  // after the cut started
  rel("lost_at_ms", o.lost_ns, t0);
  rel("restored_after_cut_ms", o.restored_ns, t1);
  rel("proven_after_cut_ms", o.proven_ns, t1);
  double suspended_ms = 0;
  if (o.suspended_ns != 0) {
    // Until proven for good (a second suspension counts in), or lost.
    int64_t back = o.kept ? o.proven_ns : (o.lost_ns != 0 ? o.lost_ns : NowNs());
    suspended_ms = Ms(back - o.suspended_ns);
    j.Num("suspended_ms", suspended_ms);
  }
  j.Print();
  Point &p = (*results)[lib][fault][pct];
  p.rounds++;
  if (o.kept) {
    p.kept++;
    p.suspended_ms_max = std::max(p.suspended_ms_max, suspended_ms);
    p.recovered_ms_max = std::max(p.recovered_ms_max, Ms(o.proven_ns - t1));
  }
  Say("  %-7s %-4s %s%s", lib.c_str(), o.kept ? "kept" : "LOST", o.why.c_str(),
      o.suspended_ns != 0 ? "" : " (never suspended)");
  if (o.suspended_ns != 0) Say(" suspended at +%.0f ms for %.0f ms", Ms(o.suspended_ns - t0), suspended_ms);
  if (o.kept) Say(", held again %.0f ms after the cut", Ms(o.proven_ns - t1));
  if (o.lost_ns != 0) Say(", LOST at +%.0f ms", Ms(o.lost_ns - t0));
  Say("\n");
}

// The longest cut of the sweep kept in every round, every shorter one too
// (0: none).
int LongestKept(const std::map<int, Point> &points) {
  int longest = 0;
  for (const auto &[pct, p] : points) {
    if (p.rounds == 0 || p.kept != p.rounds) break;
    longest = pct;
  }
  return longest;
}

void Report(const Options &opt, int T, const Results &results) {
  std::vector<int> cuts = opt.cuts;
  std::sort(cuts.begin(), cuts.end());
  Say("\nkept / rounds, by cut length (%% of the session timeout T = %d ms)\n", T);
  Say("%-8s %-6s", "", "fault");
  for (int pct : cuts) Say(" %6d%%", pct);
  Say("\n");
  for (const auto &[lib, by_fault] : results) {
    for (const auto &fault : opt.faults) {
      auto it = by_fault.find(fault);
      if (it == by_fault.end()) continue;
      Say("%-8s %-6s", lib.c_str(), fault.c_str());
      for (int pct : cuts) {
        auto p = it->second.find(pct);
        if (p == it->second.end()) {
          Say(" %7s", "-");
        } else {
          Say(" %7s", (std::to_string(p->second.kept) + "/" + std::to_string(p->second.rounds)).c_str());
        }
        if (p != it->second.end()) {
          bench::Json()
              .Str("kind", "point").Str("lib", lib).Str("fault", fault).Int("cut_pct", pct)
              .Int("cut_ms", static_cast<int64_t>(T) * pct / 100).Int("rounds", p->second.rounds)
              .Int("kept", p->second.kept).Num("suspended_ms_max", p->second.suspended_ms_max)
              .Num("recovered_ms_max", p->second.recovered_ms_max)
              .Print();
        }
      }
      Say("\n");
    }
  }
  Say("\nlongest cut kept in every round (and every shorter cut too):\n");
  for (const auto &[lib, by_fault] : results) {
    for (const auto &fault : opt.faults) {
      auto it = by_fault.find(fault);
      if (it == by_fault.end()) continue;
      int pct = LongestKept(it->second);
      int rounds = it->second.empty() ? 0 : it->second.begin()->second.rounds;
      bench::Json()
          .Str("kind", "longest").Str("lib", lib).Str("fault", fault).Int("session_timeout_ms", T)
          .Int("longest_kept_pct", pct).Int("longest_kept_ms", static_cast<int64_t>(T) * pct / 100)
          .Int("rounds", rounds)
          .Print();
      if (pct == 0) {
        Say("  %-8s %-6s none of the cuts\n", lib.c_str(), fault.c_str());
      } else {
        Say("  %-8s %-6s %5d ms (%d%% of T)\n", lib.c_str(), fault.c_str(), T * pct / 100, pct);
      }
    }
  }
}

std::vector<std::string> Split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string w;
  while (std::getline(ss, w, ',')) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

int ParseInt(const std::string &s, const std::string &what, int lo, int hi) {
  char *end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < lo || v > hi) {
    Die(what + " must be " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + s + "'");
  }
  return static_cast<int>(v);
}

Options Parse(int argc, char **argv) {
  Options o;
  bool rounds_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--ci") {
      o.ci = true;
    } else if (a == "--rounds") {
      o.rounds = ParseInt(value(), "--rounds", 1, 1000);
      rounds_given = true;
    } else if (a == "--faults") {
      o.faults = Split(value());
      for (const auto &f : o.faults) {
        if (f != "drop" && f != "reset" && f != "stall") Die("unknown fault '" + f + "' (drop, reset, stall)");
      }
    } else if (a == "--cuts") {
      o.cuts.clear();
      for (const auto &c : Split(value())) o.cuts.push_back(ParseInt(c, "a cut (% of T)", 1, 500));
    } else if (a == "--session-timeout") {
      o.session_timeout = ParseInt(value(), "--session-timeout", 1000, 60000);
    } else if (a == "--curator") {
      o.curator = true;
    } else if (a == "--no-zkl") {
      o.zkl = false;
    } else if (a == "--curator-dir") {
      o.curator_dir = value();
    } else if (a == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "zkl-survival [--rounds N] [--faults drop,reset,stall] [--cuts 20,30,...]\n"
          "             [--session-timeout MS] [--curator] [--no-zkl] [--curator-dir DIR] [--seed N]\n"
          "zkl-survival --ci [--rounds N] [--curator]\n");
      std::exit(0);
    } else {
      Die("unknown option '" + a + "' (--help)");
    }
  }
  if (o.faults.empty() || o.cuts.empty()) Die("nothing to do");
  if (!o.zkl && !o.curator) Die("--no-zkl needs --curator");
  if (o.ci && !rounds_given) o.rounds = 2;
  return o;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt = Parse(argc, argv);
  signal(SIGPIPE, SIG_IGN);
  if (opt.seed == 0) opt.seed = static_cast<uint64_t>(NowNs());
  std::mt19937_64 rng(opt.seed);
  const int64_t started = NowNs();

  std::unique_ptr<ZkServer> server;
  std::unique_ptr<Faults> faults;
  std::unique_ptr<CuratorHolder> curator;
  try {
    // Curator's JVM first: it should inherit as few descriptors as possible.
    if (opt.curator) curator = std::make_unique<CuratorHolder>(opt.curator_dir);
    server = ZkServer::StartStandalone();
    faults = std::make_unique<Faults>(server->connect());
  } catch (const std::exception &e) {
    Die(std::string("setup: ") + e.what());
  }
  const std::string run = std::to_string(getpid());
  Say("zkl-survival: server %s, proxy %s, seed %llu, %d round(s) per point\n",
      server->connect().c_str(), faults->connect().c_str(), static_cast<unsigned long long>(opt.seed),
      opt.rounds);

  struct Step {
    std::string fault;
    int pct;
    bool must_keep;  // --ci
  };
  std::vector<Step> plan;
  if (opt.ci) {
    for (const auto &f : {"drop", "reset", "stall"}) plan.push_back({f, 50, true});
    plan.push_back({"drop", 150, false});
    opt.faults = {"drop", "reset", "stall"};
    opt.cuts = {50, 150};
  } else {
    for (const auto &f : opt.faults) {
      for (int pct : opt.cuts) plan.push_back({f, pct, true});
    }
  }

  Results results;
  int T = 0;  // negotiated session timeout
  bool failed = false;
  ZklHolder zkl;
  for (const Step &step : plan) {
    const int rounds = opt.ci && !step.must_keep ? 1 : opt.rounds;
    for (int r = 0; r < rounds && !failed; ++r) {
      const std::string suffix = "/" + step.fault + "-" + std::to_string(step.pct) + "-" + std::to_string(r);
      if (opt.zkl) {
        std::string err = zkl.Begin(faults->connect(), "/zkl-survival/" + run + "/zkl" + suffix,
                                    opt.session_timeout);
        if (!err.empty()) Die("zkl: " + err);
        T = zkl.timeout_ms();
      }
      if (curator) {
        std::string err = curator->Begin(faults->connect(), "/zkl-survival/" + run + "/curator" + suffix);
        if (!err.empty()) Die("curator: " + err);
        if (!opt.zkl) T = curator->timeout_ms();
      }
      if (T <= 0) Die("no negotiated session timeout");
      const int cut_ms = T * step.pct / 100;
      Say("%-5s cut %5d ms (%3d%% of T) round %d/%d\n", step.fault.c_str(), cut_ms, step.pct, r + 1, rounds);

      SleepMs(static_cast<int64_t>(rng() % static_cast<uint64_t>(T / 3 + 1)));  // the phase
      const int64_t t0 = NowNs();
      faults->On(step.fault);
      SleepMs(cut_ms - (NowNs() - t0) / 1000000);
      faults->Off(step.fault);
      const int64_t t1 = NowNs();
      const int64_t deadline = t1 + int64_t{2} * T * 1000000;
      // A drop leaves streams that lost bytes: the connections may break
      // only when the next requests or replies meet the gap. A hold proven
      // again must stay so for T/2 before it counts as kept.
      const int settle = step.fault == "drop" ? T / 2 : 0;

      Outcome cur_out;
      std::thread cur_thread;
      if (curator) cur_thread = std::thread([&] { cur_out = curator->Await(deadline, settle); });
      Outcome zkl_out;
      if (opt.zkl) zkl_out = zkl.Await(deadline, settle);
      if (cur_thread.joinable()) cur_thread.join();

      if (opt.zkl) {
        Record("zkl", step.fault, step.pct, cut_ms, r, t0, t1, zkl_out, &results);
        zkl.End();
        if (opt.ci && zkl_out.kept != step.must_keep) {
          Say("FAIL: zkl %s a %d ms %s (%d%% of T)\n", zkl_out.kept ? "kept its lock through" : "lost its lock to",
              cut_ms, step.fault.c_str(), step.pct);
          failed = true;
        }
      }
      if (curator) {
        Record("curator", step.fault, step.pct, cut_ms, r, t0, t1, cur_out, &results);
        curator->End();
      }
    }
    if (failed) break;
  }
  Report(opt, T, results);
  const double took = Ms(NowNs() - started) / 1000.0;
  Say("\n%.0f s\n", took);
  if (opt.ci) {
    std::printf("survival: %d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    std::fflush(stdout);
  }
  curator.reset();
  return failed ? 1 : 0;
}
