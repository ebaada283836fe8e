package zkl_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// buildZklHold compiles the C contender tests/tools/zkl_hold.c against the
// libzkl that pkg-config finds (the one this package links).
func buildZklHold(t *testing.T) string {
	t.Helper()
	src := filepath.Join(sourceDir, "tests", "tools", "zkl_hold.c")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("zkl_hold.c: %v (set ZKL_SOURCE_DIR)", err)
	}
	bin := filepath.Join(t.TempDir(), "zkl-hold")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	script := fmt.Sprintf(`%s %q $(pkg-config --cflags --libs zkl) -Wl,-rpath,"$(pkg-config --variable=libdir zkl)" -o %q`,
		cc, src, bin)
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("building zkl-hold: %v\n%s", err, out)
	}
	return bin
}

func helperCmd(mode, path string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ZKL_GO_HELPER="+mode, "ZKL_SERVERS="+servers, "ZKL_PATH="+path)
	return cmd
}

// Two Go processes and two C processes (zkl-hold) queue on one fair lock.
// Each Go holder checks through an independent read of the queue that its
// own node, and no other, holds; the holds come in FIFO order and the
// fencing tokens strictly increase across languages.
func TestCrossProcessExclusionWithC(t *testing.T) {
	hold := buildZklHold(t)
	path := uniquePath(t)
	c := connect(t)
	queued := func(n int) {
		eventually(t, 15*time.Second, fmt.Sprintf("%d participants", n), func() bool {
			return len(participants(t, c, path, zkl.Fair)) == n
		})
	}

	c1 := startProc(t, "zkl-hold#1", exec.Command(hold, "--hold", "-1", servers, path))
	t1 := c1.token(t, 20*time.Second)

	// While C holds, a Go process cannot take it.
	try := startProc(t, "go-try", helperCmd("try", path))
	try.expect(t, "busy", 20*time.Second)
	if code := try.wait(t, 10*time.Second); code != 3 {
		t.Fatalf("go-try exit %d, want 3", code)
	}

	a := startProc(t, "go-A", helperCmd("hold", path))
	queued(2)
	b := startProc(t, "go-B", helperCmd("hold", path))
	queued(3)
	c2 := startProc(t, "zkl-hold#2", exec.Command(hold, "--hold", "0", "--timeout", "60000", servers, path))
	queued(4)

	c1.stdin.Close()
	c1.expect(t, "released", 10*time.Second)
	if code := c1.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("zkl-hold#1 exit %d", code)
	}
	t2 := a.token(t, 20*time.Second)
	a.stdin.Close()
	a.expect(t, "released", 10*time.Second)
	t3 := b.token(t, 20*time.Second)
	b.stdin.Close()
	b.expect(t, "released", 10*time.Second)
	t4 := c2.token(t, 20*time.Second)
	c2.expect(t, "released", 10*time.Second)
	for _, p := range []*proc{a, b, c2} {
		if code := p.wait(t, 10*time.Second); code != 0 {
			t.Fatalf("%s exit %d", p.name, code)
		}
	}
	if !(t1 < t2 && t2 < t3 && t3 < t4) {
		t.Fatalf("tokens not strictly increasing: C %d, Go %d, Go %d, C %d", t1, t2, t3, t4)
	}
	queued(0)
}

// The example program, built with go build and run without LD_LIBRARY_PATH,
// twice at once: both finish, and every fencing token printed is distinct.
func TestExampleContend(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "contend")
	build := exec.Command("go", "build", "-o", bin, "./examples/contend")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	path := uniquePath(t)
	var procs []*proc
	for _, name := range []string{"one", "two"} {
		cmd := exec.Command(bin, "-servers", servers, "-path", path, "-name", name, "-n", "3", "-hold", "50ms")
		// The program finds libzkl through the rpath zkl.pc gives it.
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "LD_LIBRARY_PATH=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		procs = append(procs, startProc(t, name, cmd))
	}
	re := regexp.MustCompile(`token=(\d+)`)
	seen := map[uint64]string{}
	for _, p := range procs {
		for line := range p.lines {
			if !strings.Contains(line, "acquired") {
				continue
			}
			m := re.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s: %q", p.name, line)
			}
			tok, _ := strconv.ParseUint(m[1], 10, 64)
			if prev, dup := seen[tok]; dup {
				t.Fatalf("token %d printed by %s and %s", tok, prev, p.name)
			}
			seen[tok] = p.name
		}
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("%s exit %d", p.name, code)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d tokens, want 6", len(seen))
	}
}
