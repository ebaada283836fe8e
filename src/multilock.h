// The multi-lock: several locks taken all or none, with one deadline.
//
// Members are ordinary lock handles (fair, non-fair, read, write,
// semaphore) that the multi-lock takes over (ContenderGroup): it takes them
// one after another in one canonical order, by path, so two multi-locks
// over overlapping sets can never wait for each other in a cycle, whatever
// order their callers named the paths in. On timeout, cancel or the loss of
// any member, every member already taken is released; the loss of one
// member is delivered as the loss of the whole.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "contender.h"

namespace zkl {

class Multilock : public Handle, public ContenderGroup {
 public:
  // `members` must be idle locks of `client` on distinct paths, of no
  // multi-lock yet (checked by Create). They are sorted by path here.
  static int Create(std::shared_ptr<Client> client, std::vector<std::shared_ptr<Contender>> members,
                    zkl_event_cb cb, void *user_data, std::shared_ptr<Multilock> *out);

  int Acquire(uint64_t owner, int64_t timeout_ms, Contender::Mode mode);
  int Cancel();
  int Release(uint64_t owner, bool wait);
  int IsHeld();
  int ValidFor(int64_t *ms);
  int Count() const { return static_cast<int>(members_.size()); }
  std::shared_ptr<Contender> Member(size_t i) const { return members_[i]; }
  int FencingToken(const std::string &path, uint64_t *out);
  // Guarded writes: `ops` behind a check of every member's node.
  int Write(uint64_t owner, zkl_ops *ops, bool async);
  // Releases or cancels, then destroys every member.
  void Destroy();

  // ContenderGroup (client mutex held).
  void OnMemberEvent(Contender *member, int type, int error, uint64_t token) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

 private:
  Multilock(std::shared_ptr<Client> client, std::vector<std::shared_ptr<Contender>> members,
            zkl_event_cb cb, void *user_data);
  size_t IndexOf(const Contender *member) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void TakeNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Granted() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // Ends the pending acquire with `error` (everything taken is released).
  void Fail(int error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // Releases every member taken so far (async); `report` != 0: the id of
  // the async release a RELEASED answers once they are all released.
  void ReleaseTaken(uint64_t report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void ReportReleases() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  void Finish(int rc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  // `request`: the id of the async call the event answers (0: none).
  void Notify(int type, int error, uint64_t request = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());
  bool AllHeld() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_->mu());

  std::shared_ptr<Client> client_;
  std::weak_ptr<Handle> self_;  // for the events' handle
  std::vector<std::shared_ptr<Contender>> members_;  // in canonical (path) order
  const zkl_event_cb cb_;
  void *const user_data_;

  bool destroyed_ ABSL_GUARDED_BY(client_->mu()) = false;
  bool acquiring_ ABSL_GUARDED_BY(client_->mu()) = false;
  bool held_ ABSL_GUARDED_BY(client_->mu()) = false;
  bool suspended_ ABSL_GUARDED_BY(client_->mu()) = false;
  bool lost_unreleased_ ABSL_GUARDED_BY(client_->mu()) = false;
  uint64_t owner_ ABSL_GUARDED_BY(client_->mu()) = 0;
  uint64_t lost_owner_ ABSL_GUARDED_BY(client_->mu()) = 0;
  Contender::Mode mode_ ABSL_GUARDED_BY(client_->mu()) = Contender::Mode::kBlocking;
  absl::Time deadline_ ABSL_GUARDED_BY(client_->mu()) = absl::InfiniteFuture();
  size_t next_ ABSL_GUARDED_BY(client_->mu()) = 0;           // the member being taken
  size_t releasing_ ABSL_GUARDED_BY(client_->mu()) = 0;      // members whose async release is still running
  uint64_t acquire_request_ ABSL_GUARDED_BY(client_->mu()) = 0;  // the async acquire's id
  std::vector<uint64_t> reported_releases_ ABSL_GUARDED_BY(client_->mu());  // async releases' ids
  uint64_t request_seq_ ABSL_GUARDED_BY(client_->mu()) = 0;
  uint64_t done_seq_ ABSL_GUARDED_BY(client_->mu()) = 0;
  int done_rc_ ABSL_GUARDED_BY(client_->mu()) = 0;
};

}  // namespace zkl
