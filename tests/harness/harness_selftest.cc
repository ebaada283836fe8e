// Self-test of the ZooKeeper test harness: zk-server (standalone, ensemble),
// FaultProxy (drop, blackhole, silent drop, delay, cut-after-create, CLI) and
// ExpireSession.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zookeeper.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fault_proxy.h"
#include "zk_harness.h"

extern char** environ;

// The ZooKeeper C client (3.8.0) leaks the multi completion of a zoo_multi()
// that fails with ZCONNECTIONLOSS (ProxyCutAfterNextCreate).  Not ours: keep
// LeakSanitizer builds of this test green.
extern "C" const char* __lsan_default_suppressions() { return "leak:zoo_amulti\n"; }
// Its logging formats into a static buffer from several threads.
extern "C" const char* __tsan_default_suppressions() { return "race:libzookeeper_mt.so\n"; }

namespace zkl_test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A raw ZooKeeper C client handle that records its session events.
class Client {
 public:
  explicit Client(const std::string& connect, int session_timeout_ms = 10000,
                  const clientid_t* cid = nullptr) {
    zh_ = zookeeper_init(connect.c_str(), &Client::Watcher, session_timeout_ms, cid, this, 0);
  }
  ~Client() {
    if (zh_ != nullptr) zookeeper_close(zh_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  zhandle_t* zh() const { return zh_; }

  // Number of session events seen so far (use as `since` below).
  size_t Mark() {
    std::lock_guard<std::mutex> lock(mu_);
    return states_.size();
  }

  // Waits for a session event with `state` at position >= since.
  bool WaitFor(int state, milliseconds timeout, size_t since = 0) {
    return WaitForAny({state}, timeout, since);
  }

  // Waits for a session event with one of `states` at position >= since.
  bool WaitForAny(std::initializer_list<int> states, milliseconds timeout, size_t since) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      for (size_t i = since; i < states_.size(); ++i) {
        if (std::find(states.begin(), states.end(), states_[i]) != states.end()) return true;
      }
      return false;
    });
  }

  bool WaitConnected(milliseconds timeout = milliseconds(15000)) {
    return WaitFor(ZOO_CONNECTED_STATE, timeout);
  }

  // After a fault: waits for a reconnection or for the news that the session
  // expired (position >= since).
  bool WaitHealed(milliseconds timeout, size_t since) {
    return WaitForAny({ZOO_CONNECTED_STATE, ZOO_EXPIRED_SESSION_STATE}, timeout, since);
  }

 private:
  static void Watcher(zhandle_t*, int type, int state, const char*, void* ctx) {
    if (type != ZOO_SESSION_EVENT) return;
    auto* self = static_cast<Client*>(ctx);
    std::lock_guard<std::mutex> lock(self->mu_);
    self->states_.push_back(state);
    self->cv_.notify_all();
  }

  zhandle_t* zh_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> states_;
};

int Exists(zhandle_t* zh, const char* path) {
  struct Stat st;
  return zoo_exists(zh, path, 0, &st);
}

class HarnessTest : public ::testing::Test {
 protected:
  void SetUp() override { QuietZkClientLogs(); }
};

// ---------------------------------------------------------------------------

