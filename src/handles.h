// Handle registry: the public zkl_client* / zkl_lock* / ... values are
// opaque numbers that index this registry, never raw pointers, so a NULL,
// destroyed or foreign handle is detected (ZKL_EBADHANDLE) instead of crashing.
// Numbers are never reused within a process.
#pragma once

#include <cstdint>
#include <memory>

namespace zkl {

enum class HandleKind { kClient = 1, kLock = 2, kElection = 3, kObserver = 4, kMultilock = 5,
                        kWrite = 6 /* a guarded write in flight (never public) */ };

class Handle {
 public:
  explicit Handle(HandleKind kind) : kind_(kind) {}
  virtual ~Handle() = default;
  HandleKind kind() const { return kind_; }
  // The public value handed to the user (0 until registered).
  uint64_t public_id() const { return public_id_; }

 private:
  friend uint64_t RegisterHandle(const std::shared_ptr<Handle> &);
  const HandleKind kind_;
  uint64_t public_id_ = 0;
};

// Registers and returns the public value.
uint64_t RegisterHandle(const std::shared_ptr<Handle> &h);
// The live handle of that kind, or null.
std::shared_ptr<Handle> LookupHandle(const void *public_value, HandleKind kind);
// Removes it; returns the handle, or null when it was not registered.
std::shared_ptr<Handle> UnregisterHandle(const void *public_value, HandleKind kind);

template <typename T>
std::shared_ptr<T> Lookup(const void *public_value, HandleKind kind) {
  return std::static_pointer_cast<T>(LookupHandle(public_value, kind));
}

template <typename Public>
Public *ToPublic(const Handle &h) {
  return reinterpret_cast<Public *>(static_cast<uintptr_t>(h.public_id()));
}

}  // namespace zkl
