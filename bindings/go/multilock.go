package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"runtime/cgo"
	"time"
	"unsafe"
)

// MultiLock is several locks taken all or none (zkl_multilock): one
// deadline for all members, always taken in one canonical order (by path)
// so overlapping multi-locks never deadlock. On timeout, cancel or loss of
// any member, the members already taken are released; the loss of one
// member is the loss of the whole.
//
// It takes over its member Locks: from then on only their getters
// (IsHeld, FencingToken, ValidUntil, HoldCount, Stats) work, their own
// OnEvent gets nothing, and MultiLock.Close closes them.
type MultiLock struct {
	client  *Client
	h       *C.zkl_multilock
	gh      cgo.Handle
	members []*Lock
	onEvent func(Event)

	pending          // mu, closed, and the pending acquires and writes
	hold    lostChan // the current (or last) hold's Lost channel
}

// NewMultiLock groups idle locks of this client (any mix of kinds, on
// distinct paths) into one multi-lock. onEvent, if not nil, receives its
// events (Acquired, AcquireFailed, Suspended, Restored, Lost, Released).
func (c *Client) NewMultiLock(members []*Lock, onEvent func(Event)) (*MultiLock, error) {
	if len(members) == 0 {
		return nil, &OpError{Op: "new multilock", Err: Errno(zklEinval)}
	}
	m := &MultiLock{client: c, members: append([]*Lock(nil), members...), onEvent: onEvent, hold: endedLost()}
	hs := C.malloc(C.size_t(len(members)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(hs)
	arr := unsafe.Slice((**C.zkl_lock)(hs), len(members))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil, &OpError{Op: "new multilock", Err: Errno(zklEclosed)}
	}
	for i, l := range members {
		if l.client != c {
			return nil, &OpError{Op: "new multilock", Path: l.path, Err: Errno(zklEinval)}
		}
		if _, ok := c.objs[l.gh]; !ok {
			return nil, &OpError{Op: "new multilock", Path: l.path, Err: Errno(zklEclosed)}
		}
		arr[i] = l.h
	}
	var o C.zkl_multilock_options
	if rc := C.zkl_multilock_options_init(&o, zklMultilockOptionsVersion); rc != 0 {
		return nil, opErr("new multilock", "", rc)
	}
	m.gh = cgo.NewHandle(handleObj(m))
	C.gozkl_set_user(&o.user_data, C.uintptr_t(m.gh))
	if rc := C.zkl_multilock_new(c.c, (**C.zkl_lock)(hs), C.size_t(len(members)), &o, &m.h); rc != 0 {
		m.gh.Delete()
		return nil, opErr("new multilock", "", rc)
	}
	// The members now belong to the multi-lock: their events stop, and
	// zkl_multilock_destroy frees them.
	for _, l := range members {
		delete(c.objs, l.gh)
		l.mu.Lock()
		l.owner = m
		l.mu.Unlock()
	}
	c.registerLocked(m.gh, m)
	return m, nil
}

// Members returns the member locks (in the order given).
func (m *MultiLock) Members() []*Lock { return append([]*Lock(nil), m.members...) }

func (m *MultiLock) err(op string, rc C.int) error {
	return m.pending.err(op, "", rc)
}

// Lock acquires all members for DefaultOwner. See Acquire.
func (m *MultiLock) Lock(ctx context.Context) error { return m.Acquire(ctx, DefaultOwner) }

// Acquire takes every member for owner, with ctx's deadline as the one
// deadline for all (the same timeout rules as Lock.Acquire).
func (m *MultiLock) Acquire(ctx context.Context, owner uint64) error {
	_, err := m.acquire(ctx, "acquire", "", func(ms C.int64_t) (C.int, bool) {
		return C.zkl_multilock_acquire_async(m.h, C.uint64_t(owner), ms), true
	}, func() { C.zkl_multilock_cancel(m.h) }, func() { m.Release(owner) })
	return err
}

// TryLock takes every member for DefaultOwner if none is in the way.
func (m *MultiLock) TryLock() error {
	if rc := C.zkl_multilock_try_acquire(m.h, C.uint64_t(DefaultOwner)); rc != 0 {
		return m.err("try acquire", rc)
	}
	m.mu.Lock()
	m.hold.arm()
	m.mu.Unlock()
	return nil
}

// Unlock releases every member held by DefaultOwner.
func (m *MultiLock) Unlock() error { return m.Release(DefaultOwner) }

// Release releases every member held by owner.
func (m *MultiLock) Release(owner uint64) error {
	rc := C.zkl_multilock_release(m.h, C.uint64_t(owner))
	m.mu.Lock()
	switch rc {
	case 0:
		m.hold.end(nil)
	case zklElost:
		m.hold.end(ErrLost)
	}
	m.mu.Unlock()
	if rc != 0 {
		return m.err("release", rc)
	}
	return nil
}

// IsHeld reports whether every member is held, provably at this instant.
func (m *MultiLock) IsHeld() bool { return C.zkl_multilock_is_held(m.h) == 1 }

// ValidUntil is the earliest lease deadline of the members (see
// Lock.ValidUntil).
func (m *MultiLock) ValidUntil() (time.Time, bool) {
	var ms C.int64_t
	rc := C.zkl_multilock_valid_for(m.h, &ms)
	return validUntil(rc, ms)
}

// FencingToken returns the fencing token of the member on path: ErrNotFound
// for a path that is no member, ErrNotHeld when not held.
func (m *MultiLock) FencingToken(path string) (uint64, error) {
	cp, err := cPath("fencing token", path)
	if err != nil {
		return 0, err
	}
	defer C.free(unsafe.Pointer(cp))
	var t C.uint64_t
	if rc := C.zkl_multilock_fencing_token(m.h, cp, &t); rc != 0 {
		return 0, m.err("fencing token", rc)
	}
	return uint64(t), nil
}

// Lost is the channel of the current (or last) hold, as Lock.Lost.
func (m *MultiLock) Lost() <-chan error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hold.ch
}

// Close releases or cancels, then frees the multi-lock and its members.
func (m *MultiLock) Close() error {
	return m.client.closeObj(m.gh, m)
}

func (m *MultiLock) destroy() {
	C.zkl_multilock_destroy(m.h)
	m.gh.Delete()
	for _, l := range m.members {
		l.gh.Delete()
	}
}

func (m *MultiLock) shutdown(err, lost error) {
	m.mu.Lock()
	m.pending.shutdown(err, "acquire", "")
	if lost != nil {
		lost = &OpError{Op: "hold", Err: errnoOf(lost)}
	}
	m.hold.end(lost)
	m.mu.Unlock()
	for _, l := range m.members {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
	}
}

func (m *MultiLock) deliver(ev Event) {
	m.mu.Lock()
	m.answer(ev, "acquire", "")
	switch ev.Type {
	case EventAcquired:
		m.hold.arm()
	case EventLost:
		err := ev.Err
		if err == nil {
			err = ErrLost
		}
		m.hold.end(&OpError{Op: "hold", Err: errnoOf(err)})
	}
	m.mu.Unlock()
	if m.onEvent != nil {
		m.onEvent(ev)
	}
}
