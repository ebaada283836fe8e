// ZooKeeper test-server harness for the zkl GoogleTest suites.
//
// Servers are started and controlled through scripts/zk-server (located via
// the ZKL_SOURCE_DIR compile definition, or the ZKL_ZK_SERVER_SCRIPT
// environment variable), each in a fresh temporary directory that is removed
// again by the destructor.  Everything listens on 127.0.0.1 only, except
// NetnsEnsemble (members in network namespaces of their own, made with
// scripts/zk-netns, for real network partitions; needs root).
//
// Errors while starting/controlling servers throw std::runtime_error carrying
// the script's output (including the server log tail), which GoogleTest
// reports as a test failure.
//
// The servers get ZK_OWNER_PID=<this process>, so zk-server kills them if the
// test process dies without running the destructors.
//
// Environment: ZKL_ZK_SERVER_SCRIPT (use another zk-server),
// ZKL_ZK_NETNS_SCRIPT (use another zk-netns), ZKL_KEEP_TMP
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

  // "127.0.0.1:PORT" ("10.77.0.1K:2181" for a NetnsEnsemble member); stable
  // across Stop()/Start()/Restart().
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
  // "wchs", "dump") with its own socket to connect(); returns the answer, or
  // "" when the server does not answer within `timeout`.  A member in a
  // network namespace is asked from inside that namespace (through
  // `zk-server 4lw`), so this works from any thread; its multi-line answers
  // end in exactly one newline.
  std::string FourLetter(const std::string& cmd, Millis timeout = Millis(5000)) const;

  // "leader", "follower", "standalone", or "" (not serving / no answer).
  std::string Mode(Millis timeout = Millis(2000)) const;

  // The network namespace of a NetnsEnsemble member ("NAME-sK"), else "".
  const std::string& netns() const { return netns_; }

 private:
  friend class ZkEnsemble;
  friend class NetnsEnsemble;
  ZkServer(std::string dir, bool owns_dir);
  void ReadConnect();

  std::string dir_;
  bool owns_dir_ = false;
  bool paused_ = false;
  int port_ = 0;
  std::string connect_;
  std::string secure_connect_;
  std::string netns_;
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

// Settings of a NetnsEnsemble.
struct NetnsOptions {
  int servers = 3;      // 1..9
  int clients = 1;      // client namespaces c1..cM, 0..9
  int tick_ms = 2000;   // ZooKeeper tickTime
  int sync_limit = 5;   // in ticks: a follower cut from its leader stops
                        // serving after about sync_limit * tick_ms
  int init_limit = 10;  // in ticks
  // More zk-server settings ("KEY=VALUE", e.g. ZK_TLS_DIR); they override the
  // ones above (ZK_TICK_TIME, ZK_SYNC_LIMIT, ZK_INIT_LIMIT, ZK_HEAP=256m).
  // ZK_RECONFIG=1 makes an ensemble whose membership can change (see
  // NetnsEnsemble::AddMember, ReconfigEnsemble).
  std::vector<std::string> env;
  // Namespaces for members that join later (AddMember): NAME-s(N+1) ..
  // NAME-s(N+spare_servers), made but not started. servers + spare_servers
  // is at most 9.
  int spare_servers = 0;
};

// An N-member quorum with each server in a Linux network namespace of its own
// (scripts/zk-netns): namespaces NAME-s1..sN (server k at 10.77.0.(10+k),
// client port 2181) and client namespaces NAME-c1..cM (10.77.0.(100+j)), all
// on a bridge in the hub namespace NAME-hub.  Nothing is added to the
// caller's namespace, so 10.77.0.x is reachable only from threads that
// entered a client namespace (EnterClientNamespace); servers are controlled
// and asked four-letter words from inside their namespaces, from any thread.
// Partitions are real: blackhole routes (Block, Isolate, Split) and unplugged
// bridge ports (Unplug) drop packets silently, without RST or FIN.
// Needs root; see NetnsUnavailable().
//
// The servers and namespaces are removed by the destructor; if the test
// process dies without it, zk-server and zk-netns watchers (ZK_OWNER_PID)
// kill the servers and remove the namespaces.
class NetnsEnsemble {
 public:
  // "" when network namespaces can be used here, else why not (the line of
  // `zk-netns check`; e.g. not root).
  static std::string NetnsUnavailable();

  // zk-netns up, then zk-server ensemble inside the namespaces; waits until
  // all serve and one is leader.  Throws std::runtime_error with the scripts'
  // output on failure (having removed whatever was made).
  static std::unique_ptr<NetnsEnsemble> Start(const NetnsOptions& options = NetnsOptions());

  // Stops the servers (zk-server stop), then zk-netns down.  Never throws.
  ~NetnsEnsemble();
  NetnsEnsemble(const NetnsEnsemble&) = delete;
  NetnsEnsemble& operator=(const NetnsEnsemble&) = delete;

  // "10.77.0.11:2181,10.77.0.12:2181,..." (all members).
  const std::string& connect() const { return connect_; }
  // "10.77.0.1K:2181", member k only.
  std::string connect_of(int k) const;
  int size() const { return static_cast<int>(members_.size()); }
  int clients() const { return clients_; }
  // The zk-netns NAME (namespaces are NAME-hub, NAME-s1, NAME-c1, ...).
  const std::string& name() const { return name_; }
  const std::string& dir() const { return dir_; }

