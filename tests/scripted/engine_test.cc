// The engine's reply branches, driven deterministically through the public
// C API on a scripted session (scripted_session.h): every reply, loss,
// watch and expiry comes exactly when and how the test says. Adds to the
// real-server tests (tests/*.cc), never replaces them.
#include <poll.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client.h"
#include "handles.h"
#include "scripted_session.h"
#include "zkl.h"

namespace zkl::scripted {
namespace {

constexpr int64_t kWaitMs = 5000;
// Another client's protected prefix (nodes of other participants).
const std::string kOther = "_c_0b0b0b0b-0000-4000-8000-00000000000b-";
constexpr int64_t kOtherSession = 0x777;

std::string Seq(int64_t seq) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010lld", static_cast<long long>(seq));
  return buf;
}
// Another participant's sequential node.
std::string OtherNode(const std::string &label, int64_t seq) { return kOther + label + Seq(seq); }

struct Event {
  int type = 0;  // 0: none came
  int error = 0;
  uint64_t token = 0;
  uint64_t owner = 0;
  int state = 0;
  uint64_t request_id = 0;
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

  zkl_lock *NewLock(const char *path, int kind = ZKL_LOCK_FAIR, int max_leases = 0,
                    int on_revoke = ZKL_REVOKE_IGNORE, int64_t max_hold_ms = 0) {
    zkl_lock_options o;
    zkl_lock_options_init(&o, ZKL_LOCK_OPTIONS_VERSION);
    o.kind = kind;
    o.max_leases = max_leases;
    o.on_revoke = on_revoke;
    o.max_hold_ms = max_hold_ms;
    zkl_lock *l = nullptr;
    EXPECT_EQ(zkl_lock_new(c_, path, &o, &l), ZKL_OK);
    return l;
  }

  zkl_election *NewElection(const char *path, int kind) {
    zkl_election_options o;
    zkl_election_options_init(&o, ZKL_ELECTION_OPTIONS_VERSION);
    o.kind = kind;
    o.id = "me";
    zkl_election *e = nullptr;
    EXPECT_EQ(zkl_election_new(c_, path, &o, &e), ZKL_OK);
    return e;
  }

