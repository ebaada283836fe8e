// The mutex and condition variable zkl uses: abseil's, except in
// ThreadSanitizer builds. Debian's abseil is not built with TSan, so TSan
// cannot see its synchronization and would report every guarded access as a
// race; there a thin std::mutex version with the same interface is used.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

#include <chrono>

#if defined(ZKL_STD_SYNC)
#include <condition_variable>
#include <mutex>
#endif

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

#if !defined(ZKL_STD_SYNC)

using Mutex = absl::Mutex;
using CondVar = absl::CondVar;
using MutexLock = absl::MutexLock;
using ReaderMutexLock = absl::ReaderMutexLock;

#else

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { m_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { m_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { m_.lock(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { m_.unlock(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}
  // BasicLockable, for std::condition_variable_any.
  void lock() { m_.lock(); }
  void unlock() { m_.unlock(); }

 private:
  std::mutex m_;
};

class CondVar {
 public:
  void Wait(Mutex *mu) { cv_.wait(*mu); }
  // True when the deadline passed (absl's convention).
  bool WaitWithDeadline(Mutex *mu, absl::Time deadline) {
    if (deadline == absl::InfiniteFuture()) {
      cv_.wait(*mu);
      return false;
    }
    return cv_.wait_until(*mu, absl::ToChronoTime(deadline)) == std::cv_status::timeout;
  }
  bool WaitWithTimeout(Mutex *mu, absl::Duration timeout) {
    return WaitWithDeadline(mu, absl::Now() + timeout);
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
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

#endif

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
