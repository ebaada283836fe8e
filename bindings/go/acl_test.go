package zkl_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// Digest auth and creator-only ACLs pass through to the nodes zkl creates:
// everyone can read who holds the lock, the same user contends normally,
// another user is refused (the lock's parent nodes carry the ACL too).
func TestDigestAuthAndCreatorACL(t *testing.T) {
	// Its own tree: parents created by this client carry the ACL too, and
	// other users could not create their lock paths under them.
	path := fmt.Sprintf("/zkl-go-acl/%d/lock", os.Getpid())
	ctx := ctxFor(t, 20*time.Second)
	alice := zkl.Config{DigestAuth: "alice:secret", ACL: zkl.ACLCreator}
	l := newLock(t, connect(t, alice), path, nil)
	tok, err := l.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps := participants(t, connect(t), path, zkl.Fair)
	if len(ps) != 1 || !ps[0].Holder || ps[0].FencingToken != tok {
		t.Fatalf("inspect: %+v", ps)
	}
	same := newLock(t, connect(t, alice), path, nil)
	if err := same.TryLock(); !errors.Is(err, zkl.ErrWouldBlock) {
		t.Fatalf("same user while held: %v", err)
	}
	mallory := newLock(t, connect(t, zkl.Config{DigestAuth: "mallory:guess", ACL: zkl.ACLCreator}), path, nil)
	if err := mallory.TryLock(); !errors.Is(err, zkl.ErrAuth) {
		t.Fatalf("other user: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := same.TryLock(); err != nil {
		t.Fatalf("same user after release: %v", err)
	}
	same.Unlock()
}
