// Locks on a scripted session (scripted_session.h): the fair, non-fair,
// read/write and semaphore recipes' reply branches, releases, and what
// connection loss and expiry do to them, driven through the public C API;
// every reply, loss, watch and expiry comes exactly when and how the test
// says. Adds to the real-server tests (tests/*.cc), never replaces them.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fixture.h"

namespace zkl::scripted {
namespace {

// ---------------------------------------------------------------------------
// Fair lock
// ---------------------------------------------------------------------------

TEST_F(Scripted, FairLockPipelinesCreateAndChildrenThenGrants) {
  Start();
  zkl_lock *l = NewLock("/f");
  RequestPtr create = AcquireAsync(l, "/f", "-lock-");
  // Both requests go out before any answer: one round trip decides.
  RequestPtr children = script_->Next(Kind::kGetChildren, "/f");
  EXPECT_LT(create->id, children->id);
  std::string own = Sequential(*create, 1);
  script_->Reply(create, Created(own, 42, static_cast<int64_t>(sid())));
  script_->Reply(children, Children({NameOf(own)}));
  Event e = ExpectAcquired(42u);
  EXPECT_EQ(e.owner, 1u);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
  uint64_t token = 0;
  EXPECT_EQ(zkl_lock_fencing_token(l, &token), ZKL_OK);
  EXPECT_EQ(token, 42u);
  // An async release: the delete goes out after the coalescing window.
  ASSERT_GT(zkl_lock_release_async(l, 1), 0);
  RequestPtr del = script_->Next(Kind::kDelete, "/f/" + NameOf(own));
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  script_->Reply(del, Ok());
  ExpectEvent(ZKL_EVENT_RELEASED);
}

TEST_F(Scripted, FairLockQueuedBehindPredecessorGrantedWhenItIsDeleted) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
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
  ExpectAcquired(100u);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));
}

TEST_F(Scripted, FairLockWatchFiresBeforeTheReplyThatSetIt) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
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
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 4)});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 4));
  script_->Reply(watch, Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, FairLockPredecessorDataChangeLooksAgain) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
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
  EXPECT_EQ(Returned(result), ZKL_EAGAIN);
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Ok());
  ExpectNoEvent();  // a blocking call queues no event
}

TEST_F(Scripted, ZeroTimeoutNeverWaits) {
  // 023fa95: an acquire with a zero timeout fails at once behind a holder.
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 7, 0), 0);
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
  ASSERT_GT(zkl_lock_acquire_async(l, 1, 50), 0);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));  // never answered
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_ETIMEDOUT);
  script_->Next(Kind::kDelete, "/f/" + own);
}

TEST_F(Scripted, CancelWhileQueuedDeletesTheWaitingNode) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  std::string own = AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));
  Cancel(l);
  script_->Next(Kind::kDelete, "/f/" + own);
  EXPECT_EQ(zkl_lock_cancel(l), ZKL_ENOTHELD);
}

TEST_F(Scripted, CancelWithTheCreateInFlightDeletesTheNodeItsReplyNames) {
  Start();
  zkl_lock *l = NewLock("/f");
  auto [create, children] = StartJoin(l, "/f");
  Cancel(l);
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
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
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
  auto [create, children] = StartJoin(l, "/deep/f");
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

TEST_F(Scripted, TopParentRefusedEndsTheAcquire) {
  // Refused (EAUTH), or its own parent missing: a chroot that does not
  // exist (ENOTFOUND).
  Start();
  zkl_lock *l = NewLock("/deep/f");
  for (auto [rc, error] : {std::pair{ZkRc::kNoAuth, ZKL_EAUTH}, std::pair{ZkRc::kNoNode, ZKL_ENOTFOUND}}) {
    ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
    script_->Reply(script_->Next(Kind::kCreate, "/deep/f/"), Error(ZkRc::kNoNode));
    script_->Reply(script_->Next(Kind::kGetChildren, "/deep/f"), Error(ZkRc::kNoNode));
    script_->Reply(script_->Next(Kind::kCreate, "/deep"), Error(rc));
    ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, error);
  }
}

