#include "event_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace zkl {

static int MakeEventFd() {
  int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  return fd;
}

EventQueue::EventQueue() : fd_(MakeEventFd()) {}

EventQueue::~EventQueue() { close(fd_); }

void EventQueue::SetReadable(bool readable) {
  // The counter is 1 while events are pending and 0 otherwise, so the fd's
  // readiness always equals "queue non-empty", whatever the host's polling.
  if (readable) {
    uint64_t one = 1;
    ssize_t n;
    do n = write(fd_, &one, sizeof one); while (n < 0 && errno == EINTR);
  } else {
    uint64_t value;
    ssize_t n;
    do n = read(fd_, &value, sizeof value); while (n < 0 && errno == EINTR);
  }
}

void EventQueue::Push(std::unique_ptr<zkl_event> ev) {
  MutexLock lock(&mu_);
  if (events_.empty()) {
    SetReadable(true);
    nonempty_.SignalAll();
  }
  events_.push_back(std::move(ev));
}

void EventQueue::PushAll(std::vector<std::unique_ptr<zkl_event>> evs) {
  if (evs.empty()) return;
  MutexLock lock(&mu_);
  if (events_.empty()) {
    SetReadable(true);
    nonempty_.SignalAll();
  }
  for (auto &ev : evs) events_.push_back(std::move(ev));
}

std::unique_ptr<zkl_event> EventQueue::Pop() {
  MutexLock lock(&mu_);
  if (events_.empty()) return nullptr;
  std::unique_ptr<zkl_event> ev = std::move(events_.front());
  events_.pop_front();
  if (events_.empty()) SetReadable(false);
  return ev;
}

size_t EventQueue::size() const {
  MutexLock lock(&mu_);
  return events_.size();
}

bool EventQueue::Wait(int64_t timeout_ms) {
  MutexLock lock(&mu_);
  absl::Time deadline = MonoDeadline(timeout_ms);
  while (events_.empty() && !wakeup_) {
    if (WaitUntil(nonempty_, &mu_, deadline)) break;
  }
  if (wakeup_) {
    wakeup_ = false;
    return false;
  }
  return !events_.empty();
}

void EventQueue::Wakeup() {
  MutexLock lock(&mu_);
  wakeup_ = true;
  nonempty_.SignalAll();
}

void EventQueue::Clear() {
  std::deque<std::unique_ptr<zkl_event>> dropped;
  {
    MutexLock lock(&mu_);
    dropped.swap(events_);
    SetReadable(false);
  }
}

}  // namespace zkl
