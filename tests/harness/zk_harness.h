// ZooKeeper test-server harness for the zkl GoogleTest suites.
//
// Servers are started and controlled through scripts/zk-server (located via
// the ZKL_SOURCE_DIR compile definition, or the ZKL_ZK_SERVER_SCRIPT
// environment variable), each in a fresh temporary directory that is removed
// again by the destructor.  Everything listens on 127.0.0.1 only.
//
// Errors while starting/controlling servers throw std::runtime_error carrying
// the script's output (including the server log tail), which GoogleTest
// reports as a test failure.
//
// The servers get ZK_OWNER_PID=<this process>, so zk-server kills them if the
// test process dies without running the destructors.
//
// Environment: ZKL_ZK_SERVER_SCRIPT (use another zk-server), ZKL_KEEP_TMP
// (keep the temp dirs, with the server logs, for debugging),
// ZKL_ZK_CLIENT_LOG (ZooKeeper C client log level, see QuietZkClientLogs),
// TMPDIR; and those of zk-server itself (ZK_START_TIMEOUT, ZK_JAVA_OPTS, ...).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zkl_test {

using Millis = std::chrono::milliseconds;

// One ZooKeeper server process: a standalone server, or one member of a
// ZkEnsemble (then owned by the ensemble).
class ZkServer {
 public:
  // Starts a standalone server in a new temp dir.  Throws on failure.
  // `env` ("KEY=VALUE") configures zk-server, e.g. ZK_TLS_DIR for a TLS
  // secureClientPort (see scripts/zk-server).
  static std::unique_ptr<ZkServer> StartStandalone(const std::vector<std::string>& env = {});

  ~ZkServer();
  ZkServer(const ZkServer&) = delete;
  ZkServer& operator=(const ZkServer&) = delete;

  // "127.0.0.1:PORT"; stable across Stop()/Start()/Restart().
  const std::string& connect() const { return connect_; }
  int port() const { return port_; }
  // "127.0.0.1:PORT" of the TLS secureClientPort, or "" without one.
  const std::string& secure_connect() const { return secure_connect_; }
  const std::string& dir() const { return dir_; }

  // Starts again after Stop()/Kill(), same port and data.  For an ensemble
  // member, waits until it is leader or follower, unless !wait_for_quorum
  // (then only until it answers ruok; use when its peers are down).
  void Start(bool wait_for_quorum = true);
  void Stop();     // SIGTERM, bounded wait, SIGKILL; idempotent.
  void Kill();     // SIGKILL (crash); idempotent.
  void Pause();    // SIGSTOP.
  void Resume();   // SIGCONT.
  void Restart();  // Stop() then Start().
  bool paused() const { return paused_; }

  // Sends a four-letter word ("ruok", "srvr", "stat", "mntr", "cons",
  // "wchs", "dump") with its own socket; returns the answer, or "" when the
  // server does not answer within `timeout`.
  std::string FourLetter(const std::string& cmd, Millis timeout = Millis(5000)) const;

  // "leader", "follower", "standalone", or "" (not serving / no answer).
  std::string Mode(Millis timeout = Millis(2000)) const;

 private:
  friend class ZkEnsemble;
  ZkServer(std::string dir, bool owns_dir);
  void ReadConnect();

  std::string dir_;
  bool owns_dir_ = false;
  bool paused_ = false;
  int port_ = 0;
  std::string connect_;
  std::string secure_connect_;
};

// An N-member quorum (QuorumPeerMain) on loopback in one temp dir.
class ZkEnsemble {
 public:
  // Starts n members and waits until all serve and one is leader.  Throws.
  // `env` ("KEY=VALUE") configures zk-server, e.g. ZK_TLS_DIR: every member
  // then also has a TLS secureClientPort (see scripts/zk-server), kept across
  // the members' Start()/Restart().
  static std::unique_ptr<ZkEnsemble> Start(int n = 3, const std::vector<std::string>& env = {});

  ~ZkEnsemble();
  ZkEnsemble(const ZkEnsemble&) = delete;
  ZkEnsemble& operator=(const ZkEnsemble&) = delete;

  // "127.0.0.1:p1,127.0.0.1:p2,..."
  const std::string& connect() const { return connect_; }
  // The members' TLS secureClientPorts, "127.0.0.1:s1,...", or "" without TLS.
  const std::string& secure_connect() const { return secure_connect_; }
  int size() const { return static_cast<int>(members_.size()); }
  const std::string& dir() const { return dir_; }

  // Member k, 1-based (k = 1..size()).  Use its Kill()/Pause()/Resume()/
  // Restart()/Start()/Stop()/FourLetter().  Start()/Restart() of a member wait
  // until it has rejoined the quorum as leader or follower.
  ZkServer& member(int k);

  // 1-based index of the current leader, or 0 if none right now.  Paused or
  // stopped members are skipped.
  int LeaderIndex() const;

  // Waits (bounded) for a leader other than `not_k`; returns its index or 0.
  int WaitForLeader(Millis timeout = Millis(30000), int not_k = 0) const;

  void Stop();  // stops all members.

 private:
  ZkEnsemble() = default;
  std::string dir_;
  std::string connect_;
  std::string secure_connect_;
  std::vector<std::unique_ptr<ZkServer>> members_;
};

// Expires a session for real: opens a second ZooKeeper C client handle with
// the same session id and password (16 bytes), waits (bounded) until it is
// connected, then zookeeper_close()s it, which closes the session on the
// server; then confirms with one more connect that the server now reports the
// session expired (retrying the takeover if the original client took the
// session back meanwhile).  Returns true if the session is gone.
//
// The original handle gets ZOO_EXPIRED_SESSION_STATE when it next talks to the
// server, normally within a second.  Caveat (ZooKeeper server race, seen in
// about 1 of 10 runs): if the original client reconnects while the takeover
// is being processed, the server can leave its new connection attached to the
// closed session without answering it; the client then notices only after
// its own connection timeout (2/3 of its session timeout).  So wait for the
// expiry event at least that long.
bool ExpireSession(const std::string& connect, int64_t session_id,
                   const std::string& passwd, Millis timeout = Millis(15000));

// Sets the ZooKeeper C client log level (process-wide) to ERROR, or to the
// level named by $ZKL_ZK_CLIENT_LOG (error, warn, info, debug).  Called by
// StartStandalone(), ZkEnsemble::Start() and ExpireSession().
void QuietZkClientLogs();

// Path of scripts/zk-server used by this harness.
std::string ZkServerScript();

// Generates throw-away test certificates into `dir` with scripts/test-certs
// (next to zk-server; see that script for the files).  Throws on failure.
void MakeTestCerts(const std::string& dir);

// Result of running a command (stdout and stderr merged).
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs argv (no shell; argv[0] searched in PATH) with ZK_OWNER_PID set to this
// process plus `extra_env` ("KEY=VALUE"), stdin from /dev/null, all other
// file descriptors closed in the child, and captures its output (bounded).
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env = {});

// Creates a fresh directory (mkdtemp) under $TMPDIR or /tmp.
std::string MakeTempDir(const std::string& prefix = "zkl-test-");

// rm -rf
void RemoveTree(const std::string& path);

}  // namespace zkl_test