TEST_F(Scripted, UnexpectedAnswerEndsTheAcquire) {
  Start();
  zkl_lock *l = NewLock("/f");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
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
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  script_->Next(Kind::kGetChildren, "/f");
  script_->DropConnection();  // both answered with a connection loss
  EXPECT_EQ(NextSession(), ZKL_SESSION_SUSPENDED);
  ExpectNothingSent();  // nothing sent while down
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
  ExpectAcquired(300u);
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
  auto [create, children] = StartJoin(l, "/f");
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
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  AnswerJoin("/f", 5, 100, {OtherNode("lock-", 1)});
  script_->Next(Kind::kGetData, "/f/" + OtherNode("lock-", 1));
  script_->Expire();
  script_->WaitSession(2);
  // The waiting acquire goes on in the new session: a new node there.
  RequestPtr create = script_->Next(Kind::kCreate, "/f/");
  EXPECT_EQ(create->session, 2);
  AnswerJoin(create, 7, 170);
  ExpectAcquired(170u);
}


TEST_F(Scripted, RegressionSessionUnusableWithoutItsEventIsGivenUp) {
  // 046c7fb: a handle found unusable (expired) without the session event
  // having reached zkl would leave the loop nothing to wait for: the loop
  // gives the session up itself, so the holder hears LOST.
  Start();
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  script_->Expire(/*announce=*/false);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
  script_->WaitSession(2);
}

TEST_F(Scripted, RegressionTryAcquireWithoutAnswerEndsAfterASessionTimeout) {
  // ccae88e: a try-acquire whose create is never answered fails with
  // ZKL_ECONNECTION after a session timeout (+ 2 s) instead of hanging.
  Script::Options o;
  o.negotiated_timeout_ms = 1000;
  Start(ZKL_IO_THREAD, o);
  zkl_lock *l = NewLock("/f");
  auto result = std::async(std::launch::async, [l] { return zkl_lock_try_acquire(l, 1); });
  script_->Next(Kind::kCreate, "/f/");  // never answered
  ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(result.get(), ZKL_ECONNECTION);
}

TEST_F(Scripted, MaxHoldEndsTheHoldAndDeletesTheNode) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_IGNORE, /*max_hold_ms=*/30);
  std::string own = HoldFair(l, "/f");
  ExpectEvent(ZKL_EVENT_LOST, ZKL_EMAXHOLD);
  script_->Next(Kind::kDelete, "/f/" + own);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
}

TEST_F(Scripted, RevocationRequestReleasesWhenAskedTo) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_RELEASE);
  std::string own = HoldFair(l, "/f");
  // A revocable hold watches its own node.
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + own);
  EXPECT_TRUE(watch->watch());
  script_->Reply(watch, Data("", 100, static_cast<int64_t>(sid())));
  script_->FireWatch(watch, WatchType::kDataChanged);
  RequestPtr again = script_->Next(Kind::kGetData, "/f/" + own);
  script_->Reply(again, Data("__REVOKE__", 100, static_cast<int64_t>(sid()), 1));
  ExpectEvent(ZKL_EVENT_REVOKE_REQUESTED);
  ExpectEvent(ZKL_EVENT_LOST, ZKL_EREVOKED);
  script_->Next(Kind::kDelete, "/f/" + own);
}

TEST_F(Scripted, OwnNodeDeletedWhileHeldIsLost) {
  Start();
  zkl_lock *l = NewLock("/f", ZKL_LOCK_FAIR, 0, ZKL_REVOKE_NOTIFY);
  std::string own = HoldFair(l, "/f");
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + own);
  script_->Reply(watch, Data("", 100, static_cast<int64_t>(sid())));
  script_->FireWatch(watch, WatchType::kDeleted);  // an administrator deleted it
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ELOST);
  EXPECT_EQ(zkl_lock_is_held(l), 0);
}

// ---------------------------------------------------------------------------
// Releases: retried deletes, coalescing
// ---------------------------------------------------------------------------

