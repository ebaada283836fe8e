// Self-test of NetnsEnsemble and scripts/zk-netns: ZooKeeper servers in
// network namespaces of their own, with real partitions (blackhole routes,
// unplugged bridge ports), client namespaces, and complete cleanup.
//
// Needs root (network namespaces).  Skipped when NetnsEnsemble::
// NetnsUnavailable() says why not, unless ZKL_REQUIRE_NETNS=1: then fails.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "zk_harness.h"

// As in harness_selftest: the ZooKeeper C client's logging formats into a
// static buffer from several threads.
extern "C" const char* __tsan_default_suppressions() { return "race:libzookeeper_mt.so\n"; }

namespace zkl_test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

#define SKIP_WITHOUT_NETNS()                                                       \
  do {                                                                             \
    const std::string why = NetnsEnsemble::NetnsUnavailable();                     \
    if (!why.empty()) {                                                            \
      const char* req = std::getenv("ZKL_REQUIRE_NETNS");                          \
      if (req != nullptr && std::string(req) == "1") {                             \
        FAIL() << "network namespaces unavailable (ZKL_REQUIRE_NETNS=1): " << why; \
      }                                                                            \
      GTEST_SKIP() << why;                                                         \
    }                                                                              \
  } while (0)

double Secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void Note(const std::string& what, Clock::time_point since) {
  std::printf("[   info   ] %s: %.2f s\n", what.c_str(), Secs(Clock::now() - since));
  std::fflush(stdout);
}

bool WaitUntil(milliseconds timeout, const std::function<bool()>& pred) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(100));
  }
}

// The result of a "ruok" exchange with HOST:PORT from the calling thread's
// network namespace: non-blocking connect bounded by `timeout`, then the
// answer bounded by `timeout` again.
struct Probe {
  bool connected = false;
  std::string answer;
};

Probe Ruok(const std::string& hostport, milliseconds timeout = milliseconds(1000)) {
  Probe p;
  auto colon = hostport.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::atoi(hostport.c_str() + colon + 1)));
  if (inet_pton(AF_INET, hostport.substr(0, colon).c_str(), &addr.sin_addr) != 1) return p;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return p;
  int to = static_cast<int>(timeout.count());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    p.connected = true;
  } else if (errno == EINPROGRESS) {
    pollfd pf{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    p.connected = poll(&pf, 1, to) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
                  err == 0;
  }
  if (p.connected && send(fd, "ruok", 4, MSG_NOSIGNAL) == 4) {
    const auto deadline = Clock::now() + timeout;
    char buf[256];
    for (;;) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) break;
      pollfd pf{fd, POLLIN, 0};
      if (poll(&pf, 1, static_cast<int>(left)) != 1) break;
      ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got <= 0) break;
      p.answer.append(buf, static_cast<size_t>(got));
    }
  }
  close(fd);
  return p;
}

// Ruok from a new thread inside client namespace cJ.
Probe RuokFromClient(NetnsEnsemble& ens, int j, const std::string& hostport,
                     milliseconds timeout = milliseconds(1000)) {
  Probe p;
  std::thread t([&] {
    if (ens.EnterClientNamespace(j)) p = Ruok(hostport, timeout);
  });
  t.join();
  return p;
}

std::string Cmd(const std::vector<std::string>& argv, int* exit_code = nullptr) {
  CommandResult r = RunCommand(argv);
  if (exit_code != nullptr) *exit_code = r.exit_code;
  return r.output;
}

