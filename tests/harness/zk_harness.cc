#include "zk_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zookeeper.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

#ifndef ZKL_SOURCE_DIR
#error "ZKL_SOURCE_DIR must be defined (the zkl source tree root)"
#endif

namespace zkl_test {
namespace {

using Clock = std::chrono::steady_clock;

// Upper bound for one zk-server invocation; the script bounds its own waits
// (30 s start, 10+5 s stop), this is only a safety net.
constexpr Millis kScriptTimeout{180000};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool KeepTemp() { return std::getenv("ZKL_KEEP_TMP") != nullptr; }

CommandResult RunScript(const std::vector<std::string>& args,
                        const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> argv{ZkServerScript()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, extra_env);
}

[[noreturn]] void ThrowScriptError(const std::string& what, const CommandResult& r) {
  std::ostringstream os;
  os << "zk-server " << what << " failed (exit " << r.exit_code << "):\n" << r.output;
  throw std::runtime_error(os.str());
}

void RunScriptOrThrow(const std::vector<std::string>& args,
                      const std::vector<std::string>& extra_env = {}) {
  CommandResult r = RunScript(args, extra_env);
  if (r.exit_code != 0) {
    std::string what;
    for (const auto& a : args) what += (what.empty() ? "" : " ") + a;
    ThrowScriptError(what, r);
  }
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env) {
  CommandResult result;
  if (argv.empty()) return result;

  // Build everything before spawning.
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    bool overridden = key == "ZK_OWNER_PID";
    for (const auto& x : extra_env) {
      if (x.substr(0, x.find('=')) == key) overridden = true;
    }
    if (!overridden) env_store.push_back(std::move(kv));
  }
  bool owner_given = false;
  for (const auto& x : extra_env) owner_given = owner_given || x.rfind("ZK_OWNER_PID=", 0) == 0;
  if (!owner_given) env_store.push_back("ZK_OWNER_PID=" + std::to_string(getpid()));
  for (const auto& x : extra_env) env_store.push_back(x);
  std::vector<char*> envp;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = argv;
  std::vector<char*> cargv;
  for (auto& s : argv_store) cargv.push_back(s.data());
  cargv.push_back(nullptr);

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    result.output = std::string("pipe2: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  // Never leak the test's sockets (ZooKeeper client connections, proxy
  // sockets) into the script and the JVMs it starts: a leaked client socket
  // would keep connections open after the test closes them.
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    result.output = "spawn " + argv[0] + ": " + std::strerror(rc);
    return result;
  }

