// Path validation and lock-node naming shared by every recipe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkl {

// Returns ZKL_OK or ZKL_EBADPATH: absolute, no trailing slash, no empty,
// "." or ".." segment, no NUL or control characters, not "/zookeeper".
int ValidatePath(std::string_view path);

// ZKL_OK or ZKL_EINVAL for a connect string: "host:port[,host:port]*", hosts
// of letters, digits, '.', '-', '_' (or a bracketed IPv6 address), ports
// 1..65535, at most 64 servers. Checked before ZooKeeper ever sees it.
int ValidateServers(std::string_view servers);

// "/a/b/c" -> "/a/b"; "/a" -> "/".
std::string ParentPath(std::string_view path);
// ("/a", "b") -> "/a/b"; ("/", "b") -> "/b".
std::string JoinPath(std::string_view parent, std::string_view child);

// A fresh random UUID (version 4) in canonical text form.
std::string NewUuid();

// Protected node name prefix as Apache Curator writes it: "_c_<uuid>-".
std::string ProtectedPrefix(std::string_view uuid);

// The integer sequence suffix (the trailing 10 digits ZooKeeper appends), or
// nullopt for a name without one. Ordering is by this value, never by string.
std::optional<int64_t> SequenceOf(std::string_view name);

// Node data without a leading protected prefix (fixed nodes carry one).
std::string_view StripProtectedPrefix(std::string_view data);

}  // namespace zkl