// The names `ip netns list` shows.
std::vector<std::string> NetnsList() {
  std::vector<std::string> names;
  std::istringstream in(Cmd({"ip", "netns", "list"}));
  std::string line;
  while (std::getline(in, line)) {
    std::string name = line.substr(0, line.find(' '));
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

std::vector<std::string> NetnsWithPrefix(const std::string& name) {
  std::vector<std::string> out;
  for (const auto& n : NetnsList()) {
    if (n.rfind(name + "-", 0) == 0) out.push_back(n);
  }
  return out;
}

bool FileExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// A live, non-zombie process.
bool PidAlive(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  auto close_paren = stat.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < stat.size() &&
         stat[close_paren + 2] != 'Z' && stat[close_paren + 2] != 'X';
}

std::string ReadPid(const std::string& dir) {
  std::ifstream in(dir + "/pid");
  std::string pid;
  in >> pid;
  return pid;
}

// Checks that the destructor of `ens` leaves no namespace, record or server.
void ExpectCleanDestroy(std::unique_ptr<NetnsEnsemble> ens) {
  const std::string name = ens->name();
  std::vector<std::string> pids;
  for (int k = 1; k <= ens->size(); ++k) {
    std::string pid = ReadPid(ens->member(k).dir());
    if (!pid.empty()) pids.push_back(pid);
  }
  EXPECT_FALSE(NetnsWithPrefix(name).empty());
  EXPECT_TRUE(FileExists("/run/zkl-netns/" + name));
  const auto t0 = Clock::now();
  ens.reset();
  Note("destructor", t0);
  EXPECT_TRUE(NetnsWithPrefix(name).empty()) << "namespaces left behind by " << name;
  EXPECT_FALSE(FileExists("/run/zkl-netns/" + name));
  for (const auto& pid : pids) EXPECT_FALSE(PidAlive(pid)) << "server pid " << pid;
}

class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override { QuietZkClientLogs(); }
};

// ---------------------------------------------------------------------------

// Takes the network `name` down when the scope ends, however the test ends.
struct DownAtEnd {
  std::string script, name;
  ~DownAtEnd() { RunCommand({script, "down", name}); }
};

// zk-netns on its own: up/down, records, blocks, plugs, and the root
// namespace left untouched.
TEST_F(NetnsTest, ZkNetnsScript) {
  SKIP_WITHOUT_NETNS();
  const std::string z = ZkNetnsScript();
  const std::string name = "y" + std::to_string(getpid()) + "t";
  const std::string record = "/run/zkl-netns/" + name;
  DownAtEnd down{z, name};

  const std::string links_before = Cmd({"ip", "-o", "link", "show"});
  const std::string addrs_before = Cmd({"ip", "-o", "addr", "show"});
  const std::string routes_before = Cmd({"ip", "route", "show"});
  int rc = -1;
  const auto t0 = Clock::now();
  std::string out = Cmd({z, "up", name, "2", "1"}, &rc);
  Note("zk-netns up (2 servers, 1 client)", t0);
  ASSERT_EQ(rc, 0) << out;
  out = Cmd({z, "up", name, "2", "1"}, &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("exists already"), std::string::npos) << out;

  // Nothing new in the caller's namespace.
  EXPECT_EQ(Cmd({"ip", "-o", "link", "show"}), links_before);
  EXPECT_EQ(Cmd({"ip", "-o", "addr", "show"}), addrs_before);
  EXPECT_EQ(Cmd({"ip", "route", "show"}), routes_before);

  const std::vector<std::string> expected{name + "-c1", name + "-hub", name + "-s1", name + "-s2"};
  auto listed = NetnsWithPrefix(name);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(Cmd({z, "addr", name, "s2"}), "10.77.0.12\n");
  EXPECT_EQ(Cmd({z, "addr", name, "c1"}), "10.77.0.101\n");
  EXPECT_EQ(Cmd({z, "nsname", name, "s1"}), name + "-s1\n");
  Cmd({z, "addr", name, "s3"}, &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(Cmd({z, "exec", name, "s1", "ip", "-o", "-4", "addr", "show", "dev", "eth0"})
                .find("10.77.0.11/24"),
            std::string::npos);

  auto record_count = [&](const std::string& line) {
    std::ifstream in(record);
    std::string l;
    int n = 0;
    while (std::getline(in, l)) n += l == line;
    return n;
  };
  // block: idempotent, both ways, one record line per pair.
  Cmd({z, "block", name, "s1", "s2"}, &rc);
  EXPECT_EQ(rc, 0);
  Cmd({z, "block", name, "s2", "s1"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(record_count("block s1 s2"), 1);
  EXPECT_NE(Cmd({z, "exec", name, "s1", "ip", "route"}).find("blackhole 10.77.0.12"),
            std::string::npos);
  EXPECT_NE(Cmd({z, "exec", name, "s2", "ip", "route"}).find("blackhole 10.77.0.11"),
            std::string::npos);
  Cmd({z, "unblock", name, "s2", "s1"}, &rc);
  EXPECT_EQ(rc, 0);
  Cmd({z, "unblock", name, "s2", "s1"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(record_count("block s1 s2"), 0);
  EXPECT_EQ(Cmd({z, "exec", name, "s1", "ip", "route"}).find("blackhole"), std::string::npos);

  // unplug / heal.
  auto hub_port_up = [&](const std::string& node) {
    std::string l = Cmd({z, "exec", name, "hub", "ip", "-o", "link", "show", node});
    return l.find(",UP") != std::string::npos;
  };
  EXPECT_TRUE(hub_port_up("s2"));
  Cmd({z, "unplug", name, "s2"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(hub_port_up("s2"));
  Cmd({z, "block", name, "c1", "s1"}, &rc);
  EXPECT_EQ(rc, 0);
  Cmd({z, "heal", name}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(hub_port_up("s2"));
  EXPECT_EQ(record_count("block c1 s1"), 0);
  EXPECT_EQ(Cmd({z, "exec", name, "c1", "ip", "route"}).find("blackhole"), std::string::npos);

  // delay: works, or says why not with exit 77 (no netem here).
  out = Cmd({z, "delay", name, "s1", "10"}, &rc);
  EXPECT_TRUE(rc == 0 || rc == 77) << out;
  if (rc == 77) std::printf("[   info   ] delay: %s", out.c_str());

  out = Cmd({z, "down", name}, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(NetnsWithPrefix(name).empty());
  EXPECT_FALSE(FileExists(record));
  Cmd({z, "down", name}, &rc);  // idempotent
  EXPECT_EQ(rc, 0);
}

// The owner watcher (ZK_OWNER_PID at `up`): the network stays while its
// owner lives, and goes once the owner is gone, so that a crashed test run
// leaves no namespaces behind and a live one never loses its network.
TEST_F(NetnsTest, OwnerWatcherTakesTheNetworkDownOnlyAfterItsOwner) {
  SKIP_WITHOUT_NETNS();
  const std::string z = ZkNetnsScript();
  const std::string name = "w" + std::to_string(getpid()) + "t";
  const std::string record = "/run/zkl-netns/" + name;
  DownAtEnd down{z, name};
  StandInOwner owner;
  CommandResult r = RunCommand({z, "up", name, "1", "0"}, {owner.env()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The watcher looks once a second: four looks at a live owner leave the
  // network alone. (A window to observe, not a wait for something.)
  std::this_thread::sleep_for(seconds(4));
  EXPECT_TRUE(FileExists(record));
  EXPECT_EQ(NetnsWithPrefix(name).size(), 2u) << "the hub and s1";
  const auto t0 = Clock::now();
  owner.Kill();
  EXPECT_TRUE(WaitUntil(seconds(20), [&] { return !FileExists(record) && NetnsWithPrefix(name).empty(); }))
      << "the network outlived its owner";
  Note("the network gone after its owner", t0);
}

// Partitions of a 3-server quorum: Isolate, Block, Unplug, Split, Heal.
TEST_F(NetnsTest, Partitions) {
  SKIP_WITHOUT_NETNS();
  const auto t_all = Clock::now();
  NetnsOptions o;
  o.tick_ms = 500;
  auto t0 = Clock::now();
  auto ens = NetnsEnsemble::Start(o);
  Note("start 3 servers (tick 500 ms)", t0);
  ASSERT_EQ(ens->size(), 3);
  EXPECT_EQ(ens->connect(), "10.77.0.11:2181,10.77.0.12:2181,10.77.0.13:2181");
  EXPECT_EQ(ens->connect_of(2), "10.77.0.12:2181");
  EXPECT_EQ(ens->netns_name("s2"), ens->name() + "-s2");
  EXPECT_EQ(ens->member(2).netns(), ens->name() + "-s2");
  for (int k = 1; k <= 3; ++k) EXPECT_EQ(ens->member(k).FourLetter("ruok"), "imok");
  ASSERT_TRUE(ens->WaitHealthy(seconds(10)));

  int leader = ens->WaitForLeader(seconds(10));
  ASSERT_NE(leader, 0);
  auto follower_of = [](int l) { return l % 3 + 1; };

  // Isolate a follower: it stops serving; the other two keep a leader; a
  // client namespace still reaches it.
  int f = follower_of(leader);
  t0 = Clock::now();
  ens->Isolate(f);
  EXPECT_TRUE(WaitUntil(seconds(10), [&] { return ens->member(f).Mode(milliseconds(1000)).empty(); }))
      << "isolated s" << f << " still serves";
  Note("isolated follower stops serving", t0);
  EXPECT_NE(ens->member(f).FourLetter("srvr").find("not currently serving"), std::string::npos);
  EXPECT_EQ(ens->LeaderIndex(), leader);
  EXPECT_EQ(ens->member(6 - leader - f).Mode(), "follower");
  EXPECT_EQ(RuokFromClient(*ens, 1, ens->connect_of(f)).answer, "imok");
  t0 = Clock::now();
  ens->Heal();
  ASSERT_TRUE(ens->WaitHealthy(seconds(30)));
  Note("heal: healthy again", t0);
  EXPECT_FALSE(ens->member(f).Mode().empty());

  // Block one leader-follower pair: that follower loses its leader.
  leader = ens->WaitForLeader(seconds(10));
  ASSERT_NE(leader, 0);
  f = follower_of(leader);
  t0 = Clock::now();
  ens->Block("s" + std::to_string(leader), "s" + std::to_string(f));
  EXPECT_TRUE(WaitUntil(seconds(10), [&] { return ens->member(f).Mode(milliseconds(1000)).empty(); }))
      << "s" << f << " still serves with its leader blocked";
  Note("blocked follower stops serving", t0);
  EXPECT_EQ(ens->LeaderIndex(), leader);
  t0 = Clock::now();
  ens->Unblock("s" + std::to_string(leader), "s" + std::to_string(f));
  ASSERT_TRUE(ens->WaitHealthy(seconds(30)));
  Note("unblock: healthy again", t0);

  // Unplug a follower: cut from everyone, the client namespace included.
  leader = ens->WaitForLeader(seconds(10));
  ASSERT_NE(leader, 0);
  f = follower_of(leader);
  t0 = Clock::now();
  ens->Unplug("s" + std::to_string(f));
  EXPECT_TRUE(WaitUntil(seconds(10), [&] { return ens->member(f).Mode(milliseconds(1000)).empty(); }))
      << "unplugged s" << f << " still serves";
  Note("unplugged follower stops serving", t0);
  EXPECT_NE(RuokFromClient(*ens, 1, ens->connect_of(f)).answer, "imok");
  EXPECT_EQ(RuokFromClient(*ens, 1, ens->connect_of(leader)).answer, "imok");
  EXPECT_EQ(ens->LeaderIndex(), leader);
  t0 = Clock::now();
  ens->Plug("s" + std::to_string(f));
  ASSERT_TRUE(ens->WaitHealthy(seconds(30)));
  Note("plug: healthy again", t0);

  // Split the leader off: the majority elects another one, the old leader
  // stops serving.
  leader = ens->WaitForLeader(seconds(10));
  ASSERT_NE(leader, 0);
  t0 = Clock::now();
  ens->Split({leader});
  const int next = ens->WaitForLeader(seconds(15), leader);
  EXPECT_NE(next, 0) << "no new leader in the majority";
  Note("split: new leader in the majority", t0);
  EXPECT_TRUE(
      WaitUntil(seconds(10), [&] { return ens->member(leader).Mode(milliseconds(1000)).empty(); }))
      << "old leader s" << leader << " still serves in the minority";
  t0 = Clock::now();
  ens->Heal();
  ASSERT_TRUE(ens->WaitHealthy(seconds(30)));
  Note("heal: healthy again", t0);

  ExpectCleanDestroy(std::move(ens));
  Note("Partitions total", t_all);
}

// A thread that entered a client namespace reaches the servers (and so do
// the ZooKeeper client threads it creates).
TEST_F(NetnsTest, ClientNamespace) {
  SKIP_WITHOUT_NETNS();
  const auto t_all = Clock::now();
  NetnsOptions o;
  o.servers = 1;
  o.clients = 2;
  o.tick_ms = 500;
  auto ens = NetnsEnsemble::Start(o);
  Note("start 1 server", t_all);
  const std::string target = ens->connect_of(1);
  EXPECT_EQ(target, "10.77.0.11:2181");
  EXPECT_EQ(ens->member(1).Mode(), "leader");

  // Never probe 10.77.0.0/24 from the root namespace: there it is not ours
  // (its default route leads off the machine). Only threads inside the
  // harness's namespaces talk to the servers.
  auto t0 = Clock::now();
  bool entered = false;
  int err = 0;
  Probe inside;
  int create_rc = -999;
  bool session = false;
  std::thread t([&] {
    entered = ens->EnterClientNamespace(1);
    err = errno;
    if (!entered) return;
    inside = Ruok(target);
    // A ZooKeeper client created here runs its threads in this namespace.
    struct Waiter {
      std::mutex mu;
      std::condition_variable cv;
      bool connected = false;
    } w;
    auto watcher = [](zhandle_t*, int type, int state, const char*, void* ctx) {
      if (type != ZOO_SESSION_EVENT || state != ZOO_CONNECTED_STATE) return;
      auto* wp = static_cast<Waiter*>(ctx);
      std::lock_guard<std::mutex> lock(wp->mu);
      wp->connected = true;
      wp->cv.notify_all();
    };
    zhandle_t* zh = zookeeper_init(ens->connect().c_str(), watcher, 10000, nullptr, &w, 0);
    if (zh == nullptr) return;
    {
      std::unique_lock<std::mutex> lock(w.mu);
      session = w.cv.wait_for(lock, seconds(10), [&] { return w.connected; });
    }
    if (session) {
      create_rc = zoo_create(zh, "/netns-selftest", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
    }
    zookeeper_close(zh);
  });
  t.join();
  ASSERT_TRUE(entered) << "EnterClientNamespace(1): " << std::strerror(err);
  EXPECT_TRUE(inside.connected);
  EXPECT_EQ(inside.answer, "imok");
  EXPECT_TRUE(session) << "no ZooKeeper session from client namespace c1";
  EXPECT_EQ(create_rc, ZOK);

  // Client namespace 2 too; 3 does not exist.
  EXPECT_EQ(RuokFromClient(*ens, 2, target).answer, "imok");
  std::thread t3([&] {
    entered = ens->EnterClientNamespace(3);
    err = errno;
  });
  t3.join();
  EXPECT_FALSE(entered);
  EXPECT_EQ(err, EINVAL);

  // Members keep working through zk-server: stop, start, four-letter words.
  t0 = Clock::now();
  ens->member(1).Restart();
  EXPECT_EQ(ens->member(1).FourLetter("ruok"), "imok");
  EXPECT_TRUE(ens->WaitHealthy(seconds(20)));
  Note("member restart", t0);

  ExpectCleanDestroy(std::move(ens));
  Note("ClientNamespace total", t_all);
}

}  // namespace
}  // namespace zkl_test
