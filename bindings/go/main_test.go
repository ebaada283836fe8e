package zkl_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// The standalone ZooKeeper server of this test binary (started by TestMain).
var (
	servers   string
	sourceDir string
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("ZKL_GO_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	sourceDir = os.Getenv("ZKL_SOURCE_DIR")
	if sourceDir == "" {
		abs, err := filepath.Abs("../..")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		sourceDir = abs
	}
	dir, err := os.MkdirTemp("", "zkl-go-zk-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	connect, stop, err := startServer(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting ZooKeeper:", err)
		return 1
	}
	defer stop()
	servers = connect
	return m.Run()
}

// startServer starts a throw-away server with scripts/zk-server (which kills
// it should this process die) and returns its connect string and a stop func.
func startServer(dir string) (string, func(), error) {
	script := filepath.Join(sourceDir, "scripts", "zk-server")
	cmd := exec.Command(script, "start", dir)
	cmd.Env = append(os.Environ(), fmt.Sprintf("ZK_OWNER_PID=%d", os.Getpid()))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("%s start: %w", script, err)
	}
	connect := strings.TrimSpace(string(out))
	stop := func() { zkServer(dir, "stop") }
	return connect, stop, nil
}

func zkServer(dir, verb string) error {
	cmd := exec.Command(filepath.Join(sourceDir, "scripts", "zk-server"), verb, dir)
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

var pathSeq atomic.Int64

// uniquePath returns a fresh lock path for the test.
func uniquePath(t testing.TB) string {
	name := regexp.MustCompile(`[^A-Za-z0-9_-]`).ReplaceAllString(t.Name(), "-")
	return fmt.Sprintf("/zkl-go-test/%d/%s-%d", os.Getpid(), name, pathSeq.Add(1))
}

// connect returns a connected client, closed at the end of the test.
func connect(t testing.TB, cfg ...zkl.Config) *zkl.Client {
	t.Helper()
	c := zkl.Config{Servers: servers, SessionTimeout: 6 * time.Second}
	if len(cfg) > 0 {
		c = cfg[0]
		if c.Servers == "" {
			c.Servers = servers
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := zkl.Connect(ctx, c)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

func newLock(t testing.TB, c *zkl.Client, path string, opts *zkl.LockOptions) *zkl.Lock {
	t.Helper()
	l, err := c.NewLock(path, opts)
	if err != nil {
		t.Fatalf("NewLock(%s): %v", path, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// heldLock is a fair lock on path, held (by DefaultOwner) through c.
func heldLock(t testing.TB, c *zkl.Client, path string) *zkl.Lock {
	t.Helper()
	l := newLock(t, c, path, nil)
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	return l
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds or the timeout passes. Only for
// server-side effects that zkl reports with no event (a cancelled acquire's
// node is deleted in the background).
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// participants reads the nodes under path (kind: a lock kind).
func participants(t testing.TB, c *zkl.Client, path string, kind zkl.Kind) []zkl.Participant {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := c.Inspect(ctx, path, kind)
	if err != nil && !errors.Is(err, zkl.ErrNotFound) {
		t.Fatalf("Inspect(%s): %v", path, err)
	}
	return p
}

// waitResult waits (bounded) for a value on ch.
func waitResult[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
	var zero T
	return zero
}

// ---------------------------------------------------------------------------
// The helper process: the test binary re-executed as a contender.
//
//   ZKL_GO_HELPER=hold ZKL_SERVERS=... ZKL_PATH=... <test binary>
//     acquires (fair), checks through an independent read that it is the only
//     holder, prints "acquired <token>", holds until stdin EOF, releases,
//     prints "released".  Exit 4 if another holder is seen.
//   ZKL_GO_HELPER=try ...: TryLock; prints "busy" and exits 3 when taken.
// ---------------------------------------------------------------------------

func helperMain(mode string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	path := os.Getenv("ZKL_PATH")
	c, err := zkl.Connect(ctx, zkl.Config{Servers: os.Getenv("ZKL_SERVERS")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: connect:", err)
		return 1
	}
	defer c.Close()
	l, err := c.NewLock(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	var token uint64
	switch mode {
	case "try":
		token, err = l.TryAcquire(zkl.DefaultOwner)
		if errors.Is(err, zkl.ErrWouldBlock) {
			fmt.Println("busy")
			return 3
		}
	default:
		token, err = l.Acquire(ctx, zkl.DefaultOwner)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: acquire:", err)
		return 1
	}
	// Independent check: ZooKeeper's own view of the queue must show this
	// session's node, and only it, as the holder.
	ps, err := c.Inspect(ctx, path, zkl.Fair)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: inspect:", err)
		return 1
	}
	holders := 0
	for _, p := range ps {
		if p.Holder {
			holders++
			if p.SessionID != c.SessionID() || p.FencingToken != token {
				fmt.Printf("VIOLATION holder %s session %x token %d\n", p.Name, p.SessionID, p.FencingToken)
				return 4
			}
		}
	}
	if holders != 1 {
		fmt.Printf("VIOLATION %d holders\n", holders)
		return 4
	}
	fmt.Printf("acquired %d\n", token)
	if mode != "try" {
		io.Copy(io.Discard, os.Stdin)
	}
	if err := l.Unlock(); err != nil {
		fmt.Fprintln(os.Stderr, "helper: release:", err)
		return 1
	}
	fmt.Println("released")
	return 0
}

// proc is a child contender process with its stdout lines on a channel.
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan error
}

func startProc(t *testing.T, name string, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{name: name, cmd: cmd, lines: make(chan string, 16), done: make(chan error, 1)}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	return p
}

// expect reads the next line and checks its prefix; returns the rest.
func (p *proc) expect(t *testing.T, prefix string, timeout time.Duration) string {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatalf("%s: exited before printing %q", p.name, prefix)
		}
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("%s: got %q, want %q...", p.name, line, prefix)
		}
		return strings.TrimSpace(strings.TrimPrefix(line, prefix))
	case <-time.After(timeout):
		t.Fatalf("%s: no %q within %v", p.name, prefix, timeout)
	}
	return ""
}

func (p *proc) token(t *testing.T, timeout time.Duration) uint64 {
	t.Helper()
	s := p.expect(t, "acquired ", timeout)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: bad token %q", p.name, s)
	}
	return v
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		return 0
	case <-time.After(timeout):
		t.Fatalf("%s: did not exit within %v", p.name, timeout)
	}
	return -1
}
