// Secured servers (issue 15): real TLS ZooKeepers (Netty secureClientPort)
// started by the harness on 127.0.0.1 with throw-away certificates
// (scripts/test-certs); every failure mode gives its own error code from
// zkl_client_wait_connected, a server that never answers the handshake is
// given up within the connect timeout, and the key's passphrase never
// reaches a log line. Then SASL DIGEST-MD5 (a JAAS DigestLoginModule
// server), alone and over TLS on one connection.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fault_proxy.h"
#include "test_support.h"

using namespace zkl_test;
using Clock = std::chrono::steady_clock;

namespace {

// How long a wait for a failing connect lasts: several attempts fit in it
// (each fails at once, or after the connect timeout of the silent cases).
constexpr int64_t kFailWaitMs = 3000;

std::string ReadTrimmed(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The certificates and the three TLS servers of this binary, made on first
// use and removed when it exits.
class TlsWorld {
 public:
  static TlsWorld &Get() {
    static TlsWorld *world = [] {
      auto *w = new TlsWorld;
      std::atexit([] { Get().TearDown(); });
      return w;
    }();
    return *world;
  }

  const std::string &certs() {
    std::call_once(certs_once_, [this] {
      certs_ = MakeTempDir("zkl-certs-");
      MakeTestCerts(certs_);
      passphrase_ = ReadTrimmed(certs_ + "/client-key.pass");
    });
    return certs_;
  }
  std::string cert(const std::string &name) { return certs() + "/" + name; }
  const std::string &passphrase() {
    certs();
    return passphrase_;
  }

  // Requires a client certificate, serves a certificate of the test CA for
  // localhost and 127.0.0.1.
  ZkServer &good() { return Start(&good_, &good_once_, "server.pem"); }
  // Serves a certificate of another CA.
  ZkServer &other_ca() { return Start(&other_ca_, &other_ca_once_, "other-server.pem"); }
  // Serves a certificate of the test CA for other.invalid only.
  ZkServer &wrong_host() { return Start(&wrong_host_, &wrong_host_once_, "wronghost-server.pem"); }
  // Serve certificates of the test CA whose validity ended, or has not begun.
  ZkServer &expired() { return Start(&expired_, &expired_once_, "expired-server.pem"); }
  ZkServer &not_yet_valid() { return Start(&not_yet_valid_, &not_yet_valid_once_, "notyet-server.pem"); }
  // Requires SASL DIGEST-MD5 of every client (sasl_user(), sasl_password()),
  // on its plaintext port and on a TLS port (client certificate wanted, not
  // needed).
  ZkServer &sasl() {
    std::call_once(sasl_once_, [&] {
      std::string file = certs() + "/sasl-digest";
      {
        std::ofstream out(file);
        out << sasl_user() << ":" << sasl_password() << "\n";
      }
      sasl_ = ZkServer::StartStandalone({"ZK_TLS_DIR=" + certs(), "ZK_TLS_CLIENT_AUTH=want",
                                         "ZK_SASL_DIGEST_FILE=" + file});
    });
    if (!sasl_) throw std::runtime_error("no SASL server");
    return *sasl_;
  }
  static std::string sasl_user() { return "zkl-alice"; }
  static std::string sasl_password() { return "s4sl-Secret-pw"; }

  void TearDown() {
    good_.reset();
    other_ca_.reset();
    wrong_host_.reset();
    expired_.reset();
    not_yet_valid_.reset();
    sasl_.reset();
    if (!certs_.empty() && std::getenv("ZKL_KEEP_TMP") == nullptr) RemoveTree(certs_);
  }

 private:
  ZkServer &Start(std::unique_ptr<ZkServer> *s, std::once_flag *once, const char *server_cert) {
    std::call_once(*once, [&] {
      *s = ZkServer::StartStandalone({"ZK_TLS_DIR=" + certs(), std::string("ZK_TLS_SERVER_CERT=") + server_cert,
                                      "ZK_TLS_CLIENT_AUTH=need"});
    });
    if (!*s || (*s)->secure_connect().empty()) throw std::runtime_error("no TLS server");
    return **s;
  }

  std::once_flag certs_once_, good_once_, other_ca_once_, wrong_host_once_, expired_once_,
      not_yet_valid_once_, sasl_once_;
  std::string certs_, passphrase_;
  std::unique_ptr<ZkServer> good_, other_ca_, wrong_host_, expired_, not_yet_valid_, sasl_;
};
TlsWorld &World() { return TlsWorld::Get(); }

// The options of one test client; strings live here.
struct Tls {
  std::string servers;
  std::string ca, cert, key, password;
  bool skip_hostname = false;
  std::string sasl_mechanism, sasl_user, sasl_password;
  int acl = ZKL_ACL_OPEN;
  int io = ZKL_IO_THREAD;
  int connect_timeout_ms = 0;
  int session_timeout_ms = 6000;
  Logs *logs = nullptr;

  // Creates the client: zkl_client_new's result.
  int New(ClientPtr *out) const {
    zkl_client_options o;
    EXPECT_EQ(zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION), 0);
    o.servers = servers.c_str();
    o.session_timeout_ms = session_timeout_ms;
    o.connect_timeout_ms = connect_timeout_ms;
    o.tls_ca_file = ca.empty() ? nullptr : ca.c_str();
    o.tls_cert_file = cert.empty() ? nullptr : cert.c_str();
    o.tls_key_file = key.empty() ? nullptr : key.c_str();
    o.tls_key_password = password.empty() ? nullptr : password.c_str();
    o.tls_insecure_skip_hostname_check = skip_hostname ? 1 : 0;
    o.sasl_mechanism = sasl_mechanism.empty() ? nullptr : sasl_mechanism.c_str();
    o.sasl_user = sasl_user.empty() ? nullptr : sasl_user.c_str();
    o.sasl_password = sasl_mechanism.empty() ? nullptr : sasl_password.c_str();
    o.acl = acl;
    o.io = io;
    if (logs) CaptureLogs(&o, logs);
    return NewClientWith(o, out);
  }

  // Creates the client and waits for its session: wait_connected's result.
  int Connect(int64_t wait_ms, ClientPtr *out = nullptr) const { return ConnectWith(*this, wait_ms, out); }
};

// Mutual TLS with the encrypted client key.
Tls MutualTls(const std::string &servers) {
  Tls t;
  t.servers = servers;
  t.ca = World().cert("ca.pem");
  t.cert = World().cert("client.crt");
  t.key = World().cert("client-enc.key");
  t.password = World().passphrase();
  return t;
}

// A TCP listener on 127.0.0.1 that records when it accepted each
// connection, then either never says a word (a TLS server hung
// mid-handshake) or hangs up at once (a server that breaks off every
// attempt).
class FakeListener {
 public:
  enum Behavior { kSilent, kHangUp };
  explicit FakeListener(Behavior behavior) : behavior_(behavior) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd_, 16) != 0) {
      throw std::runtime_error("listener");
    }
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~FakeListener() {
    stop_ = true;
    thread_.join();
    for (int c : accepted_fds_) close(c);
    close(fd_);
  }
  std::string connect() const { return "127.0.0.1:" + std::to_string(port_); }
  std::vector<Clock::time_point> accepted() {
    std::lock_guard<std::mutex> g(mu_);
    return accepted_;
  }

 private:
  void Run() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) != 1) continue;
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::lock_guard<std::mutex> g(mu_);
      accepted_.push_back(Clock::now());
      if (behavior_ == kHangUp) {
        close(c);
      } else {
        accepted_fds_.push_back(c);  // held open, never read or written
      }
    }
  }
  const Behavior behavior_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<Clock::time_point> accepted_;
  std::vector<int> accepted_fds_;
};

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

