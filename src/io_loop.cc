#include "io_loop.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace zkl {

namespace {

int Check(int fd, const char *what) {
  if (fd < 0) throw std::system_error(errno, std::generic_category(), what);
  return fd;
}

// Tags of the epoll entries (the socket's tag is its fd, always >= 0).
constexpr uint64_t kTimerTag = ~uint64_t{0};
constexpr uint64_t kWakeTag = ~uint64_t{0} - 1;

// A wait's bound for epoll_wait / poll: < 0 forever, else capped to an int.
int WaitMs(int64_t timeout_ms) {
  return timeout_ms < 0 ? -1 : static_cast<int>(std::min<int64_t>(timeout_ms, 1 << 30));
}

void Drain(int fd) {
  uint64_t value;
  ssize_t n;
  do n = read(fd, &value, sizeof value); while (n < 0 && errno == EINTR);
}

void Add(int epfd, int fd, uint64_t tag, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

// The socket into `epfd` as an exclusive entry at the end of its wait
// queue. Such entries cannot be modified (EINVAL): one already there (a
// reused number whose old socket is still open somewhere) goes out first.
bool AddExclusive(int epfd, int fd, uint64_t tag, uint32_t events) {
  epoll_event ev{};
  ev.events = events | EPOLLEXCLUSIVE;
  ev.data.u64 = tag;
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0) return true;
  return errno == EEXIST && epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr) == 0 &&
         epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

}  // namespace

IoLoop::IoLoop()
    : epfd_(Check(epoll_create1(EPOLL_CLOEXEC), "epoll_create1")),
      timerfd_(Check(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), "timerfd_create")),
      wakefd_(Check(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "eventfd")),
      caller_wakefd_(Check(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "eventfd")) {
  Add(epfd_, timerfd_, kTimerTag, EPOLLIN);
  Add(epfd_, wakefd_, kWakeTag, EPOLLIN);
}

IoLoop::~IoLoop() {
  if (caller_epfd_ >= 0) close(caller_epfd_);
  if (outer_ >= 0) close(outer_);
  close(caller_wakefd_);
  close(wakefd_);
  close(timerfd_);
  close(epfd_);
}

void IoLoop::WatchExtra(int extra_fd) {
  outer_ = Check(epoll_create1(EPOLL_CLOEXEC), "epoll_create1");
  Add(outer_, epfd_, 0, EPOLLIN);
  Add(outer_, extra_fd, 1, EPOLLIN);
}

bool IoLoop::ShareSocketWithCaller() {
  int set = epoll_create1(EPOLL_CLOEXEC);
  if (set < 0) return false;
  // The wakeup fd as an exclusive entry proves the kernel has them.
  if (!AddExclusive(set, caller_wakefd_, kWakeTag, EPOLLIN)) {
    close(set);
    return false;
  }
  caller_epfd_ = set;
  return true;
}

static void Signal(int fd) {
  uint64_t one = 1;
  ssize_t n;
  do n = write(fd, &one, sizeof one); while (n < 0 && errno == EINTR);
}

void IoLoop::Wake() { Signal(wakefd_); }

void IoLoop::WakeCaller() { Signal(caller_wakefd_); }

void IoLoop::Apply(const IoPlan &plan) {
  Register(plan);
  ArmTimer(plan.deadline);
}

namespace {
uint32_t EventsOf(const IoPlan &plan) {
  return (plan.read ? uint32_t{EPOLLIN} : 0u) | (plan.write ? uint32_t{EPOLLOUT} : 0u);
}
}  // namespace

