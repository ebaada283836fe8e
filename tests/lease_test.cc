// Lease truth (issue 12): "do I hold it" is answered at the moment of the
// call from the monotonic clock and the last moment the server provably
// heard from this client — also when the process was frozen, and whether
// or not the host dispatches.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace zkl_test;

namespace {

int64_t MonoNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// A zkl-probe process (tests/tools/zkl_probe.c) and its stdout.
class Probe {
 public:
  Probe(const std::vector<std::string> &args) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<char *> argv;
      argv.push_back(const_cast<char *>(ZKL_PROBE_BIN));
      for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
      argv.push_back(nullptr);
      execv(ZKL_PROBE_BIN, argv.data());
      _exit(127);
    }
    close(out[1]);
    fd_ = out[0];
  }
  ~Probe() {
    if (pid_ > 0) {
      kill(pid_, SIGCONT);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(fd_);
  }
  pid_t pid() const { return pid_; }

  // The next line, or "" after `timeout_ms` or at the end.
  std::string ReadLine(int timeout_ms) {
    int64_t deadline = MonoNs() + int64_t{timeout_ms} * 1000000;
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      int left = static_cast<int>((deadline - MonoNs()) / 1000000);
      if (left <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) continue;
      char chunk[4096];
      ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n <= 0) return "";
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buf_;
};

struct FreezeResult {
  uint64_t frozen_token = 0;
  uint64_t new_token = 0;
  int probes_after_thaw = 0;
  int yes_after_thaw = 0;
  bool lost_seen = false;
  int lost_error = 0;
};

// Process A holds (lock or election) with a 4 s session; it is frozen
// with SIGSTOP until B has taken over, then thawed. Every answer A gives
// after the thaw is collected.
FreezeResult FreezeHolderUntilTakeover(bool election, const std::string &io) {
  FreezeResult r;
  std::string path = UniquePath(election ? "freeze-election" : "freeze-lock");
  std::vector<std::string> args = {"--io", io, "--session-timeout", "4000"};
  if (election) args.insert(args.begin(), "--election");
  args.push_back(Server().connect());
  args.push_back(path);
  Probe a(args);
  std::string held = a.ReadLine(20000);
  EXPECT_EQ(held.rfind("held ", 0), 0u) << held;
  if (held.rfind("held ", 0) != 0) return r;
  r.frozen_token = std::stoull(held.substr(5));

  auto c = NewClient(6000);
  zkl_lock *l = nullptr;
  zkl_election *e = nullptr;
  if (election) {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.id = "b";
    EXPECT_EQ(zkl_election_new(c.get(), path.c_str(), &eo, &e), 0);
  } else {
    l = NewLock(c.get(), path).release();
  }
  EXPECT_EQ(kill(a.pid(), SIGSTOP), 0);
  // B waits in line and is granted once A's session expired on the server.
  int rc = election ? zkl_election_acquire(e, 30000) : zkl_lock_acquire(l, 1, 30000);
  EXPECT_EQ(rc, 0) << zkl_strerror(rc);
  if (election) {
    zkl_election_fencing_token(e, &r.new_token);
  } else {
    zkl_lock_fencing_token(l, &r.new_token);
  }
  int64_t thaw = MonoNs();
  EXPECT_EQ(kill(a.pid(), SIGCONT), 0);
  for (;;) {
    std::string line = a.ReadLine(20000);
    if (line.empty()) break;
    std::istringstream in(line);
    std::string kind;
    in >> kind;
    if (kind == "probe") {
      int64_t t = 0;
      int answer = 0;
      in >> t >> answer;
      if (t > thaw) {
        ++r.probes_after_thaw;
        if (answer != 0) ++r.yes_after_thaw;
      }
    } else if (kind == "event") {
      int type = 0, error = 0;
      in >> type >> error;
      if (type == ZKL_EVENT_LOST && !r.lost_seen) {
        r.lost_seen = true;
        r.lost_error = error;
      }
    }
  }
  if (election) {
    zkl_election_destroy(e);
  } else {
    zkl_lock_destroy(l);
  }
  return r;
}

