// Self-test of the ZooKeeper test harness: zk-server (standalone, ensemble),
// FaultProxy (drop, blackhole, delay, cut-after-create, CLI) and
// ExpireSession.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fault_proxy.h"
#include "zk_harness.h"

extern char** environ;

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
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      for (size_t i = since; i < states_.size(); ++i) {
        if (states_[i] == state) return true;
      }
      return false;
    });
  }

  bool WaitConnected(milliseconds timeout = milliseconds(15000)) {
    return WaitFor(ZOO_CONNECTED_STATE, timeout);
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

  // Restart keeps port and data.
  const std::string connect = s->connect();
  s->Restart();
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
  EXPECT_NE(access(dir.c_str(), F_OK), 0);
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
  auto deadline = Clock::now() + seconds(20);
  bool healed = false;
  while (!healed && Clock::now() < deadline) {
    healed = c.WaitFor(ZOO_CONNECTED_STATE, milliseconds(100), mark) ||
             c.WaitFor(ZOO_EXPIRED_SESSION_STATE, milliseconds(100), mark);
  }
  EXPECT_TRUE(healed);
  EXPECT_GE(proxy.stats().accepted, 2u);
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
