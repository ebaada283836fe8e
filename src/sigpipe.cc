#include "sigpipe.h"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace zkl {

namespace {

sigset_t PipeSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

// Set on a thread whose SIGPIPE is blocked for good (BlockSigpipeOnThisThread).
thread_local bool sigpipe_blocked = false;

}  // namespace

NoSigpipe::NoSigpipe() {
  sigset_t pipe = PipeSet();
  pthread_sigmask(SIG_BLOCK, &pipe, &saved_mask_);
  sigset_t pending;
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
}

NoSigpipe::~NoSigpipe() {
  int saved_errno = errno;
  sigset_t pending;
  sigpending(&pending);
  if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
    sigset_t pipe = PipeSet();
    struct timespec zero {};
    while (sigtimedwait(&pipe, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  errno = saved_errno;
}

void BlockSigpipeOnThisThread() {
  sigset_t pipe = PipeSet();
  sigpipe_blocked = pthread_sigmask(SIG_BLOCK, &pipe, nullptr) == 0;
}

bool SigpipeBlockedOnThisThread() { return sigpipe_blocked; }

}  // namespace zkl
