package zkl_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// Asynchronous calls are answered by the events that carry their request
// id (zkl_event_request_id), never by order.

// eventLog collects the events of several handles of one client.
type eventLog struct {
	mu     sync.Mutex
	events []zkl.Event
}

func (l *eventLog) add(ev zkl.Event) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

// answers returns the request ids of the events that answer a call (final
// answers of acquires and releases), failing on an answer without one.
func (l *eventLog) answers(t *testing.T) []uint64 {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []uint64
	for _, ev := range l.events {
		switch ev.Type {
		case zkl.EventAcquired, zkl.EventAcquireFailed, zkl.EventReleased, zkl.EventElected:
			if ev.RequestID == 0 {
				t.Fatalf("%v event without a request id: %+v", ev.Type, ev)
			}
			ids = append(ids, ev.RequestID)
		case zkl.EventSuspended, zkl.EventRestored, zkl.EventLost:
			if ev.RequestID != 0 {
				t.Fatalf("%v event answers no call but carries id %d", ev.Type, ev.RequestID)
			}
		}
	}
	return ids
}

type acquired struct {
	token uint64
	err   error
}

// acquireAsync runs l.Acquire on its own goroutine.
func acquireAsync(ctx context.Context, l *zkl.Lock) <-chan acquired {
	ch := make(chan acquired, 1)
	go func() {
		tok, err := l.Acquire(ctx, zkl.DefaultOwner)
		ch <- acquired{tok, err}
	}()
	return ch
}

// On one client: two acquires waiting on two handles, one that times out,
// one that is cancelled, one granted at once, and an acquire started again
// on the timed-out handle right after its failure; each call gets its own
// answer, and every answer carries its own request id.
func TestAsyncAcquiresMatchedByRequestID(t *testing.T) {
	path, free := uniquePath(t), uniquePath(t)
	holder := heldLock(t, connect(t), path)
	c := connect(t)
	var log eventLog
	opts := &zkl.LockOptions{OnEvent: log.add}
	a, b, timed, cancelled := newLock(t, c, path, opts), newLock(t, c, path, opts),
		newLock(t, c, path, opts), newLock(t, c, path, opts)
	other := newLock(t, c, free, opts)

	ra := acquireAsync(ctxFor(t, 30*time.Second), a)
	eventually(t, 10*time.Second, "a in line", func() bool { return len(participants(t, c, path, zkl.Fair)) == 2 })
	rb := acquireAsync(ctxFor(t, 30*time.Second), b)
	eventually(t, 10*time.Second, "b in line", func() bool { return len(participants(t, c, path, zkl.Fair)) == 3 })
	rt := acquireAsync(ctxFor(t, 2*time.Second), timed)
	cctx, cancel := context.WithCancel(context.Background())
	rc := acquireAsync(cctx, cancelled)
	eventually(t, 10*time.Second, "all in line", func() bool { return len(participants(t, c, path, zkl.Fair)) == 5 })
	cancel()
	if r := waitResult(t, rc, 10*time.Second, "the cancelled acquire"); !errors.Is(r.err, zkl.ErrCanceled) {
		t.Fatalf("cancelled acquire: %v", r.err)
	}
	if r := waitResult(t, rt, 10*time.Second, "the timed-out acquire"); !errors.Is(r.err, zkl.ErrTimeout) {
		t.Fatalf("timed-out acquire: %v", r.err)
	}
	// Again on the same handle, at once: the failure just delivered must not
	// answer this call, which waits in line behind a and b.
	if _, err := timed.Acquire(expiredCtx(t), zkl.DefaultOwner); !errors.Is(err, zkl.ErrTimeout) {
		t.Fatalf("try once on a taken lock: %v", err)
	}
	rt2 := acquireAsync(ctxFor(t, 30*time.Second), timed)
	if tok, err := other.Acquire(ctxFor(t, 10*time.Second), zkl.DefaultOwner); err != nil || tok == 0 {
		t.Fatalf("free lock: token %d, %v", tok, err)
	}
	select {
	case r := <-ra:
		t.Fatalf("a answered while the lock is held elsewhere: %+v", r)
	case r := <-rb:
		t.Fatalf("b answered while the lock is held elsewhere: %+v", r)
	case r := <-rt2:
		t.Fatalf("the new acquire answered while the lock is held elsewhere: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}

	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i, x := range []struct {
		ch <-chan acquired
		l  *zkl.Lock
	}{{ra, a}, {rb, b}, {rt2, timed}} {
		r := waitResult(t, x.ch, 10*time.Second, "a grant")
		if r.err != nil || r.token <= last {
			t.Fatalf("grant %d: token %d (after %d), %v", i, r.token, last, r.err)
		}
		if tok, _ := x.l.FencingToken(); tok != r.token {
			t.Fatalf("grant %d: token %d, the handle holds %d", i, r.token, tok)
		}
		last = r.token
		if err := x.l.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.ReleaseAsync(zkl.DefaultOwner); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the async release's answer", func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		return log.events[len(log.events)-1].Type == zkl.EventReleased
	})
	// Seven acquires and one async release: eight answers, eight ids.
	ids := log.answers(t)
	seen := map[uint64]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("request id %d answers two calls: %v", id, ids)
		}
		seen[id] = true
	}
	if len(ids) != 8 {
		t.Fatalf("%d answers, want 8: %v", len(ids), ids)
	}
}

