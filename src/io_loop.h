// The I/O loop of one client: an epoll set holding the ZooKeeper socket, a
// timerfd (CLOCK_MONOTONIC, absolute deadlines) and a wakeup eventfd. One
// RunOnce() asks its driver what to wait for (under the driver's mutex),
// waits without the mutex, then hands the driver what became ready (under
// the mutex again). Who calls RunOnce decides the threading: zkl's I/O
// thread in a loop, or the host's dispatch (ZKL_IO_HOST). Only one thread
// runs it at a time.
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "sync.h"

namespace zkl {

// What the loop waits for next.
struct IoPlan {
  int fd = -1;  // the ZooKeeper socket, -1 while there is none
  uint64_t socket_serial = 0;  // which socket fd is (ZkSession::Interest)
  bool read = false;
  bool write = false;
  absl::Time deadline = absl::InfiniteFuture();  // monotonic (MonoNow)
};

class IoDriver {
 public:
  virtual ~IoDriver() = default;
  // Called with the mutex held, before waiting.
  virtual void PrepareIo(IoPlan *plan) = 0;
  // Called with the mutex held after the wait: the socket's readiness (both
  // false when it was not ready), then the due work. `woken` says whether
  // the timer or the wakeup fd fired.
  virtual void OnIo(bool readable, bool writable, bool woken) = 0;
};

class IoLoop {
 public:
  // Throws std::system_error when the fds cannot be made.
  IoLoop();
  ~IoLoop();
  IoLoop(const IoLoop &) = delete;
  IoLoop &operator=(const IoLoop &) = delete;

  // The fd to hand a host: readable while the loop has something to do.
  // With WatchExtra it is an outer epoll set holding the loop's own set and
  // `extra_fd` (e.g. the event queue's): readable also while that is. The
  // loop itself never waits for `extra_fd`.
  int fd() const { return outer_ >= 0 ? outer_ : epfd_; }
  void WatchExtra(int extra_fd);

  // One round: plan, wait at most `timeout_ms` (< 0: until something
  // happens), handle. Returns false when epoll failed (then it has waited
  // nothing). The caller must not hold `mu`.
  bool RunOnce(Mutex *mu, IoDriver *driver, int64_t timeout_ms);

  // Makes a current or the next RunOnce return promptly. Thread-safe.
  void Wake();

  // With the mutex held: puts `plan` in force for the thread asleep in
  // RunOnce, without waking it (the set and the timer change under it).
  void Apply(const IoPlan &plan);

  // Thread mode, a blocking call on its own thread: without the mutex,
  // waits at most `timeout_ms` for the socket or WakeCaller, then, with the
  // mutex, hands the driver what became ready. The socket's answers are
  // this call's until Reattach: it waits in its own set (see
  // ShareSocketWithCaller), or it takes the socket out of the set the I/O
  // thread sleeps on (the I/O thread keeps the timer and wakeups) when it
  // must write or the kernel cannot share. The caller must not hold `mu`;
  // only one caller drives at a time (the driver's business).
  void DriveOnce(Mutex *mu, IoDriver *driver, int64_t timeout_ms);
  // With the mutex held: the end of a blocking call. Gives the socket back
  // to the I/O thread (a plan made anew), if a DriveOnce took it.
  void Reattach(IoDriver *driver);
  // Makes a current DriveOnce return promptly (the next one too, if none
  // waits). Thread-safe.
  void WakeCaller();

  // Thread mode, before the first socket: DriveOnce waits in a set of its
  // own that holds the socket too, instead of taking the socket out of the
  // I/O thread's set and putting it back (two epoll_ctl per blocking call).
  // Both entries are EPOLLEXCLUSIVE and the caller's is made first: the
  // kernel wakes the first exclusive entry whose set has a waiter, so an
  // answer wakes the blocking call while it waits and the I/O thread
  // otherwise (the kernel's ep_poll_callback). False (and DriveOnce takes
  // the socket out, as before) where the kernel lacks EPOLLEXCLUSIVE.
  bool ShareSocketWithCaller();

 private:
  // `known_absent`: the socket is out of the I/O thread's set (DriveOnce
  // took it), so no MOD need be tried first.
  void Register(const IoPlan &plan, bool known_absent = false);
  // Puts fd in the epoll set with `events`, by MOD or ADD (ADD first when
  // it is known to be out), whichever the set's state needs. False when
  // neither worked.
  bool PutInSet(int fd, uint32_t events, bool known_absent);
  // The socket a DriveOnce took, back in the I/O thread's set.
  void PutBack(const IoPlan &plan);
  // DriveOnce's wait in the caller's own set (ShareSocketWithCaller).
  void DriveShared(Mutex *mu, IoDriver *driver, int fd, uint64_t serial, int64_t timeout_ms);
  void ArmTimer(absl::Time deadline);

  const int epfd_;    // socket, timer, wakeup
  int outer_ = -1;    // epfd_ + the extra fd (WatchExtra)
  const int timerfd_;
  const int wakefd_;
  const int caller_wakefd_;  // DriveOnce's wakeup
  int caller_epfd_ = -1;     // ShareSocketWithCaller: caller_wakefd_ + the socket
  // What is registered and armed (touched with the driver's mutex held).
  int registered_fd_ = -1;
  uint64_t registered_serial_ = 0;
  uint32_t registered_events_ = 0;
  bool in_set_ = false;    // registered_fd_ is in the set with those events
  bool detached_ = false;  // the socket is out of the set: a caller drives
  bool in_blocking_call_ = false;  // from a DriveOnce to the Reattach
  // The socket in the caller's set (ShareSocketWithCaller), by its serial.
  int caller_fd_ = -1;
  uint64_t caller_serial_ = 0;
  bool caller_in_set_ = false;
  absl::Time armed_ = absl::InfiniteFuture();
};

}  // namespace zkl