TEST_F(HarnessTest, StandaloneLifecycle) {
  auto s = ZkServer::StartStandalone();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->connect(), "127.0.0.1:" + std::to_string(s->port()));
  EXPECT_EQ(s->FourLetter("ruok"), "imok");
  EXPECT_EQ(s->Mode(), "standalone");

  {
    Client c(s->connect());
    ASSERT_TRUE(c.WaitConnected());
    ASSERT_EQ(zoo_create(c.zh(), "/persist", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0), ZOK);
  }

  // Pause: the server accepts TCP but does not answer.
  s->Pause();
  auto t0 = Clock::now();
  EXPECT_EQ(s->FourLetter("ruok", milliseconds(500)), "");
  EXPECT_LT(Clock::now() - t0, seconds(3));
  s->Resume();
  EXPECT_EQ(s->FourLetter("ruok"), "imok");

  // Restart keeps port and data.  The servers must not inherit this
  // process's file descriptors (e.g. client sockets): hold an inheritable
  // pipe across the restart and look for it in the new JVM.
  int leak_probe[2];
  ASSERT_EQ(pipe(leak_probe), 0);
  const std::string connect = s->connect();
  s->Restart();
  {
    struct stat probe_st;
    ASSERT_EQ(fstat(leak_probe[0], &probe_st), 0);
    const std::string probe = "pipe:[" + std::to_string(probe_st.st_ino) + "]";
    std::string pid;
    std::ifstream(s->dir() + "/pid") >> pid;
    ASSERT_FALSE(pid.empty());
    int fds_seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/" + pid + "/fd")) {
      std::error_code ec;
      auto target = std::filesystem::read_symlink(entry.path(), ec);
      if (ec) continue;
      fds_seen++;
      EXPECT_NE(target.string(), probe) << "server inherited fd " << entry.path();
    }
    EXPECT_GT(fds_seen, 3);
  }
  close(leak_probe[0]);
  close(leak_probe[1]);
  EXPECT_EQ(s->connect(), connect);
  EXPECT_EQ(s->FourLetter("ruok"), "imok");
  {
    Client c(s->connect());
    ASSERT_TRUE(c.WaitConnected());
    EXPECT_EQ(Exists(c.zh(), "/persist"), ZOK);
  }

  s->Kill();
  EXPECT_EQ(s->FourLetter("ruok", milliseconds(500)), "");
  s->Kill();  // idempotent
  s->Start();
  EXPECT_EQ(s->connect(), connect);
  EXPECT_EQ(s->FourLetter("ruok"), "imok");
  s->Stop();
  s->Stop();  // idempotent
  EXPECT_EQ(s->FourLetter("ruok", milliseconds(500)), "");

  // The destructor removes the temp dir.
  const std::string dir = s->dir();
  s.reset();
  if (std::getenv("ZKL_KEEP_TMP") == nullptr) {
    EXPECT_NE(access(dir.c_str(), F_OK), 0);
  }
}