// An async release of an inner hold of a reentrant lock is answered at
// once by its own Released event; the outer one after the node is gone.
func TestReentrantReleaseAsyncAnsweredByItsID(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	events := make(chan zkl.Event, 16)
	l := newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Reentrant, OnEvent: func(ev zkl.Event) { events <- ev }})
	ctx := ctxFor(t, 10*time.Second)
	var acquires [2]uint64
	for i := range acquires {
		if _, err := l.Acquire(ctx, 7); err != nil {
			t.Fatal(err)
		}
		acquires[i] = waitEvent(t, events, zkl.EventAcquired, 5*time.Second).RequestID
	}
	if err := l.ReleaseAsync(7); err != nil {
		t.Fatal(err)
	}
	inner := waitEvent(t, events, zkl.EventReleased, 5*time.Second)
	if n := l.HoldCount(); n != 1 || !l.IsHeld() || inner.Err != nil {
		t.Fatalf("after the inner release: count %d, held %v, %v", n, l.IsHeld(), inner.Err)
	}
	if err := l.ReleaseAsync(7); err != nil {
		t.Fatal(err)
	}
	outer := waitEvent(t, events, zkl.EventReleased, 10*time.Second)
	if n := len(participants(t, c, path, zkl.Fair)); n != 0 || outer.Err != nil {
		t.Fatalf("after the outer release: %d nodes, %v", n, outer.Err)
	}
	ids := map[uint64]bool{acquires[0]: true, acquires[1]: true, inner.RequestID: true, outer.RequestID: true}
	if len(ids) != 4 || ids[0] {
		t.Fatalf("ids: acquires %v, releases %d, %d", acquires, inner.RequestID, outer.RequestID)
	}
}

// A Campaign that finds the participant in line (Start) is answered by
// that campaign's id; its NotElected and Elected carry the same id, and a
// campaign while leader gets a new one.
func TestCampaignJoinsTheCampaignInLine(t *testing.T) {
	path := uniquePath(t)
	leader := newElection(t, connect(t), path, zkl.ElectionFair, "leader", nil)
	if _, err := leader.Campaign(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	events := make(chan zkl.Event, 16)
	e := newElection(t, connect(t), path, zkl.ElectionFair, "second", events)
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	queued := waitEvent(t, events, zkl.EventNotElected, 10*time.Second)
	r := make(chan acquired, 2)
	for i := 0; i < 2; i++ {
		go func() {
			tok, err := e.Campaign(ctxFor(t, 30*time.Second))
			r <- acquired{tok, err}
		}()
	}
	select {
	case x := <-r:
		t.Fatalf("campaign answered while another leads: %+v", x)
	case <-time.After(300 * time.Millisecond):
	}
	if err := leader.Resign(); err != nil {
		t.Fatal(err)
	}
	elected := waitEvent(t, events, zkl.EventElected, 10*time.Second)
	for i := 0; i < 2; i++ {
		if x := waitResult(t, r, 10*time.Second, "campaign"); x.err != nil || x.token != elected.FencingToken {
			t.Fatalf("campaign: %+v, elected with term %d", x, elected.FencingToken)
		}
	}
	if queued.RequestID == 0 || elected.RequestID != queued.RequestID {
		t.Fatalf("NotElected id %d, Elected id %d", queued.RequestID, elected.RequestID)
	}
	if tok, err := e.Campaign(ctxFor(t, 10*time.Second)); err != nil || tok != elected.FencingToken {
		t.Fatalf("campaign as leader: %d, %v", tok, err)
	}
	if again := waitEvent(t, events, zkl.EventElected, 5*time.Second); again.RequestID == 0 || again.RequestID == elected.RequestID {
		t.Fatalf("campaign as leader: id %d after %d", again.RequestID, elected.RequestID)
	}
}
