package zkl_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkl-project/zkl-go"
)

// The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
// ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR).

const (
	tlsAttempt = 3 * time.Second  // bound of one attempt (AttemptTimeout), handshake included
	tlsBound   = 10 * time.Second // a failing connect must end within this (no hang)
)

// tlsServer returns the TLS connect string and the certificates dir; it
// skips without them, and fails under CI.
func tlsServer(t *testing.T) (string, string) {
	t.Helper()
	servers, certs := os.Getenv("ZKL_TEST_TLS_SERVERS"), os.Getenv("ZKL_TEST_TLS_DIR")
	if servers == "" || certs == "" {
		const why = "ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)"
		if envBool(t, "CI") {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	return servers, certs
}

// envBool reads a yes/no environment variable strictly: unset or empty is
// false; 1/0, true/false, yes/no, on/off in any case; anything else fails.
func envBool(t testing.TB, name string) bool {
	t.Helper()
	switch strings.ToLower(os.Getenv(name)) {
	case "", "0", "false", "no", "off":
		return false
	case "1", "true", "yes", "on":
		return true
	}
	t.Fatalf("$%s must be one of 1/0, true/false, yes/no, on/off (any case), not %q", name, os.Getenv(name))
	return false
}

// quiet is a logger for clients whose failing attempts each log an error.
var quiet = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1}))

// tlsConfig is a client config for the TLS server: ca and, when not empty,
// cert and key name files of the certificates dir.
func tlsConfig(t *testing.T, ca, cert, key, keyPassword string) zkl.Config {
	servers, certs := tlsServer(t)
	at := func(name string) string {
		if name == "" {
			return ""
		}
		return filepath.Join(certs, name)
	}
	return zkl.Config{
		Servers: servers, SessionTimeout: 6 * time.Second, AttemptTimeout: tlsAttempt,
		TLS: &zkl.TLSConfig{CAFile: at(ca), CertFile: at(cert), KeyFile: at(key), KeyPassword: keyPassword},
	}
}

// tlsConnectFails asserts that connecting with cfg fails with want, within
// the bound, and returns the error.
func tlsConnectFails(t *testing.T, cfg zkl.Config, want error) error {
	t.Helper()
	// Each of the retried attempts logs an error: not in the test output.
	cfg.Logger = quiet
	start := time.Now()
	// Waits past one attempt: the error says why the attempts failed.
	ctx, cancel := context.WithTimeout(context.Background(), tlsAttempt+2*time.Second)
	defer cancel()
	c, err := zkl.Connect(ctx, cfg)
	if err == nil {
		c.Close()
		t.Fatal("connected")
	}
	if !errors.Is(err, want) {
		t.Fatalf("connect: %v, want %v", err, want)
	}
	if d := time.Since(start); d > tlsBound {
		t.Fatalf("connect failed after %v (bound %v)", d, tlsBound)
	}
	return err
}