TEST_F(Scripted, RetriedDeleteAnsweredNoNodeCompletesTheRelease) {
  Start();
  zkl_lock *l = NewLock("/f");
  std::string own = HoldFair(l, "/f");
  ASSERT_GT(zkl_lock_release_async(l, 1), 0);
  script_->Next(Kind::kDelete, "/f/" + own);
  script_->DropConnection();  // the delete's answer is lost
  script_->Connect();
  // A sequential node's name is unique: the delete is simply sent again,
  // and "no node" means the first one did it.
  RequestPtr retry = script_->Next(Kind::kDelete, "/f/" + own);
  EXPECT_EQ(retry->version, -1);
  script_->Reply(retry, Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_RELEASED);
}

TEST_F(Scripted, ReleaseAsyncThenSessionLossReportsReleased) {
  // 023fa95: a release whose node died with the session is complete.
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  HoldNonfair(l, "/n");
  ASSERT_GT(zkl_lock_release_async(l, 1), 0);
  script_->Next(Kind::kDelete, "/n/lock");
  script_->Expire();
  ExpectEvent(ZKL_EVENT_RELEASED);
  ExpectNoEvent();  // no LOST: it was released, not lost
}

TEST_F(Scripted, ReleaseAsyncThenClientCloseReportsReleasedWithItsId) {
  // Every async call gets its one final event: a release whose delete was
  // still unanswered when the client closed is complete (the node goes
  // with the closed session), and says so with its request id.
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  HoldNonfair(l, "/n");
  int release = zkl_lock_release_async(l, 1);
  ASSERT_GT(release, 0);
  script_->Next(Kind::kDelete, "/n/lock");
  ASSERT_EQ(zkl_client_close(c_), ZKL_OK);
  ExpectAnswer(ZKL_EVENT_RELEASED, 0, release);
}

TEST_F(Scripted, ReleaseAsyncFollowedByAcquireSendsOneMulti) {
  Start(ZKL_IO_HOST);
  auto [own, multi] = ReleaseAndAcquireAgain(NewLock("/f"));  // held as node 5
  ASSERT_EQ(multi->ops.size(), 2u);
  EXPECT_EQ(multi->ops[0].type, ZkOp::kDelete);
  EXPECT_EQ(multi->ops[0].path, "/f/" + own);
  EXPECT_EQ(multi->ops[1].type, ZkOp::kCreate);
  EXPECT_FALSE(script_->HasPending(Kind::kDelete));  // not sent on its own
  // The released node held with none ahead: no children read goes with it.
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));
  // Node 6 comes right after 5: no create in between, so none is ahead.
  script_->Reply(multi, MultiOk(*multi, 101, static_cast<int64_t>(sid()), 6));
  ExpectEvent(ZKL_EVENT_RELEASED);
  ExpectAcquired(101u);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));
}

TEST_F(Scripted, CoalescedCreateWithALaterNumberReadsTheChildren) {
  Start(ZKL_IO_HOST);
  RequestPtr multi = ReleaseAndAcquireAgain(NewLock("/f")).second;  // held as node 5
  // Node 7: another create came in between (node 6, someone else's).
  script_->Reply(multi, MultiOk(*multi, 101, static_cast<int64_t>(sid()), 7));
  ExpectEvent(ZKL_EVENT_RELEASED);
  Request as_create;
  as_create.path = multi->ops[1].path;
  std::string ahead = OtherNode("lock-", 6);
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({ahead, NameOf(Sequential(as_create, 7))}));
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + ahead);  // waits behind it
  script_->Reply(watch, Data("", 90, kOtherSession));
  ExpectNoEvent();
  script_->FireWatch(watch, WatchType::kDeleted);
  ExpectAcquired(101u);
}

TEST_F(Scripted, CoalescedAfterAHoldWithANodeAheadReadsTheChildren) {
  Start(ZKL_IO_HOST);
  zkl_lock *l = NewLock("/f");
  // Granted when the one node ahead went, without a read: it never saw
  // itself first, so its release proves nothing about the next number.
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  std::string ahead = OtherNode("lock-", 4);
  AnswerJoin("/f", 5, 100, {ahead});
  RequestPtr watch = script_->Next(Kind::kGetData, "/f/" + ahead);
  script_->Reply(watch, Data("", 90, kOtherSession));
  script_->FireWatch(watch, WatchType::kDeleted);
  ExpectAcquired(100u);
  EXPECT_GT(zkl_lock_release_async(l, 1), 0);
  EXPECT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  RequestPtr multi = script_->Next(Kind::kMulti, "/f/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/f");  // pipelined, as usual
  script_->Reply(multi, MultiOk(*multi, 101, static_cast<int64_t>(sid()), 6));
  ExpectEvent(ZKL_EVENT_RELEASED);
  ExpectNoEvent();  // the read decides
  Request as_create;
  as_create.path = multi->ops[1].path;
  script_->Reply(children, Children({NameOf(Sequential(as_create, 6))}));
  ExpectAcquired(101u);
}

