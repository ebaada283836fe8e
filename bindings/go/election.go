package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"
)

// ElectionKind is a leader election recipe (ZKL_ELECTION_*).
type ElectionKind int

const (
	// ElectionFair elects in arrival order (sequential latch- nodes).
	ElectionFair ElectionKind = C.ZKL_ELECTION_FAIR
	// ElectionUnfair has every participant race for one PATH/leader node.
	ElectionUnfair ElectionKind = C.ZKL_ELECTION_UNFAIR
)

// ElectionOptions configures an Election.
type ElectionOptions struct {
	Kind ElectionKind // ElectionFair when zero
	ID   string       // participant id, stored as node data (required)
	// OnEvent, if set, receives Elected, NotElected, Suspended, Lost and
	// AcquireFailed events on the client's event goroutine.
	OnEvent func(Event)
}

// Election is one participant of a leader election. After its leadership
// is lost (Lost) it stays in the race and rejoins by itself once the
// session is back, until Resign or Close. Methods are safe for concurrent use.
type Election struct {
	client  *Client
	h       *C.zkl_election
	gh      cgo.Handle
	path    string
	id      string
	onEvent func(Event)

	mu      sync.Mutex
	closed  bool
	waiters []chan acquireResult // Campaign calls waiting to be elected
	term    chan error           // the current (or last) term's Lost channel
	armed   bool
	// A Start made while there was no session, to be done once connected.
	deferred bool
	startGen uint64
}

// NewElection creates a participant on path (it does not join yet).
func (c *Client) NewElection(path string, opts ElectionOptions) (*Election, error) {
	if opts.Kind == 0 {
		opts.Kind = ElectionFair
	}
	if opts.ID == "" || strings.IndexByte(opts.ID, 0) >= 0 {
		return nil, &OpError{Op: "new election", Path: path, Err: Errno(C.ZKL_EINVAL)}
	}
	cp, err := cPath("new election", path)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	cid := C.CString(opts.ID)
	defer C.free(unsafe.Pointer(cid))
	closed := make(chan error)
	close(closed)
	e := &Election{client: c, path: path, id: opts.ID, onEvent: opts.OnEvent, term: closed}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &OpError{Op: "new election", Path: path, Err: Errno(C.ZKL_ECLOSED)}
	}
	e.gh = cgo.NewHandle(handleObj(e))
	if rc := C.gozkl_election_new(c.c, cp, C.int32_t(opts.Kind), cid, C.uintptr_t(e.gh), &e.h); rc != 0 {
		e.gh.Delete()
		return nil, opErr("new election", path, rc)
	}
	c.registerLocked(e.gh, e)
	return e, nil
}

// Path returns the election's ZooKeeper path.
func (e *Election) Path() string { return e.path }

// ID returns the participant id.
func (e *Election) ID() string { return e.id }

func (e *Election) err(op string, rc C.int) error {
	if rc == C.ZKL_EBADHANDLE {
		e.mu.Lock()
		closed := e.closed
		e.mu.Unlock()
		if closed {
			rc = C.ZKL_ECLOSED
		}
	}
	return opErr(op, e.path, rc)
}

// Start joins the election and returns at once; Elected / NotElected events
// (OnEvent) tell the outcome. Joining again while in the race is a no-op.
func (e *Election) Start() error {
	if st := e.client.State(); st == Connecting || st == SessionLost {
		// No session yet: join once it is up (see Client.awaitSession).
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.closed {
			return &OpError{Op: "start election", Path: e.path, Err: Errno(C.ZKL_ECLOSED)}
		}
		if !e.deferred {
			e.deferred = true
			gen := e.startGen
			go e.startWhenConnected(gen)
		}
		return nil
	}
	if rc := C.zkl_election_start(e.h); rc != 0 {
		return e.err("start election", rc)
	}
	return nil
}

// startWhenConnected joins once the client has a session, unless the
// participant resigned or was closed meanwhile.
func (e *Election) startWhenConnected(gen uint64) {
	err := e.client.WaitConnected(context.Background()) // ends on connect, auth failure or close
	e.mu.Lock()
	ok := e.deferred && !e.closed && gen == e.startGen
	e.deferred = false
	e.mu.Unlock()
	if err == nil && ok {
		C.zkl_election_start(e.h)
	}
}

// Campaign joins the election (if not in it yet) and waits until this
// participant is the leader; it returns the term's fencing token. When ctx
// ends first, the participant leaves the election (Resign) and the error
// matches the context's error and ErrCanceled / ErrTimeout.
func (e *Election) Campaign(ctx context.Context) (uint64, error) {
	if ctx.Err() != nil {
		return 0, ctxErr("campaign", e.path, ctx)
	}
	if err := e.client.awaitSession(ctx, "campaign", e.path); err != nil {
		return 0, err
	}
	w := make(chan acquireResult, 1)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return 0, &OpError{Op: "campaign", Path: e.path, Err: Errno(C.ZKL_ECLOSED)}
	}
	if e.armed && e.IsLeader() {
		e.mu.Unlock()
		return e.FencingToken()
	}
	e.waiters = append(e.waiters, w)
	e.mu.Unlock()
	if rc := C.zkl_election_start(e.h); rc != 0 {
		e.removeWaiter(w)
		return 0, e.err("campaign", rc)
	}
	select {
	case r := <-w:
		return r.token, r.err
	case <-ctx.Done():
	}
	e.removeWaiter(w)
	e.Resign()
	return 0, ctxErr("campaign", e.path, ctx)
}

func (e *Election) removeWaiter(w chan acquireResult) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, x := range e.waiters {
		if x == w {
			e.waiters = append(e.waiters[:i], e.waiters[i+1:]...)
			return
		}
	}
}

