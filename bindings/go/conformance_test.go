package zkl_test

// The scenarios of bindings/CONFORMANCE.md, one test each, named after the
// scenario id (scripts/check-conformance looks for the ids).

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// clientStats parses the client's statistics document and returns its
// "client" object (checking the schema on the way).
func clientStats(t testing.TB, c *zkl.Client) map[string]any {
	t.Helper()
	js, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("stats JSON: %v\n%s", err, js)
	}
	if doc["schema"] != 1.0 {
		t.Fatalf("stats schema %v", doc["schema"])
	}
	cl, ok := doc["client"].(map[string]any)
	if !ok {
		t.Fatalf("no client object: %s", js)
	}
	return cl
}

// expiredCtx is a context whose deadline has already passed.
func expiredCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	t.Cleanup(cancel)
	return ctx
}

func TestConformance_fair_lock_excludes(t *testing.T) {
	path := uniquePath(t)
	a := newLock(t, connect(t), path, nil)
	b := newLock(t, connect(t), path, nil)
	if err := a.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := b.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("TryLock while held: %v", err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := b.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	b.Unlock()
}

func TestConformance_timeout_zero_tries_once(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	a := newLock(t, c, path, nil)
	b := newLock(t, connect(t), path, nil)
	// A deadline already passed still tries once: a free lock is taken.
	tok, err := a.Acquire(expiredCtx(t), zkl.DefaultOwner)
	if err != nil || tok == 0 {
		t.Fatalf("expired context on a free lock: %d %v", tok, err)
	}
	start := time.Now()
	_, err = b.Acquire(expiredCtx(t), zkl.DefaultOwner)
	if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expired context on a held lock: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v (should fail at once)", d)
	}
	// The failed acquire's node is deleted in the background (the failure
	// is reported first): it goes within a bound.
	eventually(t, 5*time.Second, "only the holder's node (after the try)", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 1
	})
	a.Unlock()
}

func TestConformance_acquire_timeout_leaves_no_node(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	holder := heldLock(t, c, path)
	w := newLock(t, connect(t), path, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := w.Lock(ctx)
	if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed-out acquire: %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 5*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	// The failed acquire's node is deleted in the background (the failure
	// is reported first): it goes within a bound.
	eventually(t, 5*time.Second, "only the holder's node (after the timeout)", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 1
	})
	holder.Unlock()
}

func TestConformance_cancel_pending_acquire(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	holder := heldLock(t, c, path)
	w := newLock(t, connect(t), path, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Lock(ctx) }()
	eventually(t, 10*time.Second, "waiter queued", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 2
	})
	cancel()
	err := waitResult(t, errc, 10*time.Second, "cancelled acquire")
	if !errors.Is(err, zkl.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	// The failed acquire's node is deleted in the background (the failure
	// is reported first): it goes within a bound.
	eventually(t, 5*time.Second, "only the holder's node (after the cancel)", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 1
	})
	holder.Unlock()
}

func TestConformance_async_acquire_event(t *testing.T) {
	path := uniquePath(t)
	events := make(chan zkl.Event, 8)
	l := newLock(t, connect(t), path, &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	// Acquire waits on a channel fed by the client's event goroutine.
	tok, err := l.Acquire(ctxFor(t, 10*time.Second), 42)
	if err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, events, zkl.EventAcquired, 5*time.Second)
	if ev.FencingToken != tok || tok == 0 || ev.Owner != 42 {
		t.Fatalf("event %+v, token %d", ev, tok)
	}
	l.Release(42)
}

func TestConformance_reentrant_hold_count(t *testing.T) {
	l := newLock(t, connect(t), uniquePath(t), &zkl.LockOptions{Kind: zkl.Reentrant})
	ctx := ctxFor(t, 10*time.Second)
	for i := 0; i < 2; i++ {
		if _, err := l.Acquire(ctx, 9); err != nil {
			t.Fatal(err)
		}
	}
	if n := l.HoldCount(); n != 2 {
		t.Fatalf("hold count %d", n)
	}
	if err := l.Release(9); err != nil {
		t.Fatal(err)
	}
	if !l.IsHeld() || l.HoldCount() != 1 {
		t.Fatalf("after one release: held %v count %d", l.IsHeld(), l.HoldCount())
	}
	l.Release(9)
}