TEST_F(Scripted, CoalescedMultiWhoseReleasedNodeIsGoneCreatesAlone) {
  Start(ZKL_IO_HOST);
  RequestPtr multi = ReleaseAndAcquireAgain(NewLock("/f")).second;
  script_->Reply(multi, MultiFailed(*multi, 0, ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_RELEASED);
  AnswerJoin("/f", 7, 107);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, CoalescedMultiWhoseCreateFailsDeletesAloneAndRetriesTheCreate) {
  Start(ZKL_IO_HOST);
  auto [own, multi] = ReleaseAndAcquireAgain(NewLock("/f"));
  script_->Reply(multi, MultiFailed(*multi, 1, ZkRc::kNoNode));  // the lock node vanished
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Ok());
  ExpectEvent(ZKL_EVENT_RELEASED);
  script_->Next(Kind::kCreate, "/f");  // the parent again (container)
  AnswerJoin("/f", 8, 108);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, CoalescedMultiCutByAConnectionLossRetriesBoth) {
  Start(ZKL_IO_HOST);
  auto [own, multi] = ReleaseAndAcquireAgain(NewLock("/f"));
  script_->DropConnection();
  script_->Connect();
  // The delete again, and the create looked for by its uuid.
  script_->Reply(script_->Next(Kind::kDelete, "/f/" + own), Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_RELEASED);
  Request as_create;
  as_create.path = multi->ops[1].path;
  std::string fresh = NameOf(Sequential(as_create, 9));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({fresh}));
  script_->Reply(script_->Next(Kind::kGetData, "/f/" + fresh), Data("", 109, static_cast<int64_t>(sid())));
  script_->Reply(script_->Next(Kind::kGetChildren, "/f"), Children({fresh}));
  ExpectAcquired(109u);
}

// ---------------------------------------------------------------------------
// Non-fair lock (one fixed node)
// ---------------------------------------------------------------------------

TEST_F(Scripted, NonfairLockTakenWaitsForTheNodeToGoThenRaces) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  RequestPtr create = script_->Next(Kind::kCreate, "/n/lock");
  EXPECT_EQ(create->mode, kEphemeral);
  EXPECT_EQ(create->data.rfind("_c_", 0), 0u) << "the node carries the protected prefix";
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));  // no queue to read
  script_->Reply(create, Error(ZkRc::kNodeExists));
  RequestPtr holder = script_->Next(Kind::kGetData, "/n/lock");
  EXPECT_TRUE(holder->watch());
  script_->Reply(holder, Data(kOther + "them", 70, kOtherSession));
  ExpectNoEvent();
  script_->FireWatch(holder, WatchType::kDeleted);
  RequestPtr race = script_->Next(Kind::kCreate, "/n/lock");
  script_->Reply(race, Created("/n/lock", 71, static_cast<int64_t>(sid())));
  ExpectAcquired(71u);
}

TEST_F(Scripted, NonfairTryAcquireOnATakenNodeSaysAgain) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  auto result = std::async(std::launch::async, [l] { return zkl_lock_try_acquire(l, 1); });
  script_->Reply(script_->Next(Kind::kCreate, "/n/lock"), Error(ZkRc::kNodeExists));
  script_->Reply(script_->Next(Kind::kGetData, "/n/lock"), Data(kOther, 70, kOtherSession));
  EXPECT_EQ(Returned(result), ZKL_EAGAIN);
}