// The owner watcher (ZK_OWNER_PID): the server runs on while its owner
// lives, and is killed once the owner is gone (a crashed test run leaves no
// JVM behind; a live one never loses its server to the watcher).
TEST_F(HarnessTest, OwnerWatcherKillsTheServerOnlyAfterItsOwner) {
  StandInOwner owner;
  auto s = ZkServer::StartStandalone({owner.env()});
  // The watcher looks once a second: four looks at a live owner leave the
  // server alone. (A window to observe, not a wait for something.)
  std::this_thread::sleep_for(seconds(4));
  EXPECT_EQ(s->FourLetter("ruok"), "imok");
  const auto t0 = Clock::now();
  owner.Kill();
  bool gone = false;
  while (!gone && Clock::now() - t0 < seconds(20)) {
    gone = s->FourLetter("ruok", milliseconds(500)).empty();
    if (!gone) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_TRUE(gone) << "the server outlived its owner";
}

TEST_F(HarnessTest, EnsembleLeaderFailover) {
  auto e = ZkEnsemble::Start(3);
  ASSERT_EQ(e->size(), 3);
  EXPECT_EQ(std::count(e->connect().begin(), e->connect().end(), ','), 2);
  for (int k = 1; k <= 3; ++k) EXPECT_EQ(e->member(k).FourLetter("ruok"), "imok");

  const int leader = e->WaitForLeader(seconds(10));
  ASSERT_GE(leader, 1);
  ASSERT_LE(leader, 3);

  Client c(e->connect());
  ASSERT_TRUE(c.WaitConnected());
  ASSERT_EQ(zoo_create(c.zh(), "/before", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0), ZOK);

  e->member(leader).Kill();
  const int next = e->WaitForLeader(seconds(30), leader);
  ASSERT_NE(next, 0) << "no new leader elected";
  EXPECT_NE(next, leader);

  // The quorum still serves; the old leader rejoins as a follower.
  ASSERT_TRUE(c.WaitConnected());
  auto deadline = Clock::now() + seconds(20);
  int rc;
  while ((rc = Exists(c.zh(), "/before")) != ZOK && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(rc, ZOK);
  e->member(leader).Start();
  EXPECT_EQ(e->member(leader).Mode(), "follower");
  EXPECT_EQ(e->LeaderIndex(), next);

  // Pausing the leader also leads to a new election.
  e->member(next).Pause();
  const int third = e->WaitForLeader(seconds(30), next);
  EXPECT_NE(third, 0);
  EXPECT_NE(third, next);
  e->member(next).Resume();
}

TEST_F(HarnessTest, ProxyDropAllReconnects) {
  auto s = ZkServer::StartStandalone();
  FaultProxy proxy;
  proxy.Start(s->connect());
  ASSERT_GT(proxy.port(), 0);

  Client c(proxy.connect(), 10000);
  ASSERT_TRUE(c.WaitConnected());
  EXPECT_EQ(Exists(c.zh(), "/"), ZOK);
  EXPECT_EQ(proxy.stats().active, 1u);

  const size_t mark = c.Mark();
  proxy.DropAll();
  EXPECT_EQ(proxy.stats().dropped, 1u);
  EXPECT_TRUE(c.WaitFor(ZOO_CONNECTING_STATE, seconds(10), mark)) << "no disconnect event";
  EXPECT_TRUE(c.WaitFor(ZOO_CONNECTED_STATE, seconds(15), mark)) << "no reconnection";
  EXPECT_EQ(Exists(c.zh(), "/"), ZOK);
  EXPECT_GE(proxy.stats().accepted, 2u);
}

TEST_F(HarnessTest, ProxyCutAfterNextCreate) {
  auto s = ZkServer::StartStandalone();
  FaultProxy proxy;
  proxy.Start(s->connect());
  Client via(proxy.connect(), 10000);
  Client direct(s->connect(), 10000);
  ASSERT_TRUE(via.WaitConnected());
  ASSERT_TRUE(direct.WaitConnected());

  // Non-create requests pass.
  proxy.CutAfterNextCreate();
  EXPECT_TRUE(proxy.cut_armed());
  EXPECT_EQ(Exists(via.zh(), "/cut"), ZNONODE);

  size_t mark = via.Mark();
  EXPECT_EQ(zoo_create(via.zh(), "/cut", "v", 1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0),
            ZCONNECTIONLOSS);
  EXPECT_FALSE(proxy.cut_armed());
  EXPECT_EQ(proxy.stats().cut, 1u);
  EXPECT_EQ(Exists(direct.zh(), "/cut"), ZOK) << "the create must have reached the server";

  // The client reconnects (same session) and sees its node.
  EXPECT_TRUE(via.WaitFor(ZOO_CONNECTED_STATE, seconds(15), mark));
  EXPECT_EQ(Exists(via.zh(), "/cut"), ZOK);

  // Same with a create inside a multi, after a check op.
  ASSERT_EQ(zoo_create(direct.zh(), "/m", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0), ZOK);
  proxy.CutAfterNextCreate();
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  char path_buf[64];
  zoo_check_op_init(&ops[0], "/m", 0);
  zoo_create_op_init(&ops[1], "/m/child", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_SEQUENCE, path_buf,
                     sizeof path_buf);
  mark = via.Mark();
  EXPECT_EQ(zoo_multi(via.zh(), 2, ops, results), ZCONNECTIONLOSS);
  EXPECT_EQ(proxy.stats().cut, 2u);
  struct String_vector children;
  ASSERT_EQ(zoo_get_children(direct.zh(), "/m", 0, &children), ZOK);
  EXPECT_EQ(children.count, 1);
  deallocate_String_vector(&children);
  EXPECT_TRUE(via.WaitFor(ZOO_CONNECTED_STATE, seconds(15), mark));
}

TEST_F(HarnessTest, ProxyDelayAndBlackhole) {
  auto s = ZkServer::StartStandalone();
  FaultProxy proxy;
  proxy.Start(s->connect());
  Client c(proxy.connect(), 4000);
  ASSERT_TRUE(c.WaitConnected());

  proxy.SetDelayMs(150);
  auto t0 = Clock::now();
  EXPECT_EQ(Exists(c.zh(), "/"), ZOK);
  auto rtt = Clock::now() - t0;
  EXPECT_GE(rtt, milliseconds(290));  // 150 ms each way
  EXPECT_LT(rtt, seconds(3));
  proxy.SetDelayMs(0);
  t0 = Clock::now();
  EXPECT_EQ(Exists(c.zh(), "/"), ZOK);
  EXPECT_LT(Clock::now() - t0, milliseconds(250));

  // Blackhole: no answers, the client notices and gives up the connection.
  size_t mark = c.Mark();
  proxy.SetBlackhole(true);
  EXPECT_TRUE(c.WaitFor(ZOO_CONNECTING_STATE, seconds(10), mark)) << "no disconnect";
  mark = c.Mark();
  proxy.SetBlackhole(false);
  // Healed: the client reconnects (or learns that its session expired).
  EXPECT_TRUE(c.WaitHealed(seconds(20), mark));
  EXPECT_GE(proxy.stats().accepted, 2u);
}

// Loopback sockets for the tests below that put FaultProxy in front of a
// plain TCP listener instead of a ZooKeeper server.
int ListenLoopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 16) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Accepts one connection within the timeout (-1 if none).
int AcceptWithin(int listen_fd, milliseconds timeout) {
  pollfd p{listen_fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return -1;
  return accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
}

bool SendAll(int fd, const std::string& data) {
  return send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
}

// Reads until `want` bytes came, the peer closed ("<eof>" appended) or the
// timeout passed.
std::string ReadFor(int fd, size_t want, milliseconds timeout) {
  std::string got;
  auto deadline = Clock::now() + timeout;
  while (got.size() < want) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) != 1) continue;
    char b[4096];
    ssize_t n = read(fd, b, sizeof b);
    if (n <= 0) {
      got += "<eof>";
      break;
    }
    got.append(b, static_cast<size_t>(n));
  }
  return got;
}