func TestTLS_tls_lock_and_election(t *testing.T) {
	cfg := tlsConfig(t, "ca.pem", "client.crt", "client.key", "")
	a, b := connect(t, cfg), connect(t, cfg)
	path := uniquePath(t)
	ctx := ctxFor(t, 30*time.Second)

	l := newLock(t, a, path+"/lock", nil)
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if tok, err := l.FencingToken(); err != nil || tok == 0 || !l.IsHeld() {
		t.Fatalf("held over TLS: token %d %v, held %v", tok, err, l.IsHeld())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if l.IsHeld() {
		t.Fatal("held after release")
	}

	e := newElection(t, a, path+"/election", zkl.ElectionFair, "alpha", nil)
	term, err := e.Campaign(ctx)
	if err != nil || !e.IsLeader() {
		t.Fatalf("campaign over TLS: %v, leader %v", err, e.IsLeader())
	}
	obs, err := b.NewObserver(path+"/election", zkl.ElectionFair, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	waitLeader(t, obs, "alpha", 10*time.Second)
	if got, err := obs.Term(); err != nil || got != term {
		t.Fatalf("observer's term %d %v, want %d", got, err, term)
	}
	if err := e.Resign(); err != nil {
		t.Fatal(err)
	}
}

func TestTLS_tls_encrypted_key(t *testing.T) {
	_, certs := tlsServer(t)
	pass, err := os.ReadFile(filepath.Join(certs, "client-key.pass"))
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, tlsConfig(t, "ca.pem", "client.crt", "client-enc.key", strings.TrimSpace(string(pass))))
	l := newLock(t, c, uniquePath(t), nil)
	if err := l.Lock(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestTLS_tls_wrong_ca(t *testing.T) {
	// The server's chain ends in ca.pem, not in the CA trusted here.
	tlsConnectFails(t, tlsConfig(t, "other-ca.pem", "client.crt", "client.key", ""), zkl.ErrCert)
}

func TestTLS_tls_wrong_ca_ends_wait(t *testing.T) {
	// No session yet and every server refused verification: the state
	// becomes AuthFailed with ErrCert, which ends the event-driven wait long
	// before its 20 s, with that code (not ErrAuth, not ErrTimeout).
	cfg := tlsConfig(t, "other-ca.pem", "client.crt", "client.key", "")
	cfg.Logger, cfg.ConnectTimeout = quiet, 20*time.Second
	c, err := zkl.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	err = c.WaitConnected(context.Background())
	d := time.Since(start)
	if !errors.Is(err, zkl.ErrCert) || zkl.Code(err) != zkl.Code(zkl.ErrCert) {
		t.Fatalf("WaitConnected: %v, want %v", err, zkl.ErrCert)
	}
	if d > 5*time.Second {
		t.Fatalf("WaitConnected failed only after %v (timeout 20 s)", d)
	}
	if s := c.State(); s != zkl.AuthFailed {
		t.Fatalf("state %v, want %v", s, zkl.AuthFailed)
	}
	if msg := err.Error(); !strings.Contains(msg, " (tls): ") {
		t.Fatalf("the message does not say why: %q", msg)
	}
}

func TestTLS_tls_no_client_cert(t *testing.T) {
	// The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
	tlsConnectFails(t, tlsConfig(t, "ca.pem", "", "", ""), zkl.ErrClientCert)
}

// The errors_detail_* scenarios: a failure's message says why, as libzkl
// does (the option and the reason; each server's failed attempt).

func TestTLS_errors_detail_key_missing(t *testing.T) {
	cfg := tlsConfig(t, "ca.pem", "client.crt", "missing.key", "")
	c, err := zkl.NewClient(cfg)
	if err == nil {
		c.Close()
		t.Fatal("created a client with a missing key file")
	}
	if !errors.Is(err, zkl.ErrCert) {
		t.Fatalf("new client: %v, want %v", err, zkl.ErrCert)
	}
	if msg := err.Error(); !strings.Contains(msg, cfg.TLS.KeyFile) || !strings.Contains(msg, "No such file") {
		t.Fatalf("the message does not name the file and the reason: %q", msg)
	}
}

func TestTLS_errors_detail_refused(t *testing.T) {
	// Nothing listens on port 1: each attempt is refused; the wait runs out.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := zkl.Connect(ctx, zkl.Config{Servers: "127.0.0.1:1", AttemptTimeout: time.Second, Logger: quiet})
	if err == nil {
		c.Close()
		t.Fatal("connected to a closed port")
	}
	if !errors.Is(err, zkl.ErrTimeout) {
		t.Fatalf("connect: %v, want %v", err, zkl.ErrTimeout)
	}
	if msg := err.Error(); !strings.Contains(msg, "127.0.0.1:1 (tcp)") || !strings.Contains(msg, "refused") {
		t.Fatalf("the message does not say the attempts were refused: %q", msg)
	}
}

func TestTLS_errors_detail_wrong_ca(t *testing.T) {
	err := tlsConnectFails(t, tlsConfig(t, "other-ca.pem", "client.crt", "client.key", ""), zkl.ErrCert)
	if msg := err.Error(); !strings.Contains(msg, " (tls): ") || !strings.Contains(msg, "certificate") {
		t.Fatalf("the message does not say why the server was not trusted: %q", msg)
	}
}
