#include "bench_util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <sys/wait.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bench {

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t ProcessCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void SleepMs(int64_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1000000)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return -1;
}

int64_t HeapInUseBytes() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

void TrimHeap() { malloc_trim(0); }

namespace {

int CountEntries(const char *dir) {
  int n = 0;
  if (DIR *d = opendir(dir)) {
    while (dirent *e = readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    closedir(d);
  }
  return n;
}

}  // namespace

int CountThreads() { return CountEntries("/proc/self/task"); }

int CountFds() { return CountEntries("/proc/self/fd") - 1; }  // less the directory stream

std::string SelfDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) Die("readlink /proc/self/exe failed");
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

CoProcess::CoProcess(const std::vector<std::string> &argv) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) Die("pipe failed");
  pid_t pid = fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "zkl-bench: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  pid_ = pid;
  to_ = in[1];
  from_ = fdopen(out[0], "r");
  if (from_ == nullptr) Die("fdopen failed");
}

CoProcess::~CoProcess() {
  if (to_ >= 0) close(to_);
  if (from_) std::fclose(static_cast<FILE *>(from_));
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::string CoProcess::ReadLine() {
  char buf[4096];
  if (std::fgets(buf, sizeof buf, static_cast<FILE *>(from_)) == nullptr) {
    Die("the helper process ended (see its message above)");
  }
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string CoProcess::Call(const std::string &line) {
  std::string l = line + "\n";
  const char *p = l.data();
  size_t left = l.size();
  while (left > 0) {
    ssize_t n = write(to_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Die("write to the helper process failed");
    p += n;
    left -= static_cast<size_t>(n);
  }
  return ReadLine();
}

double Samples::PercentileUs(double p) {
  if (v_.empty()) return 0;
  if (!sorted_) {
    std::sort(v_.begin(), v_.end());
    sorted_ = true;
  }
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v_.size())));
  if (rank > 0) --rank;
  rank = std::min(rank, v_.size() - 1);
  return static_cast<double>(v_[rank]) / 1000.0;
}

double Samples::MeanUs() const {
  if (v_.empty()) return 0;
  long double sum = 0;
  for (int64_t x : v_) sum += x;
  return static_cast<double>(sum / v_.size() / 1000.0L);
}

// ---------------------------------------------------------------------------

[[noreturn]] void Die(const std::string &msg) {
  std::fprintf(stderr, "zkl-bench: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(2);
}

Server::Server(const std::string &servers) : connect_(servers) {
  size_t colon = servers.rfind(':');
  if (servers.empty() || colon == std::string::npos || servers.find(',') != std::string::npos) {
    Die("--servers must be one HOST:PORT on loopback, got '" + servers + "'");
  }
  host_ = servers.substr(0, colon);
  port_ = std::atoi(servers.c_str() + colon + 1);
  in_addr a{};
  if (host_ == "localhost") host_ = "127.0.0.1";
  if (inet_pton(AF_INET, host_.c_str(), &a) != 1 || (ntohl(a.s_addr) >> 24) != 127 || port_ <= 0 ||
      port_ > 65535) {
    Die("--servers must be a loopback address (127.x.x.x:PORT), got '" + servers + "'");
  }
}

Mntr Server::Monitor() const {
  Mntr out;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return out;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port_));
  inet_pton(AF_INET, host_.c_str(), &sa.sin_addr);
  std::string text;
  if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0 &&
      send(fd, "mntr", 4, MSG_NOSIGNAL) == 4) {
    int64_t deadline = NowNs() + int64_t{5} * 1000000000;
    char buf[8192];
    while (NowNs() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const char *v = line.c_str() + tab + 1;
    char *end = nullptr;
    double d = std::strtod(v, &end);
    if (end != v) out[line.substr(0, tab)] = d;
  }
  return out;
}

ServerProbe::ServerProbe(const Server &s) : server_(s) {}

