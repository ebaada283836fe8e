// Package zkl is the Go binding of libzkl: ZooKeeper locks (fair, reentrant,
// non-fair, read/write), semaphores and leader election behind zkl's C ABI.
//
// A Client owns one ZooKeeper session. Each client's event file descriptor
// sits on the Go netpoller: one goroutine per client parks until the fd is
// readable, drains the event queue with zkl_client_next_event and routes
// every event to the handle it is about. Goroutines waiting in Lock, Campaign
// or WaitConnected park on channels; no OS thread is blocked while waiting.
//
// Waiting calls take a context.Context: when it is cancelled or its deadline
// passes, the pending acquire is cancelled in the C library (its node is
// deleted) and the call returns an error that matches both the zkl sentinel
// (ErrCanceled or ErrTimeout) and the context's error under errors.Is.
//
// Callbacks given in options (OnEvent, OnSession, OnChange) run on the
// client's event goroutine, one at a time, in queue order. They may call any
// method except the ones that wait for an event (Lock, Acquire, Campaign,
// WaitConnected): those would wait for the goroutine that runs the callback.
package zkl

// #cgo pkg-config: zkl
// #include "gozkl.h"
import "C"

import (
	"context"
	"fmt"
	"os"
	"runtime/cgo"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Version returns the version string of the loaded libzkl ("0.1.0").
func Version() string { return C.GoString(C.zkl_version_string()) }

// SessionState is a ZKL_SESSION_* state.
type SessionState int

// Session states.
const (
	Connecting  SessionState = C.ZKL_SESSION_CONNECTING  // no session yet
	Connected   SessionState = C.ZKL_SESSION_CONNECTED   // session established
	Suspended   SessionState = C.ZKL_SESSION_SUSPENDED   // disconnected; the session may live
	Reconnected SessionState = C.ZKL_SESSION_RECONNECTED // back on the same session
	SessionLost SessionState = C.ZKL_SESSION_LOST        // expired or past the client-side deadline
	Closed      SessionState = C.ZKL_SESSION_CLOSED      // Close was called
	AuthFailed  SessionState = C.ZKL_SESSION_AUTH_FAILED // the server rejected the credentials
)

func (s SessionState) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Connected:
		return "connected"
	case Suspended:
		return "suspended"
	case Reconnected:
		return "reconnected"
	case SessionLost:
		return "lost"
	case Closed:
		return "closed"
	case AuthFailed:
		return "auth-failed"
	}
	return fmt.Sprintf("SessionState(%d)", int(s))
}

// EventType is a ZKL_EVENT_* type.
type EventType int

// Event types.
const (
	EventSession       EventType = C.ZKL_EVENT_SESSION        // session state changed
	EventAcquired      EventType = C.ZKL_EVENT_ACQUIRED       // an acquire succeeded
	EventAcquireFailed EventType = C.ZKL_EVENT_ACQUIRE_FAILED // an acquire failed (Err)
	EventSuspended     EventType = C.ZKL_EVENT_SUSPENDED      // a held lock MAY be lost
	EventRestored      EventType = C.ZKL_EVENT_RESTORED       // reconnected in time: held again
	EventLost          EventType = C.ZKL_EVENT_LOST           // the hold is lost: stop using it
	EventReleased      EventType = C.ZKL_EVENT_RELEASED       // an async release completed
	EventElected       EventType = C.ZKL_EVENT_ELECTED        // this participant leads
	EventNotElected    EventType = C.ZKL_EVENT_NOT_ELECTED    // queued behind another leader
	EventLeaderChanged EventType = C.ZKL_EVENT_LEADER_CHANGED // observer: new leader (Leader)
)