// SetDropping on plain streams: bytes vanish both ways while the
// connections stay open (also one accepted during the drop, and a close is
// held back), and a stream cut mid-frame is passed through raw afterwards.
TEST_F(HarnessTest, ProxyDroppingCorruptsStreamsSafely) {
  int upstream_port = 0;
  const int lfd = ListenLoopback(&upstream_port);
  ASSERT_GE(lfd, 0);
  FaultProxy proxy;
  proxy.Start("127.0.0.1:" + std::to_string(upstream_port));

  const int c1 = ConnectLoopback(proxy.port());
  ASSERT_GE(c1, 0);
  const int s1 = AcceptWithin(lfd, seconds(5));
  ASSERT_GE(s1, 0);
  // A whole frame passes; then half a frame (length 100, 10 bytes) waits in
  // the proxy for the rest.
  const std::string frame = std::string("\0\0\0\x0c", 4) + "connect-req!";
  ASSERT_TRUE(SendAll(c1, frame));
  EXPECT_EQ(ReadFor(s1, frame.size(), seconds(5)), frame);
  ASSERT_TRUE(SendAll(c1, std::string("\0\0\0\x64", 4) + "0123456789"));

  proxy.SetDropping(true);
  ASSERT_TRUE(SendAll(c1, std::string(5000, 'c')));
  ASSERT_TRUE(SendAll(s1, std::string(7000, 's')));
  // A connection made during the drop is accepted and connected upstream;
  // its bytes vanish too.
  const int c2 = ConnectLoopback(proxy.port());
  ASSERT_GE(c2, 0);
  const int s2 = AcceptWithin(lfd, seconds(5));
  ASSERT_GE(s2, 0);
  ASSERT_TRUE(SendAll(c2, frame));
  // The upstream closes c2's partner: not passed on during the drop.
  close(s2);
  EXPECT_EQ(ReadFor(s1, 1, milliseconds(300)), "");
  EXPECT_EQ(ReadFor(c1, 1, milliseconds(300)), "");
  EXPECT_EQ(ReadFor(c2, 1, milliseconds(300)), "");
  // Everything sent was read and thrown away (14 + 5000 + 7000 + 16 bytes).
  auto deadline = Clock::now() + seconds(5);
  while (proxy.stats().discarded < 12030u && Clock::now() < deadline) {
    EXPECT_EQ(ReadFor(s1, 1, milliseconds(20)), "");
  }
  EXPECT_EQ(proxy.stats().discarded, 12030u);
  EXPECT_EQ(proxy.stats().active, 2u);

  proxy.SetDropping(false);
  // The cut streams are passed through raw: a "frame" with a huge length
  // does not stall them, bytes arrive as sent.
  const std::string junk = std::string("\x7f\xff\xff\xff", 4) + "after";
  ASSERT_TRUE(SendAll(c1, junk));
  EXPECT_EQ(ReadFor(s1, junk.size(), seconds(5)), junk);
  ASSERT_TRUE(SendAll(s1, "reply"));
  EXPECT_EQ(ReadFor(c1, 5, seconds(5)), "reply");
  // The close held back during the drop reaches c2 now.
  EXPECT_EQ(ReadFor(c2, 1, seconds(5)), "<eof>");
  // New connections are framed again (a frame passes whole).
  const int c3 = ConnectLoopback(proxy.port());
  ASSERT_GE(c3, 0);
  const int s3 = AcceptWithin(lfd, seconds(5));
  ASSERT_GE(s3, 0);
  ASSERT_TRUE(SendAll(c3, frame));
  EXPECT_EQ(ReadFor(s3, frame.size(), seconds(5)), frame);
  EXPECT_EQ(proxy.stats().discarded, 12030u);
  for (int fd : {c1, s1, c2, c3, s3, lfd}) close(fd);
}

