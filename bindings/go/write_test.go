package zkl_test

// The guarded-write, proclaim and fence-check scenarios of
// bindings/CONFORMANCE.md (scripts/check-conformance looks for the ids).

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// nodeExists asks through l's hold whether path exists (a write of one
// check: nil when it does, ErrNotFound when not).
func nodeExists(t testing.TB, l *zkl.Lock, path string) bool {
	t.Helper()
	_, err := l.Write(ctxFor(t, 10*time.Second), zkl.DefaultOwner, zkl.NewOps().Check(path, zkl.AnyVersion))
	switch {
	case err == nil:
		return true
	case errors.Is(err, zkl.ErrNotFound):
		return false
	}
	t.Fatalf("check %s: %v", path, err)
	return false
}

func TestConformance_guarded_write_applies(t *testing.T) {
	path := uniquePath(t)
	l := heldLock(t, connect(t), path)
	state := path + "/state"
	ops := zkl.NewOps().
		Create(state, []byte("v1"), zkl.CreatePersistent).
		Set(state, []byte("v2"), 0).
		Create(state+"/item-", []byte("x"), zkl.CreateSequential)
	if ops.Len() != 3 {
		t.Fatalf("Len %d", ops.Len())
	}
	r, err := l.Write(ctxFor(t, 10*time.Second), zkl.DefaultOwner, ops)
	if err != nil {
		t.Fatalf("write: %v (%v)", err, r)
	}
	if r.Failed != -1 || len(r.Paths) != 3 || len(r.Versions) != 3 {
		t.Fatalf("result %v", r)
	}
	if r.Paths[0] != state || r.Paths[1] != "" || !strings.HasPrefix(r.Paths[2], state+"/item-") ||
		r.Paths[2] == state+"/item-" {
		t.Fatalf("created paths %q", r.Paths)
	}
	if r.Versions[0] != 0 || r.Versions[1] != 1 {
		t.Fatalf("versions %v", r.Versions)
	}
	// The set applied: the node's version is 1.
	if _, err := l.Write(ctxFor(t, 10*time.Second), zkl.DefaultOwner, zkl.NewOps().Check(state, 1)); err != nil {
		t.Fatalf("check version 1: %v", err)
	}
	if _, err := l.Write(ctxFor(t, 10*time.Second), zkl.DefaultOwner, zkl.NewOps().Check(state, 0)); !errors.Is(err, zkl.ErrBadVersion) {
		t.Fatalf("check version 0: %v", err)
	}
	if !nodeExists(t, l, r.Paths[2]) {
		t.Fatalf("%s does not exist", r.Paths[2])
	}

	// The async form: answered on the channel, matched by request id.
	token, _ := l.FencingToken()
	ch1, err := l.WriteAsync(zkl.DefaultOwner, zkl.NewOps().Create(path+"/async", []byte("a"), zkl.CreatePersistent))
	if err != nil {
		t.Fatal(err)
	}
	ch2, err := l.WriteAsync(zkl.DefaultOwner, zkl.NewOps().Create(path+"/async", []byte("b"), zkl.CreatePersistent))
	if err != nil {
		t.Fatal(err)
	}
	d2 := waitResult(t, ch2, 10*time.Second, "second async write")
	d1 := waitResult(t, ch1, 10*time.Second, "first async write")
	if d1.Err != nil || d1.Result.Failed != -1 || d1.Result.Paths[0] != path+"/async" || d1.FencingToken != token {
		t.Fatalf("first async write: %+v", d1)
	}
	if !errors.Is(d2.Err, zkl.ErrExists) || d2.Result.Failed != 0 {
		t.Fatalf("second async write (the node exists): %+v", d2)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestConformance_guarded_write_refused(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	l := newLock(t, c, path, nil)
	ctx := ctxFor(t, 30*time.Second)
	// Without a hold.
	_, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create(path+"/x", []byte("1"), zkl.CreatePersistent))
	if !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("write without a hold: %v", err)
	}
	if _, err := l.WriteAsync(zkl.DefaultOwner, zkl.NewOps().Create(path+"/x", nil, 0)); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("async write without a hold: %v", err)
	}
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// Outside the lock's tree.
	elsewhere := uniquePath(t) + "-elsewhere"
	r, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().
		Create(path+"/ok", []byte("fine"), zkl.CreatePersistent).
		Create(elsewhere, []byte("no"), zkl.CreatePersistent))
	if !errors.Is(err, zkl.ErrBadPath) {
		t.Fatalf("write outside the tree: %v (%v)", err, r)
	}
	// A create of an existing node: EXISTS at index 0... after a create
	// that is not applied.
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create(path+"/data", []byte("0"), 0)); err != nil {
		t.Fatal(err)
	}
	r, err = l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().
		Create(path+"/data", []byte("again"), 0).
		Create(path+"/first", []byte("must not stay"), 0))
	if !errors.Is(err, zkl.ErrExists) || r.Failed != 0 {
		t.Fatalf("create of an existing node: %v, failed %d", err, r.Failed)
	}
	r, err = l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().
		Create(path+"/first", []byte("must not stay"), 0).
		Create(path+"/data", []byte("again"), 0))
	if !errors.Is(err, zkl.ErrExists) || r.Failed != 1 || r.Paths[0] != "" {
		t.Fatalf("create after a create: %v, %v", err, r)
	}
	// A set with a wrong version.
	r, err = l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Set(path+"/data", []byte("x"), 41))
	if !errors.Is(err, zkl.ErrBadVersion) || r.Failed != 0 {
		t.Fatalf("set with a wrong version: %v, %v", err, r)
	}
	for _, p := range []string{path + "/first", path + "/ok"} {
		if nodeExists(t, l, p) {
			t.Fatalf("%s was written", p)
		}
	}
	if !nodeExists(t, l, path+"/data") {
		t.Fatal("the data node is gone")
	}
	// Only the first create is there, with its version 0 (nothing set).
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Check(path+"/data", 0)); err != nil {
		t.Fatalf("data changed: %v", err)
	}
	// After release.
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	_, err = l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create(path+"/after", nil, 0))
	if !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("write after release: %v", err)
	}
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if nodeExists(t, l, path+"/after") || nodeExists(t, l, path+"/x") {
		t.Fatal("a refused write was applied")
	}
	l.Unlock()
}

