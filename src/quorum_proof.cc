#include "quorum_proof.h"

#include <algorithm>

namespace zkl {

void QuorumProof::Reset() {
  answered_.clear();
  syncs_.clear();
}

void QuorumProof::Forget() {
  Reset();
  proven_since_ = absl::InfinitePast();
  last_quorum_contact_ = absl::InfinitePast();
}

void QuorumProof::OnHandshake(absl::Time sent) {
  proven_since_ = std::max(proven_since_, sent);
  last_quorum_contact_ = std::max(last_quorum_contact_, sent);
}

void QuorumProof::OnAnswered(absl::Time sent, absl::Time answered) {
  // A busy client answers thousands of requests per proof window: keeping
  // one per eighth of a ping interval bounds the memory (about 16 entries)
  // and only makes the proof older by that much (the kept one is older).
  // (Integer nanoseconds: it runs on every answer, and Duration division is
  // an out-of-line call.)
  absl::Duration spacing = absl::Nanoseconds(absl::ToInt64Nanoseconds(ping_interval_) / 8);
  if (!answered_.empty() && answered - answered_.back().answered < spacing) return;
  answered_.push_back({sent, answered});
}

bool QuorumProof::OnSyncAnswered(absl::Time sent, absl::Time answered) {
  // j: the newest sync answered before this one was sent. Older ones are
  // never needed again (later syncs are sent later).
  while (syncs_.size() >= 2 && syncs_[1].answered <= sent) syncs_.pop_front();
  // The leader answered it, so it was reachable (and the session open)
  // when the sync was sent, whatever the answer proves beyond that.
  last_quorum_contact_ = std::max(last_quorum_contact_, sent);
  bool have_j = !syncs_.empty() && syncs_.front().answered <= sent;
  absl::Time j_sent = have_j ? syncs_.front().sent : absl::InfinitePast();
  syncs_.push_back({sent, answered});
  if (!have_j) return false;

  // R: the newest request answered at least a ping interval before j was
  // sent (answers come in send order, so it was also sent last). The proof
  // counts from the request before R: a follower can lose one touch that
  // races its snapshot of the touch table (docs/SAFETY.md, claim 1).
  absl::Time limit = j_sent - ping_interval_;
  while (answered_.size() >= 3 && answered_[2].answered <= limit) answered_.pop_front();
  if (answered_.size() < 2 || answered_[1].answered > limit) return false;
  absl::Time r_sent = answered_.front().sent;
  if (r_sent <= proven_since_) return false;
  proven_since_ = r_sent;
  return true;
}

}  // namespace zkl