// SetDropping in front of ZooKeeper: the client hears nothing, gives up the
// connection, and its new connections stay silent; after the drop it
// reconnects (or learns its session expired).
TEST_F(HarnessTest, ProxyDroppingSilencesZooKeeper) {
  auto s = ZkServer::StartStandalone();
  FaultProxy proxy;
  proxy.Start(s->connect());
  Client c(proxy.connect(), 4000);
  ASSERT_TRUE(c.WaitConnected());
  ASSERT_EQ(Exists(c.zh(), "/"), ZOK);

  size_t mark = c.Mark();
  const uint64_t accepted = proxy.stats().accepted;
  proxy.SetDropping(true);
  // Unanswered: the client gives up after its read timeout (2/3 of 4 s).
  const int rc = Exists(c.zh(), "/");
  EXPECT_TRUE(rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT) << rc;
  EXPECT_TRUE(c.WaitFor(ZOO_CONNECTING_STATE, seconds(10), mark)) << "no disconnect";
  EXPECT_GT(proxy.stats().discarded, 0u);
  EXPECT_FALSE(c.WaitFor(ZOO_CONNECTED_STATE, milliseconds(1500), mark))
      << "connected through a dropping proxy";
  EXPECT_GE(proxy.stats().active, 1u);  // nothing closed by the proxy
  mark = c.Mark();
  proxy.SetDropping(false);
  EXPECT_TRUE(c.WaitHealed(seconds(20), mark));
  EXPECT_GT(proxy.stats().accepted, accepted);
}