// Resign leaves the election, giving up leadership if held (the term's Lost
// channel is closed without a value). Pending Campaign calls fail with
// ErrCanceled.
func (e *Election) Resign() error {
	rc := C.zkl_election_resign(e.h)
	e.mu.Lock()
	e.deferred = false
	e.startGen++
	e.endTerm(nil)
	e.mu.Unlock()
	if rc != 0 {
		return e.err("resign", rc)
	}
	return nil
}

// IsLeader reports whether this participant leads and the session is known
// to be good.
func (e *Election) IsLeader() bool { return C.zkl_election_is_leader(e.h) == 1 }

// FencingToken returns the current term's fencing token, or ErrNotHeld.
func (e *Election) FencingToken() (uint64, error) {
	var tok C.uint64_t
	if rc := C.zkl_election_fencing_token(e.h, &tok); rc != 0 {
		return 0, e.err("fencing token", rc)
	}
	return uint64(tok), nil
}

// Lost returns the channel of the current (or last) term: it receives the
// cause (matching ErrSession, ErrLost, ...) and is closed when leadership is
// lost, or is closed without a value on Resign or Close.
func (e *Election) Lost() <-chan error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term
}

// Close resigns, leaves the election and frees the handle. Idempotent.
func (e *Election) Close() error {
	c := e.client
	c.mu.Lock()
	if _, ok := c.objs[e.gh]; !ok {
		c.mu.Unlock()
		return nil
	}
	delete(c.objs, e.gh)
	e.destroy()
	c.mu.Unlock()
	e.shutdown(ErrClosed)
	return nil
}

func (e *Election) destroy() {
	C.zkl_election_destroy(e.h)
	e.gh.Delete()
}

func (e *Election) shutdown(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.fail(err)
	e.endTerm(nil)
}

// fail ends every waiting Campaign with err (mu held).
func (e *Election) fail(err error) {
	for _, w := range e.waiters {
		w <- acquireResult{err: &OpError{Op: "campaign", Path: e.path, Err: errnoOf(err)}}
	}
	e.waiters = nil
}

func (e *Election) endTerm(err error) {
	if !e.armed {
		return
	}
	if err != nil {
		e.term <- err
	}
	close(e.term)
	e.armed = false
}

func (e *Election) deliver(ev Event) {
	e.mu.Lock()
	switch ev.Type {
	case EventElected:
		// Also sent when a suspended leader reconnects in time: same term.
		if !e.armed {
			e.term = make(chan error, 1)
			e.armed = true
		}
		for _, w := range e.waiters {
			w <- acquireResult{token: ev.FencingToken}
		}
		e.waiters = nil
	case EventAcquireFailed:
		e.fail(ev.Err)
	case EventLost:
		err := ev.Err
		if err == nil {
			err = ErrLost
		}
		e.endTerm(&OpError{Op: "leadership", Path: e.path, Err: errnoOf(err)})
	}
	e.mu.Unlock()
	if e.onEvent != nil {
		e.onEvent(ev)
	}
}

// Observer reports the current leader of an election without taking part.
type Observer struct {
	client   *Client
	h        *C.zkl_observer
	gh       cgo.Handle
	path     string
	onChange func(leader string)

	mu      sync.Mutex
	changed chan struct{}
}

// NewObserver watches the leader of the election on path. onChange, if not
// nil, is called on the client's event goroutine with every new leader id
// ("" when there is none).
func (c *Client) NewObserver(path string, kind ElectionKind, onChange func(leader string)) (*Observer, error) {
	if kind == 0 {
		kind = ElectionFair
	}
	cp, err := cPath("new observer", path)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	o := &Observer{client: c, path: path, onChange: onChange, changed: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &OpError{Op: "new observer", Path: path, Err: Errno(C.ZKL_ECLOSED)}
	}
	o.gh = cgo.NewHandle(handleObj(o))
	if rc := C.gozkl_observer_new(c.c, cp, C.int32_t(kind), C.uintptr_t(o.gh), &o.h); rc != 0 {
		o.gh.Delete()
		return nil, opErr("new observer", path, rc)
	}
	c.registerLocked(o.gh, o)
	return o, nil
}

// Leader returns the current leader's id, or ErrNotFound when there is none
// (or it is not known yet).
func (o *Observer) Leader() (string, error) {
	size := 256
	for {
		buf := make([]byte, size)
		rc := C.zkl_observer_leader(o.h, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(size))
		if rc < 0 {
			if rc == C.ZKL_EBADHANDLE {
				rc = C.ZKL_ECLOSED
			}
			return "", opErr("leader", o.path, rc)
		}
		if int(rc) < size {
			return string(buf[:rc]), nil
		}
		size = int(rc) + 1
	}
}

// Changed returns a channel that is closed at the next leader change (or
// when the observer is closed). Take it before reading Leader to wait for a
// change without missing one.
func (o *Observer) Changed() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// Close stops observing and frees the handle. Idempotent.
func (o *Observer) Close() error {
	c := o.client
	c.mu.Lock()
	if _, ok := c.objs[o.gh]; !ok {
		c.mu.Unlock()
		return nil
	}
	delete(c.objs, o.gh)
	o.destroy()
	c.mu.Unlock()
	o.shutdown(ErrClosed)
	return nil
}

func (o *Observer) destroy() {
	C.zkl_observer_destroy(o.h)
	o.gh.Delete()
}

func (o *Observer) shutdown(error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *Observer) deliver(ev Event) {
	if ev.Type != EventLeaderChanged {
		return
	}
	o.mu.Lock()
	close(o.changed)
	o.changed = make(chan struct{})
	o.mu.Unlock()
	if o.onChange != nil {
		o.onChange(ev.Leader)
	}
}
