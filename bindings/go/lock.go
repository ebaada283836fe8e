package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// Kind is a lock recipe (ZKL_LOCK_*).
type Kind int

// Lock kinds.
const (
	// Fair is a FIFO mutex (Curator InterProcessMutex-compatible nodes).
	Fair Kind = C.ZKL_LOCK_FAIR
	// Reentrant is Fair plus a hold count per owner token.
	Reentrant Kind = C.ZKL_LOCK_REENTRANT
	// NonFair is one ephemeral node PATH/lock; losers race again when it goes.
	NonFair Kind = C.ZKL_LOCK_NONFAIR
	// Read is the shared side of a read/write lock.
	Read Kind = C.ZKL_LOCK_READ
	// Write is the exclusive side of a read/write lock.
	Write Kind = C.ZKL_LOCK_WRITE
	// Semaphore is one of LockOptions.MaxLeases leases.
	Semaphore Kind = C.ZKL_LOCK_SEMAPHORE
)

func (k Kind) String() string {
	switch k {
	case Fair:
		return "fair"
	case Reentrant:
		return "reentrant"
	case NonFair:
		return "nonfair"
	case Read:
		return "read"
	case Write:
		return "write"
	case Semaphore:
		return "semaphore"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// DefaultOwner is the owner token used by Lock, TryLock and Unlock.
const DefaultOwner uint64 = 1

// LockOptions configures a Lock. The zero value is a fair lock.
type LockOptions struct {
	Kind      Kind   // Fair when zero
	MaxLeases int    // Semaphore: number of leases (all participants must agree)
	Data      []byte // optional node data, e.g. a holder id (<= 1 MiB)
	// OnEvent, if set, receives every event of this lock (Acquired,
	// AcquireFailed, Suspended, Restored, Lost, Released) on the client's
	// event goroutine.
	OnEvent func(Event)
}

type acquireResult struct {
	token uint64
	err   error
}

// Lock is one contender for a lock, read/write lock side or semaphore lease
// (one zkl_lock handle). A handle is held by at most one owner at a time:
// use one Lock per concurrent contender (they are cheap). Methods are safe
// for concurrent use.
type Lock struct {
	client  *Client
	h       *C.zkl_lock
	gh      cgo.Handle
	path    string
	kind    Kind
	onEvent func(Event)

	mu        sync.Mutex
	closed    bool
	waiter    chan acquireResult // the pending async acquire, if any
	holds     int                // Go's view of the hold count
	hold      chan error         // the current (or last) hold's Lost channel
	armed     bool               // hold is open (not yet closed)
	staleLost int                // LOST events still to come for holds already ended
}

// NewLock creates a lock handle on path (no server traffic yet). opts may be
// nil for a fair lock.
func (c *Client) NewLock(path string, opts *LockOptions) (*Lock, error) {
	var o LockOptions
	if opts != nil {
		o = *opts
	}
	if o.Kind == 0 {
		o.Kind = Fair
	}
	if o.MaxLeases == 0 {
		o.MaxLeases = 1
	}
	cp, err := cPath("new lock", path)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	closed := make(chan error)
	close(closed)
	l := &Lock{client: c, path: path, kind: o.Kind, onEvent: o.OnEvent, hold: closed}
	var data unsafe.Pointer
	if len(o.Data) > 0 {
		data = unsafe.Pointer(&o.Data[0])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &OpError{Op: "new lock", Path: path, Err: Errno(C.ZKL_ECLOSED)}
	}
	l.gh = cgo.NewHandle(handleObj(l))
	rc := C.gozkl_lock_new(c.c, cp, C.int32_t(o.Kind), C.int32_t(o.MaxLeases), data,
		C.size_t(len(o.Data)), C.uintptr_t(l.gh), &l.h)
	if rc != 0 {
		l.gh.Delete()
		return nil, opErr("new lock", path, rc)
	}
	c.registerLocked(l.gh, l)
	return l, nil
}

// NewSemaphore is NewLock with Kind Semaphore and the given number of leases.
// Each Lock is one lease.
func (c *Client) NewSemaphore(path string, leases int) (*Lock, error) {
	if leases < 1 {
		return nil, &OpError{Op: "new lock", Path: path, Err: Errno(C.ZKL_EINVAL)}
	}
	return c.NewLock(path, &LockOptions{Kind: Semaphore, MaxLeases: leases})
}

// Path returns the lock's ZooKeeper path.
func (l *Lock) Path() string { return l.path }

// Kind returns the lock's recipe.
func (l *Lock) Kind() Kind { return l.kind }

func (l *Lock) err(op string, rc C.int) error {
	if rc == C.ZKL_EBADHANDLE {
		l.mu.Lock()
		closed := l.closed
		l.mu.Unlock()
		if closed {
			rc = C.ZKL_ECLOSED
		}
	}
	return opErr(op, l.path, rc)
}

// Lock acquires the lock for DefaultOwner, waiting until it is held or ctx
// ends. See Acquire.
func (l *Lock) Lock(ctx context.Context) error {
	_, err := l.Acquire(ctx, DefaultOwner)
	return err
}

// Acquire acquires the lock for owner and returns the hold's fencing token
// (strictly increasing across successive holders of the path). It waits on
// the client's event goroutine without blocking an OS thread. When ctx is
// cancelled or its deadline passes, the acquire is cancelled (its node is
// deleted) and the error matches ErrCanceled/context.Canceled or
// ErrTimeout/context.DeadlineExceeded. Other errors: ErrDeadlock (a
// non-reentrant lock already held by owner), ErrBusy (held or being acquired
// by another owner on this handle), ErrClosed, ErrMismatch, ErrAuth.
// A Reentrant lock already held by owner only counts one more hold.
func (l *Lock) Acquire(ctx context.Context, owner uint64) (uint64, error) {
	if ctx.Err() != nil {
		return 0, ctxErr("acquire", l.path, ctx)
	}
	if err := l.client.awaitSession(ctx, "acquire", l.path); err != nil {
		return 0, err
	}
	w := make(chan acquireResult, 1)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, &OpError{Op: "acquire", Path: l.path, Err: Errno(C.ZKL_ECLOSED)}
	}
	if l.waiter != nil {
		l.mu.Unlock()
		return 0, &OpError{Op: "acquire", Path: l.path, Err: Errno(C.ZKL_EBUSY)}
	}
	l.waiter = w
	l.mu.Unlock()
	// The deadline is enforced here through ctx; the C timer stays off so
	// that the error is always the context's.
	if rc := C.zkl_lock_acquire_async(l.h, C.uint64_t(owner), -1); rc != 0 {
		l.mu.Lock()
		if l.waiter == w {
			l.waiter = nil
		}
		l.mu.Unlock()
		return 0, l.err("acquire", rc)
	}
	select {
	case r := <-w:
		return r.token, r.err
	case <-ctx.Done():
	}
	// Cancel, then wait for the acquire's one terminal event: after
	// zkl_lock_cancel it is already queued (ACQUIRE_FAILED, or ACQUIRED if
	// the lock was granted first), so this wait is short.
	C.zkl_lock_cancel(l.h)
	r := <-w
	if r.err == nil {
		// Granted before the cancel took: give the hold back.
		l.Release(owner)
	}
	return 0, ctxErr("acquire", l.path, ctx)
}

// TryLock acquires the lock for DefaultOwner if nobody is in the way (one
// round trip); ErrWouldBlock otherwise.
func (l *Lock) TryLock() error {
	_, err := l.TryAcquire(DefaultOwner)
	return err
}

// TryAcquire acquires the lock for owner without waiting for other holders
// (one round trip; the node is removed again when taken): the fencing token,
// or ErrWouldBlock, ErrConnection (not connected), ErrDeadlock, ErrBusy.
func (l *Lock) TryAcquire(owner uint64) (uint64, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, &OpError{Op: "try acquire", Path: l.path, Err: Errno(C.ZKL_ECLOSED)}
	}
	l.mu.Unlock()
	if rc := C.zkl_lock_try_acquire(l.h, C.uint64_t(owner)); rc != 0 {
		return 0, l.err("try acquire", rc)
	}
	var tok C.uint64_t
	rc := C.zkl_lock_fencing_token(l.h, &tok)
	l.mu.Lock()
	l.granted()
	l.mu.Unlock()
	if rc != 0 {
		// Lost again already; the LOST event tells the Lost channel.
		return 0, l.err("try acquire", rc)
	}
	return uint64(tok), nil
}

