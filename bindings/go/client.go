// Package zkl is the Go binding of libzkl: ZooKeeper locks (fair, reentrant,
// non-fair, read/write), semaphores and leader election behind zkl's C ABI.
//
// A Client owns one ZooKeeper session. Each client's event file descriptor
// sits on the Go netpoller: one goroutine per client parks until the fd is
// readable, drains the event queue with zkl_client_next_event and routes
// every event to the handle it is about. Goroutines waiting in Lock, Campaign
// or WaitConnected park on channels; no OS thread is blocked while waiting.
//
// Waiting calls take a context.Context whose deadline is zkl's timeout
// (none: wait; already passed: try once; else bounded). A cancelled context
// cancels the pending acquire in the C library. A failed acquire leaves no
// node, and the error matches both the zkl sentinel (ErrCanceled or
// ErrTimeout) and the context's error under errors.Is.
//
// Loss is always delivered as loss: a hold's Lost channel receives
// ErrSession on expiry and ErrClosed when the client is closed while
// holding. Nothing is released by a garbage collector: a Lock stays
// registered with its client until it or the client is closed.
//
// Callbacks given in options (OnEvent, OnSession, OnChange) run on the
// client's event goroutine, one at a time, in queue order. They may call any
// method except the ones that wait for an event (Lock, Acquire, Campaign,
// WaitConnected): those would wait for the goroutine that runs the callback.
package zkl

// The link flags are in link_static.go (the bundled archive, the default)
// and link_dynamic.go (pkg-config, with -tags dynamic).

// #include "gozkl.h"
import "C"

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/cgo"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Version returns the version string of the loaded libzkl ("0.2.0").
func Version() string { return C.GoString(C.zkl_version_string()) }

// SessionState is a ZKL_SESSION_* state.
type SessionState int

// Session states.
const (
	Connecting  SessionState = zklSessionConnecting  // no session yet
	Connected   SessionState = zklSessionConnected   // session established
	Suspended   SessionState = zklSessionSuspended   // disconnected; the session may live
	Reconnected SessionState = zklSessionReconnected // back on the same session
	SessionLost SessionState = zklSessionLost        // expired or past the client-side deadline
	Closed      SessionState = zklSessionClosed      // Close was called
	AuthFailed  SessionState = zklSessionAuthFailed  // the server rejected the credentials
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
	EventSession         EventType = zklEventSession         // session state changed
	EventAcquired        EventType = zklEventAcquired        // an acquire succeeded
	EventAcquireFailed   EventType = zklEventAcquireFailed   // an acquire failed (Err)
	EventSuspended       EventType = zklEventSuspended       // a hold MAY be lost: stop using it until Restored
	EventRestored        EventType = zklEventRestored        // heard from the same session in time: held again
	EventLost            EventType = zklEventLost            // the hold is lost: stop using it (Err says why)
	EventReleased        EventType = zklEventReleased        // an async release completed
	EventElected         EventType = zklEventElected         // this participant leads
	EventNotElected      EventType = zklEventNotElected      // queued behind another leader
	EventLeaderChanged   EventType = zklEventLeaderChanged   // observer: a leader is known (Leader, FencingToken = term)
	EventNoLeader        EventType = zklEventNoLeader        // observer: nobody leads now
	EventRevokeRequested EventType = zklEventRevokeRequested // someone asked this holder to let go
	EventWritten         EventType = zklEventWritten         // a guarded write (WriteAsync) finished (Err, RequestID)
)