func (t EventType) String() string {
	names := map[EventType]string{
		EventSession: "session", EventAcquired: "acquired", EventAcquireFailed: "acquire-failed",
		EventSuspended: "suspended", EventRestored: "restored", EventLost: "lost",
		EventReleased: "released", EventElected: "elected", EventNotElected: "not-elected",
		EventLeaderChanged: "leader-changed",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one zkl event, as delivered to OnEvent / OnSession callbacks.
type Event struct {
	Type         EventType
	Err          error        // AcquireFailed, Lost, Released: the error (an Errno), else nil
	Session      SessionState // the session state when the event was queued
	Owner        uint64       // owner token of the acquire the event answers
	FencingToken uint64       // Acquired, Elected: the token of the hold/term
	Leader       string       // LeaderChanged: the leader's id ("" when none)
}

// ACL selects the ACL of the nodes a client creates.
type ACL int

const (
	// ACLOpen is world:anyone:all (ZooKeeper's default).
	ACLOpen ACL = C.ZKL_ACL_OPEN
	// ACLCreator gives the creator all rights and the world read: other
	// clients cannot delete a holder's node. Requires DigestAuth.
	ACLCreator ACL = C.ZKL_ACL_CREATOR
)

// Config configures a Client. Only Servers is required.
type Config struct {
	Servers        string        // "host:port,host:port"
	Chroot         string        // optional, e.g. "/apps/x"
	SessionTimeout time.Duration // requested session timeout (0: zkl's default, 10 s)
	// LostAfter is the client-side deadline: a suspended session is declared
	// lost after this long without a reconnect (0: a quarter of the
	// negotiated session timeout; larger values are clamped to that).
	LostAfter  time.Duration
	DigestAuth string // optional "user:password"
	ACL        ACL    // ACL of created nodes (ACLOpen)
	// OnSession, if set, is called on the event goroutine for every session
	// state change.
	OnSession func(SessionState)
}

// handleObj is a Lock, Election or Observer registered with its client.
type handleObj interface {
	deliver(ev Event)
	// destroy frees the C handle; called with the client's mu held.
	destroy()
	// shutdown ends what is pending on the Go side after destroy.
	shutdown(err error)
}

type routed struct {
	obj handleObj // nil for session events
	ev  Event
}

// Client is a ZooKeeper session with its event pump. All methods are safe
// for concurrent use.
type Client struct {
	c         *C.zkl_client
	file      *os.File
	onSession func(SessionState)
	pumpDone  chan struct{}

	mu      sync.Mutex
	closed  bool
	objs    map[cgo.Handle]handleObj
	stateCh chan struct{} // closed and replaced on every session event
}

// NewClient creates a client and starts connecting in the background.
// Use WaitConnected (or Connect) to wait for the session.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Servers == "" {
		return nil, &OpError{Op: "connect", Err: Errno(C.ZKL_EINVAL)}
	}
	for _, s := range []string{cfg.Servers, cfg.Chroot, cfg.DigestAuth} {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, &OpError{Op: "connect", Err: Errno(C.ZKL_EINVAL)}
		}
	}
	servers := C.CString(cfg.Servers)
	defer C.free(unsafe.Pointer(servers))
	var chroot, digest *C.char
	if cfg.Chroot != "" {
		chroot = C.CString(cfg.Chroot)
		defer C.free(unsafe.Pointer(chroot))
	}
	if cfg.DigestAuth != "" {
		digest = C.CString(cfg.DigestAuth)
		defer C.free(unsafe.Pointer(digest))
	}
	var cc *C.zkl_client
	rc := C.gozkl_client_new(servers, chroot, C.int32_t(cfg.SessionTimeout.Milliseconds()),
		C.int32_t(cfg.LostAfter.Milliseconds()), digest, C.int32_t(cfg.ACL), &cc)
	if rc != 0 {
		return nil, opErr("connect", "", rc)
	}
	fd := C.zkl_client_fd(cc)
	dup := C.int(-1)
	if fd >= 0 {
		dup = C.gozkl_dup(fd)
	}
	if dup < 0 {
		C.zkl_client_destroy(cc)
		return nil, &OpError{Op: "connect", Err: Errno(C.ZKL_EINTERNAL)}
	}
	c := &Client{
		c:         cc,
		file:      os.NewFile(uintptr(dup), "zkl-events"),
		onSession: cfg.OnSession,
		pumpDone:  make(chan struct{}),
		objs:      map[cgo.Handle]handleObj{},
		stateCh:   make(chan struct{}),
	}
	raw, err := c.file.SyscallConn()
	if err != nil {
		c.file.Close()
		C.zkl_client_destroy(cc)
		return nil, &OpError{Op: "connect", Err: Errno(C.ZKL_EINTERNAL)}
	}
	go c.pump(raw)
	return c, nil
}

