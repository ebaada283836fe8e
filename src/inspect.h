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
int Inspect(Client &client, const std::string &path, std::unique_ptr<Rule> rule, int64_t timeout_ms,
            std::vector<Participant> *out);

}  // namespace zkl

struct zkl_participants {
  std::vector<zkl::Participant> list;
};
