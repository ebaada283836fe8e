package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"fmt"
	"strings"
	"unsafe"
)

// Guarded writes (zkl.h, "Guarded writes"): ZooKeeper writes that are
// applied only while the hold is real at the quorum. The operations run in
// one ZooKeeper multi behind a check that the holder's own node still
// exists, all or nothing; a holder that was frozen, cut off or expired
// writes nothing, whatever it believes.

// CreateMode is the mode of a created node (ZKL_CREATE_*).
type CreateMode int32

// Create modes (flags of Ops.Create, combinable with |).
const (
	CreatePersistent CreateMode = zklCreatePersistent // a plain node
	CreateEphemeral  CreateMode = zklCreateEphemeral  // dies with this client's session
	CreateSequential CreateMode = zklCreateSequential // a sequence number is appended: WriteResult.Paths has the name
)

// AnyVersion (ZKL_ANY_VERSION) as the version of Ops.Set, Delete or Check
// matches whatever version the node has.
const AnyVersion int32 = zklAnyVersion

// MaxOpsBytes (ZKL_OPS_MAX_BYTES) is the most one write's operations may
// carry, paths and data together.
const MaxOpsBytes = zklOpsMaxBytes

const (
	opCreate = iota
	opSet
	opDelete
	opCheck
)

type writeOp struct {
	kind int
	path string
	data []byte
	arg  int32 // create: the mode; set, delete, check: the version
}

// Ops is the list of operations of one guarded write (Lock.Write,
// MultiLock.Write, Election.Write). Every path must lie strictly below the
// lock's (or election's) path, e.g. /locks/job/state for the lock
// /locks/job: ErrBadPath otherwise, and nothing is sent. The methods append
// and return o, so calls chain; an operation libzkl refuses (a malformed
// path, a bad mode or version, more than MaxOpsBytes) makes the write fail
// with that error (Op "write", Path the operation's path) before anything
// is sent. The zero value is an empty list. An Ops may be written again
// (each write has its own results); it is not safe for concurrent use.
type Ops struct {
	ops []writeOp
}

// NewOps returns an empty operations list.
func NewOps() *Ops { return &Ops{} }

// Create creates path with data (mode: CreatePersistent, CreateEphemeral,
// CreateSequential, or an | of them). ErrExists when the node exists.
func (o *Ops) Create(path string, data []byte, mode CreateMode) *Ops {
	o.ops = append(o.ops, writeOp{kind: opCreate, path: path, data: data, arg: int32(mode)})
	return o
}

// Set replaces the data of path if its version is version (AnyVersion:
// whatever it is). ErrBadVersion, ErrNotFound.
func (o *Ops) Set(path string, data []byte, version int32) *Ops {
	o.ops = append(o.ops, writeOp{kind: opSet, path: path, data: data, arg: version})
	return o
}

// Delete deletes path if its version is version (AnyVersion: whatever it
// is). ErrBadVersion, ErrNotFound, ErrNotEmpty.
func (o *Ops) Delete(path string, version int32) *Ops {
	o.ops = append(o.ops, writeOp{kind: opDelete, path: path, arg: version})
	return o
}

// Check writes nothing: the write fails (ErrBadVersion, ErrNotFound) unless
// path exists with version (AnyVersion: any).
func (o *Ops) Check(path string, version int32) *Ops {
	o.ops = append(o.ops, writeOp{kind: opCheck, path: path, arg: version})
	return o
}

// Len returns the number of operations.
func (o *Ops) Len() int { return len(o.ops) }

// cOps builds the C list; the caller frees it with zkl_ops_free. An
// operation libzkl refuses gives its error, naming its path.
func (o *Ops) cOps() (*C.zkl_ops, error) {
	var ops *C.zkl_ops
	if rc := C.zkl_ops_new(&ops); rc != 0 {
		return nil, opErr("write", "", rc)
	}
	if o == nil {
		return ops, nil
	}
	for _, op := range o.ops {
		if strings.IndexByte(op.path, 0) >= 0 {
			C.zkl_ops_free(ops)
			return nil, &OpError{Op: "write", Path: op.path, Err: Errno(zklEbadpath)}
		}
		cp := C.CString(op.path)
		var data unsafe.Pointer
		if len(op.data) > 0 {
			data = C.CBytes(op.data)
		}
		var rc C.int
		switch op.kind {
		case opCreate:
			rc = C.zkl_ops_create(ops, cp, data, C.size_t(len(op.data)), C.int32_t(op.arg))
		case opSet:
			rc = C.zkl_ops_set(ops, cp, data, C.size_t(len(op.data)), C.int32_t(op.arg))
		case opDelete:
			rc = C.zkl_ops_delete(ops, cp, C.int32_t(op.arg))
		case opCheck:
			rc = C.zkl_ops_check(ops, cp, C.int32_t(op.arg))
		}
		C.free(unsafe.Pointer(cp))
		C.free(data)
		if rc != 0 {
			C.zkl_ops_free(ops)
			return nil, opErr("write", op.path, rc)
		}
	}
	return ops, nil
}