func TestConformance_release_twice_not_held(t *testing.T) {
	c := connect(t)
	plain := newLock(t, c, uniquePath(t), nil)
	sem, err := c.NewSemaphore(uniquePath(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer sem.Close()
	rw := newLock(t, c, uniquePath(t), &zkl.LockOptions{Kind: zkl.Write})
	for _, l := range []*zkl.Lock{plain, sem, rw} {
		if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(); !errors.Is(err, zkl.ErrNotHeld) {
			t.Fatalf("%v: second release: %v", l.Kind(), err)
		}
	}
}

func TestConformance_release_wrong_owner(t *testing.T) {
	l := newLock(t, connect(t), uniquePath(t), nil)
	if _, err := l.Acquire(ctxFor(t, 10*time.Second), 5); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(6); !errors.Is(err, zkl.ErrNotOwner) {
		t.Fatalf("release by another owner: %v", err)
	}
	if !l.IsHeld() {
		t.Fatal("not held after a refused release")
	}
	l.Release(5)
}

func TestConformance_default_owner_any_thread_releases(t *testing.T) {
	if zkl.DefaultOwner != 1 {
		t.Fatalf("DefaultOwner %d", zkl.DefaultOwner)
	}
	l := newLock(t, connect(t), uniquePath(t), nil)
	// Two goroutines pinned to two different OS threads.
	locked := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		locked <- l.Lock(ctxFor(t, 10*time.Second))
	}()
	if err := waitResult(t, locked, 15*time.Second, "lock"); err != nil {
		t.Fatal(err)
	}
	released := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		released <- l.Unlock()
	}()
	if err := waitResult(t, released, 15*time.Second, "unlock"); err != nil {
		t.Fatalf("release from another thread: %v", err)
	}
	if l.IsHeld() {
		t.Fatal("still held")
	}
}

func TestConformance_fencing_token_increases(t *testing.T) {
	path := uniquePath(t)
	var last uint64
	for i := 0; i < 3; i++ {
		l := newLock(t, connect(t), path, nil)
		tok, err := l.Acquire(ctxFor(t, 10*time.Second), zkl.DefaultOwner)
		if err != nil {
			t.Fatal(err)
		}
		if tok <= last { // uint64: compared unsigned
			t.Fatalf("token %d after %d", tok, last)
		}
		last = tok
		l.Unlock()
	}
}

