package zkl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

func newElection(t testing.TB, c *zkl.Client, path string, kind zkl.ElectionKind, id string,
	events chan<- zkl.Event) *zkl.Election {
	t.Helper()
	opts := zkl.ElectionOptions{Kind: kind, ID: id}
	if events != nil {
		opts.OnEvent = func(ev zkl.Event) { events <- ev }
	}
	e, err := c.NewElection(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// waitEvent waits (bounded) for an event of the given type, skipping others.
func waitEvent(t testing.TB, ch <-chan zkl.Event, typ zkl.EventType, timeout time.Duration) zkl.Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-ch:
			if ev.Type == typ {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %v event within %v", typ, timeout)
		}
	}
}

// waitLeader waits until the observer reports want, using its change channel.
func waitLeader(t testing.TB, o *zkl.Observer, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		changed := o.Changed()
		got, err := o.Leader()
		if want == "" && errors.Is(err, zkl.ErrNotFound) || err == nil && got == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("leader is %q (%v), want %q", got, err, want)
		}
	}
}

func TestElection(t *testing.T) {
	for _, kind := range []zkl.ElectionKind{zkl.ElectionFair, zkl.ElectionNonFair} {
		kind := kind
		name := map[zkl.ElectionKind]string{zkl.ElectionFair: "Fair", zkl.ElectionNonFair: "NonFair"}[kind]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := uniquePath(t)
			ctx := ctxFor(t, 60*time.Second)
			c1, c2, c3 := connect(t), connect(t), connect(t)
			changes := make(chan string, 16)
			obs, err := c3.NewObserver(path, kind, func(leader string) { changes <- leader })
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			waitLeader(t, obs, "", 10*time.Second)

			evA, evB := make(chan zkl.Event, 16), make(chan zkl.Event, 16)
			a := newElection(t, c1, path, kind, "alpha", evA)
			b := newElection(t, c2, path, kind, "beta", evB)
			termA, err := a.Campaign(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !a.IsLeader() || termA == 0 {
				t.Fatalf("alpha: leader %v term %d", a.IsLeader(), termA)
			}
			if tok, _ := a.FencingToken(); tok != termA {
				t.Fatalf("FencingToken %d != %d", tok, termA)
			}
			if again, err := a.Campaign(ctx); err != nil || again != termA {
				t.Fatalf("Campaign while leader: %d %v", again, err)
			}
			if err := b.Start(); err != nil {
				t.Fatal(err)
			}
			waitEvent(t, evB, zkl.EventNotElected, 10*time.Second)
			if b.IsLeader() {
				t.Fatal("two leaders")
			}
			if _, err := b.FencingToken(); !errors.Is(err, zkl.ErrNotHeld) {
				t.Fatalf("follower token: %v", err)
			}
			waitLeader(t, obs, "alpha", 10*time.Second)
			// Fair: both nodes, alpha's first; nonfair: only the leader's node.
			nodes := map[zkl.ElectionKind]int{zkl.ElectionFair: 2, zkl.ElectionNonFair: 1}[kind]
			ps, err := c3.InspectElection(ctx, path, kind)
			if err != nil || len(ps) != nodes || !ps[0].Holder || string(ps[0].Data) != "alpha" ||
				len(ps) > 1 && ps[1].Holder {
				t.Fatalf("inspect: %+v %v", ps, err)
			}

			// Resign hands over to beta, with a later term.
			lostA := a.Lost()
			if err := a.Resign(); err != nil {
				t.Fatal(err)
			}
			if err, ok := <-lostA; ok || err != nil {
				t.Fatalf("term channel after resign: %v %v", err, ok)
			}
			termB, err := b.Campaign(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if termB <= termA {
				t.Fatalf("term %d after %d", termB, termA)
			}
			waitLeader(t, obs, "beta", 10*time.Second)
			if a.IsLeader() {
				t.Fatal("alpha still leads after resigning")
			}

			// Campaign with a deadline behind a leader: leaves the election.
			for len(evA) > 0 {
				<-evA
			}
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err = a.Campaign(short)
			cancel()
			if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("campaign deadline: %v", err)
			}
			if kind == zkl.ElectionFair {
				eventually(t, 5*time.Second, "alpha left", func() bool {
					ps, err := c3.InspectElection(ctx, path, kind)
					return err == nil && len(ps) == 1
				})
			}
			if err := b.Resign(); err != nil {
				t.Fatal(err)
			}
			// Alpha left: nobody takes over.
			waitLeader(t, obs, "", 10*time.Second)
			for len(evA) > 0 {
				if ev := <-evA; ev.Type == zkl.EventElected {
					t.Fatal("alpha elected after leaving")
				}
			}
		})
	}
}

// The leader's session expires: it hears Lost on its term channel, the
// follower is elected with a later term, and the old leader rejoins by itself.
func TestElectionFailoverOnSessionExpiry(t *testing.T) {
	path := uniquePath(t)
	ctx := ctxFor(t, 60*time.Second)
	c1, c2 := connect(t), connect(t)
	evA, evB := make(chan zkl.Event, 16), make(chan zkl.Event, 16)
	a := newElection(t, c1, path, zkl.ElectionFair, "alpha", evA)
	b := newElection(t, c2, path, zkl.ElectionFair, "beta", evB)
	termA, err := a.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := a.Lost()
	b.Start()
	waitEvent(t, evB, zkl.EventNotElected, 10*time.Second)
	expire(t, c1)
	err = waitResult(t, lost, 20*time.Second, "alpha's term lost")
	if !errors.Is(err, zkl.ErrSession) {
		t.Fatalf("term lost with %v", err)
	}
	ev := waitEvent(t, evB, zkl.EventElected, 20*time.Second)
	if ev.FencingToken <= termA {
		t.Fatalf("term %d after %d", ev.FencingToken, termA)
	}
	waitEvent(t, evA, zkl.EventNotElected, 20*time.Second) // rejoined behind beta
	b.Resign()
	termA2, err := a.Campaign(ctx)
	if err != nil || termA2 <= ev.FencingToken {
		t.Fatalf("alpha again: %d %v", termA2, err)
	}
	a.Resign()
}