void ExpectNoStaleYes(const FreezeResult &r) {
  EXPECT_GT(r.probes_after_thaw, 0);
  EXPECT_EQ(r.yes_after_thaw, 0) << "is_held said yes after the thaw, while another held it";
  EXPECT_TRUE(r.lost_seen);
  EXPECT_EQ(r.lost_error, ZKL_ESESSION);
  EXPECT_GT(r.new_token, r.frozen_token);
}

TEST(LeaseTruth, FrozenLockHolderSaysNoOnItsFirstCallAfterTheThaw) {
  ExpectNoStaleYes(FreezeHolderUntilTakeover(/*election=*/false, "thread"));
}

TEST(LeaseTruth, FrozenLeaderSaysNoOnItsFirstCallAfterTheThaw) {
  ExpectNoStaleYes(FreezeHolderUntilTakeover(/*election=*/true, "thread"));
}

TEST(LeaseTruth, FrozenHostDrivenHolderSaysNoAfterTheThaw) {
  ExpectNoStaleYes(FreezeHolderUntilTakeover(/*election=*/false, "host"));
}

// valid_for is bounded by the safety bound (3/4 of the session timeout)
// and is what is_held says; a released or never-acquired handle answers
// ZKL_ENOTHELD with 0, a destroyed one ZKL_EBADHANDLE.
TEST(LeaseTruth, ValidForIsBoundedAndAgreesWithIsHeld) {
  auto c = NewClient(6000);
  auto l = NewLock(c.get(), UniquePath("valid-for"));
  int64_t ms = 123;
  EXPECT_EQ(zkl_lock_valid_for(l.get(), &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  EXPECT_EQ(zkl_lock_valid_for(l.get(), &ms), 0);
  int timeout = zkl_client_session_timeout(c.get());
  EXPECT_GT(ms, 0);
  EXPECT_LE(ms, timeout * 3 / 4);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 1);
  ASSERT_EQ(zkl_lock_release(l.get(), 1), 0);
  EXPECT_EQ(zkl_lock_valid_for(l.get(), &ms), ZKL_ENOTHELD);
  EXPECT_EQ(ms, 0);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  EXPECT_EQ(zkl_lock_valid_for(l.get(), nullptr), ZKL_EINVAL);
  zkl_lock *raw = l.release();
  ASSERT_EQ(zkl_lock_destroy(raw), 0);
  ms = 5;
  EXPECT_EQ(zkl_lock_valid_for(raw, &ms), ZKL_EBADHANDLE);
  EXPECT_EQ(ms, 0);
}

// lost_after_ms shortens the safety bound below a quarter of the session
// timeout: heartbeats follow the shorter bound, so an idle, connected holder
// stays provably held (no SUSPENDED between two heartbeats).
TEST(LeaseTruth, ShortLostAfterKeepsAnIdleHolderProvable) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  co.servers = servers.c_str();
  // Heartbeats every quarter of the session timeout (2 s) would let a 1 s
  // bound lapse between two of them; a third of the bound (333 ms) leaves
  // room for a slow round trip on a loaded machine.
  co.session_timeout_ms = 8000;
  co.lost_after_ms = 1000;
  zkl_client *raw = nullptr;
  ASSERT_EQ(zkl_client_new(&co, &raw), 0);
  ClientPtr c(raw);
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 10000), 0);
  auto l = NewLock(c.get(), UniquePath("short-bound"));
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  // Three bounds long, no suspension may be reported while connected.
  EXPECT_FALSE(WaitForEvent(c.get(), ZKL_EVENT_SUSPENDED, 3000));
  int64_t ms = 0;
  EXPECT_EQ(zkl_lock_valid_for(l.get(), &ms), 0);
  EXPECT_GT(ms, 0);
  EXPECT_LE(ms, 1000);
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
}

