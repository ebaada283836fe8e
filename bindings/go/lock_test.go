package zkl_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

func TestVersionAndErrorValues(t *testing.T) {
	if v := zkl.Version(); v == "" {
		t.Fatal("empty version")
	}
	sentinels := map[error]int{
		zkl.ErrInvalid: -1, zkl.ErrBadPath: -2, zkl.ErrBadHandle: -3, zkl.ErrTimeout: -4,
		zkl.ErrWouldBlock: -5, zkl.ErrCanceled: -6, zkl.ErrNotHeld: -7, zkl.ErrNotOwner: -8,
		zkl.ErrBusy: -9, zkl.ErrDeadlock: -10, zkl.ErrClosed: -11, zkl.ErrConnection: -12,
		zkl.ErrSession: -13, zkl.ErrLost: -14, zkl.ErrMismatch: -15, zkl.ErrAuth: -16,
		zkl.ErrTooBig: -17, zkl.ErrNoMemory: -18, zkl.ErrZooKeeper: -19, zkl.ErrVersion: -20,
		zkl.ErrNotFound: -21, zkl.ErrInternal: -22, zkl.ErrRange: -23,
	}
	for err, code := range sentinels {
		if zkl.Code(err) != code {
			t.Errorf("%v: code %d, want %d", err, zkl.Code(err), code)
		}
		wrapped := &zkl.OpError{Op: "acquire", Path: "/x", Err: zkl.Errno(code)}
		if !errors.Is(wrapped, err) {
			t.Errorf("errors.Is(%v, %v) = false", wrapped, err)
		}
		if !strings.HasPrefix(err.Error(), "zkl: ") || strings.Contains(err.Error(), "unknown zkl error") {
			t.Errorf("message of %d: %q", code, err.Error())
		}
	}
	if errors.Is(zkl.ErrTimeout, zkl.ErrCanceled) {
		t.Error("distinct codes compare equal")
	}
	if zkl.Code(nil) != 0 {
		t.Error("Code(nil) != 0")
	}
}

