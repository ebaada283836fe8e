package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"errors"
	"strings"
)

// Errno is a zkl error code (a negative ZKL_E* value from zkl.h). Every error
// returned by this package wraps one, so it can be tested with errors.Is
// against the sentinels below, or extracted with errors.As.
type Errno int

// Error returns zkl_strerror's text for the code.
func (e Errno) Error() string {
	return "zkl: " + C.GoString(C.zkl_strerror(C.int(e)))
}

// Code returns the numeric ZKL_E* value.
func (e Errno) Code() int { return int(e) }

// The ZKL_E* codes of zkl.h, as comparable error values.
var (
	ErrInvalid      error = Errno(zklEinval)      // invalid argument or option
	ErrBadPath      error = Errno(zklEbadpath)    // malformed ZooKeeper path
	ErrBadHandle    error = Errno(zklEbadhandle)  // destroyed or unknown handle
	ErrTimeout      error = Errno(zklEtimedout)   // the wait ran out (context deadline)
	ErrWouldBlock   error = Errno(zklEagain)      // TryLock: another holder is in the way
	ErrCanceled     error = Errno(zklEcanceled)   // the acquire was cancelled
	ErrNotHeld      error = Errno(zklEnotheld)    // release of a lock that is not held
	ErrNotOwner     error = Errno(zklEnotowner)   // release by an owner that does not hold it
	ErrBusy         error = Errno(zklEbusy)       // acquire pending or held by another owner
	ErrDeadlock     error = Errno(zklEdeadlk)     // re-acquire of a non-reentrant lock
	ErrClosed       error = Errno(zklEclosed)     // the client (or handle) is closed
	ErrConnection   error = Errno(zklEconnection) // no connection to ZooKeeper now
	ErrSession      error = Errno(zklEsession)    // the session was lost
	ErrLost         error = Errno(zklElost)       // the lock was lost while held
	ErrMismatch     error = Errno(zklEmismatch)   // participants disagree (lease count)
	ErrAuth         error = Errno(zklEauth)       // authentication failed or ACL denied
	ErrTooBig       error = Errno(zklEtoobig)     // data over 1 MiB
	ErrNoMemory     error = Errno(zklEnomem)      // out of memory
	ErrZooKeeper    error = Errno(zklEzookeeper)  // unexpected ZooKeeper error
	ErrVersion      error = Errno(zklEversion)    // options version not supported
	ErrNotFound     error = Errno(zklEnotfound)   // nothing there (no leader, no node)
	ErrInternal     error = Errno(zklEinternal)   // a bug in zkl
	ErrRange        error = Errno(zklErange)      // index or size out of range
	ErrNotSupported error = Errno(zklEnotsup)     // not supported by this build, server or options
	ErrMaxHold      error = Errno(zklEmaxhold)    // the maximum hold time passed (zkl released)
	ErrRevoked      error = Errno(zklErevoked)    // released on a revocation request
	ErrTLS          error = Errno(zklEtls)        // TLS handshake failed
	ErrCert         error = Errno(zklEcert)       // server certificate not trusted, or TLS files unreadable
	ErrHostname     error = Errno(zklEhostname)   // server certificate does not name the host
	ErrClientCert   error = Errno(zklEclientcert) // client certificate required or rejected
	ErrProtocol     error = Errno(zklEprotocol)   // the server broke off the session handshake
	ErrExists       error = Errno(zklEexists)     // a guarded create: the node exists
	ErrBadVersion   error = Errno(zklEbadversion) // a guarded set/delete/check: another version
	ErrNotEmpty     error = Errno(zklEnotempty)   // a guarded delete: the node has children
	ErrStale        error = Errno(zklEstale)      // FenceCheck: not the current holder's token
	ErrInDoubt      error = Errno(zklEindoubt)    // a guarded write may or may not have been applied
)

// OpError describes a failed operation: what was done, on which path, the
// zkl error code and, when libzkl says why, its reason. When a context ended
// the operation, the context's error (context.Canceled or
// context.DeadlineExceeded) is wrapped as well, so both
// errors.Is(err, zkl.ErrTimeout) and errors.Is(err, context.DeadlineExceeded)
// hold after a deadline.
type OpError struct {
	Op   string // "acquire", "release", "new client", "connect", ...
	Path string // ZooKeeper path, if any
	Err  Errno  // the zkl code
	Ctx  error  // the context's error, if a context ended the operation
	// Reason, when set, is said in place of the code's text: libzkl's
	// message for a client it could not create ("tls_key_file /x/key.pem:
	// cannot open: No such file or directory"), or for a failed connect the
	// code's text with each server's failed attempt ("timed out (127.0.0.1:1
	// (tcp): connection refused)"). For people, not for parsing.
	Reason string
}

func (e *OpError) Error() string {
	var b strings.Builder
	b.WriteString("zkl: ")
	b.WriteString(e.Op)
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	if e.Reason != "" {
		b.WriteString(e.Reason)
	} else {
		b.WriteString(C.GoString(C.zkl_strerror(C.int(e.Err))))
	}
	if e.Ctx != nil {
		b.WriteString(" (")
		b.WriteString(e.Ctx.Error())
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the zkl code and, if set, the context error.
func (e *OpError) Unwrap() []error {
	if e.Ctx != nil {
		return []error{e.Err, e.Ctx}
	}
	return []error{e.Err}
}

// Code returns the ZKL_E* code carried by err, 0 for nil, or ZKL_EINTERNAL's
// value for an error that did not come from zkl.
func Code(err error) int {
	if err == nil {
		return 0
	}
	var e Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return int(zklEinternal)
}

// opErr builds an *OpError for a negative return code (nil for rc >= 0).
func opErr(op, path string, rc C.int) error {
	if rc >= 0 {
		return nil
	}
	return &OpError{Op: op, Path: path, Err: Errno(rc)}
}

// ctxErr is the error for an operation ended by its context.
func ctxErr(op, path string, ctx context.Context) error {
	code := Errno(zklEcanceled)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = Errno(zklEtimedout)
	}
	return &OpError{Op: op, Path: path, Err: code, Ctx: ctx.Err()}
}

// errnoOf returns the Errno in err (ZKL_EINTERNAL when there is none).
func errnoOf(err error) Errno {
	var e Errno
	if errors.As(err, &e) {
		return e
	}
	return Errno(zklEinternal)
}
