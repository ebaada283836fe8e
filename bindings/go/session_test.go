package zkl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
	"github.com/zkl-project/zkl-go/internal/zkexpire"
)

// expire ends c's current session on the server, for real.
func expire(t testing.TB, c *zkl.Client, srv ...string) {
	t.Helper()
	pw, err := c.SessionPassword()
	if err != nil {
		t.Fatal(err)
	}
	s := servers
	if len(srv) > 0 {
		s = srv[0]
	}
	if err := zkexpire.Expire(s, c.SessionID(), pw, 20*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestSessionInfoAndEvents(t *testing.T) {
	states := make(chan zkl.SessionState, 16)
	c, err := zkl.NewClient(zkl.Config{Servers: servers, SessionTimeout: 4 * time.Second,
		OnSession: func(s zkl.SessionState) { states <- s }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitConnected(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := waitResult(t, states, 5*time.Second, "session event"); s != zkl.Connected {
		t.Fatalf("first state %v", s)
	}
	if c.State() != zkl.Connected || c.SessionID() == 0 {
		t.Fatalf("state %v id %x", c.State(), c.SessionID())
	}
	if to := c.SessionTimeout(); to < time.Second || to > 4*time.Second {
		t.Fatalf("negotiated timeout %v", to)
	}
	if pw, err := c.SessionPassword(); err != nil || len(pw) != 16 {
		t.Fatalf("password %d %v", len(pw), err)
	}
	if st := clientStats(t, c); st["sessions"] != 1.0 {
		t.Fatalf("sessions counter %v", st["sessions"])
	}
	// Expiry: LOST, then a brand-new session.
	old := c.SessionID()
	expire(t, c)
	for s := range states {
		if s == zkl.SessionLost {
			break
		}
	}
	if s := waitResult(t, states, 20*time.Second, "new session"); s != zkl.Connected {
		t.Fatalf("after loss: %v", s)
	}
	if err := c.WaitConnected(ctxFor(t, 10*time.Second)); err != nil || c.SessionID() == old {
		t.Fatalf("new session %x (old %x): %v", c.SessionID(), old, err)
	}
}

func TestWaitConnectedHonoursContext(t *testing.T) {
	// Nothing listens on port 1: the client keeps connecting.
	c, err := zkl.NewClient(zkl.Config{Servers: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = c.WaitConnected(ctx)
	if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitConnected: %v", err)
	}
	if _, err := zkl.Connect(ctx, zkl.Config{Servers: "127.0.0.1:1"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect: %v", err)
	}
}

// connect_timeout_bounds_wait: Config.ConnectTimeout bounds the whole wait
// for a session, not one attempt: a 2 s ConnectTimeout under a 6 s context
// ends the wait after 2 s, and says why the attempts failed.
func TestConnect_connect_timeout_bounds_wait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	start := time.Now()
	// Nothing listens on port 1: each attempt is refused at once.
	c, err := zkl.Connect(ctx, zkl.Config{Servers: "127.0.0.1:1", ConnectTimeout: 2 * time.Second, Logger: quiet})
	d := time.Since(start)
	if err == nil {
		c.Close()
		t.Fatal("connected to a closed port")
	}
	if !errors.Is(err, zkl.ErrTimeout) {
		t.Fatalf("Connect: %v, want %v", err, zkl.ErrTimeout)
	}
	if d < 1900*time.Millisecond || d >= 5*time.Second {
		t.Fatalf("Connect failed after %v (ConnectTimeout 2 s, context 6 s)", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "connection refused") {
		t.Fatalf("the message does not say the attempts were refused: %q", msg)
	}
	// WaitConnected is bounded the same way.
	c, err = zkl.NewClient(zkl.Config{Servers: "127.0.0.1:1", ConnectTimeout: 2 * time.Second, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start = time.Now()
	err = c.WaitConnected(context.Background())
	if d := time.Since(start); !errors.Is(err, zkl.ErrTimeout) || d < 1900*time.Millisecond || d >= 5*time.Second {
		t.Fatalf("WaitConnected: %v after %v (ConnectTimeout 2 s)", err, d)
	}
}

// A held lock hears Lost when its session expires on the server.
func TestLostOnSessionExpiry(t *testing.T) {
	path := uniquePath(t)
	events := make(chan zkl.Event, 16)
	c := connect(t, zkl.Config{SessionTimeout: 4 * time.Second})
	l := newLock(t, c, path, &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	t1, err := l.Acquire(ctxFor(t, 10*time.Second), 3)
	if err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	expire(t, c)
	err = waitResult(t, lost, 20*time.Second, "lost notification")
	if !errors.Is(err, zkl.ErrSession) {
		t.Fatalf("lost with %v", err)
	}
	ev := waitEvent(t, events, zkl.EventLost, 5*time.Second)
	if !errors.Is(ev.Err, zkl.ErrSession) || ev.Owner != 3 {
		t.Fatalf("event %+v", ev)
	}
	if l.IsHeld() {
		t.Fatal("IsHeld after loss")
	}
	if err := l.Release(3); !errors.Is(err, zkl.ErrLost) {
		t.Fatalf("release after loss: %v", err)
	}
	// Someone else gets it, with a later token; the old holder can too later.
	other := newLock(t, connect(t), path, nil)
	t2, err := other.Acquire(ctxFor(t, 20*time.Second), 1)
	if err != nil || t2 <= t1 {
		t.Fatalf("next holder: %d (after %d) %v", t2, t1, err)
	}
	other.Unlock()
	if err := c.WaitConnected(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	t3, err := l.Acquire(ctxFor(t, 20*time.Second), 3)
	if err != nil || t3 <= t2 {
		t.Fatalf("re-acquire: %d %v", t3, err)
	}
	select {
	case err := <-l.Lost():
		t.Fatalf("the new hold's Lost channel fired: %v", err)
	default: // open: the new hold is not lost
	}
	l.Release(3)
}

// frozen_server_suspends_then_loses: a held lock hears Suspended while the
// server is hung (SIGSTOP), and says no, before a session timeout T has
// passed, so before the server could expire the session and hand the lock
// to someone else. Suspended is not lost: zkl keeps resuming the session and
// gives it up (Lost) a session timeout after the connection was lost, which
// the C client notices 2/3 T after the server's last answer: between T and
// 5/3 T (+ slack) after the freeze.
func TestSession_frozen_server_suspends_then_loses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, stop, err := startServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	defer zkServer(dir, "resume")
	events := make(chan zkl.Event, 16)
	c := connect(t, zkl.Config{Servers: srv, SessionTimeout: 2 * time.Second})
	l := newLock(t, c, "/deadline", &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	timeout := c.SessionTimeout()
	start := time.Now()
	if err := zkServer(dir, "pause"); err != nil {
		t.Fatal(err)
	}
	paused := time.Now() // the freeze is between start and paused
	waitEvent(t, events, zkl.EventSuspended, 10*time.Second)
	if l.IsHeld() {
		t.Fatal("IsHeld while suspended")
	}
	if d := time.Since(start); d >= timeout {
		t.Fatalf("suspended only %v after the pause (session timeout %v)", d, timeout)
	}
	err = waitResult(t, lost, 10*time.Second, "lost notification")
	if !errors.Is(err, zkl.ErrSession) {
		t.Fatalf("lost with %v", err)
	}
	d := time.Since(start)
	t.Logf("lost %v after the pause (negotiated session timeout %v)", d, timeout)
	if d := time.Since(paused); d < timeout {
		t.Fatalf("lost %v after the pause, before a session timeout (%v)", d, timeout)
	}
	if d > timeout*5/3+1500*time.Millisecond { // a sanity bound (scheduling on a loaded machine)
		t.Fatalf("lost only %v after the pause (session timeout %v)", d, timeout)
	}
	if err := zkServer(dir, "resume"); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitConnected(ctxFor(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
}

// Acquiring (or campaigning) right after NewClient, before the session is
// up, leaves exactly one node (zkl queues the create until the session is
// up; the binding does nothing special).
func TestAcquireBeforeSessionLeavesOneNode(t *testing.T) {
	check := connect(t)
	for i := 0; i < 3; i++ {
		c, err := zkl.NewClient(zkl.Config{Servers: servers})
		if err != nil {
			t.Fatal(err)
		}
		path := uniquePath(t)
		l, err := c.NewLock(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Lock(ctxFor(t, 20*time.Second)); err != nil {
			t.Fatal(err)
		}
		if n := len(participants(t, check, path, zkl.Fair)); n != 1 {
			t.Fatalf("%d nodes while held, want 1", n)
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
		if n := len(participants(t, check, path, zkl.Fair)); n != 0 {
			t.Fatalf("%d nodes after release, want 0", n)
		}
		// Elections started before the sessions are up: two nodes, no more.
		epath := uniquePath(t)
		outcome := make(chan zkl.Event, 8)
		onEvent := func(ev zkl.Event) {
			if ev.Type == zkl.EventElected || ev.Type == zkl.EventNotElected {
				outcome <- ev
			}
		}
		c2, err := zkl.NewClient(zkl.Config{Servers: servers})
		if err != nil {
			t.Fatal(err)
		}
		for j, cl := range []*zkl.Client{c, c2} {
			e, err := cl.NewElection(epath, zkl.ElectionOptions{ID: fmt.Sprint("early", j), OnEvent: onEvent})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Start(); err != nil {
				t.Fatal(err)
			}
		}
		waitResult(t, outcome, 20*time.Second, "first election outcome")
		waitResult(t, outcome, 20*time.Second, "second election outcome")
		ps, err := check.InspectElection(ctxFor(t, 5*time.Second), epath, zkl.ElectionFair)
		if err != nil || len(ps) != 2 {
			t.Fatalf("election nodes: %d %v, want 2", len(ps), err)
		}
		c2.Close()
		c.Close()
	}
}
