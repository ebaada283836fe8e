// The fixture of the scripted suite: a client on a scripted session
// (scripted_session.h), driven through the public C API, and the helpers
// that play the usual shapes of the ensemble's answers. Every test file of
// the suite (one concept each) builds on it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "client.h"
#include "handles.h"
#include "scripted_session.h"
#include "zkl.h"

namespace zkl::scripted {

inline constexpr int64_t kWaitMs = 5000;
// Another client's protected prefix (nodes of other participants).
inline const std::string kOther = "_c_0b0b0b0b-0000-4000-8000-00000000000b-";
inline constexpr int64_t kOtherSession = 0x777;

inline std::string Seq(int64_t seq) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010lld", static_cast<long long>(seq));
  return buf;
}
// Another participant's sequential node.
inline std::string OtherNode(const std::string &label, int64_t seq) { return kOther + label + Seq(seq); }


struct Event {
  int type = 0;  // 0: none came
  int error = 0;
  uint64_t token = 0;
  uint64_t owner = 0;
  int state = 0;
  uint64_t request_id = 0;
  std::string data;  // an observer's leader id, a log line, statistics
  int log_level = 0;  // log lines: ZKL_LOG_* and component
  std::string component;
};

class Scripted : public ::testing::Test {
 protected:
  void Start(int io = ZKL_IO_THREAD, Script::Options options = Script::Options()) {
    script_ = Script::Make(options);
    zkl_client_options opts;
    zkl_client_options_init(&opts, ZKL_CLIENT_OPTIONS_VERSION);
    opts.servers = "scripted:2181";
    opts.io = io;
    opts.session_timeout_ms = options.negotiated_timeout_ms;
    if (configure_) configure_(&opts);
    std::string why;
    ASSERT_EQ(Client::Create(opts, script_->Factory(), &client_, &why), ZKL_OK) << why;
    RegisterHandle(client_);
    c_ = ToPublic<zkl_client>(*client_);
    if (io == ZKL_IO_HOST) script_->SetPump([client = client_] { client->DriveNow(); });
    if (options.auto_connect) {
      ASSERT_EQ(zkl_client_wait_connected(c_, kWaitMs), ZKL_OK);
      ASSERT_EQ(NextSession(), ZKL_SESSION_CONNECTED);
    }
  }

  void TearDown() override {
    if (c_ != nullptr) zkl_client_destroy(c_);
  }

  uint64_t sid() const { return script_->session_id(); }

  // `leases`: a semaphore's leases per acquisition.
  zkl_lock *NewLock(const char *path, int kind = ZKL_LOCK_FAIR, int max_leases = 0,
                    int on_revoke = ZKL_REVOKE_IGNORE, int64_t max_hold_ms = 0, int leases = 1) {
    zkl_lock_options o;
    zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
    o.kind = kind;
    o.max_leases = max_leases;
    o.leases = leases;
    o.on_revoke = on_revoke;
    o.max_hold_ms = max_hold_ms;
    zkl_lock *l = nullptr;
    EXPECT_EQ(zkl_lock_new(c_, path, &o, &l), ZKL_OK);
    return l;
  }

  zkl_election *NewElection(const char *path, int kind, int on_revoke = ZKL_REVOKE_IGNORE) {
    zkl_election_options o;
    zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
    o.kind = kind;
    o.id = "me";
    o.on_revoke = on_revoke;
    zkl_election *e = nullptr;
    EXPECT_EQ(zkl_election_new(c_, path, &o, &e), ZKL_OK);
    return e;
  }

  // A handle's statistics document (zkl_lock_stats, zkl_election_stats...).
  template <typename Handle>
  static std::string StatsOf(int (*stats)(Handle *, char **, size_t *), Handle *h) {
    char *json = nullptr;
    size_t len = 0;
    EXPECT_EQ(stats(h, &json, &len), ZKL_OK);
    std::string out = json != nullptr ? std::string(json, len) : std::string();
    zkl_free(json);
    return out;
  }