func TestConformance_valid_for_while_held(t *testing.T) {
	c := connect(t)
	l := newLock(t, c, uniquePath(t), nil)
	if _, ok := l.ValidUntil(); ok {
		t.Fatal("valid before acquiring")
	}
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	until, ok := l.ValidUntil()
	left := time.Until(until)
	if !ok || left <= 0 || left >= c.SessionTimeout() {
		t.Fatalf("valid until %v (%v left, ok %v), session timeout %v", until, left, ok, c.SessionTimeout())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if u, ok := l.ValidUntil(); ok || !u.IsZero() {
		t.Fatalf("valid after release: %v %v", u, ok)
	}
}

func TestConformance_is_held_false_after_close(t *testing.T) {
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.NewLock(uniquePath(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if l.IsHeld() {
		t.Fatal("IsHeld after client close")
	}
	if _, ok := l.ValidUntil(); ok {
		t.Fatal("valid after client close")
	}
}

func TestConformance_lost_on_session_expiry(t *testing.T) {
	events := make(chan zkl.Event, 16)
	c := connect(t, zkl.Config{SessionTimeout: 4 * time.Second})
	l := newLock(t, c, uniquePath(t), &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	expire(t, c)
	if err := waitResult(t, lost, 20*time.Second, "lost"); !errors.Is(err, zkl.ErrSession) {
		t.Fatalf("lost with %v", err)
	}
	if ev := waitEvent(t, events, zkl.EventLost, 5*time.Second); !errors.Is(ev.Err, zkl.ErrSession) {
		t.Fatalf("event %+v", ev)
	}
	if l.IsHeld() {
		t.Fatal("IsHeld after loss")
	}
}

func TestConformance_lost_on_client_close(t *testing.T) {
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan zkl.Event, 16)
	l, err := c.NewLock(uniquePath(t), &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	c.Close()
	err, ok := <-lost // Close has delivered everything when it returns
	if !ok || !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("Lost after client close: %v %v (want ErrClosed)", err, ok)
	}
	if ev := waitEvent(t, events, zkl.EventLost, 5*time.Second); !errors.Is(ev.Err, zkl.ErrClosed) {
		t.Fatalf("event %+v", ev)
	}
}

func TestConformance_campaign_timeout_leaves_election(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	a := newElection(t, c, path, zkl.ElectionFair, "alpha", nil)
	b := newElection(t, connect(t), path, zkl.ElectionFair, "beta", nil)
	if _, err := a.Campaign(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := b.Campaign(ctx)
	if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("campaign behind a leader: %v", err)
	}
	ps, err := c.InspectElection(ctxFor(t, 5*time.Second), path, zkl.ElectionFair)
	if err != nil || len(ps) != 1 || string(ps[0].Data) != "alpha" {
		t.Fatalf("participants after the timeout: %+v %v", ps, err)
	}
	// It stays out: alpha resigning elects nobody.
	if err := a.Resign(); err != nil {
		t.Fatal(err)
	}
	if b.IsLeader() {
		t.Fatal("beta leads after leaving")
	}
}

func TestConformance_campaign_when_leader_returns_at_once(t *testing.T) {
	e := newElection(t, connect(t), uniquePath(t), zkl.ElectionFair, "alpha", nil)
	term, err := e.Campaign(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	again, err := e.Campaign(ctxFor(t, 10*time.Second))
	if err != nil || again != term {
		t.Fatalf("campaign while leader: %d %v (term %d)", again, err, term)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	// A deadline already passed: still success at once.
	if again, err := e.Campaign(expiredCtx(t)); err != nil || again != term {
		t.Fatalf("campaign while leader, expired ctx: %d %v", again, err)
	}
	e.Resign()
}

func TestConformance_observer_leader_and_term(t *testing.T) {
	path := uniquePath(t)
	changes := make(chan string, 16)
	obs, err := connect(t).NewObserver(path, zkl.ElectionFair, func(l string) { changes <- l })
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx := ctxFor(t, 30*time.Second)
	a := newElection(t, connect(t), path, zkl.ElectionFair, "alpha", nil)
	b := newElection(t, connect(t), path, zkl.ElectionFair, "beta", nil)
	termA, err := a.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, obs, "alpha", 10*time.Second)
	if term, err := obs.Term(); err != nil || term != termA {
		t.Fatalf("observer term %d %v, want %d", term, err, termA)
	}
	if err := a.Resign(); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, obs, "beta", 10*time.Second)
	termB, err := obs.Term()
	if err != nil || termB <= termA {
		t.Fatalf("term after handover %d %v (was %d)", termB, err, termA)
	}
	if tok, err := b.FencingToken(); err != nil || tok != termB {
		t.Fatalf("beta's token %d %v, observer's term %d", tok, err, termB)
	}
	if err := b.Resign(); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, obs, "", 10*time.Second)
	if _, err := obs.Term(); !errors.Is(err, zkl.ErrNotFound) {
		t.Fatalf("term with no leader: %v", err)
	}
}

func TestConformance_semaphore_max_leases(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	ctx := ctxFor(t, 20*time.Second)
	var s [3]*zkl.Lock
	for i := range s {
		s[i] = newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Semaphore, MaxLeases: 2})
	}
	for i := 0; i < 2; i++ {
		if err := s[i].Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- s[2].Lock(ctx) }()
	eventually(t, 10*time.Second, "third waits", func() bool {
		return len(participants(t, c, path, zkl.Semaphore)) == 3
	})
	select {
	case err := <-got:
		t.Fatalf("third lease taken while two are held: %v", err)
	default:
	}
	s[0].Unlock()
	if err := waitResult(t, got, 10*time.Second, "third lease"); err != nil {
		t.Fatal(err)
	}
	s[1].Unlock()
	s[2].Unlock()
}

