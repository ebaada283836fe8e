// Watches an election without taking part and reports its leader.
#pragma once

#include <memory>
#include <string>

#include "client.h"
#include "rule.h"

namespace zkl {

// Picks the leader's node name among the children ("" when none).
std::string LeaderNode(const Rule &rule, const std::vector<std::string_view> &children);

class Observer : public Listener {
 public:
  Observer(std::shared_ptr<Client> client, std::string path, std::unique_ptr<Rule> rule,
           zkl_event_cb cb, void *user_data);
  void Start();     // takes the client mutex
  void Destroy();   // takes the client mutex
  // Copies the leader id; returns its length, ZKL_ENOTFOUND, or
  // ZKL_ECONNECTION while the view cannot be proven current.
  int Leader(char *buf, size_t len);
  // The current leader's term (its node's czxid), or the same errors.
  int Term(uint64_t *out);

  void OnReply(const Reply &reply) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnWatch(WatchType type, const std::string &path) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnConnected(bool same_session) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void OnSuspended() override {}
  void OnSessionLost(int) override {}
  void OnTimer() override {}
  void OnClientClosed() override {}

 private:
  enum Op { kChildren = 1, kLeaderData, kExists };
  void Check() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void SetLeader(bool known, std::string id, uint64_t term) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  int ProvenCurrent() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

  std::shared_ptr<Client> client_;
  const std::string path_;
  const std::unique_ptr<Rule> rule_;
  const zkl_event_cb cb_;
  void *const user_data_;
  bool destroyed_ ABSL_GUARDED_BY(client_->mu()) = false;
  bool known_ ABSL_GUARDED_BY(client_->mu()) = false;
  std::string leader_ ABSL_GUARDED_BY(client_->mu());
  std::string leader_node_ ABSL_GUARDED_BY(client_->mu());
  // A read was cut by a connection loss: its watch was never set, so the
  // next connection reads again, even to the same session.
  bool read_cut_ ABSL_GUARDED_BY(client_->mu()) = false;
  uint64_t term_ ABSL_GUARDED_BY(client_->mu()) = 0;
};

}  // namespace zkl