func (t EventType) String() string {
	names := map[EventType]string{
		EventSession: "session", EventAcquired: "acquired", EventAcquireFailed: "acquire-failed",
		EventSuspended: "suspended", EventRestored: "restored", EventLost: "lost",
		EventReleased: "released", EventElected: "elected", EventNotElected: "not-elected",
		EventLeaderChanged: "leader-changed", EventNoLeader: "no-leader",
		EventRevokeRequested: "revoke-requested", EventWritten: "written",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one zkl event, as delivered to OnEvent callbacks.
type Event struct {
	Type         EventType
	Err          error        // AcquireFailed, Lost, Released, Written: the error (an Errno), else nil
	Session      SessionState // the session state when the event was queued
	Owner        uint64       // owner token of the acquire the event answers
	FencingToken uint64       // the hold's token (Acquired, Elected, Restored, Suspended, Lost), or the leader's term (LeaderChanged)
	Leader       string       // LeaderChanged: the leader's id
	// RequestID is the request id of the asynchronous call the event
	// answers (an acquire or campaign: Acquired, AcquireFailed, Elected,
	// NotElected; ReleaseAsync: Released; WriteAsync: Written); 0 for an
	// event that answers no call (Suspended, Restored, Lost, an election's
	// own rejoin, ...).
	RequestID uint64

	written *WriteResult // Written: the write's results
}

// ACL selects the ACL of the nodes a client creates.
type ACL int

const (
	// ACLOpen is world:anyone:all (ZooKeeper's default).
	ACLOpen ACL = zklAclOpen
	// ACLCreator gives the creator all rights and the world read: other
	// clients cannot delete a holder's node. Requires DigestAuth or SASL.
	ACLCreator ACL = zklAclCreator
)

// TLSConfig turns TLS on (CAFile is required then). Files are PEM.
type TLSConfig struct {
	CAFile      string // CA bundle the server's chain must end in
	CertFile    string // client certificate (chain), for mutual TLS
	KeyFile     string // its private key
	KeyPassword string // passphrase of an encrypted key (a secret)
	// InsecureSkipHostnameCheck accepts a certificate for any host name
	// (the chain is still checked). Dangerous.
	InsecureSkipHostnameCheck bool
}

// SASLConfig turns SASL authentication on.
type SASLConfig struct {
	Mechanism string // "DIGEST-MD5" or "GSSAPI"
	User      string // DIGEST-MD5 user; GSSAPI client principal
	Password  string // DIGEST-MD5 password (a secret)
	Keytab    string // GSSAPI: client keytab file (optional)
	CCache    string // GSSAPI: credential cache (optional)
	Service   string // service name (default "zookeeper")
	Host      string // the server's host name in its principal
}

// Config configures a Client. Only Servers is required.
type Config struct {
	Servers        string        // "host:port,host:port"
	Chroot         string        // optional, e.g. "/apps/x"
	SessionTimeout time.Duration // requested session timeout (0: zkl's default, 10 s)
	// ConnectTimeout bounds the whole wait for a session: Connect and
	// WaitConnected give up after it (with ErrTimeout, or why the attempts
	// failed) unless their context ends first (0: DefaultConnectTimeout;
	// < 0: no bound but the context's). As net.Dialer's Timeout, the
	// earlier of it and the context's deadline wins.
	ConnectTimeout time.Duration
	// AttemptTimeout bounds one connection attempt, TLS handshake included
	// (0: libzkl's share, the session timeout / max(3, servers of the list),
	// so that a silent server costs only its share).
	AttemptTimeout time.Duration
	// LostAfter shortens the safety bound: a hold counts as valid only while
	// the leader answered less than this long ago, and a disconnected
	// session is given up (lost) this long after the connection was lost
	// (0: holds count 3/4 of the negotiated session timeout after the last
	// quorum proof; a disconnected session is given up when the server says
	// it expired or a session timeout after the connection was lost).
	LostAfter  time.Duration
	DigestAuth string // optional "user:password"
	ACL        ACL    // ACL of created nodes (ACLOpen)
	TLS        *TLSConfig
	SASL       *SASLConfig
	// FollowEnsemble, when true, lets the server list follow the
	// ensemble's configuration (ZooKeeper 3.5+ dynamic reconfiguration):
	// NewClient calls FollowEnsemble(true) right after creating the client.
	FollowEnsemble bool
	// Logger receives zkl's log lines (and its ZooKeeper client's), with
	// their level mapped (ERROR, WARN, INFO, DEBUG) and the attribute
	// "component" ("zkl", "zookeeper", "tls", "sasl"). nil: slog.Default(),
	// for warnings and errors only. A Logger given here gets the lines of
	// the most verbose level it has enabled.
	Logger *slog.Logger
	// OnSession, if set, is called on the event goroutine for every session
	// state change.
	OnSession func(SessionState)
}

// DefaultConnectTimeout is the ConnectTimeout of a Config that sets none.
const DefaultConnectTimeout = 30 * time.Second

// handleObj is a Lock, Election or Observer registered with its client.
type handleObj interface {
	deliver(ev Event)
	// destroy frees the C handle; called with the client's mu held.
	destroy()
	// shutdown ends what is pending on the Go side after destroy; a hold
	// still open ends with lost (nil: a clean end).
	shutdown(err, lost error)
}

type routed struct {
	obj handleObj // nil for session and log events
	ev  Event
	log *logLine
}

type logLine struct {
	level     slog.Level
	component string
	msg       string
}

// Client is a ZooKeeper session with its event pump. All methods are safe
// for concurrent use.
type Client struct {
	c         *C.zkl_client
	file      *os.File
	onSession func(SessionState)
	logger    *slog.Logger
	connectTO time.Duration // Config.ConnectTimeout (< 0: none)
	pumpDone  chan struct{}
	pumpGID   atomic.Int64

	mu      sync.Mutex
	closing bool // Close was called
	closed  bool // the C client is destroyed
	objs    map[cgo.Handle]handleObj
	stateCh chan struct{} // closed and replaced on every session event
}

// zkl's log levels and slog's.
var logLevels = []struct {
	zkl  C.int32_t
	slog slog.Level
}{
	{zklLogDebug, slog.LevelDebug},
	{zklLogInfo, slog.LevelInfo},
	{zklLogWarn, slog.LevelWarn},
	{zklLogError, slog.LevelError},
}

func slogLevel(level int) slog.Level {
	for _, l := range logLevels {
		if int(l.zkl) == level {
			return l.slog
		}
	}
	return slog.LevelInfo
}

// cStrings converts option strings for C (freed by free), rejecting NUL.
type cStrings []unsafe.Pointer

func (cs *cStrings) str(s string) (*C.char, bool) {
	if s == "" {
		return nil, true
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	p := C.CString(s)
	*cs = append(*cs, unsafe.Pointer(p))
	return p, true
}

func (cs cStrings) free() {
	for _, p := range cs {
		C.free(p)
	}
}

// NewClient creates a client and starts connecting in the background.
// Use WaitConnected (or Connect) to wait for the session.
func NewClient(cfg Config) (*Client, error) {
	var o C.zkl_client_options
	if rc := C.zkl_client_options_init(&o, zklClientOptionsVersion); rc != 0 {
		return nil, opErr("new client", "", rc)
	}
	var cs cStrings
	defer cs.free()
	ok := true
	set := func(dst **C.char, s string) {
		p, good := cs.str(s)
		ok = ok && good
		*dst = p
	}
	set(&o.servers, cfg.Servers)
	set(&o.chroot, cfg.Chroot)
	set(&o.digest_auth, cfg.DigestAuth)
	if t := cfg.TLS; t != nil {
		set(&o.tls_ca_file, t.CAFile)
		set(&o.tls_cert_file, t.CertFile)
		set(&o.tls_key_file, t.KeyFile)
		set(&o.tls_key_password, t.KeyPassword)
		if t.InsecureSkipHostnameCheck {
			o.tls_insecure_skip_hostname_check = 1
		}
	}
	if s := cfg.SASL; s != nil {
		set(&o.sasl_mechanism, s.Mechanism)
		set(&o.sasl_user, s.User)
		set(&o.sasl_password, s.Password)
		set(&o.sasl_keytab, s.Keytab)
		set(&o.sasl_ccache, s.CCache)
		set(&o.sasl_service, s.Service)
		set(&o.sasl_host, s.Host)
	}
	if !ok {
		return nil, &OpError{Op: "new client", Err: Errno(zklEinval), Reason: "a string option contains a NUL byte"}
	}
	if cfg.SessionTimeout > 0 {
		o.session_timeout_ms = C.int32_t(cfg.SessionTimeout.Milliseconds())
	}
	if cfg.AttemptTimeout > 0 {
		o.connect_timeout_ms = C.int32_t(max(cfg.AttemptTimeout.Milliseconds(), 1))
	}
	o.lost_after_ms = C.int32_t(cfg.LostAfter.Milliseconds())
	o.acl = C.int32_t(cfg.ACL)
	o.io = zklIoThread
	logger, most := cfg.Logger, slog.LevelDebug
	if logger == nil {
		logger, most = slog.Default(), slog.LevelWarn
	}
	level := C.int32_t(zklLogOff)
	for _, l := range logLevels {
		if l.slog >= most && logger.Enabled(context.Background(), l.slog) {
			level = l.zkl
			break
		}
	}
	if level != zklLogOff {
		C.gozkl_set_log(&o, level)
	}
	var cc *C.zkl_client
	var why [512]C.char // libzkl's message: the option and the reason
	if rc := C.zkl_client_create(&o, &cc, &why[0], C.size_t(len(why))); rc != 0 {
		return nil, &OpError{Op: "new client", Err: Errno(rc), Reason: C.GoString(&why[0])}
	}
	fd := C.zkl_client_fd(cc)
	dup := C.int(-1)
	if fd >= 0 {
		dup = C.gozkl_dup(fd)
	}
	if dup < 0 {
		C.zkl_client_destroy(cc)
		return nil, &OpError{Op: "new client", Err: Errno(zklEinternal)}
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	c := &Client{
		c:         cc,
		file:      os.NewFile(uintptr(dup), "zkl-events"),
		onSession: cfg.OnSession,
		logger:    logger,
		connectTO: cfg.ConnectTimeout,
		pumpDone:  make(chan struct{}),
		objs:      map[cgo.Handle]handleObj{},
		stateCh:   make(chan struct{}),
	}
	raw, err := c.file.SyscallConn()
	if err != nil {
		c.file.Close()
		C.zkl_client_destroy(cc)
		return nil, &OpError{Op: "new client", Err: Errno(zklEinternal)}
	}
	go c.pump(raw)
	if cfg.FollowEnsemble {
		if err := c.FollowEnsemble(true); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Connect creates a client and waits until its session is established, at
// most cfg.ConnectTimeout (default 30 s) or until ctx ends, whichever comes
// first (then the client is closed and the error returned).
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

// goid returns the id of the calling goroutine (from its stack header).
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if n, err := strconv.ParseInt(string(b[:i]), 10, 64); err == nil {
			return n
		}
	}
	return -1
}

// pump is the client's event goroutine. RawConn.Read parks it on the
// netpoller until the event fd is readable; the closure drains the queue
// until ZKL_EAGAIN (correct for the edge-triggered netpoller) and the batch
// is delivered outside the closure, so a callback may close the client.
// Close closes the file: the pump then delivers what is left (the LOST
// events of the holds the close ended among them) and frees the client.
func (c *Client) pump(raw rawConn) {
	c.pumpGID.Store(goid())
	defer close(c.pumpDone)
	var batch []routed
	for {
		batch = batch[:0]
		err := raw.Read(func(uintptr) bool {
			batch = c.drain(batch)
			return len(batch) > 0 // false: park until readable
		})
		c.routeAll(batch)
		if err != nil {
			break
		}
	}
	for {
		batch = c.drain(batch[:0])
		if len(batch) == 0 {
			break
		}
		c.routeAll(batch)
	}
	c.finish()
}

func (c *Client) routeAll(batch []routed) {
	for i := range batch {
		c.route(batch[i])
		batch[i] = routed{}
	}
}

// finish frees the client and its handles, after the last delivery.
func (c *Client) finish() {
	c.mu.Lock()
	if !c.closing {
		c.closing = true
		c.mu.Unlock()
		C.zkl_client_close(c.c)
		c.mu.Lock()
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
	lost := &OpError{Op: "hold", Err: Errno(zklEclosed)}
	for _, o := range objs {
		o.shutdown(ErrClosed, lost)
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
			RequestID:    uint64(d.request_id),
		}
		if d.error != 0 {
			e.Err = Errno(d.error)
		}
		if e.Type == zklEventLog {
			line := &logLine{level: slogLevel(int(d.log_level)), component: C.GoString(d.component)}
			if d.len > 0 {
				line.msg = strings.TrimRight(C.GoStringN(d.data, C.int(d.len)), " \r\n")
			}
			C.zkl_event_free(ev)
			batch = append(batch, routed{log: line})
			continue
		}
		if e.Type == EventLeaderChanged && d.len > 0 {
			e.Leader = C.GoStringN(d.data, C.int(d.len))
		}
		if e.Type == EventWritten {
			var ops *C.zkl_ops
			C.zkl_event_ops(ev, &ops)
			r := writeResultOf(ops)
			e.written = &r
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
			continue // an event of a handle closed meanwhile, or STATS
		}
		batch = append(batch, routed{obj: obj, ev: e})
	}
	return batch
}

func (c *Client) route(r routed) {
	switch {
	case r.log != nil:
		c.logger.Log(context.Background(), r.log.level, r.log.msg, "component", r.log.component)
	case r.obj != nil:
		r.obj.deliver(r.ev)
	case r.ev.Type == EventSession && c.onSession != nil:
		c.onSession(r.ev.Session)
	}
}

// register adds a new handle object; called with c.mu held.
func (c *Client) registerLocked(h cgo.Handle, o handleObj) { c.objs[h] = o }

// Close closes the session (the server deletes its nodes), ends every
// pending acquire with ErrClosed, and ends every hold as lost with
// ErrClosed (Lost channels receive it, OnEvent gets EventLost): closing a
// client is never a silent release. Then it frees the client and its
// Locks, Elections and Observers. Idempotent. Safe to call from a callback
// (then the delivery of the last events and the freeing happen after the
// callback returns); otherwise it returns when all is done.
func (c *Client) Close() error {
	c.mu.Lock()
	first := !c.closing
	c.closing = true
	c.mu.Unlock()
	if first {
		// At most one round trip: pending acquires end, holds get LOST.
		C.zkl_client_close(c.c)
		// Wakes the pump, which delivers what is queued and frees all.
		c.file.Close()
	}
	if goid() != c.pumpGID.Load() {
		<-c.pumpDone
	}
	return nil
}

func (c *Client) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// err maps a return code to an error; a destroyed client reads as closed.
func (c *Client) err(op, path string, rc C.int) error {
	if rc == zklEbadhandle && c.isClosing() {
		rc = zklEclosed
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

// WaitConnected waits until the session is connected, at most the client's
// ConnectTimeout (default 30 s) or until ctx ends, whichever comes first:
// nil, ErrClosed, or ErrTimeout / ErrCanceled (wrapping the context's error)
// or, when the attempts failed for a reason libzkl knows, that reason:
// ErrAuth, ErrCert, ErrHostname or ErrClientCert at once when every server
// refused (state AuthFailed), ErrTLS or ErrProtocol when the wait runs out.
// A failure's message says how each server's last attempt failed, when
// libzkl keeps that. It parks the goroutine on session events; it does not
// block an OS thread.
func (c *Client) WaitConnected(ctx context.Context) error {
	if c.connectTO > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.connectTO)
		defer cancel()
	}
	for {
		c.mu.Lock()
		ch := c.stateCh
		c.mu.Unlock()
		switch c.State() {
		case Connected, Reconnected:
			return nil
		case AuthFailed:
			// Why: ErrAuth, or the verification error every server answered
			// with (libzkl's wait with a zero timeout does not block).
			switch rc := C.zkl_client_wait_connected(c.c, 0); {
			case rc == 0:
				return nil // connected meanwhile
			case rc < 0 && rc != zklEtimedout:
				return &OpError{Op: "connect", Err: Errno(rc), Reason: c.connectReason(Errno(rc))}
			}
			// A later attempt is under way (the state moves on): wait for it.
		case Closed:
			return &OpError{Op: "connect", Err: Errno(zklEclosed)}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return c.connectErr(ctx)
		}
	}
}

// connectErr is WaitConnected's error once ctx has ended. A failed TLS
// handshake is no session event: libzkl's wait with a zero timeout (which
// does not block) says why the last attempt failed, and that code replaces
// ErrTimeout / ErrCanceled (the context's error stays wrapped).
func (c *Client) connectErr(ctx context.Context) error {
	err := ctxErr("connect", "", ctx).(*OpError)
	switch rc := C.zkl_client_wait_connected(c.c, 0); {
	case rc == 0:
		return nil // connected meanwhile
	case rc != zklEtimedout:
		err.Err = Errno(rc)
	}
	err.Reason = c.connectReason(err.Err)
	return err
}

// connectReason is code's text followed by why libzkl's connection attempts
// failed, server by server (zkl_client_connect_error), e.g. "timed out
// (127.0.0.1:1 (tcp): connection refused)"; "" when libzkl keeps no failure.
// The code stays the wait's: the failures are the message's detail only.
func (c *Client) connectReason(code Errno) string {
	var buf [1024]C.char // zeroed: "" when the call fails (a closed client)
	C.zkl_client_connect_error(c.c, &buf[0], C.size_t(len(buf)))
	detail := C.GoString(&buf[0])
	if detail == "" {
		return ""
	}
	return C.GoString(C.zkl_strerror(C.int(code))) + " (" + detail + ")"
}

// SetServers replaces the server list ("host:port,host:port", as
// Config.Servers) of the running client; the chroot stays, and so do the
// session and its holds. When the current server is no longer listed (or,
// the list having grown, to spread clients evenly) the client moves: a
// disconnect, so holds see EventSuspended then EventRestored with the same
// tokens. Errors (Op "set servers"): ErrInvalid for an empty or malformed
// list, ErrConnection when no name of it resolves (the old list stays),
// ErrClosed after Close.
func (c *Client) SetServers(servers string) error {
	if strings.IndexByte(servers, 0) >= 0 {
		return &OpError{Op: "set servers", Err: Errno(zklEinval)}
	}
	cs := C.CString(servers)
	defer C.free(unsafe.Pointer(cs))
	if rc := C.zkl_client_set_servers(c.c, cs); rc != 0 {
		return c.err("set servers", "", rc)
	}
	return nil
}

// FollowEnsemble(true) lets the server list follow the ensemble's
// configuration (/zookeeper/config, ZooKeeper 3.5+ dynamic
// reconfiguration), so that servers can be added and removed without
// reconfiguring clients; a server without one (before 3.5, or a static
// configuration) leaves the list as it is, and the statistics' "ensemble"
// says why. FollowEnsemble(false) stops following (the list stays).
// ErrClosed (Op "follow ensemble") after Close.
func (c *Client) FollowEnsemble(on bool) error {
	v := C.int(0)
	if on {
		v = 1
	}
	if rc := C.zkl_client_follow_ensemble(c.c, v); rc != 0 {
		return c.err("follow ensemble", "", rc)
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

// Stats returns the statistics of the client and of each of its handles as
// one JSON document (schema in docs/STATISTICS.md of libzkl).
func (c *Client) Stats() ([]byte, error) {
	var js *C.char
	var n C.size_t
	if rc := C.zkl_client_stats(c.c, &js, &n); rc != 0 {
		return nil, c.err("stats", "", rc)
	}
	defer C.zkl_free(unsafe.Pointer(js))
	return C.GoBytes(unsafe.Pointer(js), C.int(n)), nil
}

// statsOf copies and frees a handle's statistics document.
func statsOf(js *C.char, n C.size_t) []byte {
	defer C.zkl_free(unsafe.Pointer(js))
	return C.GoBytes(unsafe.Pointer(js), C.int(n))
}

// cPath converts a ZooKeeper path for C, rejecting NUL bytes (which C would
// silently truncate at) before any call.
func cPath(op, path string) (*C.char, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return nil, &OpError{Op: op, Path: path, Err: Errno(zklEbadpath)}
	}
	return C.CString(path), nil
}

// timeoutMs converts a context deadline into zkl's milliseconds: -1 without
// a deadline, 0 when it has passed (zkl then tries once), else the time left
// rounded up (so zkl's deadline is never before the context's).
func timeoutMs(ctx context.Context) C.int64_t {
	d, ok := ctx.Deadline()
	if !ok {
		return -1
	}
	left := time.Until(d)
	if left <= 0 {
		return 0
	}
	return C.int64_t((left + time.Millisecond - 1) / time.Millisecond)
}

// validUntil turns a *_valid_for answer into a deadline on the monotonic
// clock (time.Now carries Go's monotonic reading).
func validUntil(rc C.int, ms C.int64_t) (time.Time, bool) {
	if rc != 0 || ms <= 0 {
		return time.Time{}, false
	}
	return time.Now().Add(time.Duration(ms) * time.Millisecond), true
}