func TestConformance_read_write_lock_shared(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	ctx := ctxFor(t, 20*time.Second)
	r1 := newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Read})
	r2 := newLock(t, connect(t), path, &zkl.LockOptions{Kind: zkl.Read})
	w := newLock(t, connect(t), path, &zkl.LockOptions{Kind: zkl.Write})
	if err := r1.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r2.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- w.Lock(ctx) }()
	eventually(t, 10*time.Second, "writer waits", func() bool {
		return len(participants(t, c, path, zkl.Write)) == 3
	})
	r1.Unlock()
	select {
	case err := <-got:
		t.Fatalf("writer got in while a reader holds: %v", err)
	default:
	}
	r2.Unlock()
	if err := waitResult(t, got, 10*time.Second, "writer"); err != nil {
		t.Fatal(err)
	}
	w.Unlock()
}

func TestConformance_bad_path_rejected(t *testing.T) {
	c := connect(t)
	for _, p := range []string{"", "relative", "/a//b", "/a/", "/a/./b", "/a\x00"} {
		if _, err := c.NewLock(p, nil); !errors.Is(err, zkl.ErrBadPath) {
			t.Errorf("NewLock(%q): %v", p, err)
		}
	}
}

func TestConformance_destroyed_handle_errors(t *testing.T) {
	c := connect(t)
	l, err := c.NewLock(uniquePath(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	typed := func(what string, err error) {
		if !errors.Is(err, zkl.ErrClosed) && !errors.Is(err, zkl.ErrBadHandle) {
			t.Errorf("%s on a closed handle: %v", what, err)
		}
	}
	typed("TryLock", l.TryLock())
	typed("Lock", l.Lock(ctxFor(t, time.Second)))
	typed("Unlock", l.Unlock())
	_, err = l.FencingToken()
	typed("FencingToken", err)
	_, err = l.Stats()
	typed("Stats", err)
	if l.IsHeld() || l.HoldCount() != 0 {
		t.Error("a closed handle answers held")
	}
	if _, ok := l.ValidUntil(); ok {
		t.Error("a closed handle answers valid")
	}
	l.Close() // idempotent
}

func TestConformance_held_lock_outlives_dropped_reference(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	func() {
		l, err := c.NewLock(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}() // the last reference is gone
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	other := newLock(t, connect(t), path, nil)
	if err := other.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("the dropped lock was released: TryLock %v", err)
	}
	ps := participants(t, other.Client(), path, zkl.Fair)
	if len(ps) != 1 || !ps[0].Holder || ps[0].SessionID != c.SessionID() {
		t.Fatalf("participants %+v", ps)
	}
}

func TestConformance_stats_document(t *testing.T) {
	c := connect(t)
	l := newLock(t, c, uniquePath(t), nil)
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	cl := clientStats(t, c)
	for _, k := range []string{"state", "requests", "events", "sessions", "heartbeats"} {
		if _, ok := cl[k]; !ok {
			t.Errorf("client stats lack %q", k)
		}
	}
	if cl["state"] != "connected" || cl["sessions"] != 1.0 {
		t.Errorf("client stats %v", cl)
	}
	js, err := l.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(js, &h); err != nil {
		t.Fatalf("lock stats JSON: %v\n%s", err, js)
	}
	if h["path"] != l.Path() || h["held"] != true || h["acquisitions"] != 1.0 {
		t.Errorf("lock stats %s", js)
	}
	l.Unlock()
}

func TestConformance_set_servers_keeps_session(t *testing.T) {
	// The suite's server and one that refuses (127.0.0.1:1); the new list
	// is the suite's server alone, the one the client is connected to.
	c := connect(t, zkl.Config{Servers: servers + ",127.0.0.1:1"})
	l := heldLock(t, c, uniquePath(t))
	id := c.SessionID()
	token, err := l.FencingToken()
	if err != nil || id == 0 {
		t.Fatalf("session %#x, token %d: %v", id, token, err)
	}
	// The second time the list in force is given again: nothing changes.
	for i := 0; i < 2; i++ {
		if err := c.SetServers(servers); err != nil {
			t.Fatal(err)
		}
		if got := c.SessionID(); got != id {
			t.Fatalf("session %#x after SetServers, was %#x", got, id)
		}
		if !l.IsHeld() {
			t.Fatal("not held after SetServers")
		}
		if got, err := l.FencingToken(); err != nil || got != token {
			t.Fatalf("token %d (%v) after SetServers, was %d", got, err, token)
		}
		cl := clientStats(t, c)
		if cl["server_list_changes"] != 1.0 || cl["servers"] != servers {
			t.Errorf("server_list_changes %v, servers %v", cl["server_list_changes"], cl["servers"])
		}
	}
}

func TestConformance_set_servers_errors(t *testing.T) {
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "nohostport", "a\x00b"} {
		err := c.SetServers(bad)
		var oe *zkl.OpError
		if !errors.Is(err, zkl.ErrInvalid) || !errors.As(err, &oe) || oe.Op != "set servers" {
			t.Errorf("SetServers(%q): %v", bad, err)
		}
	}
	if c.SessionID() == 0 {
		t.Error("a bad list ended the session")
	}
	c.Close()
	if err := c.SetServers(servers); !errors.Is(err, zkl.ErrClosed) {
		t.Errorf("SetServers after Close: %v", err)
	}
	var oe *zkl.OpError
	if err := c.FollowEnsemble(true); !errors.Is(err, zkl.ErrClosed) || !errors.As(err, &oe) || oe.Op != "follow ensemble" {
		t.Errorf("FollowEnsemble after Close: %v", err)
	}
}

func TestConformance_follow_ensemble_standalone(t *testing.T) {
	// A standalone server has no ensemble configuration to follow: the call
	// succeeds, the list stays the suite's server, and the statistics say
	// why it is not followed.
	c := connect(t)
	l := heldLock(t, c, uniquePath(t))
	id := c.SessionID()
	if err := c.FollowEnsemble(true); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "ensemble.not_followed", func() bool {
		e, _ := clientStats(t, c)["ensemble"].(map[string]any)
		why, _ := e["not_followed"].(string)
		return e["following"] == true && why != ""
	})
	cl := clientStats(t, c)
	if cl["servers"] != servers {
		t.Errorf("servers %v, want %s", cl["servers"], servers)
	}
	if c.SessionID() != id || !l.IsHeld() {
		t.Error("following a standalone server disturbed the session")
	}
	if err := c.FollowEnsemble(false); err != nil {
		t.Fatal(err)
	}
	// The Config option does the same right after creation.
	f := connect(t, zkl.Config{FollowEnsemble: true})
	eventually(t, 20*time.Second, "Config.FollowEnsemble", func() bool {
		e, _ := clientStats(t, f)["ensemble"].(map[string]any)
		return e["following"] == true
	})
}