void IoLoop::Register(const IoPlan &plan, bool known_absent) {
  uint32_t events = EventsOf(plan);
  bool same_socket = plan.fd == registered_fd_ && plan.socket_serial == registered_serial_;
  // The set already has this socket with this interest: nothing to do (a
  // round of a busy loop would otherwise pay a syscall for nothing). The
  // serial, not the number, says it is the same socket: a reconnect can
  // get a closed socket's number, and closing took that one out of the set.
  if (in_set_ && !detached_ && same_socket && events == registered_events_) return;
  // The previous socket is not removed by its number here: the C client
  // changes sockets by closing the old one (which leaves the set by
  // itself), and the number may already belong to another socket of the
  // process. One still open is removed when it reports (RunOnce).
  bool was_in = in_set_ && same_socket;
  registered_fd_ = plan.fd;
  registered_serial_ = plan.socket_serial;
  in_set_ = false;
  if (plan.fd < 0 || detached_) return;  // a detached socket comes back in DriveOnce
  registered_events_ = events;
  if (caller_epfd_ < 0) {
    // A new socket with a closed one's number: MOD fails (closing removed
    // it) and ADD is right.
    in_set_ = PutInSet(plan.fd, events, known_absent);
    return;
  }
  if (plan.fd != caller_fd_ || plan.socket_serial != caller_serial_ || !caller_in_set_) {
    // A new socket: the caller's entry first, the I/O thread's behind it.
    caller_fd_ = plan.fd;
    caller_serial_ = plan.socket_serial;
    caller_in_set_ = AddExclusive(caller_epfd_, plan.fd, static_cast<uint64_t>(plan.fd), EPOLLIN);
    if (was_in) epoll_ctl(epfd_, EPOLL_CTL_DEL, plan.fd, nullptr);
  } else if (was_in) {
    // Another interest: out and in again (still behind the caller's).
    epoll_ctl(epfd_, EPOLL_CTL_DEL, plan.fd, nullptr);
  }
  in_set_ = AddExclusive(epfd_, plan.fd, static_cast<uint64_t>(plan.fd), events);
}

