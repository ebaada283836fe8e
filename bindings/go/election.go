package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"runtime/cgo"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// ElectionKind is a leader election recipe (ZKL_ELECTION_*).
type ElectionKind int

const (
	// ElectionFair elects in arrival order (sequential latch- nodes).
	ElectionFair ElectionKind = zklElectionFair
	// ElectionNonFair has every participant race for one PATH/leader node.
	ElectionNonFair ElectionKind = zklElectionNonfair
)

// ElectionOptions configures an Election.
type ElectionOptions struct {
	Kind     ElectionKind // ElectionFair when zero
	ID       string       // participant id, stored as node data (required)
	OnRevoke RevokePolicy // what a leader does on a revocation request
	// OnEvent, if set, receives Elected, NotElected, Suspended, Restored,
	// Lost, AcquireFailed and RevokeRequested events on the client's event
	// goroutine.
	OnEvent func(Event)
}

// Election is one participant of a leader election. Once elected it stays
// in the election until Resign or Close: after its leadership is lost
// (Lost) it rejoins by itself once the session is back. Like a Lock, it is
// registered with its client until Close (no garbage collector resigns for
// it). Methods are safe for concurrent use.
type Election struct {
	client  *Client
	h       *C.zkl_election
	gh      cgo.Handle
	path    string
	id      string
	onEvent func(Event)

	pending           // mu, closed, and the pending campaigns and writes
	campaign uint64   // the request id of the campaign in line (Start, Campaign), 0: none
	term     lostChan // the current (or last) term's Lost channel
}

