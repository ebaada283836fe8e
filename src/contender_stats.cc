#include "contender_stats.h"

#include "zkl.h"

namespace zkl {

void ContenderStats::Granted(absl::Time now) {
  ++acquisitions_;
  if (acquire_started_ != absl::InfinitePast()) {
    wait_ms_.Record(absl::ToInt64Milliseconds(now - acquire_started_));
  }
}

void ContenderStats::HoldEnded(absl::Time now) {
  hold_ms_.Record(absl::ToInt64Milliseconds(now - granted_at_));
}

void ContenderStats::AcquireFailed(int error) {
  if (error == ZKL_ETIMEDOUT || error == ZKL_EAGAIN) {
    ++failed_timeout_;
  } else if (error == ZKL_ECANCELED) {
    ++failed_canceled_;
  } else {
    ++failed_other_;
  }
}

void ContenderStats::Lost(int error) {
  ++losses_;
  switch (error) {
    case ZKL_ESESSION: ++lost_session_; break;
    case ZKL_EAUTH: ++lost_auth_; break;
    case ZKL_EMAXHOLD: ++lost_max_hold_; break;
    case ZKL_EREVOKED: ++lost_revoked_; break;
    case ZKL_ECLOSED: ++lost_closed_; break;
    default: ++lost_node_; break;  // ZKL_ELOST: the node went
  }
}

void ContenderStats::Write(JsonWriter &j, bool suspended_now, absl::Time now) const {
  j.Field("acquisitions", acquisitions_);
  j.Field("grants_without_read", grants_without_read_);
  j.Field("proof_waits", proof_waits_);
  j.Key("acquire_failures").BeginObject();
  j.Field("timeout", failed_timeout_);
  j.Field("canceled", failed_canceled_);
  j.Field("other", failed_other_);
  j.EndObject();
  j.Key("wait_ms");
  wait_ms_.Write(j);
  j.Key("hold_ms");
  hold_ms_.Write(j);
  j.Field("losses", losses_);
  j.Key("losses_by_cause").BeginObject();
  j.Field("session", lost_session_);
  j.Field("node", lost_node_);
  j.Field("auth", lost_auth_);
  j.Field("max_hold", lost_max_hold_);
  j.Field("revoked", lost_revoked_);
  j.Field("closed", lost_closed_);
  j.EndObject();
  int64_t running = suspended_now ? absl::ToInt64Milliseconds(now - suspended_since_) : 0;
  j.Field("suspended_ms", suspended_ms_ + running);
  j.Field("revocations", revocations_);
}

}  // namespace zkl
