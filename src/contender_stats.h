// The statistics of one lock or election handle (docs/STATISTICS.md):
// counters and histograms its contender feeds at each step, written into the
// client's statistics document. Guarded by the client's mutex, as its owner.
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "histogram.h"
#include "json.h"

namespace zkl {

class ContenderStats {
 public:
  void AcquireStarted(absl::Time now) { acquire_started_ = now; }
  // Held: the wait since AcquireStarted ends (a rejoin has none).
  void Granted(absl::Time now);
  void HoldStarted(absl::Time now) { granted_at_ = now; }
  void HoldEnded(absl::Time now);
  // An acquire ended without a hold, with `error`.
  void AcquireFailed(int error);
  // A hold ended by loss, with `error` (ZKL_ESESSION, ZKL_ELOST, ...).
  void Lost(int error);
  void Revoked() { ++revocations_; }
  // An acquire held back, first in line, for the quorum's proof
  // (Contender::AwaitProof).
  void ProofWaited() { ++proof_waits_; }
  // A grant decided by the next sequence number, without a children read
  // (Contender::GrantIfNextNumber).
  void GrantedWithoutRead() { ++grants_without_read_; }
  void Suspended(absl::Time now) { suspended_since_ = now; }
  void Resumed(absl::Time now) { suspended_ms_ += absl::ToInt64Milliseconds(now - suspended_since_); }

  // The handle's counters, from "acquisitions" to "revocations"; a
  // suspension still running (`suspended_now`) counts up to `now`.
  void Write(JsonWriter &j, bool suspended_now, absl::Time now) const;

 private:
  uint64_t acquisitions_ = 0;
  uint64_t failed_timeout_ = 0;
  uint64_t failed_canceled_ = 0;
  uint64_t failed_other_ = 0;
  uint64_t losses_ = 0;
  uint64_t lost_session_ = 0;
  uint64_t lost_node_ = 0;
  uint64_t lost_auth_ = 0;
  uint64_t lost_max_hold_ = 0;
  uint64_t lost_revoked_ = 0;
  uint64_t lost_closed_ = 0;
  uint64_t revocations_ = 0;
  uint64_t proof_waits_ = 0;
  uint64_t grants_without_read_ = 0;
  Histogram wait_ms_;
  Histogram hold_ms_;
  absl::Time acquire_started_ = absl::InfinitePast();
  absl::Time granted_at_ = absl::InfinitePast();
  absl::Time suspended_since_ = absl::InfinitePast();
  int64_t suspended_ms_ = 0;
};

}  // namespace zkl