  const auto deadline = Clock::now() + kScriptTimeout;
  char buf[4096];
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t got = read(pipefd[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.output.append(buf, static_cast<size_t>(got));
  }
  close(pipefd[0]);
  if (timed_out) {
    kill(pid, SIGKILL);
    result.output += "\n[harness: command timed out]";
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result.exit_code = -1;
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else {
    result.exit_code = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
  return result;
}

std::string ZkServerScript() {
  if (const char* s = std::getenv("ZKL_ZK_SERVER_SCRIPT"); s != nullptr && *s != '\0') {
    return s;
  }
  return ZKL_SOURCE_DIR "/scripts/zk-server";
}

std::string ZkNetnsScript() {
  if (const char* s = std::getenv("ZKL_ZK_NETNS_SCRIPT"); s != nullptr && *s != '\0') {
    return s;
  }
  std::string script = ZkServerScript();
  return script.substr(0, script.find_last_of('/') + 1) + "zk-netns";
}

std::string MakeTempDir(const std::string& prefix) {
  std::string base = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0') base = t;
  std::string templ = base + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    throw std::runtime_error("mkdtemp(" + templ + "): " + std::strerror(errno));
  }
  return std::string(buf.data());
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

void QuietZkClientLogs() {
  ZooLogLevel level = ZOO_LOG_LEVEL_ERROR;
  if (const char* v = std::getenv("ZKL_ZK_CLIENT_LOG"); v != nullptr) {
    std::string s = v;
    if (s == "warn") level = ZOO_LOG_LEVEL_WARN;
    if (s == "info") level = ZOO_LOG_LEVEL_INFO;
    if (s == "debug") level = ZOO_LOG_LEVEL_DEBUG;
  }
  zoo_set_debug_level(level);
}

// ---------------------------------------------------------------------------
// ZkServer

ZkServer::ZkServer(std::string dir, bool owns_dir)
    : dir_(std::move(dir)), owns_dir_(owns_dir) {}

void ZkServer::ReadConnect() {
  connect_ = ReadFile(dir_ + "/connect");
  std::string port = ReadFile(dir_ + "/port");
  port_ = port.empty() ? 0 : std::atoi(port.c_str());
  if (connect_.empty() || port_ <= 0) {
    throw std::runtime_error("zk-server left no connect/port file in " + dir_);
  }
  secure_connect_ = ReadFile(dir_ + "/secure_connect");
  netns_ = ReadFile(dir_ + "/netns");
}

StandInOwner::StandInOwner() : pid_(fork()) {
  if (pid_ == 0) {
    for (;;) pause();  // async-signal-safe: fine after fork in a threaded process
  }
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
}

StandInOwner::~StandInOwner() {
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

void StandInOwner::Kill() { kill(pid_, SIGKILL); }

std::unique_ptr<ZkServer> ZkServer::StartStandalone(const std::vector<std::string>& env) {
  QuietZkClientLogs();
  std::string dir = MakeTempDir("zkl-zk-");
  std::unique_ptr<ZkServer> s(new ZkServer(dir, true));
  // On failure the destructor stops whatever may run and removes the dir.
  RunScriptOrThrow({"start", dir}, env);
  s->ReadConnect();
  return s;
}

void MakeTestCerts(const std::string& dir) {
  std::string script = ZkServerScript();
  script = script.substr(0, script.find_last_of('/') + 1) + "test-certs";
  CommandResult r = RunCommand({script, dir});
  if (r.exit_code != 0) {
    throw std::runtime_error("test-certs failed (exit " + std::to_string(r.exit_code) + "):\n" + r.output);
  }
}

ZkServer::~ZkServer() {
  if (!owns_dir_) return;  // ensemble members: the ensemble cleans up.
  try {
    RunScript({"stop", dir_});
  } catch (...) {
  }
  if (!KeepTemp()) RemoveTree(dir_);
}

void ZkServer::Start(bool wait_for_quorum) {
  std::vector<std::string> env;
  if (owns_dir_ && port_ > 0) env.push_back("ZK_PORT=" + std::to_string(port_));
  if (!wait_for_quorum) env.push_back("ZK_WAIT=listen");
  RunScriptOrThrow({"start", dir_}, env);
  paused_ = false;
  ReadConnect();
}

void ZkServer::Stop() {
  RunScriptOrThrow({"stop", dir_});
  paused_ = false;
}

void ZkServer::Kill() {
  RunScriptOrThrow({"kill", dir_});
  paused_ = false;
}

void ZkServer::Pause() {
  RunScriptOrThrow({"pause", dir_});
  paused_ = true;
}

void ZkServer::Resume() {
  RunScriptOrThrow({"resume", dir_});
  paused_ = false;
}

void ZkServer::Restart() {
  RunScriptOrThrow({"restart", dir_});
  paused_ = false;
  ReadConnect();
}

std::string ZkServer::FourLetter(const std::string& cmd, Millis timeout) const {
  if (!netns_.empty()) {
    // Its address is reachable only from inside the namespaces: ask from
    // there (zk-server 4lw runs the exchange in the member's namespace).
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f",
                  static_cast<double>(std::max<int64_t>(timeout.count(), 1)) / 1000.0);
    CommandResult r = RunScript({"4lw", dir_, cmd}, {std::string("ZK_4LW_TIMEOUT=") + secs});
    if (r.exit_code != 0) return "";
    // zk-server prints the answer plus one newline; "imok" has none.
    if (cmd == "ruok" && !r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return r.output;
  }
  const auto deadline = Clock::now() + timeout;
  auto left_ms = [&]() -> int {
    auto l = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    return l < 0 ? 0 : static_cast<int>(l);
  };
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  std::string out;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The address of connect() ("ADDR:PORT"), 127.0.0.1 if it has none.
  if (auto colon = connect_.rfind(':'); colon != std::string::npos && colon > 0) {
    in_addr a{};
    if (inet_pton(AF_INET, connect_.substr(0, colon).c_str(), &a) == 1) addr.sin_addr = a;
  }
  bool ok = true;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) {
      ok = false;
    } else {
      pollfd p{fd, POLLOUT, 0};
      int n;
      do {
        n = poll(&p, 1, left_ms());
      } while (n < 0 && errno == EINTR);
      int err = 0;
      socklen_t len = sizeof err;
      if (n <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) ok = false;
    }
  }
  size_t sent = 0;
  while (ok && sent < cmd.size()) {
    ssize_t n = send(fd, cmd.data() + sent, cmd.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, left_ms()) <= 0) ok = false;
    } else {
      ok = false;
    }
  }
  char buf[4096];
  while (ok) {
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, left_ms());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // timeout: a paused/hung server
      out.clear();
      break;
    }
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  close(fd);
  return out;
}

