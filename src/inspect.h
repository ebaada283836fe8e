#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client.h"
#include "rule.h"

namespace zkl {

struct Participant {
  std::string name;
  bool holder = false;
  int leases = 1;
  bool present = false;
  uint64_t czxid = 0;
  uint64_t session_id = 0;
  int64_t ctime_ms = 0;
  std::string data;
};

// Reads the queue under `path` as `rule` sees it. Blocks up to timeout_ms.
// `rule` says which recipe the path holds; a semaphore's lease count is read
// from the server.
// With `sync_first`, the server catches up with the leader first.
int Inspect(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
            std::vector<Participant> *out, bool sync_first = false);

// zkl_fence_check: 0 when `token` is a current holder's (read after a
// sync), ZKL_ESTALE when not.
int FenceCheck(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
               uint64_t token);

}  // namespace zkl

struct zkl_participants {
  std::vector<zkl::Participant> list;
};