// Unlock releases one hold of DefaultOwner. See Release.
func (l *Lock) Unlock() error { return l.Release(DefaultOwner) }

// Release releases one hold by owner. The last hold deletes the node and
// returns after the server confirmed it (one round trip). Errors: ErrNotHeld
// (not held, or released twice), ErrNotOwner (held by another owner),
// ErrLost (the hold had been lost; it is over all the same).
func (l *Lock) Release(owner uint64) error {
	return l.released("release", C.zkl_lock_release(l.h, C.uint64_t(owner)))
}

// ReleaseAsync is Release without waiting for the server: the delete is
// sent (a later acquire on the same client is ordered after it) and an
// EventReleased to OnEvent reports the outcome.
func (l *Lock) ReleaseAsync(owner uint64) error {
	return l.released("release", C.zkl_lock_release_async(l.h, C.uint64_t(owner)))
}

// released does the bookkeeping of a release that returned rc.
func (l *Lock) released(op string, rc C.int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch rc {
	case 0:
		if l.holds > 0 {
			l.holds--
		}
		if l.holds == 0 {
			l.endHold(nil)
		}
	case C.ZKL_ELOST:
		// The LOST event of this hold has not been seen if the hold is still
		// open: it is still to come and must not end a later hold.
		if l.armed {
			l.staleLost++
		}
		l.holds = 0
		l.endHold(ErrLost)
	}
	if rc != 0 {
		if rc == C.ZKL_EBADHANDLE && l.closed {
			rc = C.ZKL_ECLOSED
		}
		return opErr(op, l.path, rc)
	}
	return nil
}