// WriteResult is what a guarded write did, operation by operation.
type WriteResult struct {
	// Failed is the index of the operation that failed (ErrExists,
	// ErrBadVersion, ErrNotFound, ErrNotEmpty, ErrAuth), or -1: every
	// operation applied, or the write failed for no one operation's reason
	// (ErrLost, ErrNotHeld, ErrInDoubt, ...).
	Failed int
	// Paths has, for each operation, the path a create made (with its
	// sequence number), "" for the others and when nothing was applied.
	Paths []string
	// Versions has, for each operation, the node's data version after a
	// create (0) or set, -1 for the others and when nothing was applied.
	Versions []int32
}

// String describes the result for people.
func (r WriteResult) String() string {
	return fmt.Sprintf("WriteResult{Failed: %d, Paths: %q, Versions: %v}", r.Failed, r.Paths, r.Versions)
}

// writeResultOf reads the results of a C list (valid while it lives).
func writeResultOf(ops *C.zkl_ops) WriteResult {
	r := WriteResult{Failed: -1}
	if ops == nil {
		return r
	}
	r.Failed = int(C.zkl_ops_failed(ops))
	if r.Failed < -1 {
		r.Failed = -1
	}
	n := int(C.zkl_ops_count(ops))
	if n < 0 {
		n = 0
	}
	r.Paths = make([]string, n)
	r.Versions = make([]int32, n)
	var buf [512]C.char
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		if rc := C.zkl_ops_path(ops, idx, &buf[0], C.size_t(len(buf))); rc >= 0 {
			if int(rc) < len(buf) {
				r.Paths[i] = C.GoString(&buf[0])
			} else {
				big := make([]C.char, int(rc)+1)
				C.zkl_ops_path(ops, idx, &big[0], C.size_t(len(big)))
				r.Paths[i] = C.GoString(&big[0])
			}
		}
		var v C.int32_t
		if C.zkl_ops_version(ops, idx, &v) == 0 {
			r.Versions[i] = int32(v)
		} else {
			r.Versions[i] = -1
		}
	}
	return r
}

// WriteDone is the answer of an asynchronous guarded write (WriteAsync).
type WriteDone struct {
	Result WriteResult
	// Err is nil when every operation was applied; else why nothing was
	// (see Lock.Write).
	Err error
	// FencingToken is the token of the hold the write was guarded by.
	FencingToken uint64
}

// writeDoneOf is the answer a WRITTEN event carries (path: the handle's).
func writeDoneOf(ev Event, path string) WriteDone {
	d := WriteDone{FencingToken: ev.FencingToken, Result: WriteResult{Failed: -1}}
	if ev.written != nil {
		d.Result = *ev.written
	}
	if ev.Err != nil {
		d.Err = &OpError{Op: "write", Path: path, Err: errnoOf(ev.Err)}
	}
	return d
}

// write sends a guarded write with send (a zkl_*_write_async call) and
// returns the channel of its answer, matched to it by the request id.
func (p *pending) write(path string, ops *Ops, send func(*C.zkl_ops) C.int) (<-chan WriteDone, error) {
	cops, err := ops.cOps()
	if err != nil {
		return nil, err
	}
	defer C.zkl_ops_free(cops)
	ch, rc := p.writes.start(p, func() C.int { return send(cops) })
	if rc < 0 {
		return nil, p.err("write", path, rc)
	}
	return ch, nil
}

// awaitWrite waits for an asynchronous write's answer, or for ctx: a write
// cannot be cancelled once sent, so when ctx ends first the error matches
// ErrInDoubt (it may still be applied) and the context's error.
func awaitWrite(ctx context.Context, ch <-chan WriteDone, op, path string) (WriteResult, error) {
	select {
	case d := <-ch:
		return d.Result, d.Err
	case <-ctx.Done():
		return WriteResult{Failed: -1}, &OpError{Op: op, Path: path, Err: Errno(zklEindoubt), Ctx: ctx.Err()}
	}
}

// Write runs ops guarded by owner's hold of this lock, all or nothing, and
// waits for the server's answer (parking the goroutine, not an OS thread).
// It returns the results, and nil when every operation was applied; on an
// error nothing was applied: ErrNotHeld / ErrNotOwner (not held, by this
// owner), ErrLost (the hold is gone at the quorum), ErrSession, ErrExists,
// ErrBadVersion, ErrNotFound, ErrNotEmpty, ErrAuth (an operation failed:
// WriteResult.Failed says which), ErrBadPath (an operation outside the
// lock's tree), ErrTooBig, ErrBusy (a member of a MultiLock: write through
// it). ErrInDoubt when the connection broke while the write was in flight:
// it may have been applied (read back before retrying). A write never
// retries itself, and cannot be cancelled once sent: when ctx ends first,
// Write returns an error matching ErrInDoubt and ctx's error.
func (l *Lock) Write(ctx context.Context, owner uint64, ops *Ops) (WriteResult, error) {
	ch, err := l.WriteAsync(owner, ops)
	if err != nil {
		return WriteResult{Failed: -1}, err
	}
	return awaitWrite(ctx, ch, "write", l.path)
}