func TestBadInputIsRejected(t *testing.T) {
	if _, err := zkl.NewClient(zkl.Config{}); !errors.Is(err, zkl.ErrInvalid) {
		t.Errorf("no servers: %v", err)
	}
	if _, err := zkl.NewClient(zkl.Config{Servers: "127.0.0.1:1\x00,10.0.0.1:2181"}); !errors.Is(err, zkl.ErrInvalid) {
		t.Errorf("NUL in servers: %v", err)
	}
	c := connect(t)
	for _, p := range []string{"", "relative", "/a//b", "/a/", "/a/./b", "/a/../b", "/a\x00/b", "/a\x00"} {
		if _, err := c.NewLock(p, nil); !errors.Is(err, zkl.ErrBadPath) {
			t.Errorf("NewLock(%q): %v, want ErrBadPath", p, err)
		}
		if _, err := c.NewElection(p, zkl.ElectionOptions{ID: "x"}); !errors.Is(err, zkl.ErrBadPath) {
			t.Errorf("NewElection(%q): %v, want ErrBadPath", p, err)
		}
	}
	if _, err := c.NewSemaphore(uniquePath(t), 0); !errors.Is(err, zkl.ErrInvalid) {
		t.Errorf("0 leases: %v", err)
	}
	if _, err := c.NewLock(uniquePath(t), &zkl.LockOptions{Kind: 99}); !errors.Is(err, zkl.ErrInvalid) {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := c.NewElection(uniquePath(t), zkl.ElectionOptions{}); !errors.Is(err, zkl.ErrInvalid) {
		t.Errorf("no id: %v", err)
	}
	if _, err := c.NewLock(uniquePath(t), &zkl.LockOptions{Data: make([]byte, 1<<20+1)}); !errors.Is(err, zkl.ErrTooBig) {
		t.Errorf("data too big: %v", err)
	}
	l := newLock(t, c, uniquePath(t), nil)
	if err := l.Unlock(); !errors.Is(err, zkl.ErrNotHeld) {
		t.Errorf("Unlock of unheld lock: %v", err)
	}
	if _, err := l.FencingToken(); !errors.Is(err, zkl.ErrNotHeld) {
		t.Errorf("FencingToken of unheld lock: %v", err)
	}
	var op *zkl.OpError
	if err := l.Unlock(); !errors.As(err, &op) || op.Op != "release" || op.Path != l.Path() {
		t.Errorf("OpError fields: %#v", err)
	}
}

func TestFairLockBasics(t *testing.T) {
	c1, c2 := connect(t), connect(t)
	path := uniquePath(t)
	a := newLock(t, c1, path, &zkl.LockOptions{Data: []byte("holder-a")})
	b := newLock(t, c2, path, nil)
	ctx := ctxFor(t, 20*time.Second)

	t1, err := a.Acquire(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if t1 == 0 || !a.IsHeld() || a.HoldCount() != 1 {
		t.Fatalf("token %d held %v count %d", t1, a.IsHeld(), a.HoldCount())
	}
	if tok, _ := a.FencingToken(); tok != t1 {
		t.Fatalf("FencingToken %d != %d", tok, t1)
	}
	lost := a.Lost()
	if err := b.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("TryLock while held: %v", err)
	}
	if _, err := a.Acquire(ctx, 7); !errors.Is(err, zkl.ErrDeadlock) {
		t.Fatalf("re-acquire of a fair lock: %v", err)
	}
	if _, err := a.Acquire(ctx, 8); !errors.Is(err, zkl.ErrBusy) {
		t.Fatalf("acquire by another owner on the same handle: %v", err)
	}
	if err := a.Release(8); !errors.Is(err, zkl.ErrNotOwner) {
		t.Fatalf("release by another owner: %v", err)
	}
	ps := participants(t, c2, path, zkl.Fair)
	if len(ps) != 1 || !ps[0].Holder || string(ps[0].Data) != "holder-a" || ps[0].SessionID != c1.SessionID() ||
		ps[0].FencingToken != t1 {
		t.Fatalf("inspect: %+v", ps)
	}
	if err := a.Release(7); err != nil {
		t.Fatal(err)
	}
	if err, ok := <-lost; err != nil || ok {
		t.Fatalf("Lost after Unlock: %v %v (want closed, no value)", err, ok)
	}
	if a.IsHeld() || a.HoldCount() != 0 {
		t.Fatal("still held after release")
	}
	if err := a.Release(7); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("second release: %v", err)
	}
	t2, err := b.TryAcquire(zkl.DefaultOwner)
	if err != nil {
		t.Fatal(err)
	}
	if t2 <= t1 {
		t.Fatalf("fencing token did not increase: %d then %d", t1, t2)
	}
	if err := b.Unlock(); err != nil {
		t.Fatal(err)
	}
	if n := len(participants(t, c1, path, zkl.Fair)); n != 0 {
		t.Fatalf("%d nodes left after release", n)
	}
}

func TestFairLockIsFIFOAndWaitersPark(t *testing.T) {
	c := connect(t)
	path := uniquePath(t)
	ctx := ctxFor(t, 30*time.Second)
	holder := newLock(t, c, path, nil)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	var tokens [3]uint64
	for i := 0; i < 3; i++ {
		l := newLock(t, connect(t), path, nil)
		go func(i int) {
			tok, err := l.Acquire(ctx, zkl.DefaultOwner)
			if err != nil {
				t.Error(err)
				order <- -1
				return
			}
			tokens[i] = tok
			order <- i
			l.Unlock()
		}(i)
		eventually(t, 10*time.Second, "waiter queued", func() bool {
			return len(participants(t, c, path, zkl.Fair)) == i+2
		})
	}
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	for want := 0; want < 3; want++ {
		if got := waitResult(t, order, 10*time.Second, "next holder"); got != want {
			t.Fatalf("holder #%d was waiter %d (not FIFO)", want, got)
		}
	}
	if !(tokens[0] < tokens[1] && tokens[1] < tokens[2]) {
		t.Fatalf("tokens not increasing: %v", tokens)
	}
}