TEST(Tls, MutualTlsConnectsAndALockWorks) {
  Logs logs;
  Tls t = MutualTls(World().good().secure_connect());
  t.logs = &logs;
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  std::string path = UniquePath("tls-lock");
  LockPtr l = NewLock(c.get(), path);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  uint64_t token = 0;
  EXPECT_EQ(zkl_lock_fencing_token(l.get(), &token), 0);
  EXPECT_GT(token, 0u);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  DrainLogs(c.get());
  std::lock_guard<std::mutex> g(logs.mu);
  bool tls_line = false;
  for (const std::string &line : logs.lines) {
    if (line.find("TLS") != std::string::npos) tls_line = true;
  }
  EXPECT_TRUE(tls_line) << "no log line tells that TLS was established";
}

TEST(Tls, HostDrivenIoDoesTheHandshakeToo) {
  // ZKL_IO_HOST: no thread of zkl's; the blocking calls drive the I/O, the
  // handshake included (its read/write interest changes step by step).
  Tls t = MutualTls(World().good().secure_connect());
  t.io = ZKL_IO_HOST;
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("tls-host-io"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  Tls bad;
  bad.servers = World().good().secure_connect();
  bad.ca = World().cert("ca.pem");
  bad.io = ZKL_IO_HOST;
  EXPECT_EQ(bad.Connect(kFailWaitMs), ZKL_ECLIENTCERT);
}

TEST(Tls, TheRecipesOverTls) {
  // A read/write lock, a semaphore and an election, with two clients over
  // mutual TLS contending (the plain lock: MutualTlsConnectsAndALockWorks).
  Tls t = MutualTls(World().good().secure_connect());
  ClientPtr a, b;
  ASSERT_EQ(t.Connect(20000, &a), 0);
  ASSERT_EQ(t.Connect(20000, &b), 0);

  std::string rw = UniquePath("tls-rw");
  LockPtr r1 = NewLock(a.get(), rw, ZKL_LOCK_READ);
  LockPtr r2 = NewLock(b.get(), rw, ZKL_LOCK_READ);
  LockPtr w = NewLock(b.get(), rw, ZKL_LOCK_WRITE);
  ASSERT_EQ(zkl_lock_acquire(r1.get(), 1, 10000), 0);
  ASSERT_EQ(zkl_lock_acquire(r2.get(), 1, 10000), 0);  // readers share
  EXPECT_EQ(zkl_lock_acquire(w.get(), 1, 300), ZKL_ETIMEDOUT);
  EXPECT_EQ(zkl_lock_release(r2.get(), 1), 0);
  ASSERT_GT(zkl_lock_acquire_async(w.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(r1.get(), 1), 0);
  ASSERT_TRUE(WaitForEvent(b.get(), ZKL_EVENT_ACQUIRED, 10000));
  EXPECT_EQ(zkl_lock_is_held(w.get()), 1);
  EXPECT_EQ(zkl_lock_release(w.get(), 1), 0);

  std::string sem = UniquePath("tls-sem");
  LockPtr s1 = NewLock(a.get(), sem, ZKL_LOCK_SEMAPHORE, 2);
  LockPtr s2 = NewLock(b.get(), sem, ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_EQ(zkl_lock_acquire(s1.get(), 1, 10000), 0);
  ASSERT_EQ(zkl_lock_acquire(s2.get(), 1, 10000), 0);
  LockPtr s3 = NewLock(b.get(), sem, ZKL_LOCK_SEMAPHORE, 2);
  EXPECT_EQ(zkl_lock_acquire(s3.get(), 1, 300), ZKL_ETIMEDOUT);  // both leases out
  EXPECT_EQ(zkl_lock_release(s1.get(), 1), 0);
  ASSERT_EQ(zkl_lock_acquire(s3.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(s2.get(), 1), 0);
  EXPECT_EQ(zkl_lock_release(s3.get(), 1), 0);

  std::string el = UniquePath("tls-election");
  zkl_election_options eo;
  ASSERT_EQ(zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION), 0);
  eo.id = "a";
  zkl_election *ea = nullptr, *eb = nullptr;
  ASSERT_EQ(zkl_election_new(a.get(), el.c_str(), &eo, &ea), 0);
  eo.id = "b";
  ASSERT_EQ(zkl_election_new(b.get(), el.c_str(), &eo, &eb), 0);
  ASSERT_EQ(zkl_election_acquire(ea, 10000), 0);
  EXPECT_EQ(zkl_election_is_leader(ea), 1);
  ASSERT_GT(zkl_election_acquire_async(eb, 10000), 0);
  EXPECT_EQ(zkl_election_release(ea), 0);
  ASSERT_TRUE(WaitForEvent(b.get(), ZKL_EVENT_ELECTED, 10000));
  EXPECT_EQ(zkl_election_is_leader(eb), 1);
  EXPECT_EQ(zkl_election_destroy(eb), 0);
  EXPECT_EQ(zkl_election_destroy(ea), 0);
}

TEST(Tls, UnencryptedClientKeyAlsoWorks) {
  Tls t = MutualTls(World().good().secure_connect());
  t.key = World().cert("client.key");
  t.password.clear();
  EXPECT_EQ(t.Connect(20000), 0);
}

TEST(Tls, ServerRequiresAClientCertificateAndNoneIsGiven) {
  Tls t;
  t.servers = World().good().secure_connect();
  t.ca = World().cert("ca.pem");
  EXPECT_EQ(t.Connect(kFailWaitMs), ZKL_ECLIENTCERT);
}

TEST(Tls, ServerCertificateFromAnotherCa) {
  Tls t = MutualTls(World().other_ca().secure_connect());
  EXPECT_EQ(t.Connect(kFailWaitMs), ZKL_ECERT);
}

TEST(Tls, AServerThatKeepsFailingIsLoggedOncePerWindowNotPerAttempt) {
  // Every attempt fails the same way, several a second; the log says so
  // once (within zkl's 10 s window), not once per attempt.
  Logs logs;
  Tls t = MutualTls(World().other_ca().secure_connect());
  t.logs = &logs;
  ClientPtr c;
  EXPECT_EQ(t.Connect(3000, &c), ZKL_ECERT);
  DrainLogs(c.get());
  std::lock_guard<std::mutex> g(logs.mu);
  std::map<std::string, int> seen;
  for (const std::string &line : logs.lines) ++seen[line];
  for (const auto &[line, n] : seen) EXPECT_EQ(n, 1) << line;
  EXPECT_LT(logs.lines.size(), 15u) << logs.All();
}

TEST(Tls, ServerCertificateForAnotherHostName) {
  Tls t = MutualTls(World().wrong_host().secure_connect());
  EXPECT_EQ(t.Connect(kFailWaitMs), ZKL_EHOSTNAME);
}

TEST(Tls, SkippingTheHostNameCheckConnectsToTheOtherHostsCertificate) {
  Tls t = MutualTls(World().wrong_host().secure_connect());
  t.skip_hostname = true;
  EXPECT_EQ(t.Connect(20000), 0);
}

TEST(Tls, TheHostNameOfTheConnectStringIsChecked) {
  // The server's certificate names localhost: connecting by that name passes.
  std::string secure = World().good().secure_connect();
  Tls t = MutualTls("localhost" + secure.substr(secure.find(':')));
  EXPECT_EQ(t.Connect(20000), 0);
}

TEST(Tls, PlaintextClientOnTheTlsPort) {
  Tls t;
  t.servers = World().good().secure_connect();
  int rc = t.Connect(kFailWaitMs);
  EXPECT_TRUE(rc == ZKL_EPROTOCOL || rc == ZKL_ETLS) << zkl_strerror(rc);
}

TEST(Tls, TlsClientOnAPlaintextPort) {
  Tls t = MutualTls(World().good().connect());
  EXPECT_EQ(t.Connect(kFailWaitMs), ZKL_ETLS);
}

TEST(Tls, AServerThatNeverAnswersTheHandshakeIsGivenUpWithinTheConnectTimeout) {
  FakeListener silent(FakeListener::kSilent);
  Tls t = MutualTls(silent.connect());
  t.connect_timeout_ms = 400;
  t.session_timeout_ms = 10000;
  ClientPtr c;
  auto start = Clock::now();
  EXPECT_EQ(t.Connect(2500, &c), ZKL_ETIMEDOUT);
  int64_t waited = MsSince(start);
  EXPECT_GE(waited, 2400);
  EXPECT_LT(waited, 6000);
  // Each attempt was abandoned after the connect timeout and another began:
  // the I/O thread was never stuck in a handshake.
  std::vector<Clock::time_point> accepted = silent.accepted();
  ASSERT_GE(accepted.size(), 3u);
  for (size_t i = 1; i < accepted.size(); ++i) {
    auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(accepted[i] - accepted[i - 1]).count();
    EXPECT_LT(gap, 400 + 1000) << "attempt " << i;
  }
  // Closing does not hang either.
  start = Clock::now();
  c.reset();
  EXPECT_LT(MsSince(start), 3000);
}

TEST(Tls, EveryFailedAttemptIsFollowedByAnotherInBothIoModes) {
  // A reconnect usually gets the number of the socket it replaces; the new
  // socket must still be watched, or the attempt sits idle until its
  // connect timeout (here far beyond the test) instead of failing at once.
  for (int io : {ZKL_IO_THREAD, ZKL_IO_HOST}) {
    FakeListener hangs_up(FakeListener::kHangUp);
    Tls t = MutualTls(hangs_up.connect());
    t.io = io;
    t.connect_timeout_ms = 60000;
    t.session_timeout_ms = 6000;  // 100 ms between attempts (1/60)
    auto start = Clock::now();
    int rc = t.Connect(1500);
    EXPECT_TRUE(rc == ZKL_EPROTOCOL || rc == ZKL_ETLS) << "io " << io << ": " << zkl_strerror(rc);
    EXPECT_LT(MsSince(start), 6000);
    EXPECT_GE(hangs_up.accepted().size(), 4u) << "io " << io << ": attempts stalled";
  }
}

TEST(Tls, PlaintextConnectTimeoutIsHonoredToo) {
  FakeListener silent(FakeListener::kSilent);
  Tls t;
  t.servers = silent.connect();
  t.connect_timeout_ms = 400;
  t.session_timeout_ms = 10000;
  EXPECT_EQ(t.Connect(2000), ZKL_ETIMEDOUT);
  std::vector<Clock::time_point> accepted = silent.accepted();
  ASSERT_GE(accepted.size(), 2u);
  auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(accepted[1] - accepted[0]).count();
  EXPECT_LT(gap, 400 + 1000);
}

// --- Errors that say why (issue 25): each failure's code, its layer and
// reason from zkl_client_connect_error, and an early end for verification
// failures that no retry can change.

struct Outcome {
  int rc = 0;             // zkl_client_wait_connected
  int64_t waited_ms = 0;  // how long it took
  int why_rc = 0;         // zkl_client_connect_error
  std::string why;
};

Outcome ConnectAndAskWhy(const Tls &t, int64_t wait_ms) {
  Outcome o;
  ClientPtr c;
  EXPECT_EQ(t.New(&c), 0);
  if (!c) return o;
  auto start = Clock::now();
  o.rc = zkl_client_wait_connected(c.get(), wait_ms);
  o.waited_ms = MsSince(start);
  char buf[1024];
  o.why_rc = zkl_client_connect_error(c.get(), buf, sizeof buf);
  o.why = buf;
  return o;
}

// A definite failure ends the wait long before this (every attempt fails at once).
constexpr int64_t kLongWaitMs = 20000;

TEST(ErrorsSayWhy, AnExpiredServerCertificate) {
  Tls t = MutualTls(World().expired().secure_connect());
  Outcome o = ConnectAndAskWhy(t, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_ECERT);
  EXPECT_LT(o.waited_ms, 8000) << "a verification failure waited for the deadline";
  EXPECT_EQ(o.why_rc, ZKL_ECERT);
  EXPECT_NE(o.why.find(World().expired().secure_connect() + " (tls): certificate has expired"), std::string::npos)
      << o.why;
}

TEST(ErrorsSayWhy, AServerCertificateNotYetValid) {
  Tls t = MutualTls(World().not_yet_valid().secure_connect());
  Outcome o = ConnectAndAskWhy(t, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_ECERT);
  EXPECT_LT(o.waited_ms, 8000);
  EXPECT_NE(o.why.find("(tls): certificate is not yet valid"), std::string::npos) << o.why;
}

TEST(ErrorsSayWhy, AServerCertificateFromAnUnknownCa) {
  Tls t = MutualTls(World().other_ca().secure_connect());
  Outcome o = ConnectAndAskWhy(t, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_ECERT);
  EXPECT_LT(o.waited_ms, 8000);
  EXPECT_NE(o.why.find("(tls): unable to get local issuer certificate"), std::string::npos) << o.why;
}

TEST(ErrorsSayWhy, AServerCertificateForAnotherHost) {
  Tls t = MutualTls(World().wrong_host().secure_connect());
  Outcome o = ConnectAndAskWhy(t, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_EHOSTNAME);
  EXPECT_LT(o.waited_ms, 8000);
  EXPECT_NE(o.why.find("(tls): the certificate does not name 127.0.0.1"), std::string::npos) << o.why;
}

TEST(ErrorsSayWhy, AClientCertificateFromAnotherCa) {
  Tls t = MutualTls(World().good().secure_connect());
  t.cert = World().cert("other-client.crt");
  t.key = World().cert("other-client.key");
  t.password.clear();
  Outcome o = ConnectAndAskWhy(t, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_ECLIENTCERT);
  EXPECT_LT(o.waited_ms, 8000);
  EXPECT_NE(o.why.find("(tls): the server rejected the client certificate"), std::string::npos) << o.why;
}

// A loopback port nobody listens on (bound, then closed): connects are refused.
std::string ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
    throw std::runtime_error("bind");
  }
  close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
}

TEST(ErrorsSayWhy, ARefusedConnectionIsATimeoutThatSaysRefused) {
  // Refused is not definite (the server may be starting): the wait runs out.
  Tls t;
  t.servers = ClosedPort();
  t.connect_timeout_ms = 500;
  Outcome o = ConnectAndAskWhy(t, 1500);
  EXPECT_EQ(o.rc, ZKL_ETIMEDOUT);
  EXPECT_GE(o.waited_ms, 1400);
  EXPECT_EQ(o.why_rc, ZKL_ECONNECTION);
  EXPECT_EQ(o.why, t.servers + " (tcp): connection refused");
}

TEST(ErrorsSayWhy, ASilentServerSaysWhichHandshakeWentUnanswered) {
  FakeListener silent(FakeListener::kSilent);
  Tls plain;
  plain.servers = silent.connect();
  plain.connect_timeout_ms = 400;
  Outcome o = ConnectAndAskWhy(plain, 1500);
  EXPECT_EQ(o.rc, ZKL_ETIMEDOUT);
  EXPECT_EQ(o.why_rc, ZKL_ETIMEDOUT);
  EXPECT_EQ(o.why, silent.connect() + " (session): no answer to the session handshake within 400 ms");
  Tls tls = MutualTls(silent.connect());
  tls.connect_timeout_ms = 400;
  o = ConnectAndAskWhy(tls, 1500);
  EXPECT_EQ(o.rc, ZKL_ETIMEDOUT);
  EXPECT_EQ(o.why, silent.connect() + " (tls): the TLS handshake stalled: no answer within 400 ms");
}

TEST(ErrorsSayWhy, TheWrongKindOfPort) {
  Tls tls_on_plain = MutualTls(World().good().connect());
  Outcome o = ConnectAndAskWhy(tls_on_plain, kFailWaitMs);
  EXPECT_EQ(o.rc, ZKL_ETLS);
  EXPECT_NE(o.why.find("(tls): TLS handshake failed"), std::string::npos) << o.why;
  EXPECT_NE(o.why.find("not a TLS port?"), std::string::npos) << o.why;
  Tls plain_on_tls;
  plain_on_tls.servers = World().good().secure_connect();
  o = ConnectAndAskWhy(plain_on_tls, kFailWaitMs);
  EXPECT_EQ(o.rc, ZKL_EPROTOCOL) << o.why;
  EXPECT_NE(o.why.find("(session): the server closed the connection before the session was established"),
            std::string::npos)
      << o.why;
  EXPECT_NE(o.why.find("a TLS port"), std::string::npos) << o.why;
}

TEST(ErrorsSayWhy, EveryServerOfTheListIsNamedAndOnlyAllDefiniteEndsTheWaitEarly) {
  // Two servers that fail verification: the wait ends early.
  Tls both = MutualTls(World().expired().secure_connect() + "," + World().other_ca().secure_connect());
  Outcome o = ConnectAndAskWhy(both, kLongWaitMs);
  EXPECT_EQ(o.rc, ZKL_ECERT);
  EXPECT_LT(o.waited_ms, 8000);
  EXPECT_NE(o.why.find(World().expired().secure_connect() + " (tls): certificate has expired"), std::string::npos)
      << o.why;
  EXPECT_NE(o.why.find(World().other_ca().secure_connect() + " (tls): unable to get local issuer"),
            std::string::npos)
      << o.why;
  // One that is only refused (it may come up) keeps the wait going.
  std::string refused = ClosedPort();
  Tls mixed = MutualTls(World().expired().secure_connect() + "," + refused);
  mixed.connect_timeout_ms = 500;
  o = ConnectAndAskWhy(mixed, 2000);
  // At the deadline: the last attempt's error (which server's came last varies).
  EXPECT_TRUE(o.rc == ZKL_ETIMEDOUT || o.rc == ZKL_ECERT) << zkl_strerror(o.rc);
  EXPECT_GE(o.waited_ms, 1900);
  EXPECT_NE(o.why.find(refused + " (tcp): connection refused"), std::string::npos) << o.why;
  EXPECT_NE(o.why.find("(tls): certificate has expired"), std::string::npos) << o.why;
}

TEST(ErrorsSayWhy, FailuresAreCountedInTheStatisticsAndForgottenOnConnect) {
  Tls t = MutualTls(World().other_ca().secure_connect());
  ClientPtr c;
  ASSERT_EQ(t.New(&c), 0);
  EXPECT_EQ(zkl_client_wait_connected(c.get(), kLongWaitMs), ZKL_ECERT);
  char *json = nullptr;
  size_t len = 0;
  ASSERT_EQ(zkl_client_stats(c.get(), &json, &len), 0);
  std::string stats(json, len);
  zkl_free(json);
  EXPECT_NE(stats.find("\"connect_failures\":{\"tcp\":0,\"tls\":"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("\"tls\":0,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"reason\":\"unable to get local issuer certificate\""), std::string::npos) << stats;
  // Once connected, only the servers that failed are named.
  std::string refused = ClosedPort();
  Tls mixed = MutualTls(refused + "," + World().good().secure_connect());
  ClientPtr g;
  ASSERT_EQ(mixed.Connect(20000, &g), 0);
  char buf[256];
  int rc = zkl_client_connect_error(g.get(), buf, sizeof buf);
  EXPECT_TRUE(rc == 0 || rc == ZKL_ECONNECTION) << rc;
  EXPECT_EQ(std::string(buf).find(World().good().secure_connect()), std::string::npos) << buf;
}

TEST(ConnectTimeout, ASilentServerCostsOnlyItsShareOfTheSessionTimeout) {
  // Four servers that accept and never answer (frozen JVMs), then a good
  // one, in the C client's random order. Each attempt gets T / 5 = 1.2 s by
  // default (it was T / 3 = 2 s: 8 s of silence before the good server when
  // it came last).
  std::vector<std::unique_ptr<FakeListener>> silent;
  std::string servers;
  for (int i = 0; i < 4; ++i) {
    silent.push_back(std::make_unique<FakeListener>(FakeListener::kSilent));
    servers += silent.back()->connect() + ",";
  }
  servers += World().good().connect();
  for (int round = 0; round < 2; ++round) {
    Tls t;
    t.servers = servers;
    t.session_timeout_ms = 6000;
    auto start = Clock::now();
    EXPECT_EQ(t.Connect(6500), 0) << "round " << round;
    EXPECT_LT(MsSince(start), 4 * 1200 + 1500) << "round " << round;
  }
}

TEST(Tls, ReconnectsToTheSameSessionAfterTheServerRestarts) {
  // A server of its own: the others stay up for the other tests.
  auto server = ZkServer::StartStandalone({"ZK_TLS_DIR=" + World().certs()});
  Tls t = MutualTls(server->secure_connect());
  t.session_timeout_ms = 30000;  // the restart fits in the safety bound
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  uint64_t session = 0;
  ASSERT_EQ(zkl_client_session_id(c.get(), &session), 0);
  LockPtr l = NewLock(c.get(), UniquePath("tls-restart"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  server->Restart();
  ASSERT_EQ(server->secure_connect(), t.servers);  // same TLS port again
  bool reconnected = false;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!reconnected && Clock::now() < deadline) {
    EventPtr ev = WaitForEvent(c.get(), ZKL_EVENT_SESSION, 1000);
    reconnected = ev && zkl_event_session_state(ev.get()) == ZKL_SESSION_RECONNECTED;
  }
  ASSERT_TRUE(reconnected);
  uint64_t again = 0;
  EXPECT_EQ(zkl_client_session_id(c.get(), &again), 0);
  EXPECT_EQ(again, session);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
}

TEST(Tls, AnAcquireOutlastsHandshakesThatBreak) {
  // While the server is down, the proxy in front of it closes every new
  // connection: each TLS handshake breaks. That is a connection loss to
  // retry, not a ZooKeeper error that ends the acquire (the C client
  // reports it as ZSSLCONNECTIONERROR; the chaos run over TLS found it).
  // OpenSSL's writes to the closed sockets must not raise SIGPIPE in this
  // process either (it died of it before zkl blocked SIGPIPE around them).
  auto server = ZkServer::StartStandalone({"ZK_TLS_DIR=" + World().certs()});
  zkl_test::FaultProxy proxy;
  proxy.Start(server->secure_connect());
  Tls t = MutualTls(proxy.connect());
  t.session_timeout_ms = 30000;
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("tls-broken-handshakes"));
  server->Kill();
  proxy.DropAll();
  // Back after a while: long enough for several broken handshakes.
  std::thread restart([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    server->Start();
  });
  int rc = zkl_lock_acquire(l.get(), 1, 20000);
  restart.join();
  EXPECT_EQ(rc, 0) << zkl_strerror(rc);
  if (rc == 0) {
    EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  }
}

TEST(Tls, ThePassphraseNeverAppearsInALogLine) {
  Logs logs;
  {
    // A good connection with the encrypted key, and failing ones.
    Tls good = MutualTls(World().good().secure_connect());
    good.logs = &logs;
    ClientPtr c;
    ASSERT_EQ(good.Connect(20000, &c), 0);
    DrainLogs(c.get());
    Tls other = MutualTls(World().other_ca().secure_connect());
    other.logs = &logs;
    ClientPtr o;
    EXPECT_EQ(other.Connect(1000, &o), ZKL_ECERT);
    DrainLogs(o.get());
    Tls wrong = MutualTls(World().good().secure_connect());
    wrong.password = "not-" + World().passphrase();
    wrong.logs = &logs;
    ClientPtr w;
    EXPECT_EQ(wrong.New(&w), ZKL_ECERT);  // the key cannot be decrypted
  }
  std::lock_guard<std::mutex> g(logs.mu);
  ASSERT_FALSE(logs.lines.empty());
  const std::string &secret = World().passphrase();
  ASSERT_FALSE(secret.empty());
  for (const std::string &line : logs.lines) {
    EXPECT_EQ(line.find(secret), std::string::npos) << line;
  }
}

TEST(TlsOptions, FilesAndCombinationsAreChecked) {
  Tls t = MutualTls("127.0.0.1:1");
  ClientPtr c;
  // An unreadable CA file.
  t.ca = World().cert("no-such-ca.pem");
  EXPECT_EQ(t.New(&c), ZKL_ECERT);
  // A key without a certificate; certificate options without TLS.
  t = MutualTls("127.0.0.1:1");
  t.cert.clear();
  EXPECT_EQ(t.New(&c), ZKL_EINVAL);
  t = MutualTls("127.0.0.1:1");
  t.ca.clear();
  EXPECT_EQ(t.New(&c), ZKL_EINVAL);
  // DIGEST-MD5 needs a user and password (GSSAPI: sasl_test).
  zkl_client_options o;
  zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  o.servers = "127.0.0.1:1";
  o.sasl_user = "zk@EXAMPLE";
  zkl_client *raw = nullptr;
  o.sasl_mechanism = "DIGEST-MD5";
  o.sasl_password = nullptr;
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);
  o.sasl_mechanism = "PLAIN";
  o.sasl_password = "x";
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);
  o.sasl_mechanism = nullptr;
  EXPECT_EQ(zkl_client_new(&o, &raw), ZKL_EINVAL);  // SASL fields without SASL
}