// IsHeld reports whether the lock is held and the session is known to be
// good (never true while suspended or after loss).
func (l *Lock) IsHeld() bool { return C.zkl_lock_is_held(l.h) == 1 }

// FencingToken returns the current hold's fencing token, or ErrNotHeld.
func (l *Lock) FencingToken() (uint64, error) {
	var tok C.uint64_t
	if rc := C.zkl_lock_fencing_token(l.h, &tok); rc != 0 {
		return 0, l.err("fencing token", rc)
	}
	return uint64(tok), nil
}

// HoldCount returns the current hold count (0 when not held).
func (l *Lock) HoldCount() int {
	rc := C.zkl_lock_hold_count(l.h)
	if rc < 0 {
		return 0
	}
	return int(rc)
}

// Lost returns the channel of the current hold (or of the last one when not
// held). When the hold is lost (session expired, disconnected past the
// client-side deadline, node deleted) the channel receives the cause (an
// error matching ErrSession, ErrLost or ErrAuth) and is closed; when the
// hold ends by Unlock/Release or Close it is closed without a value. So
// `err := <-l.Lost()` is non-nil exactly when the lock was lost.
func (l *Lock) Lost() <-chan error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hold
}

// Close releases the lock if held, or cancels a pending acquire, and frees
// the handle (the node is deleted in the background). A pending Acquire
// returns ErrClosed. Idempotent.
func (l *Lock) Close() error {
	c := l.client
	c.mu.Lock()
	if _, ok := c.objs[l.gh]; !ok {
		c.mu.Unlock()
		return nil
	}
	delete(c.objs, l.gh)
	l.destroy()
	c.mu.Unlock()
	l.shutdown(ErrClosed)
	return nil
}

// destroy implements handleObj (client mu held).
func (l *Lock) destroy() {
	C.zkl_lock_destroy(l.h)
	l.gh.Delete()
}

// shutdown implements handleObj.
func (l *Lock) shutdown(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.waiter != nil {
		l.waiter <- acquireResult{err: &OpError{Op: "acquire", Path: l.path, Err: errnoOf(err)}}
		l.waiter = nil
	}
	l.holds = 0
	l.endHold(nil)
}

// granted records one more hold (mu held).
func (l *Lock) granted() {
	if l.holds == 0 && !l.armed {
		l.hold = make(chan error, 1)
		l.armed = true
	}
	l.holds++
}

// endHold closes the current hold's channel, with err if non-nil (mu held).
func (l *Lock) endHold(err error) {
	if !l.armed {
		return
	}
	if err != nil {
		l.hold <- err
	}
	close(l.hold)
	l.armed = false
}

// deliver implements handleObj: runs on the event goroutine.
func (l *Lock) deliver(ev Event) {
	l.mu.Lock()
	switch ev.Type {
	case EventAcquired:
		l.granted()
		if l.waiter != nil {
			l.waiter <- acquireResult{token: ev.FencingToken}
			l.waiter = nil
		}
	case EventAcquireFailed:
		if l.waiter != nil {
			l.waiter <- acquireResult{err: &OpError{Op: "acquire", Path: l.path, Err: errnoOf(ev.Err)}}
			l.waiter = nil
		}
	case EventLost:
		if l.staleLost > 0 {
			l.staleLost--
		} else {
			l.holds = 0
			err := ev.Err
			if err == nil {
				err = ErrLost
			}
			l.endHold(&OpError{Op: "hold", Path: l.path, Err: errnoOf(err)})
		}
	}
	l.mu.Unlock()
	if l.onEvent != nil {
		l.onEvent(ev)
	}
}