func TestReentrantLockCountsHoldsPerOwner(t *testing.T) {
	c := connect(t)
	path := uniquePath(t)
	ctx := ctxFor(t, 20*time.Second)
	l := newLock(t, c, path, &zkl.LockOptions{Kind: zkl.Reentrant})
	other := newLock(t, connect(t), path, &zkl.LockOptions{Kind: zkl.Reentrant})
	const owner = 0xfeed
	t1, err := l.Acquire(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	t2, err := l.Acquire(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if t3, err := l.TryAcquire(owner); err != nil || t3 != t1 {
		t.Fatalf("TryAcquire by the holder: %d %v", t3, err)
	}
	if t1 != t2 || l.HoldCount() != 3 {
		t.Fatalf("tokens %d %d, count %d", t1, t2, l.HoldCount())
	}
	if _, err := l.Acquire(ctx, owner+1); !errors.Is(err, zkl.ErrBusy) {
		t.Fatalf("other owner: %v", err)
	}
	if err := l.Release(owner + 1); !errors.Is(err, zkl.ErrNotOwner) {
		t.Fatalf("release by other owner: %v", err)
	}
	lost := l.Lost()
	for i := 0; i < 2; i++ {
		if err := l.Release(owner); err != nil {
			t.Fatal(err)
		}
	}
	if !l.IsHeld() || l.HoldCount() != 1 {
		t.Fatal("released too early")
	}
	select {
	case <-lost:
		t.Fatal("Lost channel closed while a hold remains")
	default:
	}
	if err := other.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("other contender while held: %v", err)
	}
	// Release from another goroutine: owners are tokens, not threads.
	done := make(chan error)
	go func() { done <- l.Release(owner) }()
	if err := waitResult(t, done, 10*time.Second, "release"); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-lost; ok {
		t.Fatal("Lost got a value on release")
	}
	if err := l.Release(owner); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("extra release: %v", err)
	}
	if err := other.TryLock(); err != nil {
		t.Fatal(err)
	}
	other.Unlock()
}

func TestNonFairLock(t *testing.T) {
	path := uniquePath(t)
	ctx := ctxFor(t, 20*time.Second)
	a := newLock(t, connect(t), path, &zkl.LockOptions{Kind: zkl.NonFair})
	b := newLock(t, connect(t), path, &zkl.LockOptions{Kind: zkl.NonFair})
	t1, err := a.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("TryLock: %v", err)
	}
	got := make(chan uint64, 1)
	go func() {
		tok, err := b.Acquire(ctx, 1)
		if err != nil {
			t.Error(err)
		}
		got <- tok
	}()
	select {
	case <-got:
		t.Fatal("acquired while held")
	case <-time.After(200 * time.Millisecond): // a negative check: nothing may arrive
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	t2 := waitResult(t, got, 10*time.Second, "b acquires")
	if t2 <= t1 {
		t.Fatalf("tokens %d then %d", t1, t2)
	}
	b.Unlock()
}

func TestReadWriteLock(t *testing.T) {
	path := uniquePath(t)
	ctx := ctxFor(t, 30*time.Second)
	c1, c2, c3 := connect(t), connect(t), connect(t)
	r1 := newLock(t, c1, path, &zkl.LockOptions{Kind: zkl.Read})
	r2 := newLock(t, c2, path, &zkl.LockOptions{Kind: zkl.Read})
	w := newLock(t, c3, path, &zkl.LockOptions{Kind: zkl.Write})
	r3 := newLock(t, c1, path, &zkl.LockOptions{Kind: zkl.Read})
	// Two readers share.
	if err := r1.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r2.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("writer while read-held: %v", err)
	}
	// A writer queues behind the readers; a later reader queues behind it.
	wgot := make(chan error, 1)
	go func() { wgot <- w.Lock(ctx) }()
	eventually(t, 10*time.Second, "writer queued", func() bool {
		return len(participants(t, c1, path, zkl.Write)) == 3
	})
	rgot := make(chan error, 1)
	go func() { rgot <- r3.Lock(ctx) }()
	eventually(t, 10*time.Second, "reader queued", func() bool {
		return len(participants(t, c1, path, zkl.Write)) == 4
	})
	r1.Unlock()
	select {
	case <-wgot:
		t.Fatal("writer acquired while a reader holds")
	default:
	}
	r2.Unlock()
	if err := waitResult(t, wgot, 10*time.Second, "writer"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rgot:
		t.Fatal("reader acquired while the writer holds")
	default:
	}
	w.Unlock()
	if err := waitResult(t, rgot, 10*time.Second, "reader after writer"); err != nil {
		t.Fatal(err)
	}
	r3.Unlock()
}