// NewElection creates a participant on path (it does not join yet).
func (c *Client) NewElection(path string, opts ElectionOptions) (*Election, error) {
	if opts.Kind == 0 {
		opts.Kind = ElectionFair
	}
	if opts.ID == "" || strings.IndexByte(opts.ID, 0) >= 0 {
		return nil, &OpError{Op: "new election", Path: path, Err: Errno(zklEinval)}
	}
	cp, err := cPath("new election", path)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	cid := C.CString(opts.ID)
	defer C.free(unsafe.Pointer(cid))
	var co C.zkl_election_options
	if rc := C.zkl_election_options_init(&co, zklElectionOptionsVersion); rc != 0 {
		return nil, opErr("new election", path, rc)
	}
	co.kind = C.int32_t(opts.Kind)
	co.id = cid
	co.on_revoke = C.int32_t(opts.OnRevoke)
	e := &Election{client: c, path: path, id: opts.ID, onEvent: opts.OnEvent, term: endedLost()}
	err = c.newHandle("new election", path, e, &e.gh, func(user C.uintptr_t) C.int {
		C.gozkl_set_user(&co.user_data, user)
		return C.zkl_election_new(c.c, cp, &co, &e.h)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Path returns the election's ZooKeeper path.
func (e *Election) Path() string { return e.path }

// ID returns the participant id given at creation (Proclaim changes the
// published value, not this).
func (e *Election) ID() string { return e.id }

func (e *Election) err(op string, rc C.int) error {
	return e.pending.err(op, e.path, rc)
}

// Start joins the election and returns at once: it stays in line until
// elected (or Resign / Close). Elected / NotElected events (OnEvent) tell
// the outcome. Joining again while in the race is a no-op.
func (e *Election) Start() error {
	e.mu.Lock()
	rc := e.join(-1)
	e.mu.Unlock()
	if rc < 0 && rc != zklEbusy { // EBUSY: already in line
		return e.err("start election", rc)
	}
	return nil
}

// join starts a campaign with timeout ms and records its request id as the
// campaign in line (mu held, so that its answer is routed after this).
func (e *Election) join(ms C.int64_t) C.int {
	rc := C.zkl_election_acquire_async(e.h, ms)
	if rc > 0 {
		e.campaign = uint64(rc)
	}
	return rc
}

// Campaign joins the election (if not in it yet) and waits until this
// participant is the leader; it returns the term's fencing token, at once
// when already leader. ctx's deadline is zkl's timeout (a deadline already
// passed tries once): when it passes first, or ctx is cancelled, the
// participant has left the election again (as a failed lock acquire leaves
// no node), and the error matches ErrTimeout / context.DeadlineExceeded or
// ErrCanceled / context.Canceled.
func (e *Election) Campaign(ctx context.Context) (uint64, error) {
	return e.acquire(ctx, "campaign", e.path, func(ms C.int64_t) (C.int, bool) {
		rc := e.join(ms)
		if rc == zklEbusy && e.campaign != 0 {
			// Already in line (Start, or another Campaign): wait for that
			// campaign's answer, bounded by ctx here.
			return C.int(e.campaign), false
		}
		return rc, true
	}, func() { C.zkl_election_cancel(e.h) }, func() { e.Resign() })
}

// Resign leaves the election, as leader or from the line (one round trip),
// giving up leadership if held (the term's Lost channel is closed without
// a value). Pending Campaign calls fail with ErrCanceled. ErrNotHeld when
// not taking part.
func (e *Election) Resign() error {
	rc := C.zkl_election_release(e.h)
	e.mu.Lock()
	if rc == 0 {
		e.campaign = 0
		e.acquires.fail(acquireResult{err: &OpError{Op: "campaign", Path: e.path, Err: Errno(zklEcanceled)}})
	}
	e.term.end(nil)
	e.mu.Unlock()
	if rc != 0 {
		return e.err("resign", rc)
	}
	return nil
}

// IsLeader reports whether this participant leads, provably at this
// instant (see Lock.IsHeld).
func (e *Election) IsLeader() bool { return C.zkl_election_is_leader(e.h) == 1 }

// ValidUntil returns the lease deadline of the leadership (see
// Lock.ValidUntil); ok is false when not leader.
func (e *Election) ValidUntil() (t time.Time, ok bool) {
	var ms C.int64_t
	rc := C.zkl_election_valid_for(e.h, &ms)
	return validUntil(rc, ms)
}

// Stats returns this participant's statistics as JSON.
func (e *Election) Stats() ([]byte, error) {
	return statsWith(func(js **C.char, n *C.size_t) C.int { return C.zkl_election_stats(e.h, js, n) }, e.err)
}

// FencingToken returns the current term's fencing token, or ErrNotHeld.
func (e *Election) FencingToken() (uint64, error) {
	return tokenWith(func(t *C.uint64_t) C.int { return C.zkl_election_fencing_token(e.h, t) }, e.err)
}

// Lost returns the channel of the current (or last) term: it receives the
// cause (matching ErrSession, ErrLost, ErrClosed on Client.Close, ...) and
// is closed when leadership is lost, or is closed without a value on Resign
// or Election.Close.
func (e *Election) Lost() <-chan error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term.ch
}

// Close resigns, leaves the election and frees the handle. Idempotent.
func (e *Election) Close() error {
	return e.client.closeObj(e.gh, e)
}

func (e *Election) destroy() {
	C.zkl_election_destroy(e.h)
	e.gh.Delete()
}

func (e *Election) shutdown(err, lost error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending.shutdown(err, "campaign", e.path)
	if lost != nil {
		lost = &OpError{Op: "leadership", Path: e.path, Err: errnoOf(lost)}
	}
	e.term.end(lost)
}

func (e *Election) deliver(ev Event) {
	e.mu.Lock()
	e.answer(ev, "campaign", e.path)
	if ev.RequestID == e.campaign && (ev.Type == EventElected || ev.Type == EventAcquireFailed) {
		e.campaign = 0 // its answer: no longer in line
	}
	switch ev.Type {
	case EventElected:
		e.term.arm()
	case EventLost:
		err := ev.Err
		if err == nil {
			err = ErrLost
		}
		e.term.end(&OpError{Op: "leadership", Path: e.path, Err: errnoOf(err)})
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
// ("" when nobody leads).
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
	if c.closing {
		return nil, &OpError{Op: "new observer", Path: path, Err: Errno(zklEclosed)}
	}
	o.gh = cgo.NewHandle(handleObj(o))
	var co C.zkl_observer_options
	if rc := C.zkl_observer_options_init(&co, zklObserverOptionsVersion); rc != 0 {
		o.gh.Delete()
		return nil, opErr("new observer", path, rc)
	}
	co.kind = C.int32_t(kind)
	C.gozkl_set_user(&co.user_data, C.uintptr_t(o.gh))
	if rc := C.zkl_observer_new(c.c, cp, &co, &o.h); rc != 0 {
		o.gh.Delete()
		return nil, opErr("new observer", path, rc)
	}
	c.registerLocked(o.gh, o)
	return o, nil
}

// Leader returns the current leader's id, or ErrNotFound when there is none
// (or it is not known yet), or ErrConnection while the view cannot be proven
// current (disconnected, or not confirmed by the quorum in time).
func (o *Observer) Leader() (string, error) {
	size := 256
	for {
		buf := make([]byte, size)
		rc := C.zkl_observer_leader(o.h, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(size))
		if rc < 0 {
			if rc == zklEbadhandle {
				rc = zklEclosed
			}
			return "", opErr("leader", o.path, rc)
		}
		if int(rc) < size {
			return string(buf[:rc]), nil
		}
		size = int(rc) + 1
	}
}

// Term returns the current leader's term (its fencing token), or
// ErrNotFound when nobody leads (or it is not known yet).
func (o *Observer) Term() (uint64, error) {
	var t C.uint64_t
	if rc := C.zkl_observer_term(o.h, &t); rc != 0 {
		if rc == zklEbadhandle {
			rc = zklEclosed
		}
		return 0, opErr("term", o.path, rc)
	}
	return uint64(t), nil
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
	return o.client.closeObj(o.gh, o)
}

func (o *Observer) destroy() {
	C.zkl_observer_destroy(o.h)
	o.gh.Delete()
}

func (o *Observer) shutdown(error, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *Observer) deliver(ev Event) {
	if ev.Type != EventLeaderChanged && ev.Type != EventNoLeader {
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
