#include "paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <random>

#include "zkl.h"

namespace zkl {

int ValidatePath(std::string_view path) {
  if (path.empty() || path[0] != '/') return ZKL_EBADPATH;
  if (path.size() > 1 && path.back() == '/') return ZKL_EBADPATH;
  if (path.size() > 4096) return ZKL_EBADPATH;
  if (path == "/") return ZKL_EBADPATH;  // a lock needs a node of its own
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return ZKL_EBADPATH;
    for (unsigned char ch : segment) {
      if (ch < 0x20 || ch == 0x7f) return ZKL_EBADPATH;
    }
    start = end + 1;
  }
  if (path == "/zookeeper" || path.substr(0, 11) == "/zookeeper/") return ZKL_EBADPATH;
  return ZKL_OK;
}

int ValidateServers(std::string_view servers) {
  if (servers.empty() || servers.size() > 16384) return ZKL_EINVAL;
  size_t count = 0, start = 0;
  for (;;) {
    size_t end = servers.find(',', start);
    std::string_view server = servers.substr(start, end == std::string_view::npos ? end : end - start);
    size_t colon = server.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return ZKL_EINVAL;
    std::string_view host = server.substr(0, colon), port = server.substr(colon + 1);
    if (host.front() == '[') {
      if (host.size() < 3 || host.back() != ']') return ZKL_EINVAL;
      for (char ch : host.substr(1, host.size() - 2)) {
        if (!(std::isxdigit(static_cast<unsigned char>(ch)) || ch == ':' || ch == '.')) return ZKL_EINVAL;
      }
    } else {
      for (char ch : host) {
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_')) {
          return ZKL_EINVAL;
        }
      }
    }
    if (port.empty() || port.size() > 5) return ZKL_EINVAL;
    int value = 0;
    for (char ch : port) {
      if (ch < '0' || ch > '9') return ZKL_EINVAL;
      value = value * 10 + (ch - '0');
    }
    if (value < 1 || value > 65535) return ZKL_EINVAL;
    if (++count > 64) return ZKL_EINVAL;
    if (end == std::string_view::npos) return ZKL_OK;
    start = end + 1;
  }
}

std::string ParentPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(path.substr(0, slash));
}

std::string JoinPath(std::string_view parent, std::string_view child) {
  std::string out(parent);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(child);
  return out;
}

std::string NewUuid() {
  // Seeded once per thread from the kernel; uniqueness matters, secrecy not.
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<uint64_t>(getpid());
  }());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                  // version 4
  lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);      // RFC 4122 variant
  // 8-4-4-4-12 hex digits, written by hand: snprintf was a visible part of
  // an uncontended acquire's CPU (one uuid per acquisition).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  int pos = 0;
  auto put = [&](uint64_t v, int digits) {
    for (int i = digits - 1; i >= 0; --i) out[static_cast<size_t>(pos + i)] = kHex[v & 0xF], v >>= 4;
    pos += digits + 1;  // and the dash
  };
  put(hi >> 32, 8);
  put((hi >> 16) & 0xFFFF, 4);
  put(hi & 0xFFFF, 4);
  put(lo >> 48, 4);
  put(lo & 0xFFFFFFFFFFFFULL, 12);
  return out;
}

std::string ProtectedPrefix(std::string_view uuid) {
  std::string out = "_c_";
  out.append(uuid);
  out.push_back('-');
  return out;
}

std::string_view StripProtectedPrefix(std::string_view data) {
  constexpr size_t kLength = 3 + 36 + 1;  // "_c_" uuid "-"
  if (data.size() >= kLength && data.substr(0, 3) == "_c_" && data[kLength - 1] == '-') {
    return data.substr(kLength);
  }
  return data;
}

std::optional<int64_t> SequenceOf(std::string_view name) {
  constexpr size_t kDigits = 10;
  if (name.size() < kDigits) return std::nullopt;
  int64_t value = 0;
  for (char ch : name.substr(name.size() - kDigits)) {
    if (ch < '0' || ch > '9') return std::nullopt;
    value = value * 10 + (ch - '0');
  }
  return value;
}

}  // namespace zkl
