package zkl

// #include "gozkl.h"
import "C"

import (
	"context"
	"time"
	"unsafe"
)

// Participant is one node under a lock or election path, as zkl_inspect
// reads it.
type Participant struct {
	Name         string    // node name
	Holder       bool      // holds the lock (or leads); false while waiting
	FencingToken uint64    // the node's czxid
	SessionID    uint64    // the owning session
	Created      time.Time // node creation time
	Data         []byte    // node data (holder or participant id)
	Leases       int       // semaphore leases it takes (1 for other recipes)
}

// Inspect lists the participants of the lock on path in queue order. The
// read is a blocking C call (one round trip per node), bounded by ctx's
// deadline if it has one.
func (c *Client) Inspect(ctx context.Context, path string, kind Kind) ([]Participant, error) {
	if kind == 0 {
		kind = Fair
	}
	return c.inspect(ctx, path, C.int32_t(kind), 0)
}

// InspectElection lists the participants of the election on path.
func (c *Client) InspectElection(ctx context.Context, path string, kind ElectionKind) ([]Participant, error) {
	if kind == 0 {
		kind = ElectionFair
	}
	return c.inspect(ctx, path, zklLockFair, C.int32_t(kind))
}

func inspectOptions(ctx context.Context, lockKind, electionKind C.int32_t) (C.zkl_inspect_options, C.int) {
	var o C.zkl_inspect_options
	rc := C.zkl_inspect_options_init(&o, zklInspectOptionsVersion)
	o.lock_kind = lockKind
	o.election_kind = electionKind
	o.timeout_ms = timeoutMs(ctx)
	return o, rc
}

func (c *Client) inspect(ctx context.Context, path string, kind, electionKind C.int32_t) ([]Participant, error) {
	if ctx.Err() != nil {
		return nil, ctxErr("inspect", path, ctx)
	}
	cp, err := cPath("inspect", path)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	o, rc := inspectOptions(ctx, kind, electionKind)
	if rc != 0 {
		return nil, opErr("inspect", path, rc)
	}
	var p *C.zkl_participants
	if rc := C.zkl_inspect(c.c, cp, &o, &p); rc != 0 {
		if rc == zklEtimedout && ctx.Err() != nil {
			return nil, ctxErr("inspect", path, ctx)
		}
		return nil, c.err("inspect", path, rc)
	}
	defer C.zkl_participants_free(p)
	n := int(C.zkl_participants_count(p))
	out := make([]Participant, 0, n)
	for i := 0; i < n; i++ {
		idx := C.size_t(i)
		var name, data *C.char
		var dlen C.size_t
		var tok, sid C.uint64_t
		var ctime C.int64_t
		C.zkl_participants_name(p, idx, &name)
		C.zkl_participants_fencing_token(p, idx, &tok)
		C.zkl_participants_session_id(p, idx, &sid)
		C.zkl_participants_ctime_ms(p, idx, &ctime)
		C.zkl_participants_data(p, idx, &data, &dlen)
		pt := Participant{
			Name:         C.GoString(name),
			Holder:       C.zkl_participants_is_holder(p, idx) == 1,
			FencingToken: uint64(tok),
			SessionID:    uint64(sid),
			Created:      time.UnixMilli(int64(ctime)),
			Leases:       int(C.zkl_participants_leases(p, idx)),
		}
		if dlen > 0 {
			pt.Data = C.GoBytes(unsafe.Pointer(data), C.int(dlen))
		}
		out = append(out, pt)
	}
	return out, nil
}

// Revoke asks holders of the lock on path to let go (cooperative, as
// Apache Curator's Revoker; holders see it when their lock watches for it:
// LockOptions.OnRevoke). holder is one participant's Name, or "" for every
// current holder. It returns the number of holders asked.
func (c *Client) Revoke(ctx context.Context, path string, kind Kind, holder string) (int, error) {
	if kind == 0 {
		kind = Fair
	}
	cp, err := cPath("revoke", path)
	if err != nil {
		return 0, err
	}
	defer C.free(unsafe.Pointer(cp))
	var ch *C.char
	if holder != "" {
		ch = C.CString(holder)
		defer C.free(unsafe.Pointer(ch))
	}
	o, rc := inspectOptions(ctx, C.int32_t(kind), 0)
	if rc != 0 {
		return 0, opErr("revoke", path, rc)
	}
	n := C.zkl_revoke(c.c, cp, &o, ch)
	if n < 0 {
		return 0, c.err("revoke", path, n)
	}
	return int(n), nil
}