TEST_F(Scripted, NonfairNodeGoneBeforeItsReadRacesAgain) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  script_->Reply(FindFixedNodeTaken(l, "/n"), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kCreate, "/n/lock"), Created("/n/lock", 72, static_cast<int64_t>(sid())));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, NonfairCutCreateRecognisesItsNodeByTheDataPrefix) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  RequestPtr create = script_->Next(Kind::kCreate, "/n/lock");
  script_->DropConnection();
  script_->Connect();
  // The create landed: the node's data carries our prefix and our session.
  RequestPtr look = script_->Next(Kind::kGetData, "/n/lock");
  script_->Reply(look, Data(create->data, 73, static_cast<int64_t>(sid())));
  ExpectAcquired(73u);
}

TEST_F(Scripted, RegressionFixedNodeRetriedDeleteSparesAnotherHoldersNode) {
  // 46abf8c: a fixed node's delete whose answer was lost must not be
  // retried blindly: if the first one landed, the node at that name may
  // be another holder's by now. The retry reads it first and, finding
  // another session's node, deletes nothing (the release is complete).
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  RequestPtr check = CutFixedRelease(l);
  EXPECT_FALSE(check->watch());
  script_->Reply(check, Stat(300, kOtherSession));  // someone else holds it now
  ExpectEvent(ZKL_EVENT_RELEASED);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kDelete)) << script_->DescribePending();
}

TEST_F(Scripted, FixedNodeRetriedDeleteOfOurNodeDeletesThatVersion) {
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  script_->Reply(CutFixedRelease(l), Stat(200, static_cast<int64_t>(sid()), 4));
  RequestPtr del = script_->Next(Kind::kDelete, "/n/lock");
  EXPECT_EQ(del->version, 4);  // exactly the node just read
  script_->Reply(del, Ok());
  ExpectEvent(ZKL_EVENT_RELEASED);
}

TEST_F(Scripted, FixedNodeAcquireWaitsForItsOwnDelete) {
  // One name for every acquisition: the next create goes out only once the
  // previous node's delete is answered.
  Start();
  zkl_lock *l = NewLock("/n", ZKL_LOCK_NONFAIR);
  HoldNonfair(l, "/n");
  ASSERT_GT(zkl_lock_release_async(l, 1), 0);
  RequestPtr del = script_->Next(Kind::kDelete, "/n/lock");
  ASSERT_GT(zkl_lock_acquire_async(l, 1, -1), 0);
  script_->Flush();
  EXPECT_FALSE(script_->HasPending(Kind::kCreate));
  script_->Reply(del, Ok());
  ExpectEvent(ZKL_EVENT_RELEASED);
  script_->Reply(script_->Next(Kind::kCreate, "/n/lock"), Created("/n/lock", 201, static_cast<int64_t>(sid())));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

// ---------------------------------------------------------------------------
// Read/write lock, semaphore
// ---------------------------------------------------------------------------

TEST_F(Scripted, ReadLockSharesWithReadersAndWaitsForAWriter) {
  Start();
  RequestPtr create = AcquireAsync(NewLock("/rw", ZKL_LOCK_READ), "/rw", "__READ__");
  AnswerJoin(create, 5, 500, {OtherNode("__READ__", 2), OtherNode("__WRIT__", 3)});
  // Only the writer is in the way.
  RequestPtr writer = script_->Next(Kind::kGetData, "/rw/" + OtherNode("__WRIT__", 3));
  script_->Reply(writer, Data("", 3, kOtherSession));
  script_->FireWatch(writer, WatchType::kDeleted);
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, WriteLockWaitsForTheReaderAhead) {
  Start();
  RequestPtr create = AcquireAsync(NewLock("/rw", ZKL_LOCK_WRITE), "/rw", "__WRIT__");
  AnswerJoin(create, 5, 500, {OtherNode("__READ__", 2)});
  RequestPtr reader = script_->Next(Kind::kGetData, "/rw/" + OtherNode("__READ__", 2));
  script_->Reply(reader, Error(ZkRc::kNoNode));
  ExpectEvent(ZKL_EVENT_ACQUIRED);
}

TEST_F(Scripted, SemaphoreFirstInLineWatchesTheChildrenAndHandsOff) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  // Pipelined: the lease count, the create, the children.
  RequestPtr count = script_->Next(Kind::kGetData, "/s");
  EXPECT_FALSE(count->watch());
  script_->Reply(count, Data("2", 1, 0));
  std::string own = AnswerJoin("/s", 3, 600, {OtherNode("lease-", 1), OtherNode("lease-", 2)});
  // First in line (both ahead hold): any departure may admit it.
  RequestPtr watch = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_TRUE(watch->watch());
  script_->Reply(watch, Children({OtherNode("lease-", 1), OtherNode("lease-", 2), own, OtherNode("lease-", 4)}));
  ExpectNoEvent();
  script_->FireWatch("/s", WatchType::kChildrenChanged);
  // Woken, it reads without a watch: a grant would leave one armed on a
  // holder, to fire for nothing at the next change.
  RequestPtr look = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_FALSE(look->watch());
  script_->Reply(look, Children({OtherNode("lease-", 2), own, OtherNode("lease-", 4)}));
  // A waiter behind watches this node: touching it hands over first place.
  RequestPtr handoff = script_->Next(Kind::kSetData, "/s/" + own);
  EXPECT_EQ(handoff->version, -1);
  ExpectAcquired(600u);
  EXPECT_FALSE(script_->HasPending(Kind::kGetChildren));
}

