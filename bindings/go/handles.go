package zkl

// #include "gozkl.h"
import "C"

import (
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

// answer sends r to the pending acquire *w, if any, and clears it (the
// handle's mu held).
func answer(w *chan acquireResult, r acquireResult) {
	if *w != nil {
		*w <- r
		*w = nil
	}
}

// handleErr is opErr for a handle's call: EBADHANDLE once the handle was
// closed (closed, read under mu) reads as ErrClosed.
func handleErr(mu *sync.Mutex, closed *bool, op, path string, rc C.int) error {
	if rc == zklEbadhandle {
		mu.Lock()
		wasClosed := *closed
		mu.Unlock()
		if wasClosed {
			rc = zklEclosed
		}
	}
	return opErr(op, path, rc)
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