// Connect creates a client and waits until its session is established or
// ctx ends (then the client is closed and the error returned).
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.WaitConnected(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// rawConn is the part of syscall.RawConn the pump uses.
type rawConn interface {
	Read(f func(fd uintptr) (done bool)) error
}

// pump is the client's event goroutine. RawConn.Read parks it on the
// netpoller until the eventfd is readable; the closure drains the queue
// until ZKL_EAGAIN (correct for the edge-triggered netpoller) and the batch
// is delivered outside the closure, so a callback may close the client.
func (c *Client) pump(raw rawConn) {
	defer close(c.pumpDone)
	var batch []routed
	for {
		batch = batch[:0]
		err := raw.Read(func(uintptr) bool {
			batch = c.drain(batch)
			return len(batch) > 0 // false: park until readable
		})
		for i := range batch {
			c.route(batch[i])
			batch[i] = routed{}
		}
		if err != nil {
			return // the file was closed by Close
		}
	}
}

const maxBatch = 64

// drain takes pending events off the C queue. The handle table is locked
// while an event is taken and resolved, so a handle being closed cannot
// have its cgo.Handle deleted in between.
func (c *Client) drain(batch []routed) []routed {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return batch
	}
	for len(batch) < maxBatch {
		var ev *C.zkl_event
		if C.zkl_client_next_event(c.c, &ev) != 0 {
			break // ZKL_EAGAIN: the queue is empty
		}
		var d C.gozkl_event
		C.gozkl_decode(ev, &d)
		e := Event{
			Type:         EventType(d._type),
			Session:      SessionState(d.session_state),
			Owner:        uint64(d.owner),
			FencingToken: uint64(d.token),
		}
		if d.error != 0 {
			e.Err = Errno(d.error)
		}
		if e.Type == EventLeaderChanged && d.len > 0 {
			e.Leader = C.GoStringN(d.data, C.int(d.len))
		}
		var obj handleObj
		if h := cgo.Handle(d.user); h != 0 {
			if _, ok := c.objs[h]; ok {
				obj = h.Value().(handleObj)
			}
		}
		C.zkl_event_free(ev)
		if e.Type == EventSession {
			close(c.stateCh)
			c.stateCh = make(chan struct{})
		} else if obj == nil {
			continue // an event of a handle closed meanwhile
		}
		batch = append(batch, routed{obj: obj, ev: e})
	}
	return batch
}

func (c *Client) route(r routed) {
	if r.obj != nil {
		r.obj.deliver(r.ev)
		return
	}
	if r.ev.Type == EventSession && c.onSession != nil {
		c.onSession(r.ev.Session)
	}
}

// register adds a new handle object; called with c.mu held.
func (c *Client) registerLocked(h cgo.Handle, o handleObj) { c.objs[h] = o }

// Close closes the session (its nodes are deleted by the server), ends every
// pending acquire with ErrClosed, closes every Lock, Election and Observer of
// the client and frees the client. Idempotent. Safe to call from a callback.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	// Close the session first (at most one round trip): pending acquires end
	// and no new ones start.
	C.zkl_client_close(c.c)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	objs := c.objs
	c.objs = map[cgo.Handle]handleObj{}
	for _, o := range objs {
		o.destroy()
	}
	C.zkl_client_destroy(c.c)
	close(c.stateCh)
	c.stateCh = make(chan struct{})
	c.mu.Unlock()
	for _, o := range objs {
		o.shutdown(ErrClosed)
	}
	// Wakes the pump, which exits. (Not waited for: Close may run on it.)
	c.file.Close()
	return nil
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// err maps a return code to an error; a destroyed client reads as closed.
func (c *Client) err(op, path string, rc C.int) error {
	if rc == C.ZKL_EBADHANDLE && c.isClosed() {
		rc = C.ZKL_ECLOSED
	}
	return opErr(op, path, rc)
}

