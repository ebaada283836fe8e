package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"errors"
	"runtime/cgo"
	"sync"
)

// What the Lock, MultiLock, Election and Observer handles share.

// lostChan is the Lost channel of a hold (or a term): made when the hold
// starts, closed (after sending the cause, if any) when it ends. Its
// owner's mu guards it; the zero value has no channel yet.
type lostChan struct {
	ch    chan error
	armed bool // ch is open (not yet closed)
}

// endedLost is the state before the first hold: a closed channel, so
// Lost() never blocks on a handle that never held.
func endedLost() lostChan {
	ch := make(chan error)
	close(ch)
	return lostChan{ch: ch}
}

// arm opens a new channel unless the current one is still open.
func (h *lostChan) arm() {
	if !h.armed {
		h.ch = make(chan error, 1)
		h.armed = true
	}
}

// end closes the open channel, with err first if non-nil.
func (h *lostChan) end(err error) {
	if !h.armed {
		return
	}
	if err != nil {
		h.ch <- err
	}
	close(h.ch)
	h.armed = false
}

// calls are a handle's pending asynchronous calls by request id: the id a
// zkl_*_async call returned, which the events that answer it carry
// (Event.RequestID). Several calls may wait for one id (Campaign calls
// that join the campaign already in line). The handle's mu guards it.
type calls[T any] map[uint64][]chan T

// start makes an asynchronous call with send under the handle's mu (so
// that its answer cannot be routed before its channel is registered) and
// registers the channel of its answer under the request id send returned.
// A negative rc is the call's error (ZKL_ECLOSED once the handle is
// closed); then nothing is registered.
func (c *calls[T]) start(p *pending, send func() C.int) (ch chan T, rc C.int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, zklEclosed
	}
	if rc = send(); rc < 0 {
		return nil, rc
	}
	if *c == nil {
		*c = calls[T]{}
	}
	ch = make(chan T, 1)
	(*c)[uint64(rc)] = append((*c)[uint64(rc)], ch)
	return ch, rc
}

// answer settles the calls of request id with r (mu held). An id nobody
// waits for (0: the event answers no call) is ignored.
func (c calls[T]) answer(id uint64, r T) {
	for _, ch := range c[id] {
		ch <- r
	}
	delete(c, id)
}

// fail settles every pending call with r (mu held): the handle or its
// client was closed, and their answers will not be delivered.
func (c calls[T]) fail(r T) {
	for id := range c {
		c.answer(id, r)
	}
}

// pending is what the Lock, MultiLock and Election handles share for their
// asynchronous calls: mu guards the handle's state, and the answers of its
// acquires (or campaigns) and guarded writes are matched to their calls by
// request id.
type pending struct {
	mu       sync.Mutex
	closed   bool
	acquires calls[acquireResult] // pending acquires (campaigns) by request id
	writes   calls[WriteDone]     // pending guarded writes by request id
}

// acquireResult is the answer of an acquire (or a campaign).
type acquireResult struct {
	token uint64
	err   error
}

// err is opErr for a handle's call: EBADHANDLE once the handle was closed
// reads as ErrClosed.
func (p *pending) err(op, path string, rc C.int) error {
	if rc == zklEbadhandle {
		p.mu.Lock()
		if p.closed {
			rc = zklEclosed
		}
		p.mu.Unlock()
	}
	return opErr(op, path, rc)
}

// acquire starts an asynchronous acquire (or campaign) with send, given
// ctx's timeout, and waits for the answer that carries the request id send
// returned. send also says whether zkl enforces that timeout (ownTimer:
// false when it joined a campaign already in line). cancel cancels the
// handle's pending acquire when ctx ends first; giveBack releases a grant
// that raced the cancel. op and path name the errors.
func (p *pending) acquire(ctx context.Context, op, path string,
	send func(ms C.int64_t) (id C.int, ownTimer bool), cancel, giveBack func()) (uint64, error) {
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return 0, ctxErr(op, path, ctx)
	}
	ms := timeoutMs(ctx)
	ownTimer := true
	ch, rc := p.acquires.start(p, func() (id C.int) {
		id, ownTimer = send(ms)
		return id
	})
	if rc < 0 {
		return 0, p.err(op, path, rc)
	}
	r, ended := awaitResult(ctx, ch, ms, ownTimer, cancel)
	if ended {
		if r.err == nil {
			giveBack() // granted before the cancel took: give it back
		}
		return 0, ctxErr(op, path, ctx)
	}
	return r.token, withCtx(r.err, ctx)
}

// answer settles the call that ev answers, found by its request id (mu
// held): acquireOp names an acquire's errors ("acquire", "campaign"), path
// is the handle's. An event that answers no call changes nothing here.
func (p *pending) answer(ev Event, acquireOp, path string) {
	switch ev.Type {
	case EventAcquired, EventElected:
		p.acquires.answer(ev.RequestID, acquireResult{token: ev.FencingToken})
	case EventAcquireFailed:
		p.acquires.answer(ev.RequestID, acquireResult{err: &OpError{Op: acquireOp, Path: path, Err: errnoOf(ev.Err)}})
	case EventWritten:
		p.writes.answer(ev.RequestID, writeDoneOf(ev, path))
	}
}

// shutdown marks the handle closed and ends every pending call with err
// (mu held).
func (p *pending) shutdown(err error, acquireOp, path string) {
	p.closed = true
	p.acquires.fail(acquireResult{err: &OpError{Op: acquireOp, Path: path, Err: errnoOf(err)}})
	p.writes.fail(WriteDone{Result: WriteResult{Failed: -1}, Err: &OpError{Op: "write", Path: path, Err: errnoOf(err)}})
}

// newHandle gives o a cgo handle (stored in *gh), has create make the C
// handle with it as its user data, and registers o; undone on failure. op
// names the errors ("new lock").
func (c *Client) newHandle(op, path string, o handleObj, gh *cgo.Handle, create func(user C.uintptr_t) C.int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return &OpError{Op: op, Path: path, Err: Errno(zklEclosed)}
	}
	*gh = cgo.NewHandle(o)
	if rc := create(C.uintptr_t(*gh)); rc != 0 {
		gh.Delete()
		return opErr(op, path, rc)
	}
	c.registerLocked(*gh, o)
	return nil
}

// closeObj unregisters o (registered as gh), frees its C handle and ends
// what is pending with ErrClosed; nothing when it is closed already.
func (c *Client) closeObj(gh cgo.Handle, o handleObj) error {
	c.mu.Lock()
	if _, ok := c.objs[gh]; !ok {
		c.mu.Unlock()
		return nil
	}
	delete(c.objs, gh)
	o.destroy()
	c.mu.Unlock()
	o.shutdown(ErrClosed, nil)
	return nil
}

// statsWith reads a handle's statistics through get (a zkl_*_stats call);
// its error through fail (the handle's err).
func statsWith(get func(js **C.char, n *C.size_t) C.int, fail func(string, C.int) error) ([]byte, error) {
	var js *C.char
	var n C.size_t
	if rc := get(&js, &n); rc != 0 {
		return nil, fail("stats", rc)
	}
	return statsOf(js, n), nil
}

// tokenWith reads a fencing token through get (a zkl_*_fencing_token
// call); its error through fail (the handle's err).
func tokenWith(get func(t *C.uint64_t) C.int, fail func(string, C.int) error) (uint64, error) {
	var t C.uint64_t
	if rc := get(&t); rc != 0 {
		return 0, fail("fencing token", rc)
	}
	return uint64(t), nil
}
