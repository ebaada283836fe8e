// Mapping ZooKeeper C client return codes onto ZKL_E* codes.
#pragma once

namespace zkl {

int FromZooKeeper(int zrc);
// The request's fate is unknown: the server may or may not have applied it.
bool IsConnectionError(int zrc);
// The zhandle can no longer be used (expired, closing, auth failed).
bool IsSessionGone(int zrc);

}  // namespace zkl