func TestConformance_guarded_write_multilock_election(t *testing.T) {
	c := connect(t)
	p1, p2 := uniquePath(t), uniquePath(t)
	a, b := newLock(t, c, p1, nil), newLock(t, c, p2, nil)
	m, err := c.NewMultiLock([]*zkl.Lock{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := ctxFor(t, 30*time.Second)
	ops := zkl.NewOps().Create(p1+"/x", []byte("1"), 0).Create(p2+"/y", []byte("2"), 0)
	if _, err := m.Write(ctx, zkl.DefaultOwner, ops); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("multi-lock write without a hold: %v", err)
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := m.Write(ctx, zkl.DefaultOwner, ops)
	if err != nil || r.Paths[0] != p1+"/x" || r.Paths[1] != p2+"/y" {
		t.Fatalf("multi-lock write: %v %v", err, r)
	}
	// Both are there: creating them again fails at the first.
	r, err = m.Write(ctx, zkl.DefaultOwner, ops)
	if !errors.Is(err, zkl.ErrExists) || r.Failed != 0 {
		t.Fatalf("again: %v %v", err, r)
	}
	if err := m.Unlock(); err != nil {
		t.Fatal(err)
	}

	// An election: the leader writes below the election path, a follower
	// cannot.
	path := uniquePath(t)
	leader := newElection(t, connect(t), path, zkl.ElectionFair, "alpha", nil)
	follower := newElection(t, connect(t), path, zkl.ElectionFair, "beta", nil)
	if _, err := leader.Campaign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := follower.Start(); err != nil {
		t.Fatal(err)
	}
	r, err = leader.Write(ctx, zkl.NewOps().Create(path+"/config", []byte("from alpha"), 0))
	if err != nil || r.Paths[0] != path+"/config" {
		t.Fatalf("leader's write: %v %v", err, r)
	}
	_, err = follower.Write(ctx, zkl.NewOps().Create(path+"/config2", []byte("from beta"), 0))
	if !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("follower's write: %v", err)
	}
	// The async form of the leader's, answered by request id.
	ch, err := leader.WriteAsync(zkl.NewOps().Create(path+"/config", []byte("again"), 0))
	if err != nil {
		t.Fatal(err)
	}
	if d := waitResult(t, ch, 10*time.Second, "leader's async write"); !errors.Is(d.Err, zkl.ErrExists) {
		t.Fatalf("leader's async write: %+v", d)
	}
	if _, err := follower.WriteAsync(zkl.NewOps().Create(path+"/x", nil, 0)); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("follower's async write: %v", err)
	}
}

