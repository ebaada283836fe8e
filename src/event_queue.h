// The per-client queue of user-visible events, mirrored by an eventfd that is
// readable exactly while the queue is non-empty (level-triggered contract).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sync.h"
#include "handles.h"
#include "zkl.h"

// The public event object: a plain record, owned by the queue, by dispatch
// or by the caller of zkl_client_next_event.
struct zkl_event {
  int type = 0;
  int error = 0;
  int session_state = 0;
  uint64_t owner = 0;
  uint64_t fencing_token = 0;
  std::string data;
  int log_level = 0;           // LOG events
  std::string log_component;   // LOG events
  uint64_t request_id = 0;     // the async call this event answers
  std::shared_ptr<zkl_ops> ops;  // WRITTEN: the operations and results
  // The handle the event is about (null for session events); kept alive by
  // the event so a callback may destroy it safely.
  std::shared_ptr<zkl::Handle> handle;
  zkl_event_cb cb = nullptr;
  void *user_data = nullptr;
};

namespace zkl {

class EventQueue {
 public:
  EventQueue();  // throws std::system_error when no eventfd can be made
  ~EventQueue();
  EventQueue(const EventQueue &) = delete;
  EventQueue &operator=(const EventQueue &) = delete;

  int fd() const { return fd_; }
  void Push(std::unique_ptr<zkl_event> ev);
  // Queues them in order, all visible to readers at the same moment.
  void PushAll(std::vector<std::unique_ptr<zkl_event>> evs);
  // Next event, or null when empty.
  std::unique_ptr<zkl_event> Pop();
  size_t size() const;
  // Blocks until non-empty (true), timeout or Wakeup() (false).
  bool Wait(int64_t timeout_ms);
  void Wakeup();
  // Drops every pending event (client shutdown).
  void Clear();

 private:
  void SetReadable(bool readable) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int fd_;
  mutable Mutex mu_;
  CondVar nonempty_;  // signalled on empty -> non-empty, and by Wakeup
  std::deque<std::unique_ptr<zkl_event>> events_ ABSL_GUARDED_BY(mu_);
  bool wakeup_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace zkl