std::string ZkServer::Mode(Millis timeout) const {
  std::string s = FourLetter("srvr", timeout);
  auto pos = s.find("Mode: ");
  if (pos == std::string::npos) return "";
  auto end = s.find('\n', pos);
  return s.substr(pos + 6, end == std::string::npos ? std::string::npos : end - pos - 6);
}

// ---------------------------------------------------------------------------
// ZkEnsemble

std::unique_ptr<ZkEnsemble> ZkEnsemble::Start(int n, const std::vector<std::string>& env) {
  QuietZkClientLogs();
  if (n < 1 || n > 9) throw std::invalid_argument("ensemble size must be 1..9");
  std::unique_ptr<ZkEnsemble> e(new ZkEnsemble());
  e->dir_ = MakeTempDir("zkl-zk-ens-");
  RunScriptOrThrow({"ensemble", e->dir_, std::to_string(n)}, env);
  e->connect_ = ReadFile(e->dir_ + "/connect");
  e->secure_connect_ = ReadFile(e->dir_ + "/secure_connect");
  for (int k = 1; k <= n; ++k) {
    std::unique_ptr<ZkServer> m(new ZkServer(e->dir_ + "/node" + std::to_string(k), false));
    m->ReadConnect();
    e->members_.push_back(std::move(m));
  }
  return e;
}

ZkEnsemble::~ZkEnsemble() {
  if (dir_.empty()) return;
  try {
    RunScript({"stop", dir_});
  } catch (...) {
  }
  if (!KeepTemp()) RemoveTree(dir_);
}

ZkServer& ZkEnsemble::member(int k) {
  if (k < 1 || k > size()) throw std::out_of_range("no ensemble member " + std::to_string(k));
  return *members_[static_cast<size_t>(k - 1)];
}

// The leader among an ensemble's members (1-based), 0 if none; and the
// bounded wait for one other than not_k. Shared by both ensemble kinds.
static int LeaderAmong(const std::vector<std::unique_ptr<ZkServer>>& members) {
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i]->paused()) continue;
    if (members[i]->Mode(Millis(1000)) == "leader") return static_cast<int>(i) + 1;
  }
  return 0;
}

static int WaitForLeaderAmong(const std::vector<std::unique_ptr<ZkServer>>& members, Millis timeout,
                              int not_k) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int k = LeaderAmong(members);
    if (k != 0 && k != not_k) return k;
    if (Clock::now() >= deadline) return 0;
    std::this_thread::sleep_for(Millis(50));
  }
}

int ZkEnsemble::LeaderIndex() const { return LeaderAmong(members_); }

int ZkEnsemble::WaitForLeader(Millis timeout, int not_k) const {
  return WaitForLeaderAmong(members_, timeout, not_k);
}