// State returns the current session state.
func (c *Client) State() SessionState {
	rc := C.zkl_client_state(c.c)
	if rc < 0 {
		return Closed
	}
	return SessionState(rc)
}

// WaitConnected waits until the session is connected: nil, ErrAuth, ErrClosed,
// or the context's error (matching ErrTimeout or ErrCanceled too). It parks
// the goroutine on session events; it does not block an OS thread.
func (c *Client) WaitConnected(ctx context.Context) error {
	for {
		c.mu.Lock()
		ch := c.stateCh
		c.mu.Unlock()
		switch c.State() {
		case Connected, Reconnected:
			return nil
		case AuthFailed:
			return &OpError{Op: "connect", Err: Errno(C.ZKL_EAUTH)}
		case Closed:
			return &OpError{Op: "connect", Err: Errno(C.ZKL_ECLOSED)}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctxErr("connect", "", ctx)
		}
	}
}

// awaitSession waits for a session when there is none (state Connecting, or
// SessionLost while a new one is being established).
//
// Work-around for a core bug: an acquire (or election start) submitted
// while the ZooKeeper handle is still connecting creates its node twice
// (the queued create, and another one from the new-session path), and the
// second node is orphaned until the session ends, blocking later waiters.
func (c *Client) awaitSession(ctx context.Context, op, path string) error {
	if st := c.State(); st != Connecting && st != SessionLost {
		return nil
	}
	if err := c.WaitConnected(ctx); err != nil {
		if ctx.Err() != nil {
			return ctxErr(op, path, ctx)
		}
		return &OpError{Op: op, Path: path, Err: errnoOf(err)}
	}
	return nil
}

// SessionID returns the current session id (0 while there is none).
func (c *Client) SessionID() uint64 {
	var id C.uint64_t
	if C.zkl_client_session_id(c.c, &id) != 0 {
		return 0
	}
	return uint64(id)
}

// SessionPassword returns the session's 16-byte password. With SessionID it
// lets a tool re-attach to (or expire) the session: treat it as a secret.
func (c *Client) SessionPassword() ([]byte, error) {
	buf := make([]byte, 16)
	rc := C.zkl_client_session_password(c.c, unsafe.Pointer(&buf[0]), C.size_t(len(buf)))
	if rc < 0 {
		return nil, c.err("session password", "", rc)
	}
	return buf[:rc], nil
}

// SessionTimeout returns the negotiated session timeout (0 while not connected).
func (c *Client) SessionTimeout() time.Duration {
	rc := C.zkl_client_session_timeout(c.c)
	if rc < 0 {
		return 0
	}
	return time.Duration(rc) * time.Millisecond
}

// Counter selects a ZKL_COUNTER_*.
type Counter int

// Counters (monotonic since the client was created).
const (
	CounterRequests    Counter = C.ZKL_COUNTER_REQUESTS     // ZooKeeper requests sent
	CounterWatchEvents Counter = C.ZKL_COUNTER_WATCH_EVENTS // watch notifications seen
	CounterEvents      Counter = C.ZKL_COUNTER_EVENTS       // user events queued
	CounterSessions    Counter = C.ZKL_COUNTER_SESSIONS     // sessions established
	CounterHeartbeats  Counter = C.ZKL_COUNTER_HEARTBEATS   // heartbeats while locks are held
)

// Counter returns one of the client's counters.
func (c *Client) Counter(which Counter) (uint64, error) {
	var v C.uint64_t
	if rc := C.zkl_client_counter(c.c, C.int32_t(which), &v); rc != 0 {
		return 0, c.err("counter", "", rc)
	}
	return uint64(v), nil
}

// cPath converts a ZooKeeper path for C, rejecting NUL bytes (which C would
// silently truncate at) before any call.
func cPath(op, path string) (*C.char, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return nil, &OpError{Op: op, Path: path, Err: Errno(C.ZKL_EBADPATH)}
	}
	return C.CString(path), nil
}

// timeoutMs converts a context deadline into zkl's milliseconds (-1: none).
func timeoutMs(ctx context.Context) C.int64_t {
	d, ok := ctx.Deadline()
	if !ok {
		return -1
	}
	ms := time.Until(d).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return C.int64_t(ms)
}