// Woken by a change that does not admit it (a waiter joined behind), the
// first in line reads again, now with the watch.
TEST_F(Scripted, SemaphoreFirstInLineWokenByAnArrivalWatchesAgain) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("1", 1, 0));
  std::string own = AnswerJoin("/s", 2, 630, {OtherNode("lease-", 1)});
  script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children({OtherNode("lease-", 1), own}));
  script_->FireWatch("/s", WatchType::kChildrenChanged);
  RequestPtr look = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_FALSE(look->watch());
  script_->Reply(look, Children({OtherNode("lease-", 1), own, OtherNode("lease-", 3)}));
  RequestPtr watched = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_TRUE(watched->watch());
  script_->Reply(watched, Children({OtherNode("lease-", 1), own, OtherNode("lease-", 3)}));
  ExpectNoEvent();
  script_->FireWatch("/s", WatchType::kChildrenChanged);  // now the holder leaves
  script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children({own, OtherNode("lease-", 3)}));
  ExpectAcquired(630u);
}

// A semaphore waiter that decides to watch its predecessor (another
// client's node: through the server), which becomes a
// holder and touches its node (the hand-off) before the watch is set: the
// read that sets the watch shows the touch (version 1), and the waiter looks
// again instead of sleeping until its predecessor goes (the versions stage
// saw a semaphore run one holder at a time).
TEST_F(Scripted, SemaphoreWatchSetAfterTheHandOffLooksAgain) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("2", 1, 0));
  // Two holders and a waiter ahead: this one watches that waiter's node.
  std::string ahead = OtherNode("lease-", 3);
  std::string own = AnswerJoin("/s", 4, 700, {OtherNode("lease-", 1), OtherNode("lease-", 2), ahead});
  RequestPtr watch = script_->Next(Kind::kGetData, "/s/" + ahead);
  EXPECT_TRUE(watch->watch());
  // Meanwhile a holder left, the waiter ahead holds and touched its node.
  script_->Reply(watch, Data("", 650, kOtherSession, 1));
  RequestPtr look = script_->Next(Kind::kGetChildren, "/s");
  script_->Reply(look, Children({OtherNode("lease-", 2), ahead, own}));
  ExpectNoEvent();  // first in line now: it watches the children
}