TEST_F(HarnessTest, ProxyLargeFramesAndPipelining) {
  auto s = ZkServer::StartStandalone();
  FaultProxy proxy;
  // The first upstream refuses: the proxy falls over to the second.
  proxy.Start("127.0.0.1:1," + s->connect());
  Client c(proxy.connect(), 10000);
  ASSERT_TRUE(c.WaitConnected());

  // A frame close to jute.maxbuffer (1 MiB) both ways.
  std::string big(900 * 1024, 'z');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + (i / 4096) % 26);
  ASSERT_EQ(zoo_create(c.zh(), "/big", big.data(), static_cast<int>(big.size()),
                       &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0),
            ZOK);
  std::vector<char> got(big.size() + 16);
  int len = static_cast<int>(got.size());
  ASSERT_EQ(zoo_get(c.zh(), "/big", 0, got.data(), &len, nullptr), ZOK);
  ASSERT_EQ(len, static_cast<int>(big.size()));
  EXPECT_EQ(std::string(got.data(), static_cast<size_t>(len)), big);

  // Many pipelined async requests.
  struct Pending {
    std::mutex mu;
    std::condition_variable cv;
    int done = 0;
    int ok = 0;
  } pending;
  constexpr int kOps = 500;
  auto cb = [](int rc, const char*, const void* data) {
    auto* p = static_cast<Pending*>(const_cast<void*>(data));
    std::lock_guard<std::mutex> lock(p->mu);
    p->done++;
    if (rc == ZOK) p->ok++;
    p->cv.notify_all();
  };
  for (int i = 0; i < kOps; ++i) {
    std::string path = "/p" + std::to_string(i);
    ASSERT_EQ(zoo_acreate(c.zh(), path.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, cb, &pending), ZOK);
  }
  {
    std::unique_lock<std::mutex> lock(pending.mu);
    ASSERT_TRUE(pending.cv.wait_for(lock, seconds(30), [&] { return pending.done == kOps; }));
    EXPECT_EQ(pending.ok, kOps);
  }
  auto st = proxy.stats();
  EXPECT_EQ(st.creates, static_cast<uint64_t>(kOps + 1));
  EXPECT_EQ(st.upstream_failures, 0u);
  EXPECT_GT(st.bytes_to_server, big.size());
  EXPECT_GT(st.bytes_to_client, big.size());

  // Only refusing upstreams: the client connection is closed.
  FaultProxy dead;
  dead.Start("127.0.0.1:1");
  EXPECT_THROW(dead.Start("127.0.0.1:1"), std::runtime_error);  // already started
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(dead.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  pollfd p{fd, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  char b;
  EXPECT_LE(read(fd, &b, 1), 0);
  close(fd);
  EXPECT_EQ(dead.stats().upstream_failures, 1u);

  // Non-loopback upstreams are refused.
  FaultProxy bad;
  EXPECT_THROW(bad.Start("10.0.0.1:2181"), std::runtime_error);
}

TEST_F(HarnessTest, ExpireSessionExpiresFirstHandle) {
  auto s = ZkServer::StartStandalone();
  // Short session timeout: see the caveat on ExpireSession() in zk_harness.h.
  Client c(s->connect(), 6000);
  ASSERT_TRUE(c.WaitConnected());
  ASSERT_EQ(zoo_create(c.zh(), "/eph", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0),
            ZOK);
  const clientid_t id = *zoo_client_id(c.zh());
  ASSERT_TRUE(ExpireSession(s->connect(), id.client_id, std::string(id.passwd, sizeof id.passwd)));
  EXPECT_TRUE(c.WaitFor(ZOO_EXPIRED_SESSION_STATE, seconds(20))) << "no expiry event";

  Client other(s->connect());
  ASSERT_TRUE(other.WaitConnected());
  EXPECT_EQ(Exists(other.zh(), "/eph"), ZNONODE) << "ephemeral node of the expired session";
}

// ---------------------------------------------------------------------------
// The fault-proxy CLI wrapper.

class ProxyProcess {
 public:
  ProxyProcess(const std::string& port_file, const std::string& upstream) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::string bin = FAULT_PROXY_BIN;
    std::vector<char*> argv{bin.data(), const_cast<char*>(port_file.c_str()),
                            const_cast<char*>(upstream.c_str()), nullptr};
    if (posix_spawn(&pid_, bin.c_str(), &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~ProxyProcess() {
    if (to_ >= 0) close(to_);  // EOF on stdin: the proxy exits
    if (pid_ > 0) {
      int status;
      for (int i = 0; i < 100; ++i) {
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        std::this_thread::sleep_for(milliseconds(50));
      }
      if (pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
    if (from_ >= 0) close(from_);
  }
  bool ok() const { return pid_ > 0; }

  // Reads one line (bounded).
  std::string ReadLine(milliseconds timeout = milliseconds(10000)) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return "<timeout>";
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char b[512];
      ssize_t n = read(from_, b, sizeof b);
      if (n <= 0) return "<eof>";
      buf_.append(b, static_cast<size_t>(n));
    }
  }

  std::string Command(const std::string& cmd) {
    std::string line = cmd + "\n";
    if (write(to_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return "<write>";
    return ReadLine();
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buf_;
};

TEST_F(HarnessTest, FaultProxyCli) {
  auto s = ZkServer::StartStandalone();
  const std::string dir = MakeTempDir("zkl-proxy-cli-");
  const std::string port_file = dir + "/port";
  {
    ProxyProcess p(port_file, s->connect());
    ASSERT_TRUE(p.ok());
    std::string ready = p.ReadLine();
    ASSERT_EQ(ready.rfind("ready 127.0.0.1:", 0), 0u) << ready;
    int port = 0;
    std::ifstream(port_file) >> port;
    ASSERT_GT(port, 0);
    EXPECT_EQ(ready, "ready 127.0.0.1:" + std::to_string(port));

    Client c("127.0.0.1:" + std::to_string(port), 10000);
    ASSERT_TRUE(c.WaitConnected());
    size_t mark = c.Mark();
    EXPECT_EQ(p.Command("drop"), "ok");
    EXPECT_TRUE(c.WaitFor(ZOO_CONNECTING_STATE, seconds(10), mark));
    EXPECT_TRUE(c.WaitFor(ZOO_CONNECTED_STATE, seconds(15), mark));
    EXPECT_EQ(p.Command("delay 10"), "ok");
    EXPECT_EQ(p.Command("blackhole off"), "ok");
    EXPECT_EQ(p.Command("cut-after-create"), "ok");
    mark = c.Mark();
    EXPECT_EQ(zoo_create(c.zh(), "/cli", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0),
              ZCONNECTIONLOSS);
    std::string stats = p.Command("stats");
    EXPECT_NE(stats.find("dropped=1 "), std::string::npos) << stats;
    EXPECT_NE(stats.find("cut=1 "), std::string::npos) << stats;
    EXPECT_EQ(p.Command("bogus").rfind("error", 0), 0u);
    EXPECT_EQ(p.Command("quit"), "ok");
  }
  RemoveTree(dir);
}

}  // namespace
}  // namespace zkl_test
