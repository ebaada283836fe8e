// Shared helpers of the zkl benchmark: clocks, CPU and memory probes,
// latency statistics, the server's `mntr` counters, JSON output and the
// command-line options every row understands.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bench {

// ---- clocks ---------------------------------------------------------------

int64_t NowNs();         // CLOCK_MONOTONIC
int64_t ProcessCpuNs();  // CLOCK_PROCESS_CPUTIME_ID: every thread of the process
void SleepMs(int64_t ms);

// ---- memory ---------------------------------------------------------------

int64_t RssBytes();        // VmRSS from /proc/self/status
int64_t HeapInUseBytes();  // malloc's allocated bytes (mallinfo2)
void TrimHeap();           // malloc_trim(0), so RSS deltas are not stale

// ---- threads and processes -------------------------------------------------

int CountThreads();  // threads of this process (entries of /proc/self/task)
int CountFds();      // open file descriptors of this process
std::string SelfDir();  // the directory of this executable

// A helper process spoken to in lines on its stdin / stdout. The raw
// single-threaded C client runs in one (bench/raw_st.cc): its symbols are
// the same as the multi-threaded client's that zkl-bench links.
class CoProcess {
 public:
  explicit CoProcess(const std::vector<std::string> &argv);
  ~CoProcess();  // closes its stdin (it exits on EOF) and reaps it
  CoProcess(const CoProcess &) = delete;
  CoProcess &operator=(const CoProcess &) = delete;
  std::string ReadLine();                       // exits on EOF
  std::string Call(const std::string &line);    // one line out, one line back

 private:
  int pid_ = -1;
  int to_ = -1;
  void *from_ = nullptr;  // FILE*
};

// ---- latency statistics ---------------------------------------------------

class Samples {
 public:
  void Reserve(size_t n) { v_.reserve(n); }
  void Add(int64_t ns) { v_.push_back(ns); }
  void Merge(const Samples &o) { v_.insert(v_.end(), o.v_.begin(), o.v_.end()); }
  size_t size() const { return v_.size(); }
  // Percentile in microseconds (p in [0, 100]); 0 when empty.
  double PercentileUs(double p);
  double MeanUs() const;

 private:
  std::vector<int64_t> v_;
  bool sorted_ = false;
};

// ---- the server's four-letter-word counters -------------------------------

// Counters from `mntr` (numeric lines only).
using Mntr = std::map<std::string, double>;

class Server {
 public:
  // `servers` is "127.0.0.1:PORT" (loopback only; anything else is refused).
  explicit Server(const std::string &servers);
  const std::string &connect() const { return connect_; }
  // Sends `mntr` and parses the answer; empty on failure.
  Mntr Monitor() const;

 private:
  std::string connect_;
  std::string host_;
  int port_ = 0;
};

// Requests the server received between two snapshots, from
// zk_packets_received, less the packets the snapshots themselves cost.
struct ServerDelta {
  double packets = 0;  // client packets (requests, pings)
  double writes = 0;   // zk_cnt_updatelatency
  double reads = 0;    // zk_cnt_readlatency
  double fsyncs = 0;   // zk_cnt_fsynctime: transaction log syncs (group commits)
};

class ServerProbe {
 public:
  explicit ServerProbe(const Server &s);
  void Start();
  ServerDelta Stop();
  double mntr_overhead() const { return overhead_; }

 private:
  const Server &server_;
  double overhead_ = 0;
  Mntr begin_;
};

// ---- output ---------------------------------------------------------------

// One JSON object, printed on one line.
class Json {
 public:
  Json &Str(const std::string &key, const std::string &value);
  Json &Num(const std::string &key, double value);
  Json &Int(const std::string &key, int64_t value);
  Json &Bool(const std::string &key, bool value);
  void Print() const;  // to stdout, flushed

 private:
  std::string body_;
  void Key(const std::string &key);
};

// ---- options --------------------------------------------------------------

struct Options {
  std::string servers;
  std::string prefix = "/zkl-bench";  // every node lives under it
  int64_t duration_ms = 3000;  // timed rows run this long ...
  int64_t max_ops = 1000000;   // ... or this many operations
  int clients = 8;
  int locks = 256;          // async many-locks row: locks on one client
  int inflight = 256;       // raw pipelined: cycles in flight
  int waiters = 1000;       // herd / scale rows
  int handles_per_client = 250;
  int handles = 100000;     // idle-handle memory row
  int wire_cycles = 300;    // cycles measured through the counting proxy
  int warmup_requests = 60000;
  int64_t idle_ms = 200;     // idle-CPU calibration before a measured phase
  int64_t limit_ms = 120000;  // hard bound of any single wait
  std::map<std::string, std::string> extra;  // --key value not known above
  std::set<std::string> given;  // every --key on the command line (rows with other defaults)
};

// Parses --key value / --key=value pairs; exits with a message on error.
Options ParseOptions(int argc, char **argv, int first);

// Aborts the process with a message (benchmark setup failures).
[[noreturn]] void Die(const std::string &msg);

}  // namespace bench