func TestSemaphore(t *testing.T) {
	path := uniquePath(t)
	ctx := ctxFor(t, 30*time.Second)
	c := connect(t)
	var leases []*zkl.Lock
	for i := 0; i < 3; i++ {
		s, err := c.NewSemaphore(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		leases = append(leases, s)
	}
	if err := leases[0].Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := leases[1].Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := leases[2].TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("third lease: %v", err)
	}
	got := make(chan error, 1)
	go func() { got <- leases[2].Lock(ctx) }()
	eventually(t, 10*time.Second, "third queued", func() bool {
		return len(participants(t, c, path, zkl.Semaphore)) == 3
	})
	leases[0].Unlock()
	if err := waitResult(t, got, 10*time.Second, "third lease"); err != nil {
		t.Fatal(err)
	}
	// A participant that disagrees on the lease count is refused.
	bad, err := connect(t).NewSemaphore(path, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Lock(ctx); !errors.Is(err, zkl.ErrMismatch) {
		t.Fatalf("mismatched lease count: %v", err)
	}
	leases[1].Unlock()
	leases[2].Unlock()
}

func TestContextDeadlineAndCancelLeaveNoNode(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	holder := heldLock(t, c, path)
	waiter := newLock(t, connect(t), path, nil)

	// Deadline.
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err := waiter.Lock(ctx)
	cancel()
	if !errors.Is(err, zkl.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("deadline honoured late: %v", d)
	}
	eventually(t, 5*time.Second, "waiter node gone", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 1
	})

	// Cancel, once the waiter is queued.
	ctx, cancel = context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- waiter.Lock(ctx) }()
	eventually(t, 10*time.Second, "waiter queued", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 2
	})
	cancel()
	err = waitResult(t, errc, 10*time.Second, "cancelled Lock")
	if !errors.Is(err, zkl.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
	eventually(t, 5*time.Second, "waiter node gone", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == 1
	})
	// An already-ended context does not even start.
	if err := waiter.Lock(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v", err)
	}

	// The handle is usable again afterwards.
	holder.Unlock()
	if err := waiter.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	waiter.Unlock()
}

func TestCloseEndsPendingAcquire(t *testing.T) {
	path := uniquePath(t)
	holder := newLock(t, connect(t), path, nil)
	if err := holder.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Lock.Close.
	l := newLock(t, connect(t), path, nil)
	errc := make(chan error, 1)
	go func() { errc <- l.Lock(ctxFor(t, 30*time.Second)) }()
	eventually(t, 10*time.Second, "queued", func() bool { return len(participants(t, connect(t), path, zkl.Fair)) == 2 })
	l.Close()
	if err := waitResult(t, errc, 10*time.Second, "Lock after Close"); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("after Lock.Close: %v", err)
	}
	if err := l.Lock(context.Background()); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("Lock on closed handle: %v", err)
	}
	// Client.Close.
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := c.NewLock(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { errc <- l2.Lock(ctxFor(t, 30*time.Second)) }()
	eventually(t, 10*time.Second, "queued", func() bool { return len(participants(t, connect(t), path, zkl.Fair)) == 2 })
	c.Close()
	if err := waitResult(t, errc, 10*time.Second, "Lock after client Close"); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("after Client.Close: %v", err)
	}
	if _, err := c.NewLock(path, nil); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("NewLock on closed client: %v", err)
	}
	if err := l2.TryLock(); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("TryLock on closed client: %v", err)
	}
	if c.State() != zkl.Closed {
		t.Fatalf("state %v", c.State())
	}
	c.Close() // idempotent
	holder.Unlock()
}