  // Member k, 1-based; see ZkEnsemble::member().
  ZkServer& member(int k);
  const ZkServer& member(int k) const;
  // See ZkEnsemble.
  int LeaderIndex() const;
  int WaitForLeader(Millis timeout = Millis(30000), int not_k = 0) const;
  // Waits (bounded) until every running (not stopped, not paused) member
  // serves as leader or follower and there is exactly one leader; false on
  // timeout.
  bool WaitHealthy(Millis timeout = Millis(30000)) const;

  // Partitions.  Nodes are named "s1".."sN" (servers) and "c1".."cM"
  // (client namespaces).  All throw std::runtime_error on failure.
  // Block: drop all traffic between a and b (both ways); Unblock undoes it.
  void Block(const std::string& a, const std::string& b);
  void Unblock(const std::string& a, const std::string& b);
  // Blocks server k from every other server (clients still reach it).
  void Isolate(int k);
  // Blocks every pair of servers across {minority} and the rest.
  void Split(const std::vector<int>& minority);
  // Unplug: the node's bridge port goes down, cutting it from everyone
  // (servers and clients); Plug undoes it.
  void Unplug(const std::string& node);
  void Plug(const std::string& node);
  // Undoes every Block/Isolate/Split and plugs every node.
  void Heal();
  // Whether zk-netns still has this network: false once something took it
  // down under the test (nothing it runs can work after that).
  bool Present() const;

  // Moves the calling thread into client namespace cJ (setns); threads it
  // creates afterwards (e.g. a ZooKeeper client's) inherit it.  Returns false
  // with errno set on failure.  Other threads are not affected.
  bool EnterClientNamespace(int j = 1);

  // "NAME-" + node, e.g. netns_name("s1").
  std::string netns_name(const std::string& node) const;

  void Stop();  // stops all members (the namespaces stay).

  // An ensemble started with ZK_RECONFIG=1 in NetnsOptions.env grows by one
  // member: member size()+1 starts in its spare namespace (zk-server join)
  // with the ensemble's current configuration plus itself, and serves as a
  // non-voting follower until ReconfigEnsemble adds it (its line:
  // ServerSpec). Returns its index. Throws std::runtime_error on failure.
  int AddMember(bool observer = false);
  // Member k's line for a reconfig ("server.K=10.77.0.1K:2888:3888:
  // participant;10.77.0.1K:2181"); ZK_RECONFIG ensembles only.
  std::string ServerSpec(int k) const;

 private:
  NetnsEnsemble() = default;
  void Netns(const std::vector<std::string>& args);
  std::string name_;
  std::string dir_;
  std::string connect_;
  int clients_ = 0;
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

// ZooKeeper's dynamic reconfiguration through a raw ZooKeeper C client (no
// zkl), for ensembles that allow it (zk-server ZK_RECONFIG=1): adds the
// servers of `joining` (comma-separated server lines, e.g.
// NetnsEnsemble::ServerSpec) and removes the ids of `leaving` ("1,2");
// either may be "". Retries (bounded by `timeout`) while the ensemble cannot
// take it yet (joiners not yet synced, another reconfig in progress, a
// lost connection, after which a change that did commit is recognized in
// the configuration). Returns the new configuration (the data of
// /zookeeper/config); throws std::runtime_error on failure or timeout.
std::string ReconfigEnsemble(const std::string& connect, const std::string& joining,
                             const std::string& leaving, Millis timeout = Millis(60000));

// The ensemble's configuration (the data of /zookeeper/config) as a client
// reads it through a raw ZooKeeper C client, or "" when it cannot be read
// within `timeout`.
std::string EnsembleConfigOf(const std::string& connect, Millis timeout = Millis(15000));

// Sets the ZooKeeper C client log level (process-wide) to ERROR, or to the
// level named by $ZKL_ZK_CLIENT_LOG (error, warn, info, debug).  Called by
// StartStandalone(), ZkEnsemble::Start() and ExpireSession().
void QuietZkClientLogs();

// Path of scripts/zk-server used by this harness.
std::string ZkServerScript();

// Path of scripts/zk-netns (next to zk-server, or $ZKL_ZK_NETNS_SCRIPT).
std::string ZkNetnsScript();

// Generates throw-away test certificates into `dir` with scripts/test-certs
// (next to zk-server; see that script for the files).  Throws on failure.
void MakeTestCerts(const std::string& dir);

// Result of running a command (stdout and stderr merged).
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs argv (no shell; argv[0] searched in PATH) with ZK_OWNER_PID set to this
// process (unless `extra_env` sets it) plus `extra_env` ("KEY=VALUE"), stdin
// from /dev/null, all other file descriptors closed in the child, and
// captures its output (bounded).
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env = {});

// Creates a fresh directory (mkdtemp) under $TMPDIR or /tmp.
std::string MakeTempDir(const std::string& prefix = "zkl-test-");

// rm -rf
void RemoveTree(const std::string& path);

// A child process that only waits, to stand in as the ZK_OWNER_PID of
// something a test hands to the owner watchers: Kill() plays the owner's
// crash; the destructor kills and reaps it, however the test ends.
class StandInOwner {
 public:
  StandInOwner();  // throws std::runtime_error when fork fails
  ~StandInOwner();
  StandInOwner(const StandInOwner&) = delete;
  StandInOwner& operator=(const StandInOwner&) = delete;
  int pid() const { return pid_; }
  std::string env() const { return "ZK_OWNER_PID=" + std::to_string(pid_); }
  void Kill();  // SIGKILL, not reaped: a zombie and then gone, as a crash

 private:
  int pid_;
};

// A MakeTempDir directory removed with everything in it when the scope
// ends, however the test ends.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) : path_(MakeTempDir(prefix)) {}
  ~TempDir() { RemoveTree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace zkl_test