func TestConformance_proclaim_same_term(t *testing.T) {
	path := uniquePath(t)
	obs, err := connect(t).NewObserver(path, zkl.ElectionFair, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx := ctxFor(t, 30*time.Second)
	leader := newElection(t, connect(t), path, zkl.ElectionFair, "alpha", nil)
	follower := newElection(t, connect(t), path, zkl.ElectionFair, "beta", nil)
	term, err := leader.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := follower.Start(); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, obs, "alpha", 10*time.Second)
	if err := leader.Proclaim("alpha@v2"); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, obs, "alpha@v2", 10*time.Second)
	if got, err := obs.Term(); err != nil || got != term {
		t.Fatalf("term after proclaim %d %v, want %d", got, err, term)
	}
	if !leader.IsLeader() || leader.ID() != "alpha" {
		t.Fatalf("leader %v, id %q", leader.IsLeader(), leader.ID())
	}
	if err := follower.Proclaim("beta@v2"); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("follower's proclaim: %v", err)
	}
}

func TestConformance_fence_check_current_and_stale(t *testing.T) {
	path := uniquePath(t)
	c1, c2 := connect(t), connect(t)
	ctx := ctxFor(t, 30*time.Second)
	a := newLock(t, c1, path, nil)
	t1, err := a.Acquire(ctx, zkl.DefaultOwner)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.FenceCheck(ctx, path, zkl.Fair, t1); err != nil {
		t.Fatalf("the holder's token: %v", err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	b := newLock(t, c2, path, nil)
	t2, err := b.Acquire(ctx, zkl.DefaultOwner)
	if err != nil {
		t.Fatal(err)
	}
	if t2 <= t1 {
		t.Fatalf("tokens %d then %d", t1, t2)
	}
	if err := c1.FenceCheck(ctx, path, zkl.Fair, t1); !errors.Is(err, zkl.ErrStale) {
		t.Fatalf("the old token: %v", err)
	}
	if err := c1.FenceCheck(ctx, path, zkl.Fair, t2); err != nil {
		t.Fatalf("the new token: %v", err)
	}
	if err := c1.FenceCheck(ctx, "bad", zkl.Fair, t2); !errors.Is(err, zkl.ErrBadPath) {
		t.Fatalf("bad path: %v", err)
	}
	b.Unlock()
	if err := c1.FenceCheck(ctx, path, zkl.Fair, t2); !errors.Is(err, zkl.ErrStale) {
		t.Fatalf("after release: %v", err)
	}
}

// An operation libzkl refuses fails the write before anything is sent,
// naming its path; a closed handle's pending writes end.
func TestWriteRefusesBadOperations(t *testing.T) {
	path := uniquePath(t)
	l := heldLock(t, connect(t), path)
	ctx := ctxFor(t, 10*time.Second)
	_, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create("relative", nil, 0))
	var op *zkl.OpError
	if !errors.Is(err, zkl.ErrBadPath) || !errors.As(err, &op) || op.Path != "relative" || op.Op != "write" {
		t.Fatalf("relative path: %v", err)
	}
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Set(path+"/a", nil, -2)); !errors.Is(err, zkl.ErrInvalid) {
		t.Fatalf("version -2: %v", err)
	}
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create(path+"/a\x00b", nil, 0)); !errors.Is(err, zkl.ErrBadPath) {
		t.Fatalf("NUL in a path: %v", err)
	}
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps()); !errors.Is(err, zkl.ErrInvalid) {
		t.Fatalf("no operation: %v", err)
	}
	if _, err := l.Write(ctx, zkl.DefaultOwner, nil); !errors.Is(err, zkl.ErrInvalid) {
		t.Fatalf("nil ops: %v", err)
	}
	big := make([]byte, 1024*1024+1)
	if _, err := l.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Set(path+"/a", big, zkl.AnyVersion)); !errors.Is(err, zkl.ErrTooBig) {
		t.Fatalf("too big: %v", err)
	}
	// A context that has ended: the answer is not waited for.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Write(done, zkl.DefaultOwner, zkl.NewOps().Create(path+"/late", nil, 0))
	if !errors.Is(err, zkl.ErrInDoubt) || !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v", err)
	}
	l.Close()
	if _, err := l.WriteAsync(zkl.DefaultOwner, zkl.NewOps().Create(path+"/x", nil, 0)); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("closed handle: %v", err)
	}
}
