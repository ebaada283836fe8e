// Guarded writes: the caller's ZooKeeper operations in one multi behind a
// check of the holder's own node (zkl_lock_write & co., docs/FENCING.md).
//
// Why the check is enough: the leader's PrepRequestProcessor checks the
// session of every request it prepares (sessionTracker.checkSession) and
// prepares a multi as one transaction, all or nothing, in the one order of
// the quorum's writes. An ephemeral node of a live session disappears only
// by an explicit delete. So when the check of the holder's node passes in
// the multi, the node existed and its session was alive at that point of
// the quorum's history, and no other holder's grant (which needs that node
// gone) comes before it: the operations land inside the hold.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client.h"
#include "rule.h"
#include "zk_session.h"

// The public list of operations, and their results after a write.
struct zkl_ops {
  struct Result {
    std::string path;      // a create's created path ("" otherwise)
    int32_t version = -1;  // the node's data version after a create or set
  };
  std::vector<zkl::ZkOp> ops;
  size_t bytes = 0;  // paths and data, against ZKL_OPS_MAX_BYTES
  int failed = -1;   // the operation that failed, or -1
  std::vector<Result> results;
};

namespace zkl {

// Forgets the results of an earlier write (a blocking write starts here,
// so a refusal before sending leaves no stale results behind).
void ResetResults(zkl_ops *ops);

// Appends `op` after checking its path, version, flags and size.
int AddOp(zkl_ops *ops, ZkOp op);

// Whether `op` lies in the tree of the recipe on `lock_path` that `rule`
// runs: strictly below the path, not a participant's node, not a
// sequential create that would join the queue.
bool InLockTree(const Rule &rule, const std::string &lock_path, const ZkOp &op);

// What proves a hold, and where its events go.
struct WriteGuard {
  std::vector<ZkOp> checks;  // the holder's node(s): sent first
  // For each check: told (under the client's mutex) when the quorum said
  // that node is gone, so that the holder hears of its loss at once.
  std::vector<std::function<void()>> on_gone;
  uint64_t owner = 0;
  uint64_t token = 0;
  std::shared_ptr<Handle> handle;  // the WRITTEN event's
  zkl_event_cb cb = nullptr;
  void *user_data = nullptr;
};

// Sends `ops` behind `guard`. Blocking: waits for the outcome and writes the
// results into *ops; returns 0 or the error. Async: returns the request id
// (> 0) and a WRITTEN event follows (*ops is copied).
int RunGuardedWrite(Client &client, WriteGuard guard, zkl_ops *ops, bool async)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(client.mu());

}  // namespace zkl