Tls Digest(const std::string &servers, const std::string &password) {
  Tls t;
  t.servers = servers;
  t.sasl_mechanism = "DIGEST-MD5";
  t.sasl_user = TlsWorld::sasl_user();
  t.sasl_password = password;
  return t;
}

TEST(Sasl, DigestWithTheRightPasswordConnectsAndItsNodesAreItsOwn) {
  Logs logs;
  Tls t = Digest(World().sasl().connect(), TlsWorld::sasl_password());
  t.acl = ZKL_ACL_CREATOR;
  t.logs = &logs;
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("sasl-lock"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  DrainLogs(c.get());
  std::lock_guard<std::mutex> g(logs.mu);
  for (const std::string &line : logs.lines) {
    EXPECT_EQ(line.find(TlsWorld::sasl_password()), std::string::npos) << line;
  }
}

TEST(Sasl, DigestWithAWrongPasswordFailsWithEauth) {
  Logs logs;
  std::string wrong = "wrong-" + TlsWorld::sasl_password();
  Tls t = Digest(World().sasl().connect(), wrong);
  t.logs = &logs;
  ClientPtr c;
  int rc = t.Connect(10000, &c);
  DrainLogs(c.get());
  std::lock_guard<std::mutex> g(logs.mu);
  std::string all;
  for (const std::string &line : logs.lines) all += line + "\n";
  EXPECT_EQ(rc, ZKL_EAUTH) << all;
  EXPECT_EQ(zkl_client_state(c.get()), ZKL_SESSION_AUTH_FAILED);
  for (const std::string &line : logs.lines) {
    EXPECT_EQ(line.find(wrong), std::string::npos) << line;
  }
}

TEST(Sasl, NoSaslOnAServerThatRequiresItFailsWithEauth) {
  // The server accepts the session, then closes it at the first request
  // (enforce.auth): that is an authentication failure, not a ZooKeeper error.
  // The first request may also be zkl's own sync heartbeat (a period after
  // the handshake): then the wait for the session already says EAUTH.
  Tls t;
  t.servers = World().sasl().connect();
  ClientPtr c;
  int rc = t.Connect(20000, &c);
  ASSERT_TRUE(rc == 0 || rc == ZKL_EAUTH) << zkl_strerror(rc);
  LockPtr l = NewLock(c.get(), UniquePath("sasl-required"));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zkl_lock_acquire(l.get(), 1, 10000), ZKL_EAUTH);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(zkl_client_state(c.get()), ZKL_SESSION_AUTH_FAILED);
  EXPECT_EQ(zkl_client_wait_connected(c.get(), 0), ZKL_EAUTH);
}

TEST(Sasl, DigestOverTlsOnOneConnection) {
  Tls t = MutualTls(World().sasl().secure_connect());
  t.sasl_mechanism = "DIGEST-MD5";
  t.sasl_user = TlsWorld::sasl_user();
  t.sasl_password = TlsWorld::sasl_password();
  ClientPtr c;
  ASSERT_EQ(t.Connect(20000, &c), 0);
  LockPtr l = NewLock(c.get(), UniquePath("tls-sasl-lock"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 10000), 0);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
  // And the wrong password over TLS: the transport works, SASL says no.
  Tls w = t;
  w.sasl_password = "wrong";
  EXPECT_EQ(w.Connect(10000), ZKL_EAUTH);
}

}  // namespace
