// zkl_revoke: asks holders of a lock or election to let go, the way Apache
// Curator's Revoker does (the marker in the holder's node).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client.h"
#include "rule.h"

namespace zkl {

// Writes the revocation marker into the node of every current holder of
// `path` (or only into `holder`, a node name). Returns the number asked
// (>= 0) or a ZKL_E* code. Blocks up to timeout_ms.
int Revoke(Client &client, const std::string &path, std::unique_ptr<Rule> rule,
           int64_t timeout_ms, const char *holder);

}  // namespace zkl