  // Events, split into session events and the handles' events (log and
  // statistics lines are dropped); bounded waits.
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
        zkl_event_free(ev);
        if (e.type == ZKL_EVENT_SESSION) {
          session_events_.push_back(e);
        } else if (e.type != ZKL_EVENT_LOG && e.type != ZKL_EVENT_STATS) {
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
  void ExpectEvent(int type, int error = 0) {
    Event e = NextEvent();
    EXPECT_EQ(e.type, type) << "error " << e.error;
    EXPECT_EQ(e.error, error) << "event type " << e.type;
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

  // An acquire on the fair lock `path` whose create and children read are
  // cut by a connection loss; the same session is back. Returns the create.
  RequestPtr CutCreate(zkl_lock *l, const std::string &path) {
    EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/");
    script_->Next(Kind::kGetChildren, path);
    script_->DropConnection();
    script_->Connect();
    return create;
  }

  // A fair lock on `path` acquired asynchronously by owner 1.
  std::string HoldFair(zkl_lock *l, const std::string &path, int64_t czxid = 100) {
    EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
    std::string own = AnswerJoin(path, 5, czxid);
    ExpectEvent(ZKL_EVENT_ACQUIRED);
    return own;
  }

  // A non-fair lock on `path` (its node PATH/lock) acquired by owner 1.
  RequestPtr HoldNonfair(zkl_lock *l, const std::string &path, int64_t czxid = 200) {
    EXPECT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
    RequestPtr create = script_->Next(Kind::kCreate, path + "/lock");
    EXPECT_EQ(create->mode, kEphemeral);
    script_->Reply(create, Created(path + "/lock", czxid, static_cast<int64_t>(sid())));
    ExpectEvent(ZKL_EVENT_ACQUIRED);
    return create;
  }

  std::shared_ptr<Script> script_;
  std::shared_ptr<Client> client_;
  zkl_client *c_ = nullptr;
  std::deque<Event> events_;
  std::deque<Event> session_events_;
};

// ---------------------------------------------------------------------------
// Fair lock
// ---------------------------------------------------------------------------

TEST_F(Scripted, FairLockPipelinesCreateAndChildrenThenGrants) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  // Both requests go out before any answer: one round trip decides.
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/f");
  EXPECT_LT(create->id, children->id);
  EXPECT_NE(create->path.find("-lock-"), std::string::npos) << create->path;
  std::string own = Sequential(*create, 1);
  script_->Reply(create, Created(own, 42, static_cast<int64_t>(sid())));
  script_->Reply(children, Children({NameOf(own)}));
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(e.token, 42u);
  EXPECT_EQ(e.owner, 1u);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
  uint64_t token = 0;
  EXPECT_EQ(zkl_lock_fencing_token(l, &token), ZKL_OK);
  EXPECT_EQ(token, 42u);
  // An async release: the delete goes out after the coalescing window.
  ASSERT_EQ(zkl_lock_release_async(l, 1), ZKL_OK);
  RequestPtr del = script_->Next(Kind::kDelete, "/f/" + NameOf(own));
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  script_->Reply(del, Ok());
  ExpectEvent(ZKL_EVENT_RELEASED);
}

TEST_F(Scripted, FairLockQueuedBehindPredecessorGrantedWhenItIsDeleted) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 3), OtherNode("lock-", 4)});
  // Only the direct predecessor is watched (no herd).
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  EXPECT_TRUE(watch->watch());
  script_->Reply(watch, Data("", 90, kOtherSession));
  ExpectNoEvent();
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  // Another node is still ahead: its deletion alone grants nothing; look again.
  script_->FireWatch(watch, WatchType::kDeleted);
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 3), own}));
  RequestPtr head = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 3));
  script_->Reply(head, Data("", 80, kOtherSession));
  ExpectNoEvent();
  // Now only the head is in the way: its deletion grants without a read.
  script_->FireWatch(head, WatchType::kDeleted);
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(e.token, 100u);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));
}

TEST_F(Scripted, FairLockWatchFiresBeforeTheReplyThatSetIt) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->FireWatch(watch, WatchType::kDeleted);
  script_->Reply(watch, Error(ZkRc::kNoNode));  // the read then finds it gone
  ExpectEvent(ZKL_EVENT_ACQUIRED);
  ExpectNoEvent();  // one grant, not two
}

TEST_F(Scripted, FairLockPredecessorGoneBeforeTheWatchIsSet) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->Reply(watch, Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, FairLockPredecessorDataChangeLooksAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->Reply(watch, Data("", 90, kOtherSession));
  script_->FireWatch(watch, WatchType::kDataChanged);
  // Not a deletion: the children are read again.
  RequestPtr again = script_->Next(Kind::kGetChildren, "/f");
  script_->Reply(again, Children({own}));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, TryAcquireBehindAHolderSaysAgainAndDeletesItsNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  auto result = std::async(std::launch::async, [l] { return zkl_lock_try_acquire(l, 1); });
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  ASSERT_EQ(result.wait_for(std::chrono::milliseconds(kWaitMs)), std::future_status::ready);
  EXPECT_EQ(result.get(), ZKL_EAGAIN);
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Ok());
  ExpectNoEvent();  // a blocking call queues no event
}

TEST_F(Scripted, ZeroTimeoutNeverWaits) {
  // 023fa95: an acquire with a zero timeout fails at once behind a holder.
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 7, 0), ZKL_OK);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_ACQUIRE_FAILED);
  EXPECT_EQ(e.error, ZKL_ETIMEDOUT);
  EXPECT_EQ(e.owner, 7u);  // the owner that asked (023fa95)
  script_->Next(Kind::kDelete, "/f/" + own);
}

TEST_F(Scripted, AcquireTimeoutDeletesTheWaitingNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, 50), ZKL_OK);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));  // never answered
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT);
  script_->Next(Kind::kDelete, "/f/" + own);
}

