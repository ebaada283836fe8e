// Paths and connect strings: the validators never crash, accept only what
// ZooKeeper can use, and the public API agrees with them.
#include <cstdint>
#include <string>
#include <string_view>

#include "paths.h"
#include "zkl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  int rc = zkl::ValidatePath(input);
  if (rc == ZKL_OK) {
    // A valid path is absolute, has no empty segment and no trailing slash.
    if (input.empty() || input[0] != '/' || input.back() == '/') __builtin_trap();
    if (input.find("//") != std::string_view::npos) __builtin_trap();
    if (input.find('\0') != std::string_view::npos) __builtin_trap();
    std::string parent = zkl::ParentPath(input);
    if (parent.empty() || parent[0] != '/') __builtin_trap();
    if (zkl::JoinPath(parent, input.substr(input.rfind('/') + 1)) != input) __builtin_trap();
  }
  if (zkl::ValidateServers(input) == ZKL_OK) {
    if (input.find('/') != std::string_view::npos || input.find(' ') != std::string_view::npos) {
      __builtin_trap();
    }
  }
  // Through the C API: zkl_inspect validates before touching the client, so a
  // NULL client must win over any path; a NUL-terminated copy is what C sees.
  std::string c_path(input);
  zkl_participants *p = nullptr;
  zkl_inspect_options io;
  zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
  if (zkl_inspect(nullptr, c_path.c_str(), &io, &p) != ZKL_EBADHANDLE) __builtin_trap();
  return 0;
}