// syncHandler is a slog handler that records log records.
type syncHandler struct {
	mu      sync.Mutex
	records []slog.Record
	level   slog.Level
}

func (h *syncHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *syncHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *syncHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *syncHandler) WithGroup(string) slog.Handler      { return h }

// zkl's log lines go to the client's slog.Logger, with their level and
// component.
func TestLogLinesGoToSlog(t *testing.T) {
	h := &syncHandler{level: slog.LevelInfo}
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers, Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	c.Close() // logs "client closed" at INFO; Close delivers it before returning
	h.mu.Lock()
	defer h.mu.Unlock()
	found := false
	for _, r := range h.records {
		comp := ""
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "component" {
				comp = a.Value.String()
			}
			return true
		})
		if comp == "" || r.Level < slog.LevelInfo {
			t.Errorf("record %q level %v component %q", r.Message, r.Level, comp)
		}
		if strings.Contains(r.Message, "client closed") && r.Level == slog.LevelInfo && comp == "zkl" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no \"client closed\" line among %d records", len(h.records))
	}
}

// Beyond the conformance list: the optional features.

func TestMultiLockAllOrNone(t *testing.T) {
	c := connect(t)
	p1, p2 := uniquePath(t), uniquePath(t)
	a, b := newLock(t, c, p1, nil), newLock(t, c, p2, nil)
	m, err := c.NewMultiLock([]*zkl.Lock{b, a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := a.TryLock(); !errors.Is(err, zkl.ErrBusy) {
		t.Fatalf("member used alone: %v", err)
	}
	// Someone else holds p2: a bounded acquire of both fails and holds none.
	other := newLock(t, connect(t), p2, nil)
	if err := other.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := m.Lock(ctx); !errors.Is(err, zkl.ErrTimeout) {
		t.Fatalf("multi-lock behind a holder: %v", err)
	}
	if a.IsHeld() || m.IsHeld() {
		t.Fatal("a member stays held after the timeout")
	}
	other.Unlock()
	if err := m.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	t1, err1 := m.FencingToken(p1)
	t2, err2 := m.FencingToken(p2)
	if err1 != nil || err2 != nil || t1 == 0 || t2 == 0 || !a.IsHeld() || !b.IsHeld() {
		t.Fatalf("tokens %d %v, %d %v", t1, err1, t2, err2)
	}
	if _, ok := m.ValidUntil(); !ok {
		t.Fatal("held multi-lock not valid")
	}
	if err := m.Unlock(); err != nil {
		t.Fatal(err)
	}
	if a.IsHeld() || b.IsHeld() {
		t.Fatal("held after release")
	}
}

func TestMaxHoldEndsHoldAsLost(t *testing.T) {
	l := newLock(t, connect(t), uniquePath(t), &zkl.LockOptions{MaxHold: 300 * time.Millisecond})
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := waitResult(t, l.Lost(), 10*time.Second, "max hold"); !errors.Is(err, zkl.ErrMaxHold) {
		t.Fatalf("lost with %v", err)
	}
	if l.IsHeld() {
		t.Fatal("held past max hold")
	}
}

func TestRevokeRelease(t *testing.T) {
	path := uniquePath(t)
	events := make(chan zkl.Event, 8)
	l := newLock(t, connect(t), path, &zkl.LockOptions{OnRevoke: zkl.RevokeRelease,
		OnEvent: func(ev zkl.Event) { events <- ev }})
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := connect(t).Revoke(ctxFor(t, 10*time.Second), path, zkl.Fair, "")
	if err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	waitEvent(t, events, zkl.EventRevokeRequested, 10*time.Second)
	if err := waitResult(t, l.Lost(), 10*time.Second, "revoked"); !errors.Is(err, zkl.ErrRevoked) {
		t.Fatalf("lost with %v", err)
	}
}

func TestSemaphoreLeasesPerAcquisition(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	big := newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Semaphore, MaxLeases: 3, Leases: 2})
	small := newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Semaphore, MaxLeases: 3, Leases: 2})
	if err := big.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := small.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("2+2 of 3 leases: %v", err)
	}
	ps := participants(t, c, path, zkl.Semaphore)
	if len(ps) != 1 || ps[0].Leases != 2 {
		t.Fatalf("participants %+v", ps)
	}
	big.Unlock()
}

