// Package zkexpire expires a ZooKeeper session for real, for the binding's
// tests, speaking ZooKeeper's wire protocol itself (no client library): it
// connects to the server as the session (same id and password) and sends
// closeSession on the same socket, pipelined, which ends the session on the
// server. The original client then learns on reconnect that its session
// expired.
package zkexpire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Expire ends the session (id, password) on the first of servers. Taking
// the session over makes the server drop the original connection, and if
// the original client reconnects before the close goes out it takes the
// session back; so it repeats until the server confirms the close or
// answers that the session is already gone, or timeout passes.
func Expire(servers string, id uint64, password []byte, timeout time.Duration) error {
	if id == 0 {
		return errors.New("zkexpire: no session")
	}
	addr := strings.Split(servers, ",")[0]
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		done, err := closeOnce(addr, id, password)
		if done {
			return nil
		}
		last = err
	}
	return fmt.Errorf("zkexpire: session 0x%x not expired within %v: %v", id, timeout, last)
}

func closeOnce(addr string, id uint64, password []byte) (bool, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId,
	// passwd (buffer), readOnly (bool).
	var req []byte
	req = binary.BigEndian.AppendUint32(req, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 30000)
	req = binary.BigEndian.AppendUint64(req, id)
	req = binary.BigEndian.AppendUint32(req, uint32(len(password)))
	req = append(req, password...)
	req = append(req, 0)
	// RequestHeader: xid 1, OpCode.closeSession (-11).
	var cl []byte
	cl = binary.BigEndian.AppendUint32(cl, 1)
	cl = binary.BigEndian.AppendUint32(cl, uint32(0xFFFFFFF5))
	var out []byte
	out = binary.BigEndian.AppendUint32(out, uint32(len(req)))
	out = append(out, req...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(cl)))
	out = append(out, cl...)
	if _, err := conn.Write(out); err != nil {
		return false, err
	}
	reply, err := readPacket(conn)
	if err != nil {
		return false, err
	}
	if len(reply) < 16 {
		return false, errors.New("short connect reply")
	}
	timeoutMs := int32(binary.BigEndian.Uint32(reply[4:8]))
	gotID := binary.BigEndian.Uint64(reply[8:16])
	if timeoutMs <= 0 || gotID != id {
		return true, nil // already expired
	}
	hdr, err := readPacket(conn)
	if err != nil {
		return false, err
	}
	if len(hdr) < 16 {
		return false, errors.New("short reply header")
	}
	xid := int32(binary.BigEndian.Uint32(hdr[0:4]))
	code := int32(binary.BigEndian.Uint32(hdr[12:16]))
	if xid == 1 && code == 0 {
		return true, nil
	}
	return false, fmt.Errorf("close answered xid %d err %d", xid, code)
}

func readPacket(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > 1<<20 {
		return nil, errors.New("packet too large")
	}
	buf := make([]byte, size)
	_, err := io.ReadFull(r, buf)
	return buf, err
}