static double Get(const Mntr &m, const char *key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

void ServerProbe::Start() {
  // Two snapshots back to back tell what one snapshot costs in packets.
  Mntr a = server_.Monitor();
  begin_ = server_.Monitor();
  overhead_ = Get(begin_, "zk_packets_received") - Get(a, "zk_packets_received");
  if (overhead_ < 0 || overhead_ > 4) overhead_ = 1;
}

ServerDelta ServerProbe::Stop() {
  Mntr end = server_.Monitor();
  ServerDelta d;
  d.packets = Get(end, "zk_packets_received") - Get(begin_, "zk_packets_received") - overhead_;
  d.writes = Get(end, "zk_cnt_updatelatency") - Get(begin_, "zk_cnt_updatelatency");
  d.reads = Get(end, "zk_cnt_readlatency") - Get(begin_, "zk_cnt_readlatency");
  d.fsyncs = Get(end, "zk_cnt_fsynctime") - Get(begin_, "zk_cnt_fsynctime");
  return d;
}

// ---------------------------------------------------------------------------

void Json::Key(const std::string &key) {
  body_ += body_.empty() ? "{" : ",";
  body_ += "\"" + key + "\":";
}

Json &Json::Str(const std::string &key, const std::string &value) {
  Key(key);
  body_ += '"';
  for (char ch : value) {
    if (ch == '"' || ch == '\\') body_ += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    body_ += ch;
  }
  body_ += '"';
  return *this;
}

Json &Json::Num(const std::string &key, double value) {
  Key(key);
  if (!std::isfinite(value)) {
    body_ += "null";
    return *this;
  }
  char buf[64];
  double a = std::fabs(value);
  if (a != 0 && (a >= 1e15 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.6g", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f", value);
    // Trim trailing zeros (and a trailing dot).
    std::string s(buf);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    std::snprintf(buf, sizeof buf, "%s", s.c_str());
  }
  body_ += buf;
  return *this;
}

Json &Json::Int(const std::string &key, int64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}

Json &Json::Bool(const std::string &key, bool value) {
  Key(key);
  body_ += value ? "true" : "false";
  return *this;
}

void Json::Print() const {
  std::printf("%s}\n", body_.empty() ? "{" : body_.c_str());
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------

Options ParseOptions(int argc, char **argv, int first) {
  Options o;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) Die("unexpected argument '" + a + "'");
    std::string key, value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      key = a.substr(2, eq - 2);
      value = a.substr(eq + 1);
    } else {
      key = a.substr(2);
      if (i + 1 >= argc) Die("--" + key + " needs a value");
      value = argv[++i];
    }
    o.given.insert(key);
    auto num = [&]() -> int64_t {
      char *end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || v < 0) Die("--" + key + ": not a count: " + value);
      return v;
    };
    if (key == "servers") o.servers = value;
    else if (key == "prefix") o.prefix = value;
    else if (key == "duration-ms") o.duration_ms = num();
    else if (key == "max-ops") o.max_ops = num();
    else if (key == "clients") o.clients = static_cast<int>(num());
    else if (key == "locks") o.locks = static_cast<int>(num());
    else if (key == "inflight") o.inflight = static_cast<int>(num());
    else if (key == "waiters") o.waiters = static_cast<int>(num());
    else if (key == "handles-per-client") o.handles_per_client = static_cast<int>(num());
    else if (key == "handles") o.handles = static_cast<int>(num());
    else if (key == "wire-cycles") o.wire_cycles = static_cast<int>(num());
    else if (key == "warmup-requests") o.warmup_requests = static_cast<int>(num());
    else if (key == "limit-ms") o.limit_ms = num();
    else if (key == "idle-ms") o.idle_ms = num();
    else o.extra[key] = value;
  }
  if (o.servers.empty()) Die("--servers 127.0.0.1:PORT is required");
  if (o.clients < 1 || o.clients > 64) Die("--clients must be 1..64");
  if (o.locks < 1 || o.locks > 100000) Die("--locks must be 1..100000");
  if (o.inflight < 1 || o.inflight > 100000) Die("--inflight must be 1..100000");
  if (o.waiters < 1 || o.waiters > 100000) Die("--waiters must be 1..100000");
  if (o.handles_per_client < 1) Die("--handles-per-client must be >= 1");
  if (o.handles < 1 || o.handles > 1000000) Die("--handles must be 1..1000000");
  if (o.duration_ms < 1 || o.duration_ms > 600000) Die("--duration-ms must be 1..600000");
  if (o.limit_ms < 1000 || o.limit_ms > 1800000) Die("--limit-ms must be 1000..1800000");
  if (o.prefix.empty() || o.prefix[0] != '/' || o.prefix.back() == '/') Die("--prefix must be /a/b");
  return o;
}

}  // namespace bench
