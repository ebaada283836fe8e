// What the quorum has proven about this client's session: a client instant
// at or after which the ZooKeeper *leader* itself refreshed the session's
// expiry. Only the leader expires sessions, so the session lives at least
// until that instant plus the session timeout, whichever server the client
// talks to and whatever that server says. docs/SAFETY.md gives the argument
// and the server code it relies on; in short:
//
//  - A handshake (new session, or reconnect: the leader revalidates and
//    touches the session) proves the leader touched it after it was sent.
//  - Otherwise a follower forwards the session's activity (a touch, taken
//    when a request arrives) only in its answer to the leader's next PING,
//    and the leader sends a PING at least every `ping_interval`. A `sync`
//    is forwarded to the leader on the same stream, so when sync m is
//    answered the leader has applied every touch the follower sent before
//    forwarding it. That includes the touch of request R if a PING reached
//    the follower between R's arrival and sync m's: guaranteed when the
//    leader queued the answer to an earlier sync j (answered before m was
//    sent) at least ping_interval after R was answered, because PINGs and
//    sync answers share one ordered queue per follower.
//
// So on sync m's answer: j = the newest sync answered before m was sent,
// R = the newest request answered at least ping_interval before j was sent;
// the leader touched the session at or after R was sent (zkl counts from
// the request before R: a follower may lose one touch to a race). All of it holds
// per connection only (another server has another stream): Reset() on every
// disconnect. Plain data, no I/O: tests drive it with made-up times.
#pragma once

#include <deque>

#include "absl/time/time.h"

namespace zkl {

class QuorumProof {
 public:
  explicit QuorumProof(absl::Duration ping_interval = absl::ZeroDuration())
      : ping_interval_(ping_interval) {}

  // The longest time between two PINGs of the leader to a follower.
  void set_ping_interval(absl::Duration d) { ping_interval_ = d; }
  absl::Duration ping_interval() const { return ping_interval_; }

  // A new connection (or none): what was seen on the old one proves nothing
  // about the new one. The proven instant itself stays (it is about the
  // session, not the connection).
  void Reset();
  // A new session: nothing is proven.
  void Forget();

  // The handshake sent at `sent` succeeded (the leader touched the session).
  void OnHandshake(absl::Time sent);
  // Any request sent at `sent` was answered by the server at `answered`.
  void OnAnswered(absl::Time sent, absl::Time answered);
  // A sync sent at `sent` was answered at `answered` (also call OnAnswered
  // for it). Returns true when the proven instant moved forward.
  bool OnSyncAnswered(absl::Time sent, absl::Time answered);

  // The leader refreshed the session at or after this client instant
  // (InfinitePast: nothing proven).
  absl::Time proven_since() const { return proven_since_; }
  // Send time of the newest answered handshake or sync (InfinitePast:
  // none): the leader was reachable then (what lost_after_ms counts from).
  absl::Time last_quorum_contact() const { return last_quorum_contact_; }
  // Entries kept (bounded; for tests).
  size_t history_size() const { return answered_.size() + syncs_.size(); }

 private:
  struct Round {
    absl::Time sent, answered;
  };
  absl::Duration ping_interval_;
  absl::Time proven_since_ = absl::InfinitePast();
  absl::Time last_quorum_contact_ = absl::InfinitePast();
  // Requests answered on this connection, in answer order (the server
  // answers one session's requests in order), and the syncs among them.
  std::deque<Round> answered_;
  std::deque<Round> syncs_;
};

}  // namespace zkl