func TestElectionLeaseAndStats(t *testing.T) {
	e := newElection(t, connect(t), uniquePath(t), zkl.ElectionNonFair, "alpha", nil)
	if _, ok := e.ValidUntil(); ok {
		t.Fatal("valid before campaigning")
	}
	if _, err := e.Campaign(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if u, ok := e.ValidUntil(); !ok || time.Until(u) <= 0 {
		t.Fatalf("leader's lease %v %v", u, ok)
	}
	js, err := e.Stats()
	if err != nil || !json.Valid(js) || !strings.Contains(string(js), `"election`) {
		t.Fatalf("stats %s %v", js, err)
	}
	lost := e.Lost()
	if err := e.Resign(); err != nil {
		t.Fatal(err)
	}
	if err, ok := <-lost; ok || err != nil {
		t.Fatalf("term channel after resign: %v %v", err, ok)
	}
	if _, ok := e.ValidUntil(); ok {
		t.Fatal("valid after resigning")
	}
}

// Closing the client while leader ends the term as lost with ErrClosed.
func TestElectionLostOnClientClose(t *testing.T) {
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.NewElection(uniquePath(t), zkl.ElectionOptions{ID: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Campaign(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lost := e.Lost()
	c.Close()
	if err, ok := <-lost; !ok || !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("term after client close: %v %v", err, ok)
	}
}