TEST_F(Scripted, CancelWhileQueuedDeletesTheWaitingNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));
  ASSERT_EQ(zkl_lock_cancel(l), ZKL_OK);
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ECANCELED);
  script_->Next(Kind::kDelete, "/f/" + own);
  EXPECT_EQ(zkl_lock_cancel(l), ZKL_ENOTHELD);
}

TEST_F(Scripted, CancelWithTheCreateInFlightDeletesTheNodeItsReplyNames) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/f");
  ASSERT_EQ(zkl_lock_cancel(l), ZKL_OK);
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ECANCELED);
  std::string own = Sequential(*create, 5);
  script_->Reply(create, Created(own, 100, static_cast<int64_t>(sid())));
  script_->Reply(children, Children({NameOf(own)}));
  script_->Next(Kind::kDelete, own);
  ExpectNoEvent();
}

TEST_F(Scripted, DestroyWithTheCreateInFlightStillDeletesTheNode) {
  // 9d9c76b: a lock destroyed with its create in flight cleans up after it.
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  ASSERT_EQ(zkl_lock_destroy(l), ZKL_OK);
  std::string own = Sequential(*create, 5);
  script_->Reply(create, Created(own, 100, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kDelete, own), Ok());
  script_->Flush();
}

TEST_F(Scripted, MissingParentsAreCreatedThenTheNode) {
  Start();
  zkl_lock *l = NewLock("/deep/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/deep/f/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/deep/f");
  script_->Reply(create, Error(ZkRc::kNoNode));
  script_->Reply(children, Error(ZkRc::kNoNode));
  RequestPtr top = script_->Next(Kind::kCreate, "/deep");
  EXPECT_EQ(top->path, "/deep");
  EXPECT_EQ(top->mode, kContainer);
  RequestPtr parent = script_->Next(Kind::kCreate, "/deep/f");
  EXPECT_EQ(parent->path, "/deep/f");
  script_->Reply(top, Ok());
  script_->Reply(parent, Error(ZkRc::kNodeExists));  // another client made it
  AnswerJoin("/deep/f", 1, 100);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, ParentRefusedFailsWithAuth) {
  Start();
  zkl_lock *l = NewLock("/deep/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  script_->Reply(script_->Next(Kind::kCreate, "/deep/f/"), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kGetChildren, "/deep/f"), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kCreate, "/deep"), Error(ZkRc::kNoAuth));
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_EAUTH);
}

TEST_F(Scripted, UnexpectedAnswerEndsTheAcquire) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  script_->Reply(create, Error(ZkRc::kOther));  // e.g. throttled
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_EZOOKEEPER);
}

// ---------------------------------------------------------------------------
// A create whose answer was lost (create_unknown_)
// ---------------------------------------------------------------------------

TEST_F(Scripted, ConnectionLossDuringCreateFindsTheNodeByItsUuid) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  script_->Next(Kind::kGetChildren, "/f");
  script_->DropConnection();  // both answered with a connection loss
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  script_->Flush();
  EXPECT_TRUE(script_->Pending().empty()) << script_->DescribePending();  // nothing sent while down
  script_->Connect();
  EXPECT_EQ(NextSession(), ZKL_SESSION_RECONNECTED);
  // The create did land: the children read finds it by its protected prefix.
  std::string own = NameOf(Sequential(*create, 9));
  RequestPtr look = script_->Next(Kind::kGetChildren, "/f");
  script_->Reply(look, Children({OtherNode("lock-", 12), own}));
  // Adopted only once the ownership read confirms it (and gives the token).
  RequestPtr owner = script_->Next(Kind::kGetData, "/f/" + own);
  EXPECT_FALSE(owner->watch());
  script_->Reply(owner, Data("", 300, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 12), own}));
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(e.token, 300u);
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));  // no second node
}