// Many goroutines on several clients contend: at most one holder at any
// time, and fencing tokens strictly increase in the order of the holds.
func TestManyGoroutinesContend(t *testing.T) {
	path := uniquePath(t)
	const clients, perClient, rounds = 3, 4, 4
	ctx := ctxFor(t, 90*time.Second)
	var (
		holder  atomic.Int64
		mu      sync.Mutex
		history []uint64
		wg      sync.WaitGroup
	)
	for ci := 0; ci < clients; ci++ {
		c := connect(t)
		for g := 0; g < perClient; g++ {
			id := int64(ci*perClient + g + 1)
			l := newLock(t, c, path, nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					tok, err := l.Acquire(ctx, uint64(id))
					if err != nil {
						t.Error(err)
						return
					}
					if prev := holder.Swap(id); prev != 0 {
						t.Errorf("two holders: %d and %d", prev, id)
					}
					mu.Lock()
					history = append(history, tok)
					mu.Unlock()
					if !l.IsHeld() {
						t.Errorf("IsHeld false while holding")
					}
					if !holder.CompareAndSwap(id, 0) {
						t.Errorf("holder changed under %d", id)
					}
					if err := l.Release(uint64(id)); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if len(history) != clients*perClient*rounds {
		t.Fatalf("%d holds, want %d", len(history), clients*perClient*rounds)
	}
	for i := 1; i < len(history); i++ {
		if history[i] <= history[i-1] {
			t.Fatalf("token %d after %d at hold %d", history[i], history[i-1], i)
		}
	}
}

// A callback runs on the event goroutine and may call back into zkl,
// including closing the handle whose event it is handling.
func TestCallbacksMayCallIntoZkl(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	events := make(chan zkl.Event, 4)
	var l *zkl.Lock
	l, err := c.NewLock(path, &zkl.LockOptions{OnEvent: func(ev zkl.Event) {
		events <- ev
		if ev.Type == zkl.EventAcquired {
			if _, err := l.FencingToken(); err != nil {
				t.Error(err)
			}
			l.Close() // releases the lock from inside the callback
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := l.Acquire(ctxFor(t, 10*time.Second), 5)
	if err != nil {
		t.Fatal(err)
	}
	ev := waitResult(t, events, 5*time.Second, "acquired event")
	if ev.Type != zkl.EventAcquired || ev.FencingToken != tok || ev.Owner != 5 {
		t.Fatalf("event %+v (token %d)", ev, tok)
	}
	// The handle was closed in the callback: its node goes.
	other := newLock(t, c, path, nil)
	if err := other.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	other.Unlock()
}

// osThreads is the number of threads of this process.
func osThreads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Skip("no thread count")
	return 0
}

// Goroutines waiting in Lock park on channels fed by the netpoller-driven
// event goroutine: a hundred waiters do not hold a hundred OS threads.
func TestWaitersDoNotBlockOSThreads(t *testing.T) {
	const waiters = 100
	path := uniquePath(t)
	c := connect(t)
	holder := newLock(t, c, path, nil)
	ctx := ctxFor(t, 60*time.Second)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	before := osThreads(t)
	got := make(chan uint64, waiters)
	for i := 0; i < waiters; i++ {
		l := newLock(t, c, path, nil)
		go func() {
			tok, err := l.Acquire(ctx, zkl.DefaultOwner)
			if err != nil {
				t.Error(err)
				got <- 0
				return
			}
			got <- tok
			l.Unlock()
		}()
	}
	eventually(t, 20*time.Second, "all waiters queued", func() bool {
		return len(participants(t, c, path, zkl.Fair)) == waiters+1
	})
	during := osThreads(t)
	t.Logf("OS threads: %d before, %d with %d waiters", before, during, waiters)
	if during > before+20 {
		t.Fatalf("%d OS threads with %d waiters (%d before)", during, waiters, before)
	}
	holder.Unlock()
	var last uint64
	for i := 0; i < waiters; i++ {
		tok := waitResult(t, got, 20*time.Second, "waiter")
		if tok <= last {
			t.Fatalf("token %d after %d", tok, last)
		}
		last = tok
	}
}

func TestReleaseAsyncReportsReleased(t *testing.T) {
	path := uniquePath(t)
	c := connect(t)
	events := make(chan zkl.Event, 8)
	l := newLock(t, c, path, &zkl.LockOptions{OnEvent: func(ev zkl.Event) { events <- ev }})
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	if err := l.ReleaseAsync(zkl.DefaultOwner); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-lost; ok {
		t.Fatal("Lost got a value on release")
	}
	if ev := waitEvent(t, events, zkl.EventReleased, 10*time.Second); ev.Err != nil {
		t.Fatalf("released with %v", ev.Err)
	}
	if n := len(participants(t, c, path, zkl.Fair)); n != 0 {
		t.Fatalf("%d nodes after the release", n)
	}
	if err := l.ReleaseAsync(zkl.DefaultOwner); !errors.Is(err, zkl.ErrNotHeld) {
		t.Fatalf("second release: %v", err)
	}
}

// Closing the whole client from a callback on its own event goroutine
// neither deadlocks nor leaves the lock's node behind.
func TestClientCloseFromCallback(t *testing.T) {
	path := uniquePath(t)
	c, err := zkl.Connect(ctxFor(t, 20*time.Second), zkl.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	l, err := c.NewLock(path, &zkl.LockOptions{OnEvent: func(ev zkl.Event) {
		if ev.Type == zkl.EventAcquired {
			closed <- c.Close()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := waitResult(t, closed, 10*time.Second, "Close in callback"); err != nil {
		t.Fatal(err)
	}
	// Close from a callback finishes after the callback returns; Close from
	// another goroutine waits for that.
	c.Close()
	if err := l.Unlock(); !errors.Is(err, zkl.ErrClosed) {
		t.Fatalf("Unlock after client close: %v", err)
	}
	if n := len(participants(t, connect(t), path, zkl.Fair)); n != 0 {
		t.Fatalf("%d nodes after the session closed", n)
	}
}