// WriteAsync sends a guarded write (see Write) and returns at once: the
// channel receives its one answer, matched to it by the request id libzkl
// gave it. The errors Write checks before sending come back here.
func (l *Lock) WriteAsync(owner uint64, ops *Ops) (<-chan WriteDone, error) {
	return l.write(l.path, ops, func(o *C.zkl_ops) C.int {
		return C.zkl_lock_write_async(l.h, C.uint64_t(owner), o)
	})
}

// Write runs ops guarded by every member's node (see Lock.Write); the
// operations lie below any member's path.
func (m *MultiLock) Write(ctx context.Context, owner uint64, ops *Ops) (WriteResult, error) {
	ch, err := m.WriteAsync(owner, ops)
	if err != nil {
		return WriteResult{Failed: -1}, err
	}
	return awaitWrite(ctx, ch, "write", "")
}

// WriteAsync is Lock.WriteAsync for the multi-lock.
func (m *MultiLock) WriteAsync(owner uint64, ops *Ops) (<-chan WriteDone, error) {
	return m.write("", ops, func(o *C.zkl_ops) C.int {
		return C.zkl_multilock_write_async(m.h, C.uint64_t(owner), o)
	})
}

// Write runs ops guarded by this participant's leadership (ErrNotHeld when
// it does not lead); see Lock.Write. The operations lie below the
// election's path.
func (e *Election) Write(ctx context.Context, ops *Ops) (WriteResult, error) {
	ch, err := e.WriteAsync(ops)
	if err != nil {
		return WriteResult{Failed: -1}, err
	}
	return awaitWrite(ctx, ch, "write", e.path)
}

// WriteAsync is Lock.WriteAsync for the leader.
func (e *Election) WriteAsync(ops *Ops) (<-chan WriteDone, error) {
	return e.write(e.path, ops, func(o *C.zkl_ops) C.int {
		return C.zkl_election_write_async(e.h, o)
	})
}

// Proclaim replaces the value the leader publishes (its id, the node's
// data) without leaving the election (etcd's Proclaim): observers report
// the new id with the same term. One round trip, guarded as a write:
// ErrNotHeld when not leader, ErrLost, ErrInDoubt, ErrTooBig. A later
// rejoin publishes the new id too. ID still returns the id the
// participant was created with, as in every binding.
func (e *Election) Proclaim(id string) error {
	var data unsafe.Pointer
	if len(id) > 0 {
		data = C.CBytes([]byte(id))
		defer C.free(data)
	}
	if rc := C.zkl_election_proclaim(e.h, data, C.size_t(len(id))); rc != 0 {
		return e.err("proclaim", rc)
	}
	return nil
}

// FenceCheck tells a resource that is not ZooKeeper whether token is the
// fencing token of a current holder of the lock of kind on path: nil when
// it is, an error matching ErrStale when it is not (a later holder has it,
// or nobody); ErrTimeout (ctx's deadline), ErrConnection... when the
// question could not be answered. The answer is read after a sync, so it
// is at least as new as the quorum's state when the call began. It is a
// snapshot: a resource that must not accept a stale holder compares tokens
// itself, and uses this to refuse early or to audit. A blocking C call.
func (c *Client) FenceCheck(ctx context.Context, path string, kind Kind, token uint64) error {
	if kind == 0 {
		kind = Fair
	}
	return c.fenceCheck(ctx, path, C.int32_t(kind), 0, token)
}

// FenceCheckElection is FenceCheck for the leader of the election of kind
// on path (token: a term).
func (c *Client) FenceCheckElection(ctx context.Context, path string, kind ElectionKind, token uint64) error {
	if kind == 0 {
		kind = ElectionFair
	}
	return c.fenceCheck(ctx, path, zklLockFair, C.int32_t(kind), token)
}

func (c *Client) fenceCheck(ctx context.Context, path string, lockKind, electionKind C.int32_t, token uint64) error {
	if ctx.Err() != nil {
		return ctxErr("fence check", path, ctx)
	}
	cp, err := cPath("fence check", path)
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cp))
	o, rc := inspectOptions(ctx, lockKind, electionKind)
	if rc != 0 {
		return opErr("fence check", path, rc)
	}
	if rc := C.zkl_fence_check(c.c, cp, &o, C.uint64_t(token)); rc != 0 {
		if rc == zklEtimedout && ctx.Err() != nil {
			return ctxErr("fence check", path, ctx)
		}
		return c.err("fence check", path, rc)
	}
	return nil
}