TEST_F(Scripted, ConnectionLossDuringCreateThatNeverLandedCreatesAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = CutCreate(l, "/f");
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({OtherNode("lock-", 1)}));
  RequestPtr again = script_->Next(Kind::kCreate, "/f/");
  EXPECT_EQ(again->path, create->path);  // the same uuid: still recognisable
  script_->Reply(again, Created(Sequential(*again, 2), 50, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({NameOf(Sequential(*again, 2))}));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, RegressionCutCreateOnAMissingLockNodeCreatesAgain) {
  // 6a74101: after a cut create, a children read saying the lock node does
  // not exist means the create made nothing: create again (it used to
  // wait forever).
  Start();
  zkl_lock *l = NewLock("/f");
  CutCreate(l, "/f");
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Error(ZkRc::kNoNode));
  AnswerJoin("/f", 1, 60);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, RegressionAdoptedNodeOfAnotherSessionIsNeverGranted) {
  // 6a74101: a node found by the uuid prefix is not ours until its
  // ephemeralOwner says so: another session's (a duplicate uuid) is left
  // alone, never granted with token 0, and a fresh node is created.
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = CutCreate(l, "/f");
  std::string twin = NameOf(Sequential(*create, 3));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({twin}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + twin), Data("", 33, kOtherSession));
  RequestPtr fresh = script_->Next(Kind::kCreate, "/f/");
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  EXPECT_FALSE(script_->HasPending(Kind::kDelete));  // not ours to delete
  script_->Reply(fresh, Created(Sequential(*fresh, 4), 44, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({twin, NameOf(Sequential(*fresh, 4))}));
  // Behind the twin (another session's node): waits on it.
  script_->Next(Kind::kGetData, "/f/" + twin);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  ExpectNoEvent();
}

TEST_F(Scripted, AdoptedNodeGoneBeforeTheOwnershipReadCreatesAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = CutCreate(l, "/f");
  std::string own = NameOf(Sequential(*create, 3));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Error(ZkRc::kNoNode));
  AnswerJoin("/f", 4, 44);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, SessionMovedIsTreatedAsAConnectionLoss) {
  // 046c7fb: SESSIONMOVED is no session loss (none follows): the create's
  // effect is unknown and the contender looks again instead of hanging.
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/f");
  script_->Reply(create, Error(ZkRc::kSessionMoved));
  script_->Reply(children, Error(ZkRc::kSessionMoved));
  std::string own = NameOf(Sequential(*create, 2));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + own), Data("", 22, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({own}));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

// ---------------------------------------------------------------------------
// Holds, connection trouble, session expiry
// ---------------------------------------------------------------------------

TEST_F(Scripted, HeldLockSuspendedOnDisconnectRestoredOnReconnect) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  EXPECT_GT(script_->auto_synced() + 1, 0);
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  EXPECT_EQ(zkl_lock_is_held(l), 0);  // not provable while disconnected
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
}

TEST_F(Scripted, SessionExpiryWhileHeldLosesTheLock) {
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  script_->Expire();
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_LOST);
  EXPECT_EQ(e.error, ZKL_ESESSION);
  EXPECT_EQ(e.token, 100u);
  EXPECT_EQ(NextSession(), ZKL_SESSION_LOST);
  EXPECT_EQ(NextSession(), ZKL_SESSION_CONNECTED);  // a new session, by itself
  EXPECT_EQ(script_->session_serial(), 2);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  // A lost lock stays lost: nothing is created in the new session, and a
  // guarded write says the loss until the owner releases.
  ExpectNoEvent();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));
  zkl_ops *ops = nullptr;
  ASSERT_EQ(zkl_ops_new(&ops), ZKL_OK);
  ASSERT_EQ(zkl_ops_set(ops, "/f/data", "x", 1, -1), ZKL_OK);
  EXPECT_EQ(zkl_lock_write(l, 1, ops), ZKL_ELOST);
  zkl_ops_free(ops);
}

TEST_F(Scripted, SessionExpiryWhileQueuedJoinsAgainInTheNewSession) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_EQ(zkl_lock_acquire_async(l, 1, -1), ZKL_OK);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));
  script_->Expire();
  script_->WaitSession(2);
  // The waiting acquire goes on in the new session: a new node there.
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  EXPECT_EQ(create->session, 2);
  AnswerJoin(create, 7, 170);
  Event e = NextEvent();
  EXPECT_EQ(e.type, ZKL_EVENT_ACQUIRED);
  EXPECT_EQ(e.token, 170u);
}

}  // namespace
}  // namespace zkl::scripted
