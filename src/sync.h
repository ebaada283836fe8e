// The mutex and condition variable zkl uses: abseil's, except in
// ThreadSanitizer builds. Debian's abseil is not built with TSan, so TSan
// cannot see its synchronization and would report every guarded access as a
// race; there a thin std::mutex version with the same interface is used.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

#if defined(ZKL_STD_SYNC)
#include <condition_variable>
#include <mutex>
#endif

namespace zkl {

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

}  // namespace zkl
