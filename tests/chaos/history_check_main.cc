// zkl-history-check: checks history files (format: README.md) and prints
// the verdict; exit status 0 when the history is safe, 1 on violations,
// 2 on unreadable or malformed input.
//
//   zkl-history-check [--max N] [--only KIND[,KIND...]] FILE...
//
// --only: judge only these kinds of violation (overlap, semaphore, token,
// fence, stale-held; history always), count the others (e.g. --only fence
// for a run whose is_held lies on purpose: the fence alone must hold).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "history.h"

int main(int argc, char **argv) {
  size_t max_violations = 10;
  int i = 1;
  zkl_chaos::CheckOptions options;
  for (;;) {
    if (i + 1 < argc && std::strcmp(argv[i], "--max") == 0) {
      max_violations = static_cast<size_t>(std::atol(argv[i + 1]));
      i += 2;
    } else if (i + 1 < argc && std::strcmp(argv[i], "--only") == 0) {
      std::string kinds = argv[i + 1];
      for (size_t pos = 0; pos <= kinds.size();) {
        size_t comma = kinds.find(',', pos);
        if (comma == std::string::npos) comma = kinds.size();
        if (comma > pos) options.only.push_back(kinds.substr(pos, comma - pos));
        pos = comma + 1;
      }
      i += 2;
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "usage: %s [--max N] [--only KIND[,KIND...]] HISTORY_FILE...\n", argv[0]);
    return 2;
  }
  zkl_chaos::History h;
  for (; i < argc; ++i) {
    std::string error;
    if (!h.AddFile(argv[i], &error)) {
      std::fprintf(stderr, "zkl-history-check: %s\n", error.c_str());
      return 2;
    }
  }
  zkl_chaos::Verdict v = zkl_chaos::Check(h, options);
  std::fputs(zkl_chaos::Report(h, v, max_violations).c_str(), stdout);
  return v.ok() ? 0 : 1;
}
