// The quorum proof on made-up times (no server): which answers prove that
// the leader refreshed the session, and from when (src/quorum_proof.h).
#include "quorum_proof.h"

#include <gtest/gtest.h>

namespace zkl {
namespace {

absl::Time T(int64_t ms) { return absl::FromUnixMillis(1'000'000) + absl::Milliseconds(ms); }
constexpr absl::Duration kPing = absl::Milliseconds(1000);

// A sync sent at `sent` and answered 10 ms later.
bool Sync(QuorumProof &q, int64_t sent) {
  q.OnAnswered(T(sent), T(sent + 10));
  return q.OnSyncAnswered(T(sent), T(sent + 10));
}

TEST(QuorumProof, NothingIsProvenWithoutAHandshake) {
  QuorumProof q(kPing);
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
  EXPECT_EQ(q.last_quorum_contact(), absl::InfinitePast());
}

TEST(QuorumProof, TheHandshakeProvesItsSendTime) {
  QuorumProof q(kPing);
  q.OnHandshake(T(0));
  EXPECT_EQ(q.proven_since(), T(0));
  EXPECT_EQ(q.last_quorum_contact(), T(0));
}

TEST(QuorumProof, OneSyncAloneProvesNothing) {
  // Its own touch may still wait in the follower for the next PING.
  QuorumProof q(kPing);
  EXPECT_FALSE(Sync(q, 0));
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
  EXPECT_EQ(q.last_quorum_contact(), T(0));  // but the leader was reachable
}

TEST(QuorumProof, ARequestIsProvenOnlyOnceAPingMustHaveCarriedIt) {
  QuorumProof q(kPing);
  q.OnAnswered(T(-300), T(-295));  // the request before R: what is proven
  q.OnAnswered(T(0), T(5));       // R, touched at the follower by 5
  // j sent less than a ping interval after R's answer: no PING need have
  // reached the follower in between.
  EXPECT_FALSE(Sync(q, 500));
  EXPECT_FALSE(Sync(q, 900));
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
  // j sent at 1005 (>= 5 + 1000), answered at 1015; m sent after that.
  EXPECT_FALSE(Sync(q, 1005));  // this is j: nothing answered before it qualifies yet
  EXPECT_TRUE(Sync(q, 1100));   // m: R's touch reached the leader before m
  EXPECT_EQ(q.proven_since(), T(-300));
  EXPECT_EQ(q.last_quorum_contact(), T(1100));
}

TEST(QuorumProof, SteadyHeartbeatsKeepTheProofAboutAPingIntervalAndThreePeriodsBehind) {
  QuorumProof q(kPing);
  q.OnHandshake(T(0));
  absl::Duration max_lag = absl::ZeroDuration();
  for (int64_t t = 250; t <= 20000; t += 250) {
    Sync(q, t);
    if (t >= 2000) max_lag = std::max(max_lag, T(t + 10) - q.proven_since());
  }
  // R is answered at least a ping interval before j, j is a period before
  // m, and the proof counts from the request before R.
  EXPECT_GE(max_lag, kPing + absl::Milliseconds(2 * 250));
  EXPECT_LE(max_lag, kPing + absl::Milliseconds(3 * 250 + 20));
}

TEST(QuorumProof, SyncsThatOverlapUseOnlyTheOnesAnsweredBeforeTheirSend) {
  QuorumProof q(kPing);
  q.OnAnswered(T(-300), T(-295));
  q.OnAnswered(T(0), T(5));
  // j is sent at 2000 but answered only at 3000 (a slow leader); m sent at
  // 2500 was sent before j's answer, so j does not count for m.
  q.OnAnswered(T(2000), T(3000));
  EXPECT_FALSE(q.OnSyncAnswered(T(2000), T(3000)));
  q.OnAnswered(T(2500), T(3001));
  EXPECT_FALSE(q.OnSyncAnswered(T(2500), T(3001)));
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
  // A sync sent after both answers: the newest (sent at 2500) is its j, and
  // R was answered at 5 <= 2500 - 1000.
  EXPECT_TRUE(Sync(q, 3100));
  EXPECT_EQ(q.proven_since(), T(-300));
}

TEST(QuorumProof, AReconnectForgetsTheOldConnectionsAnswersButNotTheProof) {
  QuorumProof q(kPing);
  q.OnAnswered(T(0), T(5));
  Sync(q, 1100);
  // Disconnected: the next server forwards on another stream.
  q.Reset();
  EXPECT_FALSE(Sync(q, 1200));
  EXPECT_FALSE(Sync(q, 1300));
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
  q.OnHandshake(T(1400));
  EXPECT_EQ(q.proven_since(), T(1400));
  q.Reset();
  EXPECT_EQ(q.proven_since(), T(1400));  // about the session, not the connection
  q.Forget();                           // a new session
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
}

TEST(QuorumProof, OneAnsweredRequestIsNotEnough) {
  // Its touch may be the one a follower loses to a race: the proof needs
  // the request before R too.
  QuorumProof q(kPing);
  q.OnAnswered(T(0), T(5));
  EXPECT_FALSE(Sync(q, 1100));
  EXPECT_FALSE(Sync(q, 1200));
  EXPECT_EQ(q.proven_since(), absl::InfinitePast());
}

TEST(QuorumProof, TheProvenInstantNeverMovesBack) {
  QuorumProof q(kPing);
  q.OnHandshake(T(5000));
  q.OnAnswered(T(-300), T(-295));
  q.OnAnswered(T(0), T(5));
  EXPECT_FALSE(Sync(q, 1100));
  EXPECT_FALSE(Sync(q, 1200));
  EXPECT_EQ(q.proven_since(), T(5000));
}

TEST(QuorumProof, ABusyClientKeepsABoundedHistory) {
  // 100 answers per ms for 5 s: the proof still advances, from a request
  // at most an eighth of a ping interval older than the exact one.
  QuorumProof q(kPing);
  for (int64_t t = 0; t < 5000; ++t) {
    for (int k = 0; k < 100; ++k) q.OnAnswered(T(t), T(t + 1));
    if (t % 250 == 0) q.OnSyncAnswered(T(t), T(t + 1));
  }
  EXPECT_NE(q.proven_since(), absl::InfinitePast());
  EXPECT_LE(q.history_size(), 40u);
}

}  // namespace
}  // namespace zkl