void ZkEnsemble::Stop() {
  RunScriptOrThrow({"stop", dir_});
  for (auto& m : members_) m->paused_ = false;
}

// ---------------------------------------------------------------------------
// NetnsEnsemble

namespace {

// A live (non-zombie) server process for DIR (as zk-server's `alive`).
bool ServerRunning(const std::string& dir) {
  std::string pid = ReadFile(dir + "/pid");
  if (pid.empty()) return false;
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  if (!in) return false;
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Arguments are NUL-separated; a zombie has an empty command line.
  return cmdline.find(std::string(1, '\0') + dir + "/zoo.cfg" + '\0') != std::string::npos;
}

std::string NextNetnsName() {
  // [a-z0-9]{1,12}: "z" + pid (up to 7 digits) + "n" + counter (base 36).
  static std::atomic<unsigned> counter{0};
  unsigned c = counter.fetch_add(1) % (36u * 36u * 36u);
  std::string suffix;
  do {
    suffix.insert(suffix.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[c % 36]);
    c /= 36;
  } while (c != 0);
  return "z" + std::to_string(getpid()) + "n" + suffix;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

std::string NetnsEnsemble::NetnsUnavailable() {
  CommandResult r = RunCommand({ZkNetnsScript(), "check"});
  if (r.exit_code == 0) return "";
  std::string why = Trim(r.output);
  if (why.empty()) why = "zk-netns check failed (exit " + std::to_string(r.exit_code) + ")";
  return why;
}

void NetnsEnsemble::Netns(const std::vector<std::string>& args) {
  std::vector<std::string> argv{ZkNetnsScript()};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    throw std::runtime_error("zk-netns " + Joined(args) + " failed (exit " +
                             std::to_string(r.exit_code) + "):\n" + r.output);
  }
}

std::unique_ptr<NetnsEnsemble> NetnsEnsemble::Start(const NetnsOptions& o) {
  QuietZkClientLogs();
  if (o.servers < 1 || o.servers > 9) throw std::invalid_argument("servers must be 1..9");
  if (o.spare_servers < 0 || o.servers + o.spare_servers > 9) {
    throw std::invalid_argument("servers + spare_servers must be at most 9");
  }
  if (o.clients < 0 || o.clients > 9) throw std::invalid_argument("clients must be 0..9");
  if (o.tick_ms < 1 || o.sync_limit < 1 || o.init_limit < 1) {
    throw std::invalid_argument("tick_ms, sync_limit and init_limit must be positive");
  }
  std::unique_ptr<NetnsEnsemble> e(new NetnsEnsemble());
  e->clients_ = o.clients;
  // A name left over by an earlier process with our pid: take the next one.
  for (int attempt = 0;; ++attempt) {
    std::string name = NextNetnsName();
    std::vector<std::string> args{"up", name, std::to_string(o.servers + o.spare_servers),
                                  std::to_string(o.clients)};
    std::vector<std::string> argv{ZkNetnsScript()};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = RunCommand(argv);
    if (r.exit_code == 0) {
      e->name_ = name;
      break;
    }
    if (attempt < 5 && r.output.find("exists already") != std::string::npos) continue;
    throw std::runtime_error("zk-netns " + Joined(args) + " failed (exit " +
                             std::to_string(r.exit_code) + "):\n" + r.output);
  }
  // From here on the destructor removes what was made if anything throws.
  e->dir_ = MakeTempDir("zkl-zk-netns-");
  std::map<std::string, std::string> env{
      {"ZK_NETNS", e->name_},
      {"ZK_TICK_TIME", std::to_string(o.tick_ms)},
      {"ZK_SYNC_LIMIT", std::to_string(o.sync_limit)},
      {"ZK_INIT_LIMIT", std::to_string(o.init_limit)},
      {"ZK_HEAP", "256m"},
      // Three to five JVMs on two busy cores, elections in 2 s ticks: more
      // patience than a loopback ensemble's 30 s.
      {"ZK_START_TIMEOUT", "120"},
  };
  for (const auto& kv : o.env) {
    auto eq = kv.find('=');
    env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  std::vector<std::string> env_list;
  for (const auto& [k, v] : env) env_list.push_back(k + "=" + v);
  RunScriptOrThrow({"ensemble", e->dir_, std::to_string(o.servers)}, env_list);
  e->connect_ = ReadFile(e->dir_ + "/connect");
  for (int k = 1; k <= o.servers; ++k) {
    std::unique_ptr<ZkServer> m(new ZkServer(e->dir_ + "/node" + std::to_string(k), false));
    m->ReadConnect();
    e->members_.push_back(std::move(m));
  }
  return e;
}

NetnsEnsemble::~NetnsEnsemble() {
  try {
    if (!dir_.empty()) RunScript({"stop", dir_});
  } catch (...) {
  }
  try {
    if (!name_.empty()) RunCommand({ZkNetnsScript(), "down", name_});
  } catch (...) {
  }
  try {
    if (!dir_.empty() && !KeepTemp()) RemoveTree(dir_);
  } catch (...) {
  }
}

std::string NetnsEnsemble::connect_of(int k) const { return member(k).connect(); }

ZkServer& NetnsEnsemble::member(int k) {
  if (k < 1 || k > size()) throw std::out_of_range("no ensemble member " + std::to_string(k));
  return *members_[static_cast<size_t>(k - 1)];
}

const ZkServer& NetnsEnsemble::member(int k) const {
  if (k < 1 || k > size()) throw std::out_of_range("no ensemble member " + std::to_string(k));
  return *members_[static_cast<size_t>(k - 1)];
}

int NetnsEnsemble::LeaderIndex() const { return LeaderAmong(members_); }

int NetnsEnsemble::WaitForLeader(Millis timeout, int not_k) const {
  return WaitForLeaderAmong(members_, timeout, not_k);
}

bool NetnsEnsemble::WaitHealthy(Millis timeout) const {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    bool ok = true;
    int leaders = 0;
    for (int k = 1; k <= size() && ok; ++k) {
      const ZkServer& m = member(k);
      if (m.paused() || !ServerRunning(m.dir())) continue;
      std::string mode = m.Mode(Millis(1000));
      if (mode == "leader") {
        ++leaders;
      } else if (mode != "follower" && mode != "observer") {
        ok = false;
      }
    }
    if (ok && leaders == 1) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(Millis(100));
  }
}

void NetnsEnsemble::Block(const std::string& a, const std::string& b) {
  Netns({"block", name_, a, b});
}

void NetnsEnsemble::Unblock(const std::string& a, const std::string& b) {
  Netns({"unblock", name_, a, b});
}

void NetnsEnsemble::Isolate(int k) {
  member(k);  // range check
  for (int j = 1; j <= size(); ++j) {
    if (j != k) Block("s" + std::to_string(k), "s" + std::to_string(j));
  }
}

void NetnsEnsemble::Split(const std::vector<int>& minority) {
  std::vector<bool> in(static_cast<size_t>(size()) + 1, false);
  for (int k : minority) {
    member(k);  // range check
    in[static_cast<size_t>(k)] = true;
  }
  for (int a = 1; a <= size(); ++a) {
    if (!in[static_cast<size_t>(a)]) continue;
    for (int b = 1; b <= size(); ++b) {
      if (!in[static_cast<size_t>(b)]) Block("s" + std::to_string(a), "s" + std::to_string(b));
    }
  }
}

void NetnsEnsemble::Unplug(const std::string& node) { Netns({"unplug", name_, node}); }

void NetnsEnsemble::Plug(const std::string& node) { Netns({"plug", name_, node}); }

void NetnsEnsemble::Heal() { Netns({"heal", name_}); }

bool NetnsEnsemble::Present() const { return RunCommand({ZkNetnsScript(), "list", name_}).exit_code == 0; }

bool NetnsEnsemble::EnterClientNamespace(int j) {
  if (j < 1 || j > clients_) {
    errno = EINVAL;
    return false;
  }
  std::string path = "/run/netns/" + netns_name("c" + std::to_string(j));
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  if (setns(fd, CLONE_NEWNET) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return false;
  }
  close(fd);
  return true;
}

std::string NetnsEnsemble::netns_name(const std::string& node) const { return name_ + "-" + node; }

void NetnsEnsemble::Stop() {
  RunScriptOrThrow({"stop", dir_});
  for (auto& m : members_) m->paused_ = false;
}

int NetnsEnsemble::AddMember(bool observer) {
  std::vector<std::string> args{"join", dir_};
  if (observer) args.push_back("observer");
  // The same patience as Start: a JVM on two busy cores.
  RunScriptOrThrow(args, {"ZK_START_TIMEOUT=120"});
  int k = size() + 1;
  std::unique_ptr<ZkServer> m(new ZkServer(dir_ + "/node" + std::to_string(k), false));
  m->ReadConnect();
  members_.push_back(std::move(m));
  return k;
}

std::string NetnsEnsemble::ServerSpec(int k) const {
  std::string spec = ReadFile(member(k).dir() + "/spec");
  if (spec.empty()) throw std::runtime_error("member " + std::to_string(k) + " has no spec (not a ZK_RECONFIG ensemble?)");
  return spec;
}

// ---------------------------------------------------------------------------
// ExpireSession

namespace {

struct SessionWaiter {
  std::mutex mu;
  std::condition_variable cv;
  int state = 0;  // last session state seen
};

void SessionWatcher(zhandle_t*, int type, int state, const char*, void* ctx) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* w = static_cast<SessionWaiter*>(ctx);
  std::lock_guard<std::mutex> lock(w->mu);
  w->state = state;
  w->cv.notify_all();
}

// Connects with the given session; returns the terminal state reached
// (ZOO_CONNECTED_STATE, ZOO_EXPIRED_SESSION_STATE, ZOO_AUTH_FAILED_STATE) or
// 0 on timeout.  The handle is closed before returning; closing a connected
// handle closes the session on the server.
int ConnectAsAndClose(const std::string& connect, const clientid_t& cid,
                      Clock::time_point deadline) {
  SessionWaiter w;
  zhandle_t* zh = zookeeper_init(connect.c_str(), SessionWatcher, 10000, &cid, &w, 0);
  if (zh == nullptr) return 0;
  int result = 0;
  {
    std::unique_lock<std::mutex> lock(w.mu);
    w.cv.wait_until(lock, deadline, [&] {
      return w.state == ZOO_CONNECTED_STATE || w.state == ZOO_EXPIRED_SESSION_STATE ||
             w.state == ZOO_AUTH_FAILED_STATE;
    });
    result = w.state == ZOO_CONNECTED_STATE || w.state == ZOO_EXPIRED_SESSION_STATE ||
                     w.state == ZOO_AUTH_FAILED_STATE
                 ? w.state
                 : 0;
  }
  if (result == ZOO_CONNECTED_STATE && zoo_client_id(zh)->client_id != cid.client_id) {
    result = 0;  // should not happen: the server gave us a different session
  }
  zookeeper_close(zh);  // sends closeSession when connected; joins its threads
  return result;
}

}  // namespace

