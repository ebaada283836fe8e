// SIGPIPE and TLS: OpenSSL writes to its socket with write(2), which raises
// SIGPIPE when the peer has gone (the C client's own sends use
// MSG_NOSIGNAL), and a library must not kill its host for that.
#pragma once

#include <signal.h>

namespace zkl {

// Around a call into a TLS session the thread blocks SIGPIPE and takes back
// one raised meanwhile, then restores its mask (libpq does the same around
// OpenSSL). errno is kept.
class NoSigpipe {
 public:
  NoSigpipe();
  ~NoSigpipe();
  NoSigpipe(const NoSigpipe &) = delete;
  NoSigpipe &operator=(const NoSigpipe &) = delete;

 private:
  sigset_t saved_mask_;
  bool was_pending_ = false;
};

// Blocks SIGPIPE on the calling thread for good: for zkl's own I/O thread,
// whose calls into TLS sessions then skip the per-call guard (two or three
// syscalls each) that other threads' calls need.
void BlockSigpipeOnThisThread();

// BlockSigpipeOnThisThread succeeded on this thread: it needs no NoSigpipe.
bool SigpipeBlockedOnThisThread();

}  // namespace zkl