  // Events, split into session events, the handles' events, and the
  // client's log and statistics lines; bounded waits.
  bool Pull(int64_t timeout_ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      zkl_event *ev = nullptr;
      if (zkl_client_next_event(c_, &ev) == ZKL_OK) {
        Event e;
        e.type = zkl_event_type(ev);
        e.error = zkl_event_error(ev);
        zkl_event_fencing_token(ev, &e.token);
        zkl_event_owner(ev, &e.owner);
        e.state = zkl_event_session_state(ev);
        zkl_event_request_id(ev, &e.request_id);
        const char *data = nullptr;
        size_t len = 0;
        if (zkl_event_data(ev, &data, &len) == ZKL_OK) e.data.assign(data, len);
        const char *component = nullptr;
        if (zkl_event_log(ev, &e.log_level, &component) == ZKL_OK) e.component = component;
        zkl_event_free(ev);
        if (e.type == ZKL_EVENT_SESSION) {
          session_events_.push_back(e);
        } else if (e.type == ZKL_EVENT_LOG || e.type == ZKL_EVENT_STATS) {
          client_events_.push_back(e);
        } else {
          events_.push_back(e);
        }
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      zkl_client_wait(c_, left.count());
    }
  }
  Event NextEvent(int64_t timeout_ms = kWaitMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (events_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() < 0 || !Pull(left.count())) break;
    }
    if (events_.empty()) return Event();
    Event e = events_.front();
    events_.pop_front();
    return e;
  }
  int NextSession(int64_t timeout_ms = kWaitMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (session_events_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() < 0 || !Pull(left.count())) break;
    }
    if (session_events_.empty()) return 0;
    int state = session_events_.front().state;
    session_events_.pop_front();
    return state;
  }
  // After everything scripted so far was delivered: no handle event waits.
  void ExpectNoEvent() {
    script_->Flush();
    while (Pull(0)) {
    }
    EXPECT_TRUE(events_.empty()) << "unexpected event of type " << events_.front().type;
  }
  // The next event is ACQUIRED (or `type`: ELECTED) with fencing token
  // `token` (returned for further checks).
  Event ExpectAcquired(uint64_t token, int type = ZKL_EVENT_ACQUIRED) {
    Event e = NextEvent();
    EXPECT_EQ(e.type, type);
    EXPECT_EQ(e.token, token);
    return e;
  }

  void ExpectEvent(int type, int error = 0) {
    Event e = NextEvent();
    EXPECT_EQ(e.type, type) << "error " << e.error;
    EXPECT_EQ(e.error, error) << "event type " << e.type;
  }

  // The next event is `type` with `error`, answering the async call whose
  // request id is `request`.
  Event ExpectAnswer(int type, int error, int request) {
    Event e = NextEvent();
    EXPECT_EQ(e.type, type) << "error " << e.error;
    EXPECT_EQ(e.error, error) << "event type " << e.type;
    EXPECT_EQ(e.request_id, static_cast<uint64_t>(request));
    return e;
  }

  // Cancels `l`'s pending async acquire: it fails with ECANCELED.
  void Cancel(zkl_lock *l) {
    EXPECT_EQ(zkl_lock_cancel(l), ZKL_OK);
    ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ECANCELED);
  }

  // Everything scripted so far delivered, the engine sent nothing more.
  void ExpectNothingSent() {
    script_->Flush();
    EXPECT_TRUE(script_->Pending().empty()) << script_->DescribePending();
  }

  // The result of a blocking call run with std::async, once it returns
  // (bounded: kNeverReturned when it does not).
  static constexpr int kNeverReturned = -9999;
  static int Returned(std::future<int> &call) {
    if (call.wait_for(std::chrono::milliseconds(kWaitMs)) != std::future_status::ready) return kNeverReturned;
    return call.get();
  }

  // A sequential contender's pipelined create and children read under
  // `path`: created as `seq` (token `czxid`), the children `ahead` + own.
  // Returns the own node's name.
  std::string AnswerJoin(const std::string &path, int64_t seq, int64_t czxid,
                         std::vector<std::string> ahead = {}) {
    return AnswerJoin(script_->Next(Kind::kCreate, path + "/"), seq, czxid, std::move(ahead));
  }
  // The same for a create already taken.
  std::string AnswerJoin(const RequestPtr &create, int64_t seq, int64_t czxid,
                         std::vector<std::string> ahead = {}) {
    std::string path = create->path.substr(0, create->path.rfind('/'));
    RequestPtr children = script_->Next(Kind::kGetChildren, path);
    EXPECT_EQ(create->mode, kEphemeral | kSequential);
    EXPECT_FALSE(children->watch());
    std::string own = Sequential(*create, seq);
    script_->Reply(create, Created(own, czxid, static_cast<int64_t>(sid())));
    ahead.push_back(NameOf(own));
    script_->Reply(children, Children(ahead));
    return NameOf(own);
  }

  // Owner 1's async acquire of the fair lock `path`: its pipelined create
  // and children read, both unanswered.
  std::pair<RequestPtr, RequestPtr> StartJoin(zkl_lock *l, const std::string &path) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/");
    return {create, script_->Next(Kind::kGetChildren, path)};
  }

  // Starts owner 1's async acquire of `l` and takes its create, whose node
  // name must carry `label`.
  RequestPtr AcquireAsync(zkl_lock *l, const std::string &path, const std::string &label) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/");
    EXPECT_NE(create->path.find(label), std::string::npos) << create->path;
    return create;
  }

  // Host mode (nothing runs the coalescing timer between the two calls):
  // the fair lock `l` on /f held, released async and acquired again at
  // once. Returns the held node's name and the one multi that carries both.
  std::pair<std::string, RequestPtr> ReleaseAndAcquireAgain(zkl_lock *l) {
    std::string own = HoldFair(l, "/f");
    EXPECT_GT(zkl_lock_release_async(l, 1), 0);
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    return {own, script_->Next(Kind::kMulti, "/f/")};
  }

  // An acquire on the fair lock `path` whose create and children read are
  // cut by a connection loss; the same session is back (unless not
  // `reconnect`). Delivered before it returns: what the test calls next
  // comes after. Returns the create.
  RequestPtr CutCreate(zkl_lock *l, const std::string &path, bool reconnect = true) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/");
    script_->Next(Kind::kGetChildren, path);
    script_->DropConnection();
    if (reconnect) script_->Connect();
    script_->Flush();
    return create;
  }

  // The same for the non-fair lock `path` (one create, no children read).
  RequestPtr CutFixedCreate(zkl_lock *l, const std::string &path) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/lock");
    script_->DropConnection();
    script_->Flush();
    return create;
  }

  // A fair lock on `path` acquired asynchronously by owner 1.
  std::string HoldFair(zkl_lock *l, const std::string &path, int64_t czxid = 100) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    std::string own = AnswerJoin(path, 5, czxid);
    ExpectEvent(ZKL_EVENT_ACQUIRED);
    return own;
  }

  // Owner 1's async acquire (`timeout_ms`) of the non-fair lock `path`
  // finds its node taken: returns the holder's node read, unanswered.
  RequestPtr FindFixedNodeTaken(zkl_lock *l, const std::string &path, int64_t timeout_ms = -1) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, timeout_ms), 0);
    script_->Reply(script_->Next(Kind::kCreate, path + "/lock"), Error(ZkRc::kNodeExists));
    return script_->Next(Kind::kGetData, path + "/lock");
  }

  // A non-fair lock on /n held by owner 1 and released async; the delete's
  // answer is lost with the connection. Returns the check of the node that
  // the retry sends first (a fixed name may be another holder's by now).
  RequestPtr CutFixedRelease(zkl_lock *l) {
    HoldNonfair(l, "/n");
    EXPECT_GT(zkl_lock_release_async(l, 1), 0);
    script_->Next(Kind::kDelete, "/n/lock");
    script_->DropConnection();
    script_->Connect();
    return script_->Next(Kind::kExists, "/n/lock");
  }

  // A non-fair lock on `path` (its node PATH/lock) acquired by owner 1.
  RequestPtr HoldNonfair(zkl_lock *l, const std::string &path, int64_t czxid = 200) {
    EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/lock");
    EXPECT_EQ(create->mode, kEphemeral);
    script_->Reply(create, Created(path + "/lock", czxid, static_cast<int64_t>(sid())));
    ExpectEvent(ZKL_EVENT_ACQUIRED);
    return create;
  }

  // Set before Start: changes the client's options (logs, statistics...).
  std::function<void(zkl_client_options *)> configure_;
  std::shared_ptr<Script> script_;
  std::shared_ptr<Client> client_;
  zkl_client *c_ = nullptr;
  std::deque<Event> events_;
  std::deque<Event> session_events_;
  std::deque<Event> client_events_;  // log lines and statistics
};
}  // namespace zkl::scripted