// Two waiters of one client, one behind the other: the second watches the
// first's node locally (no read with a watch, so no notification from the
// server), and the answer to the first's hand-off touch wakes it.
class ScriptedLocal : public Scripted {
 protected:
  // a waits first in line behind another client's holder, and b's acquire
  // starts (its lease count answered). Returns a's node name.
  std::string QueueFirst(zkl_lock *a, zkl_lock *b) {
    EXPECT_GT(zkl_lock_acquire_async(a, 1, -1), 0);
    script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("1", 1, 0));
    std::string first = AnswerJoin("/s", 2, 600, {holder_});
    RequestPtr watch = script_->Next(Kind::kGetChildren, "/s");
    EXPECT_TRUE(watch->watch());
    script_->Reply(watch, Children({holder_, first}));
    EXPECT_GT(zkl_lock_acquire_async(b, 1, -1), 0);
    script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("1", 1, 0));
    return first;
  }
  // The same, and b joins behind a (it sees the holder and a). Returns a's
  // and b's names.
  std::pair<std::string, std::string> QueueTwo(zkl_lock *a, zkl_lock *b) {
    std::string first = QueueFirst(a, b);
    return {first, AnswerJoin("/s", 3, 700, {holder_, first})};
  }
  // a is admitted (the holder left; `second` waits behind) and touches
  // its node: returns the touch.
  RequestPtr AdmitFirst(const std::string &first, const std::string &second) {
    script_->FireWatch("/s", WatchType::kChildrenChanged);
    script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children({first, second}));
    RequestPtr touch = script_->Next(Kind::kSetData, "/s/" + first);
    ExpectAcquired(600u);
    return touch;
  }
  // b looks again and finds itself first in line (`view`): it takes over
  // the children watch.
  void ExpectFirstInLine(std::vector<std::string> view) {
    script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children(std::move(view)));
    RequestPtr watch = script_->Next(Kind::kGetChildren, "/s");
    EXPECT_TRUE(watch->watch());
    ExpectNoEvent();
  }
  const std::string holder_ = OtherNode("lease-", 1);
};

TEST_F(ScriptedLocal, SemaphoreWaiterBehindItsOwnClientsNodeWatchesItLocally) {
  Start();
  zkl_lock *a = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  zkl_lock *b = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  auto [first, second] = QueueTwo(a, b);
  ExpectNothingSent();  // b does not read a's node with a watch
  RequestPtr touch = AdmitFirst(first, second);
  ExpectNothingSent();  // b sleeps until the touch is answered
  script_->Reply(touch, Stat(600, static_cast<int64_t>(sid()), 1));
  ExpectFirstInLine({first, second});
}

// Defensive: the touch was answered before b decided to watch a's node (a
// view older than the touch): b looks again at once.
TEST_F(ScriptedLocal, SemaphoreLocalWatchOnATouchedNodeLooksAgain) {
  Start();
  zkl_lock *a = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  zkl_lock *b = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  std::string first = QueueFirst(a, b);
  RequestPtr create = script_->Next(Kind::kCreate, "/s/");
  RequestPtr children = script_->Next(Kind::kGetChildren, "/s");
  std::string second = Sequential(*create, 3);
  script_->Reply(create, Created(second, 700, static_cast<int64_t>(sid())));
  RequestPtr touch = AdmitFirst(first, NameOf(second));
  script_->Reply(touch, Stat(600, static_cast<int64_t>(sid()), 1));
  script_->Reply(children, Children({holder_, first, NameOf(second)}));
  RequestPtr look = script_->Next(Kind::kGetChildren, "/s");
  EXPECT_FALSE(look->watch());
}

// A waiter that goes (its acquire cancelled) deletes its node: the delete's
// answer wakes the waiter of the same client behind it.
TEST_F(ScriptedLocal, SemaphoreDepartingWaiterWakesItsLocalSuccessor) {
  Start();
  zkl_lock *a = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  zkl_lock *b = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  auto [first, second] = QueueTwo(a, b);
  Cancel(a);
  RequestPtr gone = script_->Next(Kind::kDelete, "/s/" + first);
  ExpectNothingSent();
  script_->Reply(gone, Ok());
  ExpectFirstInLine({holder_, second});
}

// A waiter's node deleted by someone else (an administrator): its owner
// finds it gone and tells the waiter of the same client behind it, which
// no answer of ours would.
TEST_F(ScriptedLocal, SemaphoreNodeDeletedBySomeoneElseWakesItsLocalSuccessor) {
  Start();
  zkl_lock *a = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  zkl_lock *b = NewLock("/s", ZKL_LOCK_SEMAPHORE, 1);
  auto [first, second] = QueueTwo(a, b);
  ExpectNothingSent();
  script_->FireWatch("/s", WatchType::kChildrenChanged);
  script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Children({holder_, second}));
  // a joins again (lease count, create, children); b looks again.
  script_->Flush();
  int reads = 0;
  for (const RequestPtr &r : script_->Pending()) reads += r->kind == Kind::kGetChildren;
  EXPECT_EQ(reads, 2) << script_->DescribePending();
}

