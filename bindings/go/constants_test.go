package zkl

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The public constants are the generated ones (constants_gen.go, written by
// scripts/gen-constants from zkl.h), never retyped: this reads zkl.h and
// compares, and runs the generator's drift check.
func TestConformance_constants_match_header(t *testing.T) {
	root := os.Getenv("ZKL_SOURCE_DIR")
	if root == "" {
		root = "../.."
	}
	hdr, err := os.ReadFile(filepath.Join(root, "include", "zkl.h"))
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^#define (ZKL_\w+) (-?\d+)`).FindAllStringSubmatch(string(hdr), -1) {
		v, _ := strconv.Atoi(m[2])
		defs[m[1]] = v
	}
	code := func(err error) int { return Code(err) }
	want := map[string]int{
		"ZKL_EINVAL": code(ErrInvalid), "ZKL_EBADPATH": code(ErrBadPath), "ZKL_EBADHANDLE": code(ErrBadHandle),
		"ZKL_ETIMEDOUT": code(ErrTimeout), "ZKL_EAGAIN": code(ErrWouldBlock), "ZKL_ECANCELED": code(ErrCanceled),
		"ZKL_ENOTHELD": code(ErrNotHeld), "ZKL_ENOTOWNER": code(ErrNotOwner), "ZKL_EBUSY": code(ErrBusy),
		"ZKL_EDEADLK": code(ErrDeadlock), "ZKL_ECLOSED": code(ErrClosed), "ZKL_ECONNECTION": code(ErrConnection),
		"ZKL_ESESSION": code(ErrSession), "ZKL_ELOST": code(ErrLost), "ZKL_EMISMATCH": code(ErrMismatch),
		"ZKL_EAUTH": code(ErrAuth), "ZKL_ETOOBIG": code(ErrTooBig), "ZKL_ENOMEM": code(ErrNoMemory),
		"ZKL_EZOOKEEPER": code(ErrZooKeeper), "ZKL_EVERSION": code(ErrVersion), "ZKL_ENOTFOUND": code(ErrNotFound),
		"ZKL_EINTERNAL": code(ErrInternal), "ZKL_ERANGE": code(ErrRange), "ZKL_ENOTSUP": code(ErrNotSupported),
		"ZKL_EMAXHOLD": code(ErrMaxHold), "ZKL_EREVOKED": code(ErrRevoked), "ZKL_ETLS": code(ErrTLS),
		"ZKL_ECERT": code(ErrCert), "ZKL_EHOSTNAME": code(ErrHostname), "ZKL_ECLIENTCERT": code(ErrClientCert),
		"ZKL_EPROTOCOL": code(ErrProtocol), "ZKL_EEXISTS": code(ErrExists),
		"ZKL_EBADVERSION": code(ErrBadVersion), "ZKL_ENOTEMPTY": code(ErrNotEmpty),
		"ZKL_ESTALE": code(ErrStale), "ZKL_EINDOUBT": code(ErrInDoubt),
		"ZKL_EVENT_WRITTEN":     int(EventWritten),
		"ZKL_CREATE_PERSISTENT": int(CreatePersistent), "ZKL_CREATE_EPHEMERAL": int(CreateEphemeral),
		"ZKL_CREATE_SEQUENTIAL": int(CreateSequential), "ZKL_ANY_VERSION": int(AnyVersion),
		"ZKL_OPS_MAX_BYTES": MaxOpsBytes,
		"ZKL_EVENT_SESSION": int(EventSession), "ZKL_EVENT_ACQUIRED": int(EventAcquired),
		"ZKL_EVENT_ACQUIRE_FAILED": int(EventAcquireFailed), "ZKL_EVENT_SUSPENDED": int(EventSuspended),
		"ZKL_EVENT_RESTORED": int(EventRestored), "ZKL_EVENT_LOST": int(EventLost),
		"ZKL_EVENT_RELEASED": int(EventReleased), "ZKL_EVENT_ELECTED": int(EventElected),
		"ZKL_EVENT_NOT_ELECTED": int(EventNotElected), "ZKL_EVENT_LEADER_CHANGED": int(EventLeaderChanged),
		"ZKL_EVENT_NO_LEADER": int(EventNoLeader), "ZKL_EVENT_REVOKE_REQUESTED": int(EventRevokeRequested),
		"ZKL_SESSION_CONNECTING": int(Connecting), "ZKL_SESSION_CONNECTED": int(Connected),
		"ZKL_SESSION_SUSPENDED": int(Suspended), "ZKL_SESSION_RECONNECTED": int(Reconnected),
		"ZKL_SESSION_LOST": int(SessionLost), "ZKL_SESSION_CLOSED": int(Closed),
		"ZKL_SESSION_AUTH_FAILED": int(AuthFailed),
		"ZKL_LOCK_FAIR":           int(Fair), "ZKL_LOCK_REENTRANT": int(Reentrant), "ZKL_LOCK_NONFAIR": int(NonFair),
		"ZKL_LOCK_READ": int(Read), "ZKL_LOCK_WRITE": int(Write), "ZKL_LOCK_SEMAPHORE": int(Semaphore),
		"ZKL_ELECTION_FAIR": int(ElectionFair), "ZKL_ELECTION_NONFAIR": int(ElectionNonFair),
		"ZKL_ACL_OPEN": int(ACLOpen), "ZKL_ACL_CREATOR": int(ACLCreator),
		"ZKL_REVOKE_IGNORE": int(RevokeIgnore), "ZKL_REVOKE_NOTIFY": int(RevokeNotify),
		"ZKL_REVOKE_RELEASE": int(RevokeRelease), "ZKL_DEFAULT_OWNER": int(DefaultOwner),
		"ZKL_CLIENT_OPTIONS_VERSION": zklClientOptionsVersion, "ZKL_LOCK_OPTIONS_VERSION": zklLockOptionsVersion,
		"ZKL_ELECTION_OPTIONS_VERSION": zklElectionOptionsVersion,
		"ZKL_OBSERVER_OPTIONS_VERSION": zklObserverOptionsVersion,
		"ZKL_INSPECT_OPTIONS_VERSION":  zklInspectOptionsVersion,
		"ZKL_IO_THREAD":                zklIoThread, "ZKL_LOG_DEBUG": zklLogDebug,
	}
	for name, v := range want {
		hv, ok := defs[name]
		if !ok {
			t.Errorf("%s: not in zkl.h", name)
		} else if hv != v {
			t.Errorf("%s: Go %d, zkl.h %d", name, v, hv)
		}
	}
	// Every error code of the header has a sentinel.
	for name, v := range defs {
		if regexp.MustCompile(`^ZKL_E[A-Z]+$`).MatchString(name) && name != "ZKL_ELECTION_FAIR" {
			if _, ok := want[name]; !ok && v < 0 {
				t.Errorf("%s (%d) has no Go sentinel", name, v)
			}
		}
	}
	gen := filepath.Join(root, "scripts", "gen-constants")
	if out, err := exec.Command(gen, "--check").CombinedOutput(); err != nil {
		t.Errorf("gen-constants --check: %v\n%s", err, out)
	}
}
