package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime/cgo"
	"time"
	"unsafe"
)

// Kind is a lock recipe (ZKL_LOCK_*).
type Kind int

// Lock kinds.
const (
	// Fair is a FIFO mutex (Curator InterProcessMutex-compatible nodes).
	Fair Kind = zklLockFair
	// Reentrant is Fair plus a hold count per owner token.
	Reentrant Kind = zklLockReentrant
	// NonFair is one ephemeral node PATH/lock; losers race again when it goes.
	NonFair Kind = zklLockNonfair
	// Read is the shared side of a read/write lock.
	Read Kind = zklLockRead
	// Write is the exclusive side of a read/write lock.
	Write Kind = zklLockWrite
	// Semaphore is one of LockOptions.MaxLeases leases.
	Semaphore Kind = zklLockSemaphore
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

// DefaultOwner (ZKL_DEFAULT_OWNER) is the owner token of Lock, TryLock and
// Unlock: the handle itself is the owner, so any goroutine may release.
const DefaultOwner uint64 = zklDefaultOwner

// RevokePolicy is what a holder does when someone asks it to let go
// (Client.Revoke, or Apache Curator's Revoker).
type RevokePolicy int

const (
	// RevokeIgnore does not watch for requests (no extra request per hold).
	RevokeIgnore RevokePolicy = zklRevokeIgnore
	// RevokeNotify delivers EventRevokeRequested; the holder decides.
	RevokeNotify RevokePolicy = zklRevokeNotify
	// RevokeRelease delivers the event, then zkl releases by itself and the
	// hold ends as lost with ErrRevoked.
	RevokeRelease RevokePolicy = zklRevokeRelease
)

// LockOptions configures a Lock. The zero value is a fair lock.
type LockOptions struct {
	Kind      Kind   // Fair when zero
	MaxLeases int    // Semaphore: number of leases (all participants must agree)
	Leases    int    // Semaphore: leases taken per acquisition, all or none (default 1)
	Data      []byte // optional node data, e.g. a holder id (<= 1 MiB)
	// MaxHold > 0 ends a hold after this long: zkl releases it and the hold
	// ends as lost with ErrMaxHold.
	MaxHold  time.Duration
	OnRevoke RevokePolicy
	// OnEvent, if set, receives every event of this lock (Acquired,
	// AcquireFailed, Suspended, Restored, Lost, Released, RevokeRequested)
	// on the client's event goroutine. (Written events answer WriteAsync's
	// channel as well.)
	OnEvent func(Event)
}

// Lock is one contender for a lock, read/write lock side or semaphore lease
// (one zkl_lock handle). A handle is held by at most one owner at a time:
// use one Lock per concurrent contender (they are cheap). Methods are safe
// for concurrent use.
//
// A Lock is registered with its client until Close: dropping the last
// reference to a held Lock does not release it (no finalizer does); the
// hold ends with Unlock, Lock.Close or Client.Close.
type Lock struct {
	client  *Client
	h       *C.zkl_lock
	gh      cgo.Handle
	path    string
	kind    Kind
	onEvent func(Event)

	pending              // mu, closed, and the pending acquires and writes
	holds     int        // Go's view of the hold count
	hold      lostChan   // the current (or last) hold's Lost channel
	staleLost int        // LOST events still to come for holds already ended
	owner     *MultiLock // the multi-lock this lock belongs to, if any
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
	var co C.zkl_lock_options
	if rc := C.zkl_lock_options_init(&co, zklLockOptionsVersion); rc != 0 {
		return nil, opErr("new lock", path, rc)
	}
	co.kind = C.int32_t(o.Kind)
	co.max_leases = C.int32_t(o.MaxLeases)
	if o.Leases != 0 {
		co.leases = C.int32_t(o.Leases)
	}
	co.max_hold_ms = C.int64_t(o.MaxHold.Milliseconds())
	co.on_revoke = C.int32_t(o.OnRevoke)
	if len(o.Data) > 0 {
		co.data = C.CBytes(o.Data)
		co.data_len = C.size_t(len(o.Data))
		defer C.free(co.data)
	}
	l := &Lock{client: c, path: path, kind: o.Kind, onEvent: o.OnEvent, hold: endedLost()}
	err = c.newHandle("new lock", path, l, &l.gh, func(user C.uintptr_t) C.int {
		C.gozkl_set_user(&co.user_data, user)
		return C.zkl_lock_new(c.c, cp, &co, &l.h)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// NewSemaphore is NewLock with Kind Semaphore and the given number of leases.
// Each Lock takes one lease per acquisition.
func (c *Client) NewSemaphore(path string, leases int) (*Lock, error) {
	if leases < 1 {
		return nil, &OpError{Op: "new lock", Path: path, Err: Errno(zklEinval)}
	}
	return c.NewLock(path, &LockOptions{Kind: Semaphore, MaxLeases: leases})
}

// Path returns the lock's ZooKeeper path.
func (l *Lock) Path() string { return l.path }

// Client returns the client the lock belongs to.
func (l *Lock) Client() *Client { return l.client }

// Kind returns the lock's recipe.
func (l *Lock) Kind() Kind { return l.kind }

func (l *Lock) err(op string, rc C.int) error {
	return l.pending.err(op, l.path, rc)
}

// Lock acquires the lock for DefaultOwner, waiting until it is held or ctx
// ends. See Acquire.
func (l *Lock) Lock(ctx context.Context) error {
	_, err := l.Acquire(ctx, DefaultOwner)
	return err
}

// Acquire acquires the lock for owner and returns the hold's fencing token
// (strictly increasing across successive holders of the path). It waits on
// the client's event goroutine without blocking an OS thread.
//
// ctx's deadline is zkl's timeout: without one the wait is unbounded; a
// deadline that has already passed tries once (a free lock is acquired, a
// taken one fails with ErrTimeout at once); otherwise zkl waits at most
// until the deadline and then fails with ErrTimeout (matching
// context.DeadlineExceeded too). When ctx is cancelled, the acquire is
// cancelled (ErrCanceled, matching context.Canceled). A failed acquire
// leaves no node. Other errors: ErrDeadlock (a non-reentrant lock already
// held by owner), ErrBusy (held or being acquired by another owner on this
// handle), ErrClosed, ErrMismatch, ErrAuth. A Reentrant lock already held
// by owner only counts one more hold.
func (l *Lock) Acquire(ctx context.Context, owner uint64) (uint64, error) {
	return l.acquire(ctx, "acquire", l.path, func(ms C.int64_t) (C.int, bool) {
		return C.zkl_lock_acquire_async(l.h, C.uint64_t(owner), ms), true
	}, func() { C.zkl_lock_cancel(l.h) }, func() { l.Release(owner) })
}

// awaitResult waits for the result of an async acquire started with
// timeout ms. When zkl enforces ctx's deadline itself (ownTimer), its
// answer wins. Otherwise, and when ctx is cancelled, the acquire is
// cancelled: then ended is true and r is the acquire's own end, which may
// still be a grant that raced the cancel.
func awaitResult(ctx context.Context, w <-chan acquireResult, ms C.int64_t, ownTimer bool,
	cancel func()) (r acquireResult, ended bool) {
	var done <-chan struct{}
	if ms != 0 || !ownTimer {
		done = ctx.Done()
	}
	select {
	case r = <-w:
		return r, false
	case <-done:
	}
	ended = true
	if ownTimer && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// zkl's timer has the same deadline: its answer is due now.
		select {
		case r = <-w:
			return r, false
		case <-time.After(2 * time.Second):
		}
	}
	cancel()
	select {
	case r = <-w:
	case <-time.After(10 * time.Second):
		// The acquire's end never came (a zkl bug): report it.
		r = acquireResult{err: &OpError{Op: "acquire", Err: Errno(zklEinternal)}}
		ended = false
	}
	return r, ended
}

// withCtx adds the context's deadline error to a timeout that came from it.
func withCtx(err error, ctx context.Context) error {
	var op *OpError
	if err == nil || !errors.As(err, &op) || op.Err != Errno(zklEtimedout) {
		return err
	}
	if _, ok := ctx.Deadline(); ok && op.Ctx == nil {
		op.Ctx = context.DeadlineExceeded
	}
	return err
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
		return 0, &OpError{Op: "try acquire", Path: l.path, Err: Errno(zklEclosed)}
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
// EventReleased to OnEvent reports the outcome (its RequestID is the
// release's; an inner hold of a Reentrant lock is reported at once).
func (l *Lock) ReleaseAsync(owner uint64) error {
	rc := C.zkl_lock_release_async(l.h, C.uint64_t(owner))
	if rc > 0 {
		rc = 0 // the release's request id: its EventReleased carries it
	}
	return l.released("release", rc)
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
			l.hold.end(nil)
		}
	case zklElost:
		// The LOST event of this hold has not been seen if the hold is still
		// open: it is still to come and must not end a later hold.
		if l.hold.armed {
			l.staleLost++
		}
		l.holds = 0
		l.hold.end(ErrLost)
	}
	if rc != 0 {
		if rc == zklEbadhandle && l.closed {
			rc = zklEclosed
		}
		return opErr(op, l.path, rc)
	}
	return nil
}

// IsHeld reports whether the lock is held and provably valid at this
// instant (computed from the monotonic clock: never true while suspended,
// after loss, or once the safety bound has passed without word from the
// server, e.g. after the process was frozen).
func (l *Lock) IsHeld() bool { return C.zkl_lock_is_held(l.h) == 1 }

// ValidUntil returns the lease deadline of the hold: until then the hold
// stays provably valid even if the server is never heard from again (the
// session cannot have expired and the lock been handed to someone else).
// The time carries Go's monotonic clock reading. ok is false when not held
// (or suspended, or past the bound). Pass the fencing token to the
// resource as well: it remains the real defence.
func (l *Lock) ValidUntil() (t time.Time, ok bool) {
	var ms C.int64_t
	rc := C.zkl_lock_valid_for(l.h, &ms)
	return validUntil(rc, ms)
}

// Stats returns this lock's statistics as JSON (its entry of the client's
// document).
func (l *Lock) Stats() ([]byte, error) {
	return statsWith(func(js **C.char, n *C.size_t) C.int { return C.zkl_lock_stats(l.h, js, n) }, l.err)
}

// FencingToken returns the current hold's fencing token, or ErrNotHeld.
func (l *Lock) FencingToken() (uint64, error) {
	return tokenWith(func(t *C.uint64_t) C.int { return C.zkl_lock_fencing_token(l.h, t) }, l.err)
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
// held). When the hold is lost the channel receives the cause and is
// closed: ErrSession (session expired, or disconnected past the safety
// bound), ErrLost (node deleted), ErrClosed (Client.Close while held),
// ErrMaxHold, ErrRevoked or ErrAuth. When the hold ends by Unlock/Release
// or Lock.Close it is closed without a value. So `err := <-l.Lost()` is
// non-nil exactly when the hold ended other than by its holder's release.
func (l *Lock) Lost() <-chan error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hold.ch
}

// Close releases the lock if held, or cancels a pending acquire, and frees
// the handle (the node is deleted in the background). A pending Acquire
// returns ErrClosed. Idempotent.
//
// A member of a MultiLock is closed by the MultiLock's Close (ErrBusy here).
func (l *Lock) Close() error {
	l.mu.Lock()
	inMulti := l.owner != nil && !l.closed
	l.mu.Unlock()
	if inMulti {
		return &OpError{Op: "close", Path: l.path, Err: Errno(zklEbusy)}
	}
	return l.client.closeObj(l.gh, l)
}

// destroy implements handleObj (client mu held).
func (l *Lock) destroy() {
	C.zkl_lock_destroy(l.h)
	l.gh.Delete()
}

// shutdown implements handleObj.
func (l *Lock) shutdown(err, lost error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending.shutdown(err, "acquire", l.path)
	l.holds = 0
	if lost != nil {
		lost = &OpError{Op: "hold", Path: l.path, Err: errnoOf(lost)}
	}
	l.hold.end(lost)
}

// granted records one more hold (mu held).
func (l *Lock) granted() {
	if l.holds == 0 {
		l.hold.arm()
	}
	l.holds++
}

// deliver implements handleObj: runs on the event goroutine.
func (l *Lock) deliver(ev Event) {
	l.mu.Lock()
	l.answer(ev, "acquire", l.path)
	switch ev.Type {
	case EventAcquired:
		l.granted()
	case EventLost:
		if l.staleLost > 0 {
			l.staleLost--
		} else {
			l.holds = 0
			err := ev.Err
			if err == nil {
				err = ErrLost
			}
			l.hold.end(&OpError{Op: "hold", Path: l.path, Err: errnoOf(err)})
		}
	}
	l.mu.Unlock()
	if l.onEvent != nil {
		l.onEvent(ev)
	}
}
