// The mutex and condition variable zkl uses: thin wrappers of std::mutex
// and std::condition_variable that carry clang's thread-safety annotations.
// (abseil's Mutex cost a few microseconds per uncontended lock cycle in
// its bookkeeping, and Debian's abseil is not built for ThreadSanitizer.)
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace zkl {

// Time for every deadline in zkl: absl::Time values on the monotonic clock
// (steady_clock), so a step of the wall clock can neither bring a LOST
// forward nor hold it back. Never mix them with absl::Now().
inline absl::Time MonoNow() {
  return absl::FromUnixNanos(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

// A deadline `timeout_ms` from now on MonoNow's clock; < 0 is never.
inline absl::Time MonoDeadline(int64_t timeout_ms) {
  return timeout_ms < 0 ? absl::InfiniteFuture() : MonoNow() + absl::Milliseconds(timeout_ms);
}

// num/den of `ms` milliseconds, in integer nanoseconds: absl's Duration
// multiplication and division are out-of-line calls (a 128-bit division),
// and the heartbeat and lease deadlines are computed several times per
// request.
inline absl::Duration FractionOfMs(int64_t ms, int64_t num, int64_t den) {
  return absl::Nanoseconds(ms * 1'000'000 * num / den);
}

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { m_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { m_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { m_.lock(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { m_.unlock(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex m_;
};

// Waits with the Mutex held (it is released while waiting, as usual).
class CondVar {
 public:
  // May return without a signal (as any condition variable may): callers
  // wait in a loop on their condition.
  void Wait(Mutex *mu) {
    // Not cv_.wait(lock): in GCC 12's libstdc++ that is a new symbol
    // version (GLIBCXX_3.4.30), which raised the Python wheels' tag from
    // manylinux_2_34 to 2_35 (glibc 2.34 systems such as RHEL 9 could not
    // install them). wait_for is inline (pthread_cond_clockwait, glibc
    // 2.30); a day without a signal is one more wake-up of the loop.
    std::unique_lock<std::mutex> lock(mu->m_, std::adopt_lock);
    cv_.wait_for(lock, std::chrono::hours(24));
    lock.release();
  }
  // True when the timeout passed. Measured on the steady clock: a step of
  // the wall clock neither shortens nor stretches it.
  bool WaitWithTimeout(Mutex *mu, absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu->m_, std::adopt_lock);
    bool timed_out = cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout)) == std::cv_status::timeout;
    lock.release();
    return timed_out;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex *mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }

 private:
  Mutex *mu_;
};

class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(Mutex *mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) { mu_->ReaderLock(); }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }

 private:
  Mutex *mu_;
};

// Waits on `cv` until signalled or the monotonic `deadline` passes; true
// when it has passed (absl's convention for WaitWithDeadline).
template <typename Cv, typename Mu>
bool WaitUntil(Cv &cv, Mu *mu, absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) {
    cv.Wait(mu);
    return false;
  }
  absl::Duration left = deadline - MonoNow();
  if (left <= absl::ZeroDuration()) return true;
  cv.WaitWithTimeout(mu, left);
  return MonoNow() >= deadline;
}

}  // namespace zkl