bool IoLoop::PutInSet(int fd, uint32_t events, bool known_absent) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = static_cast<uint64_t>(fd);
  if (!known_absent && epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) == 0) return true;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) == 0) return true;
  return errno == EEXIST && epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void IoLoop::ArmTimer(absl::Time deadline) {
  if (deadline == armed_) return;
  armed_ = deadline;
  itimerspec spec{};
  if (deadline != absl::InfiniteFuture()) {
    // MonoNow() is CLOCK_MONOTONIC in nanoseconds: absolute timer values
    // need no conversion. A deadline in the past fires at once (1 ns).
    int64_t ns = std::max<int64_t>(absl::ToUnixNanos(deadline), 1);
    spec.it_value.tv_sec = ns / 1000000000;
    spec.it_value.tv_nsec = ns % 1000000000;
  }
  timerfd_settime(timerfd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

bool IoLoop::RunOnce(Mutex *mu, IoDriver *driver, int64_t timeout_ms) {
  {
    // Registered under the lock: another thread's call into the session
    // may close its socket, and the number may then belong to anyone.
    MutexLock lock(mu);
    IoPlan plan;
    driver->PrepareIo(&plan);
    Apply(plan);
  }

  epoll_event events[8];
  int n = epoll_wait(epfd_, events, 8, WaitMs(timeout_ms));
  if (n < 0 && errno != EINTR) return false;
  bool woken = false;
  for (int i = 0; i < n; ++i) {
    uint64_t tag = events[i].data.u64;
    if (tag == kTimerTag) {
      Drain(timerfd_);
      woken = true;
    } else if (tag == kWakeTag) {
      Drain(wakefd_);
      woken = true;
    }
  }
  MutexLock lock(mu);
  // The socket's events are read under the lock: a caller's DriveOnce may
  // have taken the socket over, or the session changed it, meanwhile.
  bool readable = false, writable = false;
  for (int i = 0; i < n; ++i) {
    uint64_t tag = events[i].data.u64;
    if (tag == kTimerTag) {
      armed_ = absl::InfiniteFuture();  // one-shot: it fired
    } else if (tag == kWakeTag) {
    } else if (static_cast<int>(tag) == registered_fd_ && !detached_ && in_blocking_call_) {
      // An answer that came while the blocking call was not in its wait
      // (between two rounds): its own set has it ready too, so leave it to
      // that call, and the socket out of this set until the call ends
      // (level-triggered, it would wake this thread again at once).
      epoll_ctl(epfd_, EPOLL_CTL_DEL, registered_fd_, nullptr);
      detached_ = true;
      in_set_ = false;
    } else if (static_cast<int>(tag) == registered_fd_ && !detached_) {
      uint32_t e = events[i].events;
      readable = (e & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0;
      writable = (e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) != 0;
    } else if (static_cast<int>(tag) != registered_fd_) {
      // A socket the session no longer uses but that was still open when it
      // reported (so its number was not reused then): stop watching it.
      epoll_ctl(epfd_, EPOLL_CTL_DEL, static_cast<int>(tag), nullptr);
    }
  }
  driver->OnIo(readable, writable, woken);
  return true;
}

void IoLoop::DriveOnce(Mutex *mu, IoDriver *driver, int64_t timeout_ms) {
  pollfd fds[2] = {{caller_wakefd_, POLLIN, 0}, {-1, 0, 0}};
  bool shared = false;
  uint64_t serial = 0;
  {
    MutexLock lock(mu);
    in_blocking_call_ = true;
    IoPlan plan;
    driver->PrepareIo(&plan);
    if (caller_epfd_ >= 0 && plan.fd >= 0 && !plan.write) {
      // Only an answer to wait for: in the caller's own set, the socket
      // left where it is (back in, if a round that had to write took it).
      if (detached_) PutBack(plan);
      Apply(plan);
      shared = in_set_ && caller_in_set_ && caller_fd_ == plan.fd && caller_serial_ == plan.socket_serial;
      fds[1].fd = plan.fd;
      serial = plan.socket_serial;
    }
    if (!shared && plan.fd >= 0) {
      // Out of the I/O thread's set: the answer wakes this thread alone.
      if (!detached_ || plan.fd != registered_fd_) epoll_ctl(epfd_, EPOLL_CTL_DEL, plan.fd, nullptr);
      detached_ = true;
      in_set_ = false;
      fds[1] = {plan.fd, static_cast<short>((plan.read ? POLLIN : 0) | (plan.write ? POLLOUT : 0)), 0};
    }
    if (!shared) Apply(plan);  // the timer, for the I/O thread
  }
  if (shared) {
    DriveShared(mu, driver, fds[1].fd, serial, timeout_ms);
    return;
  }
  int n;
  do n = poll(fds, 2, WaitMs(timeout_ms));
  while (n < 0 && errno == EINTR);
  bool woken = n > 0 && (fds[0].revents & POLLIN) != 0;
  if (woken) Drain(caller_wakefd_);
  MutexLock lock(mu);
  bool readable = false, writable = false;
  // The session may have changed sockets meanwhile: then the old one's
  // readiness means nothing.
  if (n > 0 && detached_ && fds[1].fd >= 0 && fds[1].fd == registered_fd_) {
    readable = (fds[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0;
    writable = (fds[1].revents & (POLLOUT | POLLHUP | POLLERR | POLLNVAL)) != 0;
  }
  driver->OnIo(readable, writable, woken);
  // Without a socket taken, what this round did is planned for the I/O
  // thread now; a taken one is planned by the next DriveOnce or Reattach.
  if (!detached_) {
    IoPlan plan;
    driver->PrepareIo(&plan);
    Apply(plan);
  }
}

void IoLoop::DriveShared(Mutex *mu, IoDriver *driver, int fd, uint64_t serial, int64_t timeout_ms) {
  epoll_event events[2];
  int n;
  do n = epoll_wait(caller_epfd_, events, 2, WaitMs(timeout_ms));
  while (n < 0 && errno == EINTR);
  bool woken = false;
  uint32_t socket_events = 0;
  int other = -1;
  for (int i = 0; i < n; ++i) {
    if (events[i].data.u64 == kWakeTag) {
      woken = true;
    } else if (events[i].data.u64 == static_cast<uint64_t>(fd)) {
      socket_events = events[i].events;
    } else {
      other = static_cast<int>(events[i].data.u64);
    }
  }
  if (woken) Drain(caller_wakefd_);
  MutexLock lock(mu);
  // A socket the session no longer uses but that was still open when it
  // reported: out of the caller's set too (as RunOnce does), or it would
  // report again at once. Not the one registered meanwhile.
  if (other >= 0 && other != caller_fd_) epoll_ctl(caller_epfd_, EPOLL_CTL_DEL, other, nullptr);
  // The session may have changed sockets meanwhile: then the old one's
  // readiness means nothing.
  bool same = fd == registered_fd_ && serial == registered_serial_;
  bool readable = same && (socket_events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0;
  bool writable = same && (socket_events & (EPOLLHUP | EPOLLERR)) != 0;
  driver->OnIo(readable, writable, woken);
  IoPlan plan;
  driver->PrepareIo(&plan);
  Apply(plan);
}

void IoLoop::Reattach(IoDriver *driver) {
  in_blocking_call_ = false;
  if (!detached_) return;
  IoPlan plan;
  driver->PrepareIo(&plan);
  PutBack(plan);
  ArmTimer(plan.deadline);
}

void IoLoop::PutBack(const IoPlan &plan) {
  detached_ = false;
  in_set_ = false;
  // Out of the set since DriveOnce took it: ADD first (one call, not the
  // MOD that would fail first).
  Register(plan, /*known_absent=*/true);
}

}  // namespace zkl