TEST_F(Scripted, SemaphoreWithADifferentLeaseCountFailsWithMismatch) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Data("3", 1, 0));
  ExpectEvent(ZKL_EVENT_ACQUIRE_FAILED, ZKL_EMISMATCH);
}

TEST_F(Scripted, SemaphoreCreatesItsNodeWithTheLeaseCount) {
  Start();
  zkl_lock *s = NewLock("/s", ZKL_LOCK_SEMAPHORE, 2);
  ASSERT_GT(zkl_lock_acquire_async(s, 1, -1), 0);
  script_->Reply(script_->Next(Kind::kGetData, "/s"), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kCreate, "/s/"), Error(ZkRc::kNoNode));
  script_->Reply(script_->Next(Kind::kGetChildren, "/s"), Error(ZkRc::kNoNode));
  RequestPtr parent = script_->Next(Kind::kCreate, "/s");
  EXPECT_EQ(parent->path, "/s");
  EXPECT_EQ(parent->data, "2");  // all participants must agree on it
}

// ---------------------------------------------------------------------------
// Both I/O modes
// ---------------------------------------------------------------------------

class ScriptedIo : public Scripted, public ::testing::WithParamInterface<int> {};

TEST_P(ScriptedIo, GrantLossAndRestoreInEitherMode) {
  Start(GetParam());
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  EXPECT_EQ(zkl_lock_is_held(l), 1);
  script_->DropConnection();
  ExpectEvent(ZKL_EVENT_SUSPENDED);
  script_->Connect();
  ExpectEvent(ZKL_EVENT_RESTORED);
  script_->Expire();
  ExpectEvent(ZKL_EVENT_LOST, ZKL_ESESSION);
}

TEST_P(ScriptedIo, LeaseStaysProvenOnAnsweredSyncs) {
  // A lease of 3/4 of a 4 s session from the handshake: it would lapse
  // after 3 s without the heartbeat syncs the script answers. Real time:
  // a proof lags its sync by a leader ping interval (1.1 s here) plus a
  // few heartbeat periods (250 ms), so the lease keeps about 0.9 s of
  // margin; with a 2 s session it kept about 0.4 s, which a loaded machine
  // (the suite runs beside builds) sometimes starved the driving thread of.
  Script::Options o;
  o.negotiated_timeout_ms = 4000;
  Start(GetParam(), o);
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  int syncs = script_->auto_synced();
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(3500);
  while (std::chrono::steady_clock::now() < until) {
    // Paced by a bounded wait for events (host mode: it drives the loop),
    // not a busy spin that competes with the I/O thread for the CPU.
    Pull(10);
    script_->Flush();
    ASSERT_EQ(zkl_lock_is_held(l), 1);
  }
  EXPECT_GT(script_->auto_synced(), syncs);
  ExpectNoEvent();  // never suspended
}

TEST_P(ScriptedIo, UnansweredSyncsSuspendTheHoldAnsweredOnesRestoreIt) {
  Script::Options o;
  o.negotiated_timeout_ms = 2000;
  o.auto_sync = false;
  Start(GetParam(), o);
  zkl_lock *l = NewLock("/f");
  HoldFair(l, "/f");
  ExpectEvent(ZKL_EVENT_SUSPENDED);  // the bound lapsed: not provable
  EXPECT_EQ(zkl_lock_is_held(l), 0);
  EXPECT_TRUE(script_->HasPending(Kind::kSync));
  script_->SetAutoSync(true);
  ExpectEvent(ZKL_EVENT_RESTORED);
  EXPECT_EQ(zkl_lock_is_held(l), 1);
}

INSTANTIATE_TEST_SUITE_P(Modes, ScriptedIo, ::testing::Values(ZKL_IO_THREAD, ZKL_IO_HOST),
                         [](const ::testing::TestParamInfo<int> &mode) {
                           return mode.param == ZKL_IO_HOST ? std::string("Host") : std::string("Thread");
                         });

}  // namespace
}  // namespace zkl::scripted