bool ExpireSession(const std::string& connect, int64_t session_id, const std::string& passwd,
                   Millis timeout) {
  QuietZkClientLogs();
  clientid_t cid;
  std::memset(&cid, 0, sizeof cid);
  cid.client_id = session_id;
  std::memcpy(cid.passwd, passwd.data(), std::min(passwd.size(), sizeof cid.passwd));
  const auto deadline = Clock::now() + timeout;
  // Taking the session over makes the server drop the original client's
  // connection; if that client reconnects before our close goes out it takes
  // the session back and our close is lost.  So repeat until a connect with
  // the session id is answered "expired" (normally: close, then confirm).
  while (Clock::now() < deadline) {
    int state = ConnectAsAndClose(connect, cid, deadline);
    if (state == ZOO_EXPIRED_SESSION_STATE) return true;
    if (state != ZOO_CONNECTED_STATE) return false;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Reconfiguration

namespace {

// A connected raw handle (or null when none connects before `deadline`).
zhandle_t* ConnectRaw(const std::string& connect, SessionWaiter* w, Clock::time_point deadline) {
  zhandle_t* zh = zookeeper_init(connect.c_str(), SessionWatcher, 10000, nullptr, w, 0);
  if (zh == nullptr) return nullptr;
  std::unique_lock<std::mutex> lock(w->mu);
  if (!w->cv.wait_until(lock, deadline, [&] { return w->state == ZOO_CONNECTED_STATE; })) {
    lock.unlock();
    zookeeper_close(zh);
    return nullptr;
  }
  return zh;
}

std::string GetConfig(zhandle_t* zh, int* rc) {
  std::vector<char> buf(64 * 1024);
  int len = static_cast<int>(buf.size());
  struct Stat stat;
  *rc = zoo_getconfig(zh, 0, buf.data(), &len, &stat);
  return *rc == ZOK && len > 0 ? std::string(buf.data(), static_cast<size_t>(len)) : std::string();
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The configuration has every joining server's line and no leaving id's.
bool ConfigShows(const std::string& config, const std::string& joining, const std::string& leaving) {
  std::string lines = "\n" + config + "\n";
  for (const std::string& spec : SplitList(joining)) {
    if (lines.find("\n" + spec.substr(0, spec.find('=') + 1)) == std::string::npos) return false;
  }
  for (const std::string& id : SplitList(leaving)) {
    if (lines.find("\nserver." + id + "=") != std::string::npos) return false;
  }
  return true;
}

}  // namespace

std::string ReconfigEnsemble(const std::string& connect, const std::string& joining,
                             const std::string& leaving, Millis timeout) {
  QuietZkClientLogs();
  const auto deadline = Clock::now() + timeout;
  std::string last = "no connection to " + connect;
  while (Clock::now() < deadline) {
    SessionWaiter w;
    zhandle_t* zh = ConnectRaw(connect, &w, deadline);
    if (zh == nullptr) break;
    for (;;) {
      std::vector<char> buf(64 * 1024);
      int len = static_cast<int>(buf.size());
      struct Stat stat;
      int rc = zoo_reconfig(zh, joining.empty() ? nullptr : joining.c_str(),
                            leaving.empty() ? nullptr : leaving.c_str(), nullptr, -1, buf.data(), &len, &stat);
      if (rc == ZOK) {
        zookeeper_close(zh);
        return std::string(buf.data(), static_cast<size_t>(std::max(len, 0)));
      }
      last = std::string("zoo_reconfig: ") + zerror(rc);
      // A change that committed before the answer was lost is done.
      int get_rc = 0;
      std::string config = GetConfig(zh, &get_rc);
      if (get_rc == ZOK && ConfigShows(config, joining, leaving)) {
        zookeeper_close(zh);
        return config;
      }
      bool again = rc == ZNEWCONFIGNOQUORUM || rc == ZRECONFIGINPROGRESS || rc == ZCONNECTIONLOSS ||
                   rc == ZOPERATIONTIMEOUT;
      if (!again || Clock::now() >= deadline) {
        zookeeper_close(zh);
        throw std::runtime_error("reconfig (joining \"" + joining + "\", leaving \"" + leaving +
                                 "\") failed: " + last + "; the configuration:\n" + config);
      }
      std::this_thread::sleep_for(Millis(200));  // a retry interval, bounded by the deadline
      if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT) break;  // a new handle
    }
    zookeeper_close(zh);
  }
  throw std::runtime_error("reconfig (joining \"" + joining + "\", leaving \"" + leaving +
                           "\") did not happen in time: " + last);
}

std::string EnsembleConfigOf(const std::string& connect, Millis timeout) {
  QuietZkClientLogs();
  SessionWaiter w;
  zhandle_t* zh = ConnectRaw(connect, &w, Clock::now() + timeout);
  if (zh == nullptr) return "";
  int rc = 0;
  std::string config = GetConfig(zh, &rc);
  zookeeper_close(zh);
  return config;
}

}  // namespace zkl_test
