#include "handles.h"

#include "absl/container/flat_hash_map.h"
#include "sync.h"

namespace zkl {
namespace {

struct Registry {
  Mutex mu;
  uint64_t next ABSL_GUARDED_BY(mu) = 1;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Handle>> live ABSL_GUARDED_BY(mu);
};

Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: handles may outlive main
  return *r;
}

// Spread the numbers so that they look like (and align like) pointers and
// small integers or stray pointers are unlikely to match a live handle.
constexpr uint64_t kBase = 0x5a4b4c0000000000ULL;
constexpr uint64_t kStride = 16;

}  // namespace

uint64_t RegisterHandle(const std::shared_ptr<Handle> &h) {
  Registry &r = registry();
  MutexLock lock(&r.mu);
  uint64_t id = kBase + kStride * r.next++;
  h->public_id_ = id;
  r.live.emplace(id, h);
  return id;
}

std::shared_ptr<Handle> LookupHandle(const void *public_value, HandleKind kind) {
  if (public_value == nullptr) return nullptr;
  Registry &r = registry();
  ReaderMutexLock lock(&r.mu);
  auto it = r.live.find(reinterpret_cast<uintptr_t>(public_value));
  if (it == r.live.end() || it->second->kind() != kind) return nullptr;
  return it->second;
}

std::shared_ptr<Handle> UnregisterHandle(const void *public_value, HandleKind kind) {
  if (public_value == nullptr) return nullptr;
  Registry &r = registry();
  MutexLock lock(&r.mu);
  auto it = r.live.find(reinterpret_cast<uintptr_t>(public_value));
  if (it == r.live.end() || it->second->kind() != kind) return nullptr;
  std::shared_ptr<Handle> h = std::move(it->second);
  r.live.erase(it);
  return h;
}

}  // namespace zkl