// A host that stops dispatching while zkl's own I/O thread runs: the
// thread keeps the session alive, so the hold stays true and provable
// throughout; the events wait in the queue.
TEST(LeaseTruth, ThreadModeHoldSurvivesAHostThatStopsDispatching) {
  auto c = NewClient(4000);
  int timeout = zkl_client_session_timeout(c.get());
  auto l = NewLock(c.get(), UniquePath("no-dispatch-thread"));
  ASSERT_GT(zkl_lock_acquire_async(l.get(), 1, 5000), 0);
  int64_t end = MonoNs() + int64_t{timeout} * 1500000;  // 1.5 session timeouts
  bool held_seen = false;
  int no_after_held = 0;
  while (MonoNs() < end) {
    int held = zkl_lock_is_held(l.get());
    if (held == 1) held_seen = true;
    if (held_seen && held != 1) ++no_after_held;
    usleep(20000);
  }
  EXPECT_TRUE(held_seen);
  EXPECT_EQ(no_after_held, 0);
  auto ev = WaitForEvent(c.get(), ZKL_EVENT_ACQUIRED, 0);  // queued, undelivered so far
  ASSERT_TRUE(ev);
  EXPECT_FALSE(WaitForEvent(c.get(), ZKL_EVENT_LOST, 0));
  EXPECT_FALSE(WaitForEvent(c.get(), ZKL_EVENT_SUSPENDED, 0));
  EXPECT_EQ(zkl_lock_release(l.get(), 1), 0);
}

// The same host in ZKL_IO_HOST mode: nothing talks to ZooKeeper while it
// does not dispatch, so the session expires; is_held says no once the
// safety bound has passed — without any zkl code running — and LOST is
// delivered when dispatching resumes.
TEST(LeaseTruth, HostModeHoldEndsWhenTheHostStopsDispatching) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  std::string servers = Server().connect();
  co.servers = servers.c_str();
  co.session_timeout_ms = 4000;
  co.io = ZKL_IO_HOST;
  zkl_client *raw = nullptr;
  ASSERT_EQ(zkl_client_new(&co, &raw), 0);
  ClientPtr c(raw);
  ASSERT_EQ(zkl_client_wait_connected(c.get(), 20000), 0);  // drives the I/O itself
  std::string path = UniquePath("no-dispatch-host");
  auto l = NewLock(c.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l.get(), 1, 5000), 0);
  int timeout = zkl_client_session_timeout(c.get());
  uint64_t token = 0;
  ASSERT_EQ(zkl_lock_fencing_token(l.get(), &token), 0);
  int64_t acquired = MonoNs();
  // No dispatch from here on: wait until is_held says no, by the clock.
  while (zkl_lock_is_held(l.get()) == 1) {
    ASSERT_LT(MonoNs() - acquired, int64_t{timeout} * 1000000) << "still 'held' a session timeout later";
    usleep(10000);
  }
  EXPECT_GE(MonoNs() - acquired, int64_t{timeout} * 1000000 / 2);  // not before the bound
  // Another client takes the lock once the server expired the session.
  auto other = NewClient();
  auto l2 = NewLock(other.get(), path);
  ASSERT_EQ(zkl_lock_acquire(l2.get(), 1, 30000), 0);
  uint64_t token2 = 0;
  ASSERT_EQ(zkl_lock_fencing_token(l2.get(), &token2), 0);
  EXPECT_GT(token2, token);
  EXPECT_EQ(zkl_lock_is_held(l.get()), 0);
  // Dispatching again: the loss is delivered.
  auto lost = WaitForEvent(c.get(), ZKL_EVENT_LOST, 20000);
  ASSERT_TRUE(lost);
  EXPECT_EQ(zkl_event_error(lost.get()), ZKL_ESESSION);
  ASSERT_EQ(zkl_lock_release(l2.get(), 1), 0);
}

}  // namespace
